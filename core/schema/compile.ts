// Core: built-in kinds' schemas as nodes (core/schema/node.ts), compiled from the swagger definitions in
// definitions.generated.json once per isolate and lazily: a definition becomes a node the first time a
// walk needs it, and its `$ref`s become direct links to other definitions' nodes.

import definitions from './definitions.generated.json';
import { GO_FIELD_TYPES } from './go-types';
import { copyCommon, type SchemaNode, type Special } from './node';

type Swagger = Record<string, unknown>;
const DEFS = definitions as unknown as Record<string, Swagger>;

// Definitions whose Go type has its own UnmarshalJSON (apimachinery), decoded specially.
const SPECIALS: Record<string, Special> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 'int-or-string',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': 'time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': 'micro-time',
  'io.k8s.apimachinery.pkg.runtime.RawExtension': 'raw',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': 'raw',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Patch': 'raw',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': 'raw',
};

const compiled = new Map<string, SchemaNode>();
let byKind: Map<string, string> | undefined;

/** The node of a definition (e.g. `io.k8s.api.core.v1.PodSpec`), or undefined if there is none. */
export function definitionNode(name: string): SchemaNode | undefined {
  const done = compiled.get(name);
  if (done) return done;
  const def = DEFS[name];
  if (!def) return undefined;
  const node: SchemaNode = { definition: name };
  compiled.set(name, node); // before the fields: definitions may refer to themselves
  const special = SPECIALS[name];
  const goName = goDefinitionName(name);
  if (special) {
    node.special = special;
    node.goType = goName;
    if (special !== 'raw') node.type = 'string';
    if (typeof def.format === 'string') node.format = def.format;
    return node;
  }
  copyCommon(def, node);
  const props = def.properties as Record<string, Swagger> | undefined;
  if (props) {
    const overrides = GO_FIELD_TYPES[shortDefinition(name)];
    const out: Record<string, SchemaNode> = Object.create(null);
    for (const [field, s] of Object.entries(props)) out[field] = compileSchema(s, overrides?.[field]);
    node.properties = out;
    node.goStruct = goName.slice(goName.indexOf('.') + 1);
    node.goType = goName;
  } else {
    fillChildren(def, node, undefined);
    node.goType = goTypeOf(node);
  }
  return node;
}

/** The node for a served kind, found through its definition's `x-kubernetes-group-version-kind`. */
export function kindNode(group: string, version: string, kind: string): SchemaNode | undefined {
  if (!byKind) {
    byKind = new Map();
    for (const [name, def] of Object.entries(DEFS)) {
      const gvks = def['x-kubernetes-group-version-kind'] as { group: string; version: string; kind: string }[] | undefined;
      // A definition serving several kinds (DeleteOptions, WatchEvent) is not a served object's schema.
      if (gvks?.length === 1) byKind.set(gvkKey(gvks[0].group, gvks[0].version, gvks[0].kind), name);
    }
  }
  const name = byKind.get(gvkKey(group, version, kind));
  return name ? definitionNode(name) : undefined;
}

function gvkKey(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}

function compileSchema(s: Swagger, goType: string | undefined): SchemaNode {
  if (typeof s.$ref === 'string') {
    const target = definitionNode(s.$ref)!;
    const own = Object.keys(s).length > 1; // list/map extensions on the field itself
    if (!own && (!goType || goType === target.goType)) return target;
    const node: SchemaNode = { ...target };
    copyCommon(s, node);
    if (goType) node.goType = goType;
    return node;
  }
  const node: SchemaNode = {};
  copyCommon(s, node);
  if (s.properties) {
    const out: Record<string, SchemaNode> = Object.create(null);
    for (const [field, p] of Object.entries(s.properties as Record<string, Swagger>)) out[field] = compileSchema(p, undefined);
    node.properties = out;
  }
  fillChildren(s, node, goType);
  node.goType = goType ?? goTypeOf(node);
  return node;
}

function fillChildren(s: Swagger, node: SchemaNode, goType: string | undefined): void {
  if (s.items && typeof s.items === 'object') {
    node.items = compileSchema(s.items as Swagger, goType?.startsWith('[]') ? goType.slice(2) : undefined);
  }
  if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    node.additionalProperties = compileSchema(s.additionalProperties as Swagger, undefined);
  }
  if (node.type === 'string' && node.format === 'int-or-string') node.special = 'int-or-string';
}

/** reflect.Type.String() of the Go type a schema decodes into, when no named type says otherwise. */
function goTypeOf(n: SchemaNode): string {
  switch (n.type) {
    case 'string':
      return n.format === 'byte' ? '[]uint8' : 'string';
    case 'integer':
      return n.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'array':
      return `[]${n.items?.goType ?? 'interface {}'}`;
    case 'object':
      return n.additionalProperties ? `map[string]${n.additionalProperties.goType}` : 'map[string]interface {}';
    default:
      return 'interface {}';
  }
}

// io.k8s.api.core.v1.PodSpec → v1.PodSpec; io.k8s.apimachinery.pkg.api.resource.Quantity → resource.Quantity.
function goDefinitionName(name: string): string {
  const parts = name.split('.');
  return `${parts[parts.length - 2]}.${parts[parts.length - 1]}`;
}

function shortDefinition(name: string): string {
  return name.replace(/^io\.k8s\.api\./, '').replace(/^io\.k8s\.apimachinery\.pkg\.apis\./, '');
}
