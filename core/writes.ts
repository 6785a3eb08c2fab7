// Canonical layer: kube-apiserver's write semantics per verb (create, update, patch, delete,
// deletecollection, and the status/scale subresources) over a store that commits one event per change.

import { apiVersionOf, type ResourceType } from './registry';
import {
  alreadyExists, badRequest, conflict, generateNameConflict, invalid, notFound,
  OPTIMISTIC_LOCK_MESSAGE, requestEntityTooLarge, StatusError, success, unsupportedMediaType,
} from './status';
import {
  asTypedObject, fillCreateMeta, mergeStatusUpdate, mergeUpdateMeta, reconcileNamespace, sameJson, timestamp,
  validateObject, type KubeObject,
} from './object-meta';
import { scaleOf, withScale } from './scale';
import { applyPatch } from './patch/apply-patch';
import { applyDefaults } from './admission/defaults';
import { immutableViolations } from './admission/immutable';
import { allocateClusterIP, keepAllocatedClusterIP } from './admission/cluster-ip';
import { decodePatchBody, PATCH_CONTENT_TYPES, patchTypeOf } from './patch/patch-body';
import { objectKey } from './object-key';
import { pruneUnknown, unknownFields, type FieldValidation } from './validation/known-fields';
import { matchesObject } from './list-filter';
import type { ParsedSelectors } from './list-options';
import { deletionFinalizers } from './gc-finalizers';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** The store as the write logic sees it; `commit` assigns the next revision and returns the stored object. */
export interface WriteStore {
  get(key: string): KubeObject | undefined;
  objects(namespace: string): Iterable<KubeObject>;
  commit(type: EventType, key: string, object: KubeObject): KubeObject;
}

export interface WriteEnv {
  type: ResourceType;
  now: number;
  newUid: () => string;
  randomSuffix: () => string;
  fieldValidation?: FieldValidation; // default Warn, as kube-apiserver's
  warnings?: string[]; // collects Warn-level findings for the Warning header
  garbageCollection?: boolean; // default true; false: DELETE adds no orphan/foregroundDeletion finalizers
}

export type WriteRequest =
  | { verb: 'create'; namespace: string; body: string }
  | { verb: 'update'; namespace: string; name: string; subresource: string; body: string }
  | { verb: 'patch'; namespace: string; name: string; subresource: string; patchType: string; body: string }
  | { verb: 'delete'; namespace: string; name: string; body: string; query: DeleteQuery }
  | { verb: 'deletecollection'; namespace: string; selectors: ParsedSelectors; body: string; query: DeleteQuery };

export interface DeleteQuery {
  gracePeriodSeconds?: string;
  propagationPolicy?: string;
}

export interface WriteResponse {
  code: number;
  body: unknown;
}

// etcd's --max-request-bytes: the largest object the canonical store keeps.
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;
// apiserver registry/generic/registry/store.go: retries of a generateName collision (RetryGenerateName).
const GENERATE_NAME_ATTEMPTS = 8;
const GENERATE_NAME_MAX_BASE = 58;

