// Core: GET /openapi/v2, the Swagger 2.0 document of every served group/version, as JSON or as gnostic protobuf.
//
// kubectl 1.32 reads it (protobuf only) for two things: client-side validation of `kind: List` manifests (kubectl
// pkg/validation SchemaValidation looks each item's GVK up among the definitions' x-kubernetes-group-version-kind and
// rejects unknown fields), and as the second source of strategic-merge-patch metadata in `apply` (patcher.go, after
// OpenAPI v3: the PATCH operation's `consumes` for the GVK, then the definition's x-kubernetes-patch-* extensions).
// gnostic's parser (kube-openapi pkg/util/proto) rejects a document with a dangling `$ref`, so the definitions are the
// closure of everything the paths reference. The paths and definitions are the v3 documents' own, converted back to
// swagger's shapes (body parameters, inline parameter types, `consumes`/`produces`, `#/definitions/` refs).
// CRD-defined group/versions are merged in as kube-apiserver's aggregated v2 has them (apiextensions
// pkg/controller/openapi: BuildOpenAPIV2 per served version), rebuilt when the CRDs change.

import { servedGroupVersions, SERVER_VERSION } from './legacy';
import { publishedV3Document } from './openapi-v3';
import { customV2Definitions, customV3Document } from '../crd/openapi';
import { typesInGroupVersion } from '../registry';
import { hasDefinition, publishedSchema, type Schema } from './openapi-schemas';
import { encodeOpenApiV2Document } from '../protobuf/openapi-v2';

type Json = Record<string, any>;

export interface OpenApiV2Document {
  swagger: '2.0';
  info: { title: string; version: string };
  paths: Record<string, Json>;
  definitions: Record<string, Schema>;
}

/** What kube-openapi's handler answers with for protobuf: its Accept value with '@' as '.' (Go's mime parser rejects '@'). */
export const OPENAPI_V2_PROTOBUF_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

let builtIn: OpenApiV2Document | undefined;
type Published = { key: string; doc: OpenApiV2Document; json?: string; protobuf?: Uint8Array };
// The built-ins alone (kept), and the document with the CRDs of one moment (its key names them): only the
// newest of those is kept, with its encodings.
let builtInEntry: Published | undefined;
let current: Published | undefined;

/** The built-in group/versions, built on the first GET /openapi/v2 of the isolate (it needs every v3 document) and kept. */
function builtInDocument(): OpenApiV2Document {
  if (builtIn) return builtIn;
  const paths: Record<string, Json> = {};
  const components: Record<string, Schema> = {};
  for (const { group, version } of servedGroupVersions()) {
    const v3 = publishedV3Document(group, version)?.doc;
    if (!v3) continue;
    for (const [path, item] of Object.entries(v3.paths)) paths[path] = pathItem(item);
    Object.assign(components, v3.components.schemas);
  }
  const definitions: Record<string, Schema> = {};
  for (const name of Object.keys(components).sort()) {
    // Kinds without generated data are opaque objects in v3 and stay so here.
    definitions[name] = hasDefinition(name) ? publishedSchema(name, 'v2') : components[name]!;
  }
  return (builtIn = { swagger: '2.0', info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion }, paths, definitions });
}

/** The document: the built-ins, plus every served CRD version's paths and definitions. */
export function openApiV2Document(): OpenApiV2Document {
  return currentDocument().doc;
}

function currentDocument(): Published {
  const base = builtInDocument();
  const custom: { group: string; version: string; hash: string }[] = [];
  for (const { group, version } of servedGroupVersions()) {
    if (publishedV3Document(group, version)) continue;
    const v3 = customV3Document(group, version);
    if (v3) custom.push({ group, version, hash: v3.hash });
  }
  const key = custom.map((c) => `${c.group}/${c.version}@${c.hash}`).join(',');
  if (!custom.length) return (builtInEntry ??= { key, doc: base });
  if (current?.key === key) return current;
  const paths: Record<string, Json> = { ...base.paths };
  const added: Record<string, Schema> = {};
  for (const { group, version } of custom) {
    const v3 = customV3Document(group, version)!.doc as unknown as { paths: Record<string, Json>; components: { schemas: Record<string, Schema> } };
    for (const [path, item] of Object.entries(v3.paths)) paths[path] = customPathItem(item);
    const own = new Set<string>();
    for (const t of typesInGroupVersion(group, version)) {
      if (!t.custom) continue;
      for (const [name, schema] of Object.entries(customV2Definitions(t))) {
        added[name] = schema as Schema;
        own.add(name);
      }
    }
    // What the paths refer to besides the kinds (Status, Patch, DeleteOptions, Scale…) is built in.
    for (const [name, schema] of Object.entries(v3.components.schemas)) {
      if (own.has(name) || name in base.definitions) continue;
      added[name] = hasDefinition(name) ? publishedSchema(name, 'v2') : schema;
    }
  }
  const definitions: Record<string, Schema> = {};
  for (const name of [...Object.keys(base.definitions), ...Object.keys(added)].sort()) definitions[name] = added[name] ?? base.definitions[name]!;
  return (current = { key, doc: { ...base, paths, definitions } });
}

