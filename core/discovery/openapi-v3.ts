// Core: /openapi/v3 (index and per-group-version documents), built from the registry's paths and the real
// Kubernetes schemas (core/discovery/openapi-schemas.ts over core/schema/*.generated.json). /openapi/v2 is core/discovery/openapi-v2.ts.
//
// What kubectl 1.32 reads from these documents (sources read at the 1.32-era trees):
// - Validation: cli-runtime pkg/resource/query_param_verifier_v3.go, queryParamVerifierV3.HasSupport →
//   supportsQueryParamV3 walks doc.paths, takes the FIRST PATCH operation whose `x-kubernetes-group-version-kind`
//   equals the object's GVK, and succeeds iff that operation lists a parameter named `fieldValidation` with
//   `in: query`. No matching PATCH at all is a hard error ("Path not found for GVK"), not a fallback, so every
//   PATCH carrying a GVK (main resource AND /status) declares the parameter. kubectl then validates nothing
//   client-side (kubectl pkg/validation ParamVerifyingSchema) and sends ?fieldValidation=Strict.
// - Client-side apply patches: kubectl pkg/cmd/apply/patcher.go, Patcher.patchSimple tries, in order,
//   (1) OpenAPI v3: gvkSupportsPatchOpenAPIV3 (PATCH op for the GVK whose requestBody lists
//   application/strategic-merge-patch+json) then buildStrategicMergePatchFromOpenAPIV3, which takes the
//   components.schemas entry whose `x-kubernetes-group-version-kind` (an ARRAY) matches and computes the three-way
//   strategic merge patch from it (apimachinery strategicpatch PatchMetaFromOpenAPIV3: follows `allOf[0]` and
//   `#/components/schemas/` refs, reads x-kubernetes-patch-merge-key/-strategy, and fails with "unable to find api
//   field" on a key the schema lacks, printed as "warning: error calculating patch from openapi v3 spec");
//   (2) OpenAPI v2 (GET /openapi/v2, protobuf), only when (1) found no schema; (3) compiled-in Go types;
//   (4) JSON merge patch. The kind schemas now carry their GVK and the complete upstream definitions with their
//   patch metadata, so step (1) computes the patch, exactly as against kube-apiserver (verified in
//   test/e2e/openapi.test.ts: no /openapi/v2 request and no warning). Kinds without generated data (none today)
//   get an opaque component WITHOUT a GVK, so kubectl skips (1) for them instead of failing on a fieldless schema.
// - `kubectl explain` (v3 by default) finds the kind schema by the same extension and renders descriptions and
//   types from the components, following `allOf`/`$ref` (kubectl pkg/explain/v2 templates). Hence descriptions
//   are restored from descriptions.generated.json, and Quantity/IntOrString are oneOf types as kube publishes them.
// - `kind: List` manifests skip the v3 check (HasSupport answers "unsupported" for v1 List) and are validated
//   client-side against /openapi/v2 (protobuf): each item whose GVK the definitions list is checked for unknown
//   fields and types, with kube's error text; see core/discovery/openapi-v2.ts.
//
// Shape: kube-apiserver's v3 (kube-openapi builder3): `$ref`s under #/components/schemas/, a `$ref` with siblings
// wrapped as `allOf: [{$ref}]`, components limited to what the group-version's paths reference, transitively.
// Cost: each document is built on its first request (or the index's) and kept for the isolate's lifetime, with
// its JSON text; resource requests never build or read any of it.

import { apiVersionOf, typesInGroupVersion, type ResourceType } from '../registry';
import { servedGroupVersions, SERVER_VERSION } from './legacy';
import { definitionFor, publishedSchema, referencedDefinitions, type Schema } from './openapi-schemas';
import { fnv1a64Hex } from '../hash';

export interface OpenApiV3Index {
  paths: Record<string, { serverRelativeURL: string }>;
}

type Json = Record<string, unknown>;

export interface OpenApiV3Document {
  openapi: '3.0.0';
  info: { title: string; version: string };
  paths: Record<string, Json>;
  components: { schemas: Record<string, Schema> };
}

/** A built document with its serialization and content hash, kept for the isolate's lifetime. */
export interface PublishedV3Document {
  doc: OpenApiV3Document;
  json: string;
  hash: string;
}

