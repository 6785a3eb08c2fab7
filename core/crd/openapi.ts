// Core: the OpenAPI v3 document of a CRD-defined group/version (/openapi/v3/apis/<g>/<v>), as apiextensions
// builds it (pkg/controller/openapi/builder/builder.go BuildOpenAPIV3): the built-in path shapes, the kind's
// schema from the CRD with apiVersion, kind and metadata added and x-kubernetes-group-version-kind set, and
// a <Kind>List. kubectl reads it for `explain` and to learn that the server validates fields.

import { componentSchemas, contentHash, pathsFor, type PublishedV3Document } from '../discovery/openapi-v3';
import { SERVER_VERSION } from '../discovery/legacy';
import { allResourceTypes, typesInGroupVersion, type ResourceType } from '../registry';

type Json = Record<string, unknown>;
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** `com.example.stable.v1.CronTab`: the group reversed, as kube-openapi names CRD schemas. */
export function customSchemaName(t: Pick<ResourceType, 'group' | 'version'>, kind: string): string {
  return `${t.group.split('.').reverse().join('.')}.${t.version}.${kind}`;
}

const documents = new Map<string, PublishedV3Document>();
const DOCUMENT_BUDGET_BYTES = 32 * 1024 * 1024;
let documentBytes = 0;

/** The document for a CRD-defined group/version, or undefined if none is served. */
export function customV3Document(group: string, version: string): PublishedV3Document | undefined {
  const types = typesInGroupVersion(group, version).filter((t) => t.custom);
  if (!types.length) return undefined;
  const key = `${group}/${version}:${types.map((t) => `${t.custom!.crdName}@${crdStamp(t)}`).join(',')}`;
  const cached = documents.get(key);
  if (cached) return cached;
  let paths: Json = Object.assign({}, ...types.map(pathsFor));
  // pathsFor names a kind without a built-in definition `io.k8s.api.<g>.<v>.<Kind>`; kube names it reversed.
  let text = JSON.stringify(paths);
  for (const t of types) {
    for (const kind of [t.kind, `${t.kind}List`]) {
      text = text.split(`"#/components/schemas/io.k8s.api.${t.group.split('.')[0]}.${t.version}.${kind}"`).join(`"#/components/schemas/${customSchemaName(t, kind)}"`);
    }
  }
  paths = JSON.parse(text) as Json;
  // A custom resource takes no strategic merge patch: kubectl reads the PATCH content types here to
  // choose between strategic and JSON merge patches for `kubectl apply`.
  for (const item of Object.values(paths) as Json[]) {
    const content = ((item.patch as Json | undefined)?.requestBody as Json | undefined)?.content as Json | undefined;
    if (content) delete content['application/strategic-merge-patch+json'];
  }
  const extra = { a: { $ref: `#/components/schemas/${META}.ObjectMeta` }, b: { $ref: `#/components/schemas/${META}.ListMeta` } };
  const schemas = componentSchemas({ ...(paths as Record<string, Json>), '#refs': extra });
  for (const t of types) {
    schemas[customSchemaName(t, t.kind)] = kindSchema(t);
    schemas[customSchemaName(t, `${t.kind}List`)] = listSchema(t);
  }
  const doc = { openapi: '3.0.0', info: { title: 'Kubernetes CRD Swagger', version: SERVER_VERSION.gitVersion }, paths, components: { schemas } };
  const json = JSON.stringify(doc);
  const published = { doc, json, hash: contentHash(json) } as unknown as PublishedV3Document;
  // Bounded in bytes (UTF-16 text twice: the document and its JSON); superseded CRD versions go first.
  const bytes = json.length * 4;
  while (documents.size && documentBytes + bytes > DOCUMENT_BUDGET_BYTES) {
    const [oldest, doc] = documents.entries().next().value!;
    documents.delete(oldest);
    documentBytes -= doc.json.length * 4;
  }
  documents.set(key, published);
  documentBytes += bytes;
  return published;
}

// The CRD objects are compiled once per resourceVersion (core/crd/crd-types.ts): a changed CRD is a new object.
const stamps = new WeakMap<object, number>();
let nextStamp = 0;
function crdStamp(t: ResourceType): number {
  let s = stamps.get(t.custom!);
  if (s === undefined) stamps.set(t.custom!, (s = nextStamp++));
  return s;
}

function ref(name: string): Json {
  return { $ref: `#/components/schemas/${name}` };
}

const API_VERSION_DOC = 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DOC = 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const METADATA_DOC = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** The CRD schema as published: int-or-string unfolded to anyOf, nothing else changed. */
function published(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(published);
  if (s === null || typeof s !== 'object') return s;
  const out: Json = {};
  for (const [k, v] of Object.entries(s as Json)) {
    out[k] = k === 'default' || k === 'enum' || k === 'example' ? v : published(v);
  }
  if (out['x-kubernetes-int-or-string'] === true && !out.anyOf) out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  return out;
}

function kindSchema(t: ResourceType): Json {
  const base = published(t.custom!.openAPIV3Schema) as Json;
  const props = { ...((base.properties as Json | undefined) ?? {}) };
  props.apiVersion = { description: API_VERSION_DOC, type: 'string' };
  props.kind = { description: KIND_DOC, type: 'string' };
  props.metadata = { description: METADATA_DOC, allOf: [ref(`${META}.ObjectMeta`)] };
  const sorted: Json = {};
  for (const k of Object.keys(props).sort()) sorted[k] = props[k];
  return { ...base, type: 'object', properties: sorted, 'x-kubernetes-group-version-kind': [{ group: t.group, kind: t.kind, version: t.version }] };
}

