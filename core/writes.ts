// Canonical layer: kube-apiserver's write semantics per verb (create, update, patch, delete,
// deletecollection, and the status/scale subresources) over a store that commits one event per change.

import { apiVersionOf, isObjectSubresource, type ResourceType, type Subresource } from './registry';
import {
  alreadyExists, badRequest, conflict, generateNameConflict, invalid, notFound,
  OPTIMISTIC_LOCK_MESSAGE, requestEntityTooLarge, StatusError, success, unsupportedMediaType, type Status,
} from './status';
import {
  asTypedObject, fillCreateMeta, mergeStatusUpdate, mergeUpdateMeta, reconcileNamespace, sameJson, timestamp,
  validateObject, type KubeObject,
} from './object-meta';
import { scaleOf, withScale } from './scale';
import { applyPatch } from './patch/apply-patch';
import { applyDefaults } from './admission/defaults';
import { immutableViolations } from './admission/immutable';
import { allocateServiceCreate, allocateServiceUpdate, isCoreService, keepAllocatedValues, seededRandom } from './admission/service-allocation';
import { ServiceAllocations } from './admission/service-ranges';
import { decodePatchBody, PATCH_CONTENT_TYPES, patchTypeOf } from './patch/patch-body';
import { jsonDepthError } from './encoding/json-depth';
import { objectKey } from './object-key';
import { decodeObject, parseObjectBody, type DecodeOptions, type DecodeTarget, type FieldValidation } from './validation/known-fields';
import { goValue } from './patch/go-format';
import { matchesObject } from './list/filter';
import type { ParsedSelectors } from './list/options';
import type { WriteGuard } from './rbac/escalation';
import { typeHooks, type HookEnv } from './crd/write-hooks';
import { recordWrite, serverSideApply } from './apply/write-hooks';
import { APPLY_PATCH_CONTENT_TYPE, checkPatchOptions, checkWriteOptions, isApplyPatch } from './apply/apply-body';
import { managerOrUserAgent } from './apply/manager-name';
import { deletionFinalizers } from './gc-finalizers';
import { isNamespaceType, markNamespaceDeleting, mergeFinalize, namespaceHeld } from './namespaces/deletion';
import { bindPod, BINDING_SUCCESS } from './pods/binding';
import { addDefaultTolerations } from './pods/default-tolerations';
import { gracefulPodDelete } from './pods/graceful-delete';
import { subresourceStrategy } from './subresource-strategies';
import { admitMutating, admitValidating, type AdmissionAttributes, type AdmissionInputs } from './admission/chain';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** The store as the write logic sees it; `commit` assigns the next revision and returns the stored object. */
export interface WriteStore {
  get(key: string): KubeObject | undefined;
  objects(namespace: string): Iterable<KubeObject>;
  commit(type: EventType, key: string, object: KubeObject): KubeObject;
  /** Services: the clusterIPs and nodePorts the stored Services hold, kept by the store; else derived by a scan. */
  serviceAllocations?: ServiceAllocations;
}

export interface WriteEnv {
  type: ResourceType;
  now: number;
  newUid: () => string;
  randomSuffix: () => string;
  fieldValidation?: FieldValidation; // default Warn, as kube-apiserver's
  warnings?: string[]; // collects Warn-level findings for the Warning header
  // Checks the object a create or update is about to store, before validation as kube's registry
  // transforms do (e.g. RBAC escalation prevention, core/rbac/escalation.ts); throws to refuse.
  guard?: WriteGuard;
  manager?: string; // the field manager of this write (fieldManager, else the User-Agent's prefix)
  requestVersion?: string; // custom types: the served version asked for, when not the storage version
  garbageCollection?: boolean; // default true; false: DELETE adds no orphan/foregroundDeletion finalizers
  defaultTolerationSeconds?: number; // DefaultTolerationSeconds admission (core/pods/default-tolerations.ts); default 300
  // The admission chain (core/admission/chain.ts) with what the front door read for it; absent for the
  // server's own writes (bootstrap), which kube-apiserver's post-start hooks also make without admission.
  admission?: { inputs: AdmissionInputs; dryRun: boolean };
}

