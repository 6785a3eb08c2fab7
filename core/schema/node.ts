// Core: the one internal form of a schema, shared by built-in kinds (compiled from the swagger
// definitions, core/schema/compile.ts) and, later, custom resources (CRD structural schemas, OpenAPI v3,
// via fromOpenAPIV3 below). Every pass over an object — decoding like the Go structs, pruning, unknown
// fields, defaulting, validation, server-side apply, the published OpenAPI — reads these nodes.
//
// A node is plain data with its children already resolved (no `$ref` left), so a walk is pointer
// chasing only. Graphs may be cyclic (JSONSchemaProps refers to itself).

/** The JSON shape a node accepts. `undefined` (no type) accepts any value, as an untyped schema does. */
export type NodeType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';

/**
 * Values with their own decoding, as the Go types with an UnmarshalJSON do (apimachinery):
 * - quantity: resource.Quantity — a string or number, parsed and stored canonical;
 * - int-or-string: intstr.IntOrString — a string, or an integer that fits int32;
 * - time / micro-time: metav1.Time / MicroTime — RFC 3339 (second / microsecond precision);
 * - raw: runtime.RawExtension, FieldsV1, apiextensions JSON — any JSON value, kept as is.
 */
export type Special = 'quantity' | 'int-or-string' | 'time' | 'micro-time' | 'raw';

export interface SchemaNode {
  type?: NodeType;
  format?: string; // int32, int64, double, byte, date-time, ...
  special?: Special;
  /** Object fields (a Go struct); `null`-prototype record for fast own lookups. */
  properties?: Record<string, SchemaNode>;
  /** Map values (a Go map[string]T). A node has properties or additionalProperties, or neither. */
  additionalProperties?: SchemaNode;
  items?: SchemaNode;
  required?: readonly string[];
  nullable?: boolean;
  enum?: readonly unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  pattern?: string;
  default?: unknown;
  /** x-kubernetes-preserve-unknown-fields: fields not in `properties` are kept, not pruned. */
  preserveUnknownFields?: boolean;
  /** x-kubernetes-embedded-resource: an object with apiVersion, kind and metadata of its own. */
  embeddedResource?: boolean;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: readonly string[];
  mapType?: 'atomic' | 'granular';
  patchStrategy?: string;
  patchMergeKey?: string;
  /** The definition this node was compiled from (built-in kinds), e.g. io.k8s.api.core.v1.PodSpec. */
  definition?: string;
  /**
   * Go decoding (built-in kinds only; CRD nodes leave them unset): the Go struct name for objects with
   * properties (encoding/json names it in type errors), and the Go type of a value here, as
   * reflect.Type.String() prints it ("int32", "[]v1.Container", "map[string]string", "v1.PodSpec").
   */
  goStruct?: string;
  goType?: string;
  /** What a plain scalar here accepts without more ado (see leafOf); the walker's fast path. */
  leaf?: Leaf;
  /** CRD schemas only: allOf/anyOf/oneOf/not, value validations on the same value (core/crd/custom-object.ts). */
  junctors?: Junctors;
}

/** The junctors of a structural schema node: each branch validates the node's own value. */
export interface Junctors {
  allOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  not?: SchemaNode;
}

/**
 * Scalar nodes the walker checks with one typeof ('' for the rest: specials, byte strings, composites).
 * Strings rather than an enum: the walker compares them without reaching into another module.
 */
export type Leaf = '' | 'string' | 'boolean' | 'int32' | 'int64' | 'number';

/** The leaf kind of a node whose type, format and special are set. */
export function leafOf(n: SchemaNode): Leaf {
  if (n.special !== undefined) return '';
  switch (n.type) {
    case 'string':
      return n.format === 'byte' ? '' : 'string';
    case 'boolean':
      return 'boolean';
    case 'integer':
      return n.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'number';
    default:
      return '';
  }
}

type V3 = Record<string, unknown>;

/**
 * A node with every field present, in one order: all nodes share one hidden class, so the walker's
 * property reads stay monomorphic (a mix of shapes made the walk several times slower).
 */