// The patch types kube-apiserver accepts for built-in resources (apiserver pkg/endpoints/installer.go).
const PATCH_CONTENT_TYPES = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const SCALE = 'io.k8s.api.autoscaling.v1.Scale';

/** `api/v1`, `apis/apps/v1`: the index key client-go maps a GroupVersion to (client-go openapi3 gvToAPIPath). */
function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

let index: OpenApiV3Index | undefined;

/**
 * GET /openapi/v3. The hash keys client caches (kubectl stores documents by URL); it is the content hash of the
 * document, so it changes whenever the document does. Built once per isolate, which builds every document (a
 * one-off cost of tens of milliseconds, ~1.3 MB of JSON); resource requests never touch any of this.
 */
export function openApiV3Index(): OpenApiV3Index {
  if (index) return index;
  const paths: OpenApiV3Index['paths'] = {};
  for (const { group, version } of servedGroupVersions()) {
    if (typesInGroupVersion(group, version).some((t) => t.custom)) continue; // CRD-defined: core/crd/openapi.ts
    const path = gvPath(group, version);
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${publishedV3Document(group, version)!.hash}` };
  }
  return (index = { paths });
}

const documents = new Map<string, PublishedV3Document>();

/** GET /openapi/v3/api/v1 and /openapi/v3/apis/<g>/<v>; undefined when the group/version is not served. */
export function openApiV3Document(group: string, version: string): OpenApiV3Document | undefined {
  return publishedV3Document(group, version)?.doc;
}

/** The document, its JSON text and hash; built on first use for this group/version only. */
export function publishedV3Document(group: string, version: string): PublishedV3Document | undefined {
  const key = apiVersionOf({ group, version });
  const cached = documents.get(key);
  if (cached) return cached;
  const types = typesInGroupVersion(group, version);
  if (!types.length || types.some((t) => t.custom)) return undefined;
  const paths: Record<string, Json> = Object.assign({}, ...types.map(pathsFor));
  const doc: OpenApiV3Document = {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion },
    paths,
    components: { schemas: componentSchemas(paths) },
  };
  const json = JSON.stringify(doc);
  const published = { doc, json, hash: contentHash(json) };
  documents.set(key, published);
  return published;
}

/** The documents' ETag: a content hash, stable across isolates without node:crypto. */
export const contentHash = fnv1a64Hex;

// ---- naming, as kube-openapi names things ----

/** `io.k8s.api.core.v1`, `io.k8s.api.discovery.v1`: the Go package of a built-in group. */
function schemaPackage(t: Pick<ResourceType, 'group' | 'version'>): string {
  return `io.k8s.api.${t.group ? t.group.split('.')[0] : 'core'}.${t.version}`;
}

/** The component a kind is published as: its definition, or `<package>.<Kind>` for kinds without one (opaque). */
function schemaName(t: ResourceType, kind = t.kind): string {
  return definitionFor({ group: t.group, version: t.version, kind }) ?? `${schemaPackage(t)}.${kind}`;
}

function pascal(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** `core_v1`, `discovery_v1`: the operation tag. */
function tag(t: ResourceType): string {
  return `${t.group ? t.group.split('.')[0] : 'core'}_${t.version}`;
}

/** `patchCoreV1NamespacedPodStatus`, `readCoordinationV1NamespacedLease`. */
function operationId(verb: string, t: ResourceType, suffix = ''): string {
  const group = pascal(t.group ? t.group.split('.')[0] : 'core');
  return `${verb}${group}${pascal(t.version)}${t.namespaced ? 'Namespaced' : ''}${t.kind}${suffix}`;
}

function ref(name: string): Json {
  return { $ref: `#/components/schemas/${name}` };
}

// ---- parameters ----

function query(name: string, type: string, description: string): Json {
  return { name, in: 'query', description, schema: { type, uniqueItems: true } };
}

function pathParam(name: string, description: string): Json {
  return { name, in: 'path', description, required: true, schema: { type: 'string', uniqueItems: true } };
}

const DRY_RUN = query('dryRun', 'string', 'When present, indicates that modifications should not be persisted.');
const FIELD_MANAGER = query('fieldManager', 'string', 'A name associated with the actor or entity making changes.');
const FIELD_VALIDATION = query(
  'fieldValidation',
  'string',
  'How the server handles unknown or duplicate fields in the request body: Ignore, Warn (default) or Strict.',
);
const FORCE = query('force', 'boolean', 'Force is going to "force" Apply requests. Only valid for apply patches.');
const PRETTY = query('pretty', 'string', "If 'true', then the output is pretty printed.");
const LIST_PARAMS = [
  query('allowWatchBookmarks', 'boolean', 'Requests watch events with type "BOOKMARK".'),
  query('continue', 'string', 'The continue option from a previous paginated list call.'),
  query('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields.'),
  query('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels.'),
  query('limit', 'integer', 'Maximum number of responses to return for a list call.'),
  query('resourceVersion', 'string', 'Constrains which resource versions the request may be served from.'),
  query('resourceVersionMatch', 'string', 'How resourceVersion is applied to list calls.'),
  query('sendInitialEvents', 'boolean', 'Whether a watch begins with synthetic ADDED events for current state.'),
  query('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  query('watch', 'boolean', 'Watch for changes to the described resources.'),
];
const DELETE_PARAMS = [
  DRY_RUN,
  query('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted.'),
  query('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy.'),
  query('propagationPolicy', 'string', 'Whether and how garbage collection will be performed.'),
];

// ---- operations ----

function responses(schema: string, codes: string[]): Json {
  const out: Json = {};
  for (const code of codes) out[code] = { description: code === '201' ? 'Created' : 'OK', content: jsonContent(schema) };
  out['401'] = { description: 'Unauthorized' };
  return out;
}

function jsonContent(schema: string): Json {
  return { 'application/json': { schema: ref(schema) } };
}

interface OpSpec {
  verb: string; // operationId prefix: read, list, create, replace, patch, delete, deletecollection
  action: string; // x-kubernetes-action
  description: string;
  parameters: Json[];
  body?: Json;
  schema: string; // response schema
  codes: string[];
}

function operation(t: ResourceType, op: OpSpec, gvk: Json, suffix = ''): Json {
  const o: Json = {
    tags: [tag(t)],
    description: op.description,
    operationId: operationId(op.verb, t, suffix),
    parameters: op.parameters,
  };
  if (op.body) o.requestBody = op.body;
  o.responses = responses(op.schema, op.codes);
  o['x-kubernetes-action'] = op.action;
  // This extension on the OPERATION is what kubectl's field-validation check keys on.
  o['x-kubernetes-group-version-kind'] = gvk;
  return o;
}

function patchBody(): Json {
  const content: Json = {};
  for (const type of PATCH_CONTENT_TYPES) content[type] = { schema: ref(`${META}.Patch`) };
  return { content, required: true };
}

/** DELETE takes optional DeleteOptions, as kube declares it (not required). */
function deleteBody(): Json {
  return { content: { '*/*': { schema: ref(`${META}.DeleteOptions`) } } };
}

function objectBody(schema: string): Json {
  return { content: { '*/*': { schema: ref(schema) } }, required: true };
}

function read(kind: string, schema: string): OpSpec {
  return { verb: 'read', action: 'get', description: `read the specified ${kind}`, parameters: [], schema, codes: ['200'] };
}

function replace(kind: string, schema: string): OpSpec {
  return {
    verb: 'replace', action: 'put', description: `replace the specified ${kind}`,
    parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], body: objectBody(schema), schema, codes: ['200', '201'],
  };
}

function patch(kind: string, schema: string): OpSpec {
  return {
    verb: 'patch', action: 'patch', description: `partially update the specified ${kind}`,
    parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE], body: patchBody(), schema, codes: ['200', '201'],
  };
}