function listSchema(t: ResourceType): Json {
  return {
    description: `${t.kind}List is a list of ${t.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { description: API_VERSION_DOC, type: 'string' },
      items: { description: `List of ${t.resource}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, type: 'array', items: ref(customSchemaName(t, t.kind)) },
      kind: { description: KIND_DOC, type: 'string' },
      metadata: { description: 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds', allOf: [ref(`${META}.ListMeta`)] },
    },
    'x-kubernetes-group-version-kind': [{ group: t.group, kind: `${t.kind}List`, version: t.version }],
  };
}

/** /openapi/v3 index entries for every CRD-defined group/version. */
export function customV3IndexPaths(): Record<string, { serverRelativeURL: string }> {
  const out: Record<string, { serverRelativeURL: string }> = {};
  const seen = new Set<string>();
  for (const { group, version, custom } of allResourceTypes()) {
    if (!custom || seen.has(`${group}/${version}`)) continue;
    seen.add(`${group}/${version}`);
    const doc = customV3Document(group, version);
    if (doc) out[`apis/${group}/${version}`] = { serverRelativeURL: `/openapi/v3/apis/${group}/${version}?hash=${doc.hash}` };
  }
  return out;
}

// ---- /openapi/v2 (builder.go BuildOpenAPIV2 with Options{V2: true}) ----

const V2_REF = '#/definitions/';
// schema/kubeopenapi.go ToKubeOpenAPI: the keywords a structural schema carries into the published document.
const V2_KEYWORDS = new Set([
  'type', 'description', 'title', 'default', 'format', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum', 'maxProperties',
  'minProperties', 'required', 'items', 'properties', 'additionalProperties', 'nullable',
]);

function isJson(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sortedKeys(o: Json): Json {
  const out: Json = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k];
  return out;
}

/**
 * A CRD schema node as published in v2 (v2/conversion.go ToStructuralOpenAPIV2, parent before children):
 * no junctors; a nullable node loses its type, items and properties; preserve-unknown-fields loses items
 * and properties (and an object type); an array left without items loses its type; nullable properties
 * leave `required`. Embedded resources get apiVersion, kind and metadata (addEmbeddedProperties).
 */
function toV2(s: Json, depth = 0): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (V2_KEYWORDS.has(k) || k.startsWith('x-kubernetes-')) out[k] = v;
  }
  if (out.nullable === true) {
    delete out.type;
    delete out.items;
    delete out.properties;
  }
  delete out.nullable;
  const preserve = out['x-kubernetes-preserve-unknown-fields'] === true;
  if (preserve) {
    delete out.items;
    delete out.properties;
  }
  if (out.items === undefined && out.type === 'array') delete out.type;
  if (preserve && out.type === 'object') delete out.type;
  if (isJson(out.properties) && Array.isArray(out.required)) {
    const props = out.properties;
    const kept = (out.required as unknown[]).filter((f) => !(typeof f === 'string' && isJson(props[f]) && props[f].nullable === true));
    if (kept.length) out.required = kept;
    else delete out.required;
  }
  if (isJson(out.additionalProperties) && out.additionalProperties.nullable === true) delete out.required;
  if (depth > 64) return out;
  if (isJson(out.properties)) {
    const props: Json = {};
    for (const [k, v] of Object.entries(out.properties)) props[k] = isJson(v) ? toV2(v, depth + 1) : v;
    out.properties = sortedKeys(props);
  }
  if (isJson(out.items)) out.items = toV2(out.items, depth + 1);
  if (isJson(out.additionalProperties)) out.additionalProperties = toV2(out.additionalProperties, depth + 1);
  if (out['x-kubernetes-embedded-resource'] === true && !preserve) {
    out.properties = sortedKeys({
      ...(isJson(out.properties) ? out.properties : {}),
      apiVersion: { description: 'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources', type: 'string' },
      kind: { description: 'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds', type: 'string' },
      metadata: { description: METADATA_DOC, $ref: `${V2_REF}${META}.ObjectMeta` },
    });
    const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
    out.required = [...(Array.isArray(out.required) ? out.required : []), ...['kind', 'apiVersion'].filter((r) => !required.has(r))];
  }
  return out;
}

/** The kind's and its list's v2 definitions, by name (as in v3: `com.example.stable.v1.CronTab`). */
export function customV2Definitions(t: ResourceType): Record<string, Json> {
  const gvk = (kind: string) => ({ 'x-kubernetes-group-version-kind': [{ group: t.group, kind, version: t.version }] });
  const s = t.custom!.openAPIV3Schema as Json;
  let kind: Json;
  if (s['x-kubernetes-preserve-unknown-fields'] === true) {
    // No properties at all: kubectl would take them as the only ones allowed.
    kind = { type: 'object', ...gvk(t.kind) };
  } else {
    const base = toV2(s);
    const props: Json = { ...(isJson(base.properties) ? base.properties : {}) };
    props.apiVersion = { description: API_VERSION_DOC, type: 'string' };
    props.kind = { description: KIND_DOC, type: 'string' };
    props.metadata = { description: METADATA_DOC, $ref: `${V2_REF}${META}.ObjectMeta` };
    kind = { ...base, properties: sortedKeys(props), ...gvk(t.kind) };
  }
  const list = {
    description: `${t.kind}List is a list of ${t.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { description: API_VERSION_DOC, type: 'string' },
      items: { description: `List of ${t.resource}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, type: 'array', items: { $ref: `${V2_REF}${customSchemaName(t, t.kind)}` } },
      kind: { description: KIND_DOC, type: 'string' },
      metadata: { description: 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds', $ref: `${V2_REF}${META}.ListMeta` },
    },
    ...gvk(`${t.kind}List`),
  };
  return { [customSchemaName(t, t.kind)]: kind, [customSchemaName(t, `${t.kind}List`)]: list };
}