export function openApiV2Json(): string {
  const c = currentDocument();
  return (c.json ??= JSON.stringify(c.doc));
}

export function openApiV2Protobuf(): Uint8Array {
  const c = currentDocument();
  return (c.protobuf ??= encodeOpenApiV2Document(c.doc));
}

// ---- v3 operations back to swagger 2.0 ----

// apiextensions builder.go buildRoute: every CRD route consumes and produces JSON and YAML; PATCH takes
// the three patch types a custom resource accepts, in this order.
const CRD_MEDIA = ['application/json', 'application/yaml'];
const CRD_PATCH_MEDIA = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

function customPathItem(item: Json): Json {
  const out = pathItem(item);
  for (const [method, op] of Object.entries(out)) {
    if (method === 'parameters') continue;
    op.consumes = method === 'patch' ? CRD_PATCH_MEDIA : CRD_MEDIA;
    op.produces = CRD_MEDIA;
  }
  return out;
}

function v2Ref(schema: Json): Json {
  return { $ref: (schema.$ref as string).replace('#/components/schemas/', '#/definitions/') };
}

/** A v3 query/path parameter (`schema: {type, uniqueItems}`) as swagger's inline form. */
function parameter(p: Json): Json {
  const { schema, ...rest } = p;
  return { ...rest, ...schema };
}

function pathItem(item: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(item)) out[key] = key === 'parameters' ? value.map(parameter) : operation(value);
  return out;
}

function operation(op: Json): Json {
  const { requestBody, parameters, responses, ...rest } = op;
  const out: Json = { ...rest };
  // kube-apiserver lists '*/*' for operations without a typed body too.
  out.consumes = requestBody ? Object.keys(requestBody.content) : ['*/*'];
  const body = requestBody && [{
    in: 'body', name: 'body', ...(requestBody.required ? { required: true } : {}),
    schema: v2Ref(Object.values(requestBody.content as Record<string, Json>)[0]!.schema),
  }];
  out.parameters = [...(body ?? []), ...parameters.map(parameter)];
  const produces = new Set<string>();
  const v2Responses: Json = {};
  for (const [code, r] of Object.entries(responses as Record<string, Json>)) {
    v2Responses[code] = { description: r.description };
    for (const [type, media] of Object.entries((r.content ?? {}) as Record<string, Json>)) {
      produces.add(type);
      v2Responses[code].schema = v2Ref(media.schema);
    }
  }
  out.produces = [...produces];
  out.responses = v2Responses;
  out.schemes = ['https'];
  return out;
}

// ---- content negotiation, as kube-openapi pkg/handler OpenAPIService.ServeHTTP ----

const V2_MEDIA_TYPES: [string, 'json' | 'protobuf'][] = [
  ['application/json', 'json'],
  ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'protobuf'],
  ['application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'protobuf'],
];

/**
 * The representation an Accept header asks for: JSON when absent; else the first media range (by descending q,
 * stable) that one of the served types matches, a wildcard taking the first type (JSON); undefined means 406.
 */
export function negotiateOpenApiV2(accept: string | undefined): 'json' | 'protobuf' | undefined {
  if (!accept?.trim()) return 'json';
  const ranges = accept.split(',').map((range, i) => {
    const [type = '', ...params] = range.split(';').map((s) => s.trim());
    const q = params.find((p) => p.startsWith('q='));
    return { type: type.toLowerCase(), q: q ? Number(q.slice(2)) : 1, i };
  }).filter((r) => r.type && r.q > 0).sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { type } of ranges) {
    const [main, sub] = type.split('/');
    for (const [served, form] of V2_MEDIA_TYPES) {
      const [servedMain, servedSub] = served.split('/');
      if ((main === '*' || main === servedMain) && (sub === '*' || sub === servedSub)) return form;
    }
  }
  return undefined;
}