function basePaths(t: ResourceType): { collection: string; item: string } {
  const prefix = t.group ? `/apis/${t.group}/${t.version}` : `/api/${t.version}`;
  const collection = `${prefix}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.resource}`;
  return { collection, item: `${collection}/{name}` };
}

function scopeParams(t: ResourceType, withName: boolean): Json[] {
  const params: Json[] = [];
  if (withName) params.push(pathParam('name', `name of the ${t.kind}`));
  if (t.namespaced) params.push(pathParam('namespace', 'object name and auth scope, such as for teams and projects'));
  params.push(PRETTY);
  return params;
}

/** The paths of one type (exported for CRD-defined types' documents, core/crd/openapi.ts). */
export function pathsFor(t: ResourceType): Record<string, Json> {
  const gvk = { group: t.group, version: t.version, kind: t.kind };
  const schema = schemaName(t);
  const can = (verb: string) => t.verbs.includes(verb);
  const { collection, item } = basePaths(t);
  const out: Record<string, Json> = {};

  const coll: Json = { parameters: scopeParams(t, false) };
  if (can('list')) {
    coll.get = operation(t, {
      verb: 'list', action: 'list', description: `list or watch objects of kind ${t.kind}`,
      parameters: LIST_PARAMS, schema: schemaName(t, `${t.kind}List`), codes: ['200'],
    }, gvk);
  }
  if (can('create')) {
    coll.post = operation(t, {
      verb: 'create', action: 'post', description: `create a ${t.kind}`,
      parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], body: objectBody(schema), schema,
      codes: ['200', '201'],
    }, gvk);
  }
  if (can('deletecollection')) {
    coll.delete = operation(t, {
      verb: 'deletecollection', action: 'deletecollection', description: `delete collection of ${t.kind}`,
      parameters: [...DELETE_PARAMS, ...LIST_PARAMS], body: deleteBody(), schema: `${META}.Status`, codes: ['200'],
    }, gvk);
  }
  out[collection] = coll;

  const one: Json = { parameters: scopeParams(t, true) };
  if (can('get')) one.get = operation(t, read(t.kind, schema), gvk);
  if (can('update')) one.put = operation(t, replace(t.kind, schema), gvk);
  if (can('patch')) one.patch = operation(t, patch(t.kind, schema), gvk);
  if (can('delete')) {
    one.delete = operation(t, {
      verb: 'delete', action: 'delete', description: `delete a ${t.kind}`,
      parameters: DELETE_PARAMS, body: deleteBody(), schema: `${META}.Status`, codes: ['200', '202'],
    }, gvk);
  }
  out[item] = one;

  // serviceaccounts/token is create-only and typed TokenRequest; kubectl never validates against it.
  // namespaces/finalize is PUT-only (below).
  for (const sub of t.subresources.filter((x) => x !== 'token' && x !== 'finalize')) {
    // /scale is typed autoscaling/v1 Scale, and kube tags its operations with that GVK, not the parent's.
    const subSchema = sub === 'scale' ? SCALE : schema;
    const subGvk = sub === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : gvk;
    const what = `${sub} of the specified ${t.kind}`;
    const suffix = pascal(sub);
    out[`${item}/${sub}`] = {
      parameters: scopeParams(t, true),
      get: operation(t, { ...read(t.kind, subSchema), description: `read ${what}` }, subGvk, suffix),
      put: operation(t, { ...replace(t.kind, subSchema), description: `replace ${what}` }, subGvk, suffix),
      patch: operation(t, { ...patch(t.kind, subSchema), description: `partially update ${what}` }, subGvk, suffix),
    };
  }
  if (t.subresources.includes('finalize')) {
    out[`${item}/finalize`] = {
      parameters: scopeParams(t, true),
      put: operation(t, { ...replace(t.kind, schema), description: `replace finalize of the specified ${t.kind}` }, gvk, 'Finalize'),
    };
  }
  return out;
}


// ---- component schemas ----

const COMPONENT_REF = /"#\/components\/schemas\/([^"]+)"/g;

/**
 * Every definition the paths reference, with everything those reference, as kube-openapi includes them. A kind
 * without generated data (none today) gets an opaque object WITHOUT x-kubernetes-group-version-kind, so kubectl's
 * patcher finds no schema for it and falls back to its compiled-in types instead of failing on a fieldless schema.
 */
export function componentSchemas(paths: Record<string, Json>): Record<string, Schema> {
  const named = new Set<string>();
  for (const m of JSON.stringify(paths).matchAll(COMPONENT_REF)) named.add(m[1]!);
  const schemas: Record<string, Schema> = {};
  for (const name of referencedDefinitions(named)) schemas[name] = publishedSchema(name, 'v3');
  for (const name of [...named].sort()) {
    schemas[name] ??= { description: `${name.split('.').pop()} is validated by the server.`, type: 'object' };
  }
  return schemas;
}
