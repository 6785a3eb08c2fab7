// Core: the schemas the published OpenAPI documents carry, rebuilt from core/schema/*.generated.json (the Kubernetes
// swagger definitions, descriptions kept apart): with descriptions restored, in swagger 2.0 form for /openapi/v2 or
// in kube-apiserver's OpenAPI v3 form for /openapi/v3/<group-version>, and the set of definitions a document needs.
//
// The v3 form is what kube-openapi produces from the same Go types (builder3 + util.WrapRefs): `$ref`s point at
// `#/components/schemas/X`, and a `$ref` with sibling keywords (a description, patch metadata) is wrapped as
// `allOf: [{$ref}]` next to those siblings, because OpenAPI 3.0 ignores a `$ref`'s siblings. Keys are sorted, as Go
// marshals them. Not reproduced: the `default: {}` / `default: ""` markers kube's v3 generator adds for non-pointer
// Go fields; the swagger source does not carry them, and no client reads them from published documents.

import definitionsJson from '../schema/definitions.generated.json';
import descriptionsJson from '../schema/descriptions.generated.json';

export type Schema = Record<string, unknown>;

const DEFINITIONS = definitionsJson as Record<string, Schema>;
const DESCRIPTIONS = descriptionsJson as Record<string, string>;

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

let byGvk: Map<string, string> | undefined;

/**
 * The definition whose `x-kubernetes-group-version-kind` lists this GVK (`io.k8s.api.core.v1.Pod` for v1 Pod,
 * `io.k8s.api.events.v1.Event` for events.k8s.io/v1 Event); undefined for kinds the generated data lacks.
 */
export function definitionFor(gvk: GroupVersionKind): string | undefined {
  if (!byGvk) {
    byGvk = new Map();
    for (const [name, schema] of Object.entries(DEFINITIONS)) {
      for (const g of (schema['x-kubernetes-group-version-kind'] as GroupVersionKind[] | undefined) ?? []) {
        const key = gvkKey(g);
        if (!byGvk.has(key)) byGvk.set(key, name);
      }
    }
  }
  return byGvk.get(gvkKey(gvk));
}

function gvkKey(g: GroupVersionKind): string {
  return `${g.group}/${g.version}/${g.kind}`;
}

export function hasDefinition(name: string): boolean {
  return Object.hasOwn(DEFINITIONS, name);
}

/** Calls visit on every schema node of a compact definition: the definition, properties, items, additionalProperties. */
function eachNode(s: Schema, visit: (node: Schema) => void): void {
  visit(s);
  const props = s.properties as Record<string, Schema> | undefined;
  if (props) for (const p of Object.values(props)) eachNode(p, visit);
  for (const key of ['items', 'additionalProperties'] as const) {
    const sub = s[key];
    if (sub && typeof sub === 'object') eachNode(sub as Schema, visit);
  }
}

const directRefs = new Map<string, string[]>();

function refsOf(name: string): string[] {
  let refs = directRefs.get(name);
  if (!refs) {
    const found = new Set<string>();
    eachNode(DEFINITIONS[name]!, (node) => {
      if (typeof node.$ref === 'string') found.add(node.$ref);
    });
    directRefs.set(name, (refs = [...found]));
  }
  return refs;
}

/** The named definitions and every definition they reference, transitively, sorted; unknown names are dropped. */
export function referencedDefinitions(roots: Iterable<string>): string[] {
  const seen = new Set<string>();
  const queue = [...roots].filter(hasDefinition);
  for (const r of queue) seen.add(r);
  for (let i = 0; i < queue.length; i++) {
    for (const ref of refsOf(queue[i]!)) {
      if (!seen.has(ref)) {
        seen.add(ref);
        queue.push(ref);
      }
    }
  }
  return [...seen].sort();
}

export type SchemaStyle = 'v2' | 'v3';

/**
 * Types whose Go OpenAPIV3OneOfTypes() makes their v3 schema a oneOf where swagger 2.0 has a plain string
 * (kube-openapi common.OpenAPIV3OneOfTypes). `kubectl explain` then names them (`map[string]Quantity`), not `string`.
 */
const V3_ONE_OF: Record<string, Schema> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { oneOf: [{ type: 'string' }, { type: 'number' }] },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] },
};

const REF_PREFIX: Record<SchemaStyle, string> = { v2: '#/definitions/', v3: '#/components/schemas/' };

const published: Record<SchemaStyle, Map<string, Schema>> = { v2: new Map(), v3: new Map() };

/**
 * A definition with its descriptions, `$ref`s absolute, in the given document style. Built once per isolate and
 * shared by every document that includes it (the v3 documents overlap heavily: ObjectMeta, PodSpec, ...), so callers
 * must not mutate it. Bounded: at most two entries per generated definition.
 */
export function publishedSchema(name: string, style: SchemaStyle): Schema {
  let schema = published[style].get(name);
  if (schema) return schema;
  const source = DEFINITIONS[name];
  if (!source) throw new Error(`no OpenAPI definition ${name}`);
  const oneOf = style === 'v3' ? V3_ONE_OF[name] : undefined;
  schema = oneOf ? sortKeys({ description: DESCRIPTIONS[name], ...oneOf }) : expand(source, name, style, true);
  published[style].set(name, schema);
  return schema;
}

/**
 * `path` is the description key (`Definition` or `Definition.prop.prop`, see scripts/openapi-schemas.ts). Item and
 * additionalProperties schemas share their property's key and carry no description of their own in the source.
 */
function expand(s: Schema, path: string, style: SchemaStyle, described: boolean): Schema {
  const out: Schema = {};
  for (const [key, v] of Object.entries(s)) {
    if (key === '$ref') out.$ref = REF_PREFIX[style] + (v as string);
    else if (key === 'properties') {
      const props: Schema = {};
      for (const [prop, sub] of Object.entries(v as Record<string, Schema>)) props[prop] = expand(sub, `${path}.${prop}`, style, true);
      out.properties = props;
    } else if ((key === 'items' || key === 'additionalProperties') && v && typeof v === 'object') {
      out[key] = expand(v as Schema, path, style, false);
    } else out[key] = v;
  }
  if (described) {
    const text = DESCRIPTIONS[path];
    if (text !== undefined) out.description = text;
  }
  if (style === 'v3' && typeof out.$ref === 'string' && Object.keys(out).length > 1) {
    out.allOf = [{ $ref: out.$ref }];
    delete out.$ref;
  }
  return sortKeys(out);
}

function sortKeys(o: Schema): Schema {
  const out: Schema = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k];
  return out;
}