export function newNode(): SchemaNode {
  return {
    type: undefined, format: undefined, special: undefined, properties: undefined, additionalProperties: undefined,
    items: undefined, required: undefined, nullable: undefined, enum: undefined, minimum: undefined, maximum: undefined,
    exclusiveMinimum: undefined, exclusiveMaximum: undefined, minLength: undefined, maxLength: undefined,
    minItems: undefined, maxItems: undefined, minProperties: undefined, maxProperties: undefined, pattern: undefined,
    default: undefined, preserveUnknownFields: undefined, embeddedResource: undefined, listType: undefined,
    listMapKeys: undefined, mapType: undefined, patchStrategy: undefined, patchMergeKey: undefined,
    definition: undefined, goStruct: undefined, goType: undefined, leaf: '', junctors: undefined,
  };
}

/**
 * A CRD's OpenAPI v3 (structural) schema as a node. `x-kubernetes-int-or-string` becomes the int-or-string
 * special; `x-kubernetes-preserve-unknown-fields` with no type (or a type-less object) accepts anything.
 */
export function fromOpenAPIV3(schema: V3): SchemaNode {
  const node = newNode();
  copyCommon(schema, node);
  if (schema['x-kubernetes-int-or-string'] === true) node.special = 'int-or-string';
  if (schema.properties && typeof schema.properties === 'object') {
    const props: Record<string, SchemaNode> = Object.create(null);
    for (const [k, v] of Object.entries(schema.properties as Record<string, V3>)) props[k] = fromOpenAPIV3(v);
    node.properties = props;
  }
  const ap = schema.additionalProperties;
  if (ap && typeof ap === 'object') node.additionalProperties = fromOpenAPIV3(ap as V3);
  else if (ap === true) node.additionalProperties = newNode();
  if (schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items)) node.items = fromOpenAPIV3(schema.items as V3);
  const junctors: Junctors = {};
  for (const j of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = schema[j];
    if (Array.isArray(list) && list.length) junctors[j] = list.filter((b) => b && typeof b === 'object' && !Array.isArray(b)).map((b) => fromOpenAPIV3(b as V3));
  }
  if (schema.not && typeof schema.not === 'object' && !Array.isArray(schema.not)) junctors.not = fromOpenAPIV3(schema.not as V3);
  if (junctors.allOf || junctors.anyOf || junctors.oneOf || junctors.not) node.junctors = junctors;
  node.leaf = leafOf(node);
  return node;
}

/** The keywords that mean the same in swagger 2.0 definitions and OpenAPI v3 CRD schemas. */
export function copyCommon(s: V3, node: SchemaNode): void {
  const t = s.type;
  if (t === 'object' || t === 'array' || t === 'string' || t === 'integer' || t === 'number' || t === 'boolean') node.type = t;
  if (typeof s.format === 'string') node.format = s.format;
  if (Array.isArray(s.required)) node.required = s.required as string[];
  if (s.nullable === true) node.nullable = true;
  if (Array.isArray(s.enum)) node.enum = s.enum;
  for (const k of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const) {
    if (typeof s[k] === 'number') node[k] = s[k] as number;
  }
  if (s.exclusiveMinimum === true) node.exclusiveMinimum = true;
  if (s.exclusiveMaximum === true) node.exclusiveMaximum = true;
  if (typeof s.pattern === 'string') node.pattern = s.pattern;
  if ('default' in s) node.default = s.default;
  if (s['x-kubernetes-preserve-unknown-fields'] === true) node.preserveUnknownFields = true;
  if (s['x-kubernetes-embedded-resource'] === true) node.embeddedResource = true;
  const lt = s['x-kubernetes-list-type'];
  if (lt === 'atomic' || lt === 'set' || lt === 'map') node.listType = lt;
  if (Array.isArray(s['x-kubernetes-list-map-keys'])) node.listMapKeys = s['x-kubernetes-list-map-keys'] as string[];
  const mt = s['x-kubernetes-map-type'];
  if (mt === 'atomic' || mt === 'granular') node.mapType = mt;
  if (typeof s['x-kubernetes-patch-strategy'] === 'string') node.patchStrategy = s['x-kubernetes-patch-strategy'] as string;
  if (typeof s['x-kubernetes-patch-merge-key'] === 'string') node.patchMergeKey = s['x-kubernetes-patch-merge-key'] as string;
}