export type WriteRequest = (
  | { verb: 'create'; namespace: string; body: string }
  | { verb: 'update'; namespace: string; name: string; subresource: string; body: string }
  | { verb: 'patch'; namespace: string; name: string; subresource: string; patchType: string; body: string }
  | { verb: 'delete'; namespace: string; name: string; body: string; query: DeleteQuery }
  | { verb: 'deletecollection'; namespace: string; selectors: ParsedSelectors; body: string; query: DeleteQuery; page?: DeletePage }
) & WriteAttribution;

/** One page of a deletecollection (core/list/delete-collection-page.ts): the keys the store picked, and its cursor. */
export interface DeletePage {
  keys: string[];
  resourceVersion: string; // the store's revision before this page
  continue?: string;
}

/** Who writes, for managedFields: the `fieldManager` parameter and User-Agent; `force` (apply only). */
export interface WriteAttribution {
  fieldManager?: string;
  userAgent?: string;
  force?: boolean;
  /** Why the object may not be created (RBAC, namespace lifecycle): an apply that would create it fails so. */
  createRefused?: Status;
  /** Custom types: the version the request named, when the front door rewrote it to the storage version. */
  requestVersion?: string;
}

export interface DeleteQuery {
  gracePeriodSeconds?: string;
  propagationPolicy?: string;
  orphanDependents?: boolean; // a *bool: undefined when the query does not set it
}

export interface WriteResponse {
  code: number;
  body: unknown;
  held?: number; // deletecollection: objects marked for deletion but kept by finalizers
}

// etcd's --max-request-bytes: the largest object the canonical store keeps.
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;
// apiserver registry/generic/registry/store.go: retries of a generateName collision (RetryGenerateName).
const GENERATE_NAME_ATTEMPTS = 8;
const GENERATE_NAME_MAX_BASE = 58;

function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) n += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1; // surrogate pairs: 2 units, 4 bytes
  }
  return n;
}

export function executeWrite(store: WriteStore, env: WriteEnv, req: WriteRequest): WriteResponse {
  if (req.verb === 'create' || req.verb === 'update') checkWriteOptions(req.verb === 'create' ? 'CreateOptions' : 'UpdateOptions', req.fieldManager);
  if (req.verb === 'patch') checkPatchOptions(isApplyPatch(req.patchType), req.fieldManager, req.force);
  env = { ...env, manager: managerOrUserAgent(req.fieldManager, req.userAgent) };
  if (req.requestVersion) env.requestVersion = req.requestVersion;
  switch (req.verb) {
    case 'create':
      return create(store, env, req.namespace, req.body);
    case 'update':
      return update(store, env, req);
    case 'patch':
      return patch(store, env, req);
    case 'delete':
      return deleteOne(store, env, req);
    case 'deletecollection':
      return deleteCollection(store, env, req);
  }
}

