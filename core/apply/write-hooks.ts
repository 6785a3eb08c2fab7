// Core (server-side apply): where the write paths of core/writes.ts meet the field manager — one hook
// for every non-apply write (recordWrite, called by create and replace once the stored object is
// known) and the apply verb itself (serverSideApply: parse, merge with ownership, then the ordinary
// create or replace path, so defaulting, validation, no-op detection and storage are shared).

import { kindNode } from '../schema/compile';
import { decodeObject } from '../validation/known-fields';
import { asTypedObject, type KubeObject } from '../object-meta';
import { badRequest, conflict, notFound, StatusError } from '../status';
import { objectKey } from '../object-key';
import { scaleOf } from '../scale';
import { apiVersionOf, lookupType, type ResourceType } from '../registry';
import { typeHooks } from '../crd/write-hooks';
import { createObject, replace, type WriteEnv, type WriteRequest, type WriteResponse, type WriteStore } from '../writes';
import { applyConfig, recordUpdate, type FieldManagerContext, type Subresource } from './field-manager';
import { parseApplyBody } from './apply-body';
import { DEDUCED } from './schema-view';
import { customApplyNode } from './custom-schema';

// A kind without a compiled schema is merged "deduced" (SMD's schema-less mode: maps granular, lists
// atomic). A custom type is merged with its CRD version's structural schema (./custom-schema.ts), at
// the request's version: managedFields record it, and the CRD's other versions keep their sets.
function contextFor(env: WriteEnv, subresource: string): FieldManagerContext {
  const type = requestType(env);
  const custom = type.custom;
  const node = custom ? customApplyNode(custom.schema) : kindNode(type.group, type.version, type.kind) ?? DEDUCED;
  const ctx: FieldManagerContext = {
    node, group: type.group, version: type.version, kind: type.kind, subresource: subresource as Subresource,
    hasStatus: type.subresources.includes('status'), now: env.now,
  };
  if (custom) {
    const path = custom.scale?.specReplicasPath;
    if (path) ctx.scaleReplicasPath = path.slice(1).split('.');
    ctx.convertible = (apiVersion) => {
      const slash = apiVersion.indexOf('/');
      return apiVersion.slice(0, slash) === type.group && !!lookupType(type.group, apiVersion.slice(slash + 1), type.resource)?.custom;
    };
  }
  return ctx;
}

// The store runs with a custom type's storage version; the front door says which version was asked for.
function requestType(env: WriteEnv): ResourceType {
  const { type, requestVersion } = env;
  if (!type.custom || !requestVersion || requestVersion === type.version) return type;
  return lookupType(type.group, requestVersion, type.resource) ?? type;
}

/** Sets `next.metadata.managedFields` for a create (`live` undefined), update or patch by env.manager. */
export function recordWrite(env: WriteEnv, live: KubeObject | undefined, next: KubeObject, subresource: string): void {
  recordUpdate(contextFor(env, subresource), live, next, env.manager ?? '');
}

type PatchRequest = Extract<WriteRequest, { verb: 'patch' }>;

/** PATCH with application/apply-patch+yaml: apply, creating the object (201) when it does not exist. */
export function serverSideApply(store: WriteStore, env: WriteEnv, req: PatchRequest): WriteResponse {
  const { type } = env;
  const ctx = contextFor(env, req.subresource);
  const body = parseApplyBody(req.body, env.fieldValidation ?? 'Warn', env.warnings);
  const current = store.get(objectKey(req.namespace, req.name));
  if (!current && req.subresource) throw new StatusError(notFound(type, req.name));
  if (!current && req.createRefused) throw new StatusError(req.createRefused);
  const apiVersion = apiVersionOf(ctx);
  // /scale applies a Scale: its spec.replicas is the parent's, owned with subresource "scale".
  let config = body as KubeObject;
  if (req.subresource === 'scale') {
    if (body.apiVersion !== 'autoscaling/v1' || body.kind !== 'Scale') {
      throw new StatusError(badRequest(`invalid object type: ${String(body.apiVersion ?? '')}, Kind=${String(body.kind ?? '')}`));
    }
    const meta = (body.metadata ?? {}) as { name?: string; namespace?: string };
    const metadata: KubeObject['metadata'] = {};
    if (meta.name !== undefined) metadata.name = meta.name;
    if (meta.namespace !== undefined) metadata.namespace = meta.namespace;
    const replicas = (body.spec as { replicas?: unknown } | undefined)?.replicas;
    config = { apiVersion, kind: type.kind, metadata };
    if (replicas !== undefined) setPath(config, ctx.scaleReplicasPath ?? ['spec', 'replicas'], replicas);
  }
  const uid = (config.metadata as { uid?: string } | undefined)?.uid;
  if (!current && uid) {
    throw new StatusError(conflict(type, req.name, `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`));
  }
  // The stored object is in the storage version; the merge sees it in the request's (only apiVersion differs).
  const live: KubeObject = current ? { ...current, apiVersion } : { apiVersion, kind: type.kind, metadata: {} };
  const { object } = applyConfig(ctx, live, config, env.manager ?? '', req.force === true);
  object.metadata ??= {};
  object.metadata.name ??= req.name;
  object.apiVersion = apiVersionOf(type);
  const decoded = decodeApplied(store, env, object);
  if (!current) {
    if (decoded.metadata.name !== req.name) {
      throw new StatusError(badRequest(`the name of the object (${decoded.metadata.name}) does not match the name on the URL (${req.name})`));
    }
    return createObject(store, env, req.namespace, decoded, false);
  }
  const result = replace(store, env, current, decoded, req.subresource, false);
  return req.subresource === 'scale' ? { code: result.code, body: scaleOf(result.body as KubeObject, type.custom?.scale) } : result;
}

// The merged object decoded as a POST or PUT body is: built-ins like their Go types, custom objects
// pruned and defaulted by their CRD schema (core/crd/write-hooks.ts), so the same 422s follow.
function decodeApplied(store: WriteStore, env: WriteEnv, object: KubeObject): KubeObject {
  const typed = asTypedObject(env.type, object);
  const decode = typeHooks(env.type)?.decode;
  const decoded = decode
    ? decode(typed, { now: env.now, fieldValidation: env.fieldValidation, warnings: env.warnings, objects: () => store.objects('') })
    : decodeObject(env.type, typed, { fieldValidation: env.fieldValidation, warnings: env.warnings, patchValue: () => JSON.stringify(object) });
  decoded.metadata ??= {};
  return decoded;
}

function setPath(obj: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let cur = obj;
  for (const part of path.slice(0, -1)) {
    const next = (cur[part] ??= {}) as Record<string, unknown>;
    cur = next;
  }
  cur[path[path.length - 1]] = value;
}