export function executeWrite(store: WriteStore, env: WriteEnv, req: WriteRequest): WriteResponse {
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
  try {
    return JSON.parse(body);
  } catch (e) {
    throw new StatusError(badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`));
  }
}

function checkSize(obj: KubeObject): void {
  const bytes = JSON.stringify(obj).length;
  if (bytes > MAX_OBJECT_BYTES) throw new StatusError(requestEntityTooLarge(`limit is ${MAX_OBJECT_BYTES}`));
}

/**
 * fieldValidation (apiserver handlers/rest.go): Strict rejects unknown fields with 400; Warn (the default)
 * and Ignore drop them, as decoding into the typed object would, Warn with a warning.
 */
function checkFields(env: WriteEnv, obj: KubeObject): KubeObject {
  const unknown = unknownFields(env.type, obj);
  if (unknown.length === 0) return obj;
  const mode = env.fieldValidation ?? 'Warn';
  if (mode === 'Strict') throw new StatusError(badRequest(`strict decoding error: ${unknown.join(', ')}`));
  if (mode === 'Warn') env.warnings?.push(...unknown);
  return pruneUnknown(env.type, obj);
}

function create(store: WriteStore, env: WriteEnv, namespace: string, body: string): WriteResponse {
  const { type } = env;
  const obj = checkFields(env, asTypedObject(type, parseBody(body)));
  reconcileNamespace(type, obj, namespace);
  const m = obj.metadata;
  const generated = !m.name && !!m.generateName;
  if (generated) m.name = m.generateName!.slice(0, GENERATE_NAME_MAX_BASE) + env.randomSuffix();
  validateObject(type, obj);
  fillCreateMeta(env, obj);
  applyDefaults(obj);
  if (type.kind === 'Service') allocateClusterIP(store, obj, env.newUid());
  checkSize(obj);
  for (let attempt = 1; ; attempt++) {
    const key = objectKey(m.namespace ?? '', m.name!);
    if (!store.get(key)) return { code: 201, body: store.commit('ADDED', key, obj) };
    if (!generated) throw new StatusError(alreadyExists(type, m.name!));
    if (attempt >= GENERATE_NAME_ATTEMPTS) throw new StatusError(generateNameConflict(type, m.name!));
    m.name = m.generateName!.slice(0, GENERATE_NAME_MAX_BASE) + env.randomSuffix();
  }
}

function existing(store: WriteStore, type: ResourceType, namespace: string, name: string): KubeObject {
  const current = store.get(objectKey(namespace, name));
  if (!current) throw new StatusError(notFound(type, name));
  return current;
}

function checkSubresource(type: ResourceType, subresource: string): void {
  if (subresource && !type.subresources.includes(subresource as 'status' | 'scale')) {
    throw new StatusError(notFound({ group: type.group, resource: `${type.resource}/${subresource}` }, ''));
  }
}

function update(store: WriteStore, env: WriteEnv, req: Extract<WriteRequest, { verb: 'update' }>): WriteResponse {
  checkSubresource(env.type, req.subresource);
  const current = existing(store, env.type, req.namespace, req.name);
  const body = parseBody(req.body);
  if (req.subresource === 'scale') return replaceScale(store, env, current, body);
  return replace(store, env, current, checkFields(env, asTypedObject(env.type, body)), req.subresource);
}

/** Stores `next` in place of `current`: optimistic concurrency, metadata rules, no-op detection, finalizers. */
function replace(store: WriteStore, env: WriteEnv, current: KubeObject, next: KubeObject, subresource: string): WriteResponse {
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
    keepAllocatedClusterIP(type, current, next);
    applyDefaults(next);
  }
  const merged = subresource === 'status' ? mergeStatusUpdate(current, next) : mergeUpdateMeta(type, current, next);
  if (subresource !== 'status') {
    const causes = immutableViolations(type.kind, current, merged);
    if (causes.length) throw new StatusError(invalid(type.group, type.kind, name, causes));
  }
  validateObject(type, merged);
  checkSize(merged);
  merged.metadata.resourceVersion = current.metadata.resourceVersion;
  if (sameJson(merged, current)) return { code: 200, body: current };
  const key = objectKey(current.metadata.namespace ?? '', name);
  // The last finalizer removed from an object being deleted completes its deletion.
  if (merged.metadata.deletionTimestamp && !(merged.metadata.finalizers?.length)) {
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
  const result = replace(store, env, current, withScale(current, scale), '');
  return { code: result.code, body: scaleOf(result.body as KubeObject) };
}

function patch(store: WriteStore, env: WriteEnv, req: Extract<WriteRequest, { verb: 'patch' }>): WriteResponse {
  const { type } = env;
  checkSubresource(type, req.subresource);
  const patchType = patchTypeOf(req.patchType);
  // Server-side apply (application/apply-patch+yaml) is not served yet: 415 like any unknown type.
  if (!patchType) throw new StatusError(unsupportedMediaType(req.patchType, Object.values(PATCH_CONTENT_TYPES)));
  const current = existing(store, type, req.namespace, req.name);
  const patchDoc = decodePatchBody(patchType, req.body);
  const target = req.subresource === 'scale' ? scaleOf(current) : current;
  const patched = applyPatch(patchType, target, patchDoc, req.subresource === 'scale' ? 'Scale' : type.kind);
  if (req.subresource === 'scale') return replaceScale(store, env, current, patched);
  return replace(store, env, current, checkFields(env, asTypedObject(type, patched)), req.subresource);
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
  return { code: 200, body: remove(store, env, withPropagation(env, current, options, req.query), current) };
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
  const victims = [...store.objects(req.namespace)].filter((o) => matchesObject(type, o, req.selectors));
  const items = victims.map((o) => {
    checkPreconditions(type.kind, o, options);
    const result = remove(store, env, withPropagation(env, o, options, req.query), o);
    return (result as KubeObject).kind === 'Status' ? o : result;
  });
  return { code: 200, body: { kind: `${type.kind}List`, apiVersion: apiVersionOf(type), metadata: {}, items } };
}