function parseBody(body: string): unknown {
  const tooDeep = jsonDepthError(body); // before anything recursive walks it (core/encoding/json-depth.ts)
  if (tooDeep) throw new StatusError(badRequest(`couldn't get version/kind; json parse error: ${tooDeep}`));
  try {
    return JSON.parse(body);
  } catch (e) {
    throw new StatusError(badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`));
  }
}

function checkSize(obj: KubeObject): void {
  // UTF-8 bytes, as etcd and SQLite count them: 1.5M characters of non-ASCII text would be several MB.
  const bytes = utf8Length(JSON.stringify(obj));
  if (bytes > MAX_OBJECT_BYTES) throw new StatusError(requestEntityTooLarge(`limit is ${MAX_OBJECT_BYTES}`));
}

// The Scale objects of /scale, decoded against their own schema.
const SCALE = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

/**
 * The written object as kube's decoder makes it (core/validation/known-fields.ts): wrong types rejected,
 * unknown fields at any depth dropped under fieldValidation Warn (with a warning) and Ignore, rejected
 * under Strict; `source` says whether it came from a body (its text) or a patch.
 */
function checkFields<T extends object>(env: WriteEnv, obj: T, source: Pick<DecodeOptions, 'text' | 'patchValue' | 'converter'>, target: DecodeTarget = env.type): T {
  // A body of null decodes, as in Go, to the empty object.
  const out = decodeObject(target, obj, { fieldValidation: env.fieldValidation, warnings: env.warnings, ...source }) ?? ({} as T);
  (out as KubeObject).metadata ??= {};
  return out;
}

// Services: allocation reads the store's index (durable-objects/resource-store.ts); a store without one is scanned.
function serviceAllocations(store: WriteStore): ServiceAllocations {
  return store.serviceAllocations ?? ServiceAllocations.of([...store.objects('')].map((o) => [objectKey(o.metadata.namespace ?? '', o.metadata.name ?? ''), o]));
}

// CRDs and custom objects: their own decoding, validation and status (core/crd/write-hooks.ts).
function hookEnv(store: WriteStore, env: WriteEnv): HookEnv {
  return { now: env.now, fieldValidation: env.fieldValidation, warnings: env.warnings, objects: () => store.objects('') };
}

function decoded(store: WriteStore, env: WriteEnv, obj: unknown, source: Pick<DecodeOptions, 'text' | 'patchValue' | 'converter'>): KubeObject {
  const typed = asTypedObject(env.type, obj);
  const decode = typeHooks(env.type)?.decode;
  return decode ? decode(typed, hookEnv(store, env)) : checkFields(env, typed, source);
}

function create(store: WriteStore, env: WriteEnv, namespace: string, body: string): WriteResponse {
  return createObject(store, env, namespace, decoded(store, env, parseObjectBody(env.type.kind, body), { text: body }), true);
}

/** Stores a new object; `track` is false when managedFields were already set (create by apply). */
export function createObject(store: WriteStore, env: WriteEnv, namespace: string, obj: KubeObject, track: boolean): WriteResponse {
  const { type } = env;
  reconcileNamespace(type, obj, namespace);
  env.guard?.(obj, undefined);
  const m = obj.metadata;
  const generated = !m.name && !!m.generateName;
  if (generated) m.name = m.generateName!.slice(0, GENERATE_NAME_MAX_BASE) + env.randomSuffix();
  validateObject(type, obj);
  fillCreateMeta(env, obj);
  // Built-in kinds' defaulting goes by kind: a custom resource may share the name (Knative's Service).
  if (!type.custom) applyDefaults(obj);
  if (isCorePod(type)) addDefaultTolerations(obj, env.defaultTolerationSeconds);
  if (track) recordWrite(env, undefined, obj, '');
  // Mutating admission sees the defaulted object; its changes are not the request's fields (kube's create
  // handler records managedFields before admitting).
  const admission = env.admission && admissionAttributes(env, 'CREATE', m.namespace ?? namespace, '', obj);
  if (admission) {
    // kube generates the name after mutating admission, whose errors name the generateName.
    if (generated) admission.displayName = m.generateName;
    admitMutating(admission, env.admission!.inputs, admissionEnv(env));
    admission.displayName = undefined;
  }
  if (isCoreService(type)) allocateServiceCreate(obj, serviceAllocations(store), seededRandom(env.newUid()));
  typeHooks(type)?.prepare(obj, undefined, '', hookEnv(store, env));
  if (admission) admitValidating(admission, env.admission!.inputs, admissionEnv(env));
  checkSize(obj);
  for (let attempt = 1; ; attempt++) {
    const key = objectKey(m.namespace ?? '', m.name!);
    if (!store.get(key)) return { code: 201, body: store.commit('ADDED', key, obj) };
    if (!generated) throw new StatusError(alreadyExists(type, m.name!));
    if (attempt >= GENERATE_NAME_ATTEMPTS) throw new StatusError(generateNameConflict(type, m.name!));
    m.name = m.generateName!.slice(0, GENERATE_NAME_MAX_BASE) + env.randomSuffix();
  }
}

function admissionAttributes(env: WriteEnv, operation: 'CREATE' | 'UPDATE', namespace: string, subresource: string, object: KubeObject, oldObject?: KubeObject): AdmissionAttributes {
  return { operation, type: env.type, namespace, subresource, object, oldObject, dryRun: env.admission?.dryRun ?? false };
}

function admissionEnv(env: WriteEnv) {
  return { randomSuffix: env.randomSuffix, warnings: env.warnings };
}

function existing(store: WriteStore, type: ResourceType, namespace: string, name: string): KubeObject {
  const current = store.get(objectKey(namespace, name));
  if (!current) throw new StatusError(notFound(type, name));
  return current;
}

function checkSubresource(type: ResourceType, subresource: string): void {
  // Only the subresources that read and replace the object reach the store (core/registry.ts isObjectSubresource).
  if (subresource && (!type.subresources.includes(subresource as Subresource) || !isObjectSubresource(subresource))) {
    throw new StatusError(notFound({ group: type.group, resource: `${type.resource}/${subresource}` }, ''));
  }
}

const isCorePod = (type: ResourceType) => type.group === '' && type.kind === 'Pod';

function update(store: WriteStore, env: WriteEnv, req: Extract<WriteRequest, { verb: 'update' }>): WriteResponse {
  if (req.subresource === 'binding' && isCorePod(env.type)) {
    // POST pods/<name>/binding, which the front door hands over as an update of the pod (core/pods/binding.ts).
    const key = objectKey(req.namespace, req.name);
    store.commit('MODIFIED', key, bindPod(store.get(key), req.name, req.body, env.now));
    return { code: 201, body: BINDING_SUCCESS };
  }
  checkSubresource(env.type, req.subresource);
  const current = existing(store, env.type, req.namespace, req.name);
  const body = parseObjectBody(req.subresource === 'scale' ? SCALE.kind : env.type.kind, req.body);
  if (req.subresource === 'scale') return replaceScale(store, env, current, checkFields(env, body as KubeObject, { text: req.body }, SCALE));
  return replace(store, env, current, decoded(store, env, body, { text: req.body }), req.subresource);
}

/**
 * Stores `next` in place of `current`: optimistic concurrency, metadata rules, no-op detection, finalizers.
 * `track` is false when managedFields were already set (apply).
 */
export function replace(store: WriteStore, env: WriteEnv, current: KubeObject, next: KubeObject, subresource: string, track = true): WriteResponse {
  const { type } = env;
  const name = current.metadata.name!;
  reconcileNamespace(type, next, current.metadata.namespace ?? '');
  if (next.metadata.name && next.metadata.name !== name) {
    throw new StatusError(badRequest(`the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`));
  }
  next.metadata.name = name;
  const rv = next.metadata.resourceVersion;
  if (rv && rv !== current.metadata.resourceVersion) {
    throw new StatusError(conflict(type, name, OPTIMISTIC_LOCK_MESSAGE));
  }
  if (subresource !== 'status') {
    // Defaults first, as decoding does, so an update that omits a defaulted field changes nothing.
    keepAllocatedValues(type, current, next);
    if (!type.custom) applyDefaults(next);
  }
  // Subresources that replace one part of the object (pods/ephemeralcontainers, csr approval): core/subresource-strategies.ts.
  const strategy = subresourceStrategy(type, subresource);
  const merged = subresource === 'status' ? mergeStatusUpdate(current, next)
    : subresource === 'finalize' ? mergeFinalize(current, next)
    : strategy ? strategy.merge(current, next, env.now) : mergeUpdateMeta(type, current, next);
  const admission = env.admission && admissionAttributes(env, 'UPDATE', current.metadata.namespace ?? '', subresource, merged, current);
  if (admission) admitMutating(admission, env.admission!.inputs, admissionEnv(env));
  env.guard?.(merged, current);
  if (subresource !== 'status') {
    const causes = strategy ? strategy.validate(merged, current) : immutableViolations(type.kind, current, merged);
    if (causes.length) throw new StatusError(invalid(type.group, type.kind, name, causes));
  }
  if (track) recordWrite(env, current, merged, subresource);
  else if (subresource === 'status') merged.metadata.managedFields = next.metadata.managedFields; // set by apply
  if (isCoreService(type) && !subresource) allocateServiceUpdate(current, merged, serviceAllocations(store), seededRandom(env.newUid()));
  validateObject(type, merged, current, subresource !== 'status');
  typeHooks(type)?.prepare(merged, current, subresource, hookEnv(store, env));
  if (admission) admitValidating(admission, env.admission!.inputs, admissionEnv(env));
  checkSize(merged);
  merged.metadata.resourceVersion = current.metadata.resourceVersion;
  if (sameJson(merged, current)) return { code: 200, body: current };
  const key = objectKey(current.metadata.namespace ?? '', name);
  // The last finalizer removed from an object being deleted completes its deletion.
  if (merged.metadata.deletionTimestamp && !(merged.metadata.finalizers?.length) && !(isNamespaceType(type) && namespaceHeld(merged))) {
    return { code: 200, body: store.commit('DELETED', key, merged) };
  }
  return { code: 200, body: store.commit('MODIFIED', key, merged) };
}

function replaceScale(store: WriteStore, env: WriteEnv, current: KubeObject, body: unknown): WriteResponse {
  const scale = body as KubeObject;
  const replicas = (scale?.spec as { replicas?: unknown } | undefined)?.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw new StatusError(invalid('autoscaling', 'Scale', current.metadata.name!, [{
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
      field: 'spec.replicas',
    }]));
  }
  const result = replace(store, env, current, withScale(current, scale, env.type.custom?.scale), 'scale');
  return { code: result.code, body: scaleOf(result.body as KubeObject, env.type.custom?.scale) };
}

function patch(store: WriteStore, env: WriteEnv, req: Extract<WriteRequest, { verb: 'patch' }>): WriteResponse {
  const { type } = env;
  checkSubresource(type, req.subresource);
  const patchType = patchTypeOf(req.patchType);
  if (!patchType && isApplyPatch(req.patchType)) return serverSideApply(store, env, req);
  if (!patchType) throw new StatusError(unsupportedMediaType(req.patchType, [...Object.values(PATCH_CONTENT_TYPES), APPLY_PATCH_CONTENT_TYPE]));
  const accepted = typeHooks(type)?.patchTypes;
  if (accepted && !accepted.includes(PATCH_CONTENT_TYPES[patchType])) throw new StatusError(unsupportedMediaType(req.patchType, accepted));
  const current = existing(store, type, req.namespace, req.name);
  const patchDoc = decodePatchBody(patchType, req.body);
  const scale = req.subresource === 'scale';
  const scalePaths = type.custom?.scale;
  const patchedFrom = (base: KubeObject, doc: unknown) => applyPatch(patchType, scale ? scaleOf(base, scalePaths) : base, doc, scale ? 'Scale' : type.kind);
  const patched = patchedFrom(current, patchDoc);
  // kube shows the patch map (strategic) or the patched JSON (json, merge) in a decoding failure; the
  // latter is made again, as decoding has already changed `patched` in place.
  const converter = patchType === 'strategic';
  const patchValue = () => (converter ? goValue(patchDoc)
    : JSON.stringify(patchedFrom(existing(store, type, req.namespace, req.name), decodePatchBody(patchType, req.body))));
  if (scale) return replaceScale(store, env, current, checkFields(env, patched as KubeObject, { patchValue, converter }, SCALE));
  return replace(store, env, current, decoded(store, env, patched, { patchValue, converter }), req.subresource);
}

interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  orphanDependents?: boolean;
}

/** The propagation policy from the body, else the query (kubectl sends it in the body). */
function withPropagation(env: WriteEnv, current: KubeObject, options: DeleteOptions, query: DeleteQuery): KubeObject {
  const propagationPolicy = options.propagationPolicy ?? query.propagationPolicy;
  const finalizers = deletionFinalizers(current.kind ?? '', current.metadata.finalizers, { orphanDependents: options.orphanDependents, propagationPolicy });
  if (!finalizers || env.garbageCollection === false) return current;
  const next = structuredClone(current);
  if (finalizers.length) next.metadata.finalizers = finalizers;
  else delete next.metadata.finalizers;
  return next;
}

function parseDeleteOptions(body: string): DeleteOptions {
  if (!body.trim()) return {};
  const parsed = parseBody(body);
  if (typeof parsed !== 'object' || parsed === null) throw new StatusError(badRequest('DeleteOptions must be an object'));
  return parsed as DeleteOptions;
}

function deleteOne(store: WriteStore, env: WriteEnv, req: Extract<WriteRequest, { verb: 'delete' }>): WriteResponse {
  const { type } = env;
  const current = existing(store, type, req.namespace, req.name);
  const options = parseDeleteOptions(req.body);
  checkPreconditions(type.kind, current, options);
  const target = typeHooks(type)?.beforeDelete?.(current, hookEnv(store, env)) ?? current;
  if (isCorePod(type)) {
    const query = req.query.gracePeriodSeconds !== undefined ? Number(req.query.gracePeriodSeconds) : undefined;
    const requested = options.gracePeriodSeconds ?? (Number.isInteger(query) ? query : undefined);
    const outcome = gracefulPodDelete(withPropagation(env, target, options, req.query), requested, env.now);
    if (outcome.kind === 'unchanged') return { code: 200, body: current };
    if (outcome.kind === 'mark') return { code: 200, body: store.commit('MODIFIED', objectKey(current.metadata.namespace ?? '', current.metadata.name!), outcome.object) };
  }
  return { code: 200, body: remove(store, env, withPropagation(env, target, options, req.query), current) };
}

// apiserver registry/rest/delete.go: precondition messages name the Kind, not the resource.
function checkPreconditions(kind: string, current: KubeObject, options: DeleteOptions): void {
  const p = options.preconditions;
  const name = current.metadata.name!;
  const kindTarget = { group: '', resource: kind };
  if (p?.uid && p.uid !== current.metadata.uid) {
    throw new StatusError(conflict(kindTarget, name,
      `the UID in the precondition (${p.uid}) does not match the UID in record (${current.metadata.uid}). The object might have been deleted and then recreated`));
  }
  if (p?.resourceVersion && p.resourceVersion !== current.metadata.resourceVersion) {
    throw new StatusError(conflict(kindTarget, name,
      `the ResourceVersion in the precondition (${p.resourceVersion}) does not match the ResourceVersion in record (${current.metadata.resourceVersion}). The object might have been modified`));
  }
}

/**
 * Deletes `current`, or, while it has finalizers, marks it with deletionTimestamp and keeps it.
 * With no kubelet yet, pods are deleted at once rather than gracefully (as apiserver does for unscheduled pods).
 */
function remove(store: WriteStore, env: WriteEnv, current: KubeObject, stored: KubeObject = current): unknown {
  const { type } = env;
  const key = objectKey(current.metadata.namespace ?? '', current.metadata.name!);
  // With the namespace controller running (CONTROLLERS on, as for the garbage collector), spec.finalizers
  // holds a namespace: DELETE marks it and the controller finishes (core/namespaces/deletion.ts).
  if (isNamespaceType(type) && env.garbageCollection !== false && namespaceHeld(current)) {
    return current.metadata.deletionTimestamp ? current : store.commit('MODIFIED', key, markNamespaceDeleting(current, timestamp(env.now)));
  }
  if (current.metadata.finalizers?.length) {
    if (current.metadata.deletionTimestamp) {
      // Already deleting: only a change of GC finalizers (e.g. foreground to orphan) is written.
      return current === stored ? current : store.commit('MODIFIED', key, current);
    }
    const marked = structuredClone(current);
    marked.metadata.deletionTimestamp = timestamp(env.now);
    marked.metadata.deletionGracePeriodSeconds = 0;
    if (marked.metadata.generation) marked.metadata.generation += 1;
    return store.commit('MODIFIED', key, marked);
  }
  const deleted = store.commit('DELETED', key, current);
  return type.returnsDeletedObject ? deleted : success(type, current.metadata.name!, current.metadata.uid);
}

function deleteCollection(store: WriteStore, env: WriteEnv, req: Extract<WriteRequest, { verb: 'deletecollection' }>): WriteResponse {
  const { type } = env;
  const options = parseDeleteOptions(req.body);
  const { page } = req;
  // A page names its keys; one deleted or changed since the store picked it is skipped or checked again.
  const candidates = page ? page.keys.map((k) => store.get(k)).filter((o): o is KubeObject => o !== undefined) : store.objects(req.namespace);
  const victims = [...candidates].filter((o) => matchesObject(type, o, req.selectors));
  let deleted = 0;
  const counting: WriteStore = {
    ...store,
    commit: (kind, key, object) => {
      if (kind === 'DELETED') deleted++;
      return store.commit(kind, key, object);
    },
  };
  for (const o of victims) {
    checkPreconditions(type.kind, o, options);
    // The answer lists the objects as they were (kube's DeleteCollection answers the List it deleted from).
    const copy = structuredClone(o);
    remove(counting, env, withPropagation(env, copy, options, req.query), copy);
  }
  const metadata = page ? { resourceVersion: page.resourceVersion, ...(page.continue ? { continue: page.continue } : {}) } : {};
  return { code: 200, body: { kind: `${type.kind}List`, apiVersion: apiVersionOf(type), metadata, items: victims }, held: victims.length - deleted };
}
