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
