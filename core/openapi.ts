// Core: /openapi/v3 (index and per-group-version documents) and a stub /openapi/v2, built from the registry, so
// that kubectl's default --validate=strict leaves validation to the server and sends ?fieldValidation=Strict.
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
//   application/strategic-merge-patch+json) then buildStrategicMergePatchFromOpenAPIV3, which looks for a
//   components.schemas entry whose `x-kubernetes-group-version-kind` (an ARRAY) matches and builds the strategic
//   merge patch from that schema's x-kubernetes-patch-merge-key/-strategy; it returns (nil, nil) when no schema
//   matches, and errors (printed as "warning: error calculating patch from openapi v3 spec") when components is
//   absent; (2) OpenAPI v2 (GET /openapi/v2, protobuf; an error is silently skipped); (3) compiled-in Go types
//   (strategicpatch.NewPatchMetaFromStruct); (4) JSON merge patch for kinds kubectl does not know.
//   We cannot serve complete schemas with patch metadata, and a partial schema would make step (1) compute wrong
//   patches or fail on unknown fields. So component schemas here deliberately carry NO group-version-kind, and
//   `components` is always present: step (1) yields nothing, step (2) finds no PATCH consumes for the kind in our
//   empty v2 document (or gets a 404), and kubectl uses its compiled-in types, exactly as against a real cluster's
//   built-ins. Verified with kubectl 1.32: `apply` sends application/strategic-merge-patch+json and prints no
//   warning. Cost: one GET /openapi/v2 per `kubectl apply` run that patches.
// - `kubectl explain` looks schemas up by that same component extension, so it is not supported.
// - `kind: List` manifests skip the v3 check (HasSupport answers "unsupported" for v1 List) and go straight to
//   client-side validation against /openapi/v2, requested as protobuf only; without it kubectl fails with
//   "error validating data". An empty v2 document suffices: kubectl pkg/validation SchemaValidation skips kinds it
//   cannot find (LookupResource == nil), and the items are still sent with ?fieldValidation=Strict.

import { apiVersionOf, typesInGroupVersion, type ResourceType } from './registry';
import { servedGroupVersions, SERVER_VERSION } from './discovery';

export interface OpenApiV3Index {
  paths: Record<string, { serverRelativeURL: string }>;
}

type Json = Record<string, unknown>;

export interface OpenApiV3Document {
  openapi: '3.0.0';
  info: { title: string; version: string };
  paths: Record<string, Json>;
  components: { schemas: Record<string, Json> };
}

// The patch types kube-apiserver accepts for built-in resources (apiserver pkg/endpoints/installer.go).
const PATCH_CONTENT_TYPES = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** `api/v1`, `apis/apps/v1`: the index key client-go maps a GroupVersion to (client-go openapi3 gvToAPIPath). */
function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

let index: OpenApiV3Index | undefined;

/**
 * GET /openapi/v3. The hash only keys client caches; it changes whenever a document does. Built once per isolate:
 * the registry is static and hashing every document per request would cost a few milliseconds each time.
 */
export function openApiV3Index(): OpenApiV3Index {
  if (index) return index;
  const paths: OpenApiV3Index['paths'] = {};
  for (const { group, version } of servedGroupVersions()) {
    const doc = openApiV3Document(group, version)!;
    const path = gvPath(group, version);
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${contentHash(JSON.stringify(doc))}` };
  }
  return (index = { paths });
}

/** Content-Type for openApiV2Protobuf(). Not the `…spec.v2@v1.0+protobuf` Accept value: Go's mime parser rejects '@'. */
export const OPENAPI_V2_PROTOBUF_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** GET /openapi/v2: gnostic openapi_v2.Document{swagger: "2.0"} in protobuf (field 1, length-delimited). */
export function openApiV2Protobuf(): Uint8Array {
  return new Uint8Array([0x0a, 0x03, 0x32, 0x2e, 0x30]);
}

const documents = new Map<string, OpenApiV3Document>();

/** GET /openapi/v3/api/v1 and /openapi/v3/apis/<g>/<v>; undefined when the group/version is not served. */
export function openApiV3Document(group: string, version: string): OpenApiV3Document | undefined {
  const key = apiVersionOf({ group, version });
  const cached = documents.get(key);
  if (cached) return cached;
  const types = typesInGroupVersion(group, version);
  if (!types.length) return undefined;
  const doc: OpenApiV3Document = {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion },
    paths: Object.assign({}, ...types.map(pathsFor)),
    components: { schemas: Object.assign(sharedSchemas(types), ...types.map(kindSchemas)) },
  };
  documents.set(key, doc);
  return doc;
}

/** FNV-1a 64 over UTF-16 code units, upper-case hex: stable across isolates without node:crypto. */
function contentHash(text: string): string {
  const prime = 0x100000001b3n;
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(text.charCodeAt(i))) * prime);
  return h.toString(16).toUpperCase().padStart(16, '0');
}

// ---- naming, as kube-openapi names things ----

/** `io.k8s.api.core.v1`, `io.k8s.api.discovery.v1`: the Go package of a built-in group. */
function schemaPackage(t: Pick<ResourceType, 'group' | 'version'>): string {
  return `io.k8s.api.${t.group ? t.group.split('.')[0] : 'core'}.${t.version}`;
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

function pathsFor(t: ResourceType): Record<string, Json> {
  const gvk = { group: t.group, version: t.version, kind: t.kind };
  const schema = `${schemaPackage(t)}.${t.kind}`;
  const can = (verb: string) => t.verbs.includes(verb);
  const { collection, item } = basePaths(t);
  const out: Record<string, Json> = {};

  const coll: Json = { parameters: scopeParams(t, false) };
  if (can('list')) {
    coll.get = operation(t, {
      verb: 'list', action: 'list', description: `list or watch objects of kind ${t.kind}`,
      parameters: LIST_PARAMS, schema: `${schema}List`, codes: ['200'],
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
      parameters: [...DELETE_PARAMS, ...LIST_PARAMS], schema: `${META}.Status`, codes: ['200'],
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
      parameters: DELETE_PARAMS, schema: `${META}.Status`, codes: ['200', '202'],
    }, gvk);
  }
  out[item] = one;

  // serviceaccounts/token is create-only and typed TokenRequest; kubectl never validates against it.
  for (const sub of t.subresources.filter((x) => x !== 'token')) {
    // /scale is typed autoscaling/v1 Scale, and kube tags its operations with that GVK, not the parent's.
    const subSchema = sub === 'scale' ? 'io.k8s.api.autoscaling.v1.Scale' : schema;
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
  return out;
}

// ---- component schemas: opaque objects, deliberately without x-kubernetes-group-version-kind (see header) ----

function opaque(description: string): Json {
  return { description, type: 'object' };
}

function kindSchemas(t: ResourceType): Record<string, Json> {
  const name = `${schemaPackage(t)}.${t.kind}`;
  return {
    [name]: opaque(`${t.kind} (${apiVersionOf(t)}). Structure is validated by the server.`),
    [`${name}List`]: opaque(`${t.kind}List is a list of ${t.kind}.`),
  };
}

function sharedSchemas(types: ResourceType[]): Record<string, Json> {
  const schemas: Record<string, Json> = {
    [`${META}.Patch`]: opaque('Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.'),
    [`${META}.Status`]: opaque('Status is a return value for calls that do not return other objects.'),
  };
  if (types.some((t) => t.subresources.includes('scale'))) {
    schemas['io.k8s.api.autoscaling.v1.Scale'] = opaque('Scale represents a scaling request for a resource.');
  }
  return schemas;
}
