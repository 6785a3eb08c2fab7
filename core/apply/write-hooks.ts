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
import type { ResourceType } from '../registry';
import { createObject, replace, type WriteEnv, type WriteRequest, type WriteResponse, type WriteStore } from '../writes';
import { applyConfig, recordUpdate, type FieldManagerContext, type Subresource } from './field-manager';
import { parseApplyBody } from './apply-body';
import { DEDUCED } from './schema-view';

// A kind without a compiled schema is merged "deduced" (SMD's schema-less mode: maps granular, lists
// atomic), as kube does for custom resources without a structural schema.
function contextFor(type: ResourceType, subresource: string, now: number): FieldManagerContext {
  const node = kindNode(type.group, type.version, type.kind) ?? DEDUCED;
  return {
    node, group: type.group, version: type.version, kind: type.kind, subresource: subresource as Subresource,
    hasStatus: type.subresources.includes('status'), now,
  };
}

/** Sets `next.metadata.managedFields` for a create (`live` undefined), update or patch by env.manager. */
export function recordWrite(env: WriteEnv, live: KubeObject | undefined, next: KubeObject, subresource: string): void {
  recordUpdate(contextFor(env.type, subresource, env.now), live, next, env.manager ?? '');
}

type PatchRequest = Extract<WriteRequest, { verb: 'patch' }>;

/** PATCH with application/apply-patch+yaml: apply, creating the object (201) when it does not exist. */
export function serverSideApply(store: WriteStore, env: WriteEnv, req: PatchRequest): WriteResponse {
  const { type } = env;
  const ctx = contextFor(type, req.subresource, env.now);
  const body = parseApplyBody(req.body, env.fieldValidation ?? 'Warn', env.warnings);
  const current = store.get(objectKey(req.namespace, req.name));
  if (!current && req.subresource) throw new StatusError(notFound(type, req.name));
  if (!current && req.createRefused) throw new StatusError(req.createRefused);
  const apiVersion = type.group ? `${type.group}/${type.version}` : type.version;
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
    config = { apiVersion, kind: type.kind, metadata, ...(replicas === undefined ? {} : { spec: { replicas } }) };
  }
  const uid = (config.metadata as { uid?: string } | undefined)?.uid;
  if (!current && uid) {
    throw new StatusError(conflict(type, req.name, `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`));
  }
  const live: KubeObject = current ?? { apiVersion, kind: type.kind, metadata: {} };
  const { object } = applyConfig(ctx, live, config, env.manager ?? '', req.force === true);
  object.metadata ??= {};
  object.metadata.name ??= req.name;
  const decoded = decodeObject(type, asTypedObject(type, object), {
    fieldValidation: env.fieldValidation, warnings: env.warnings, patchValue: () => JSON.stringify(object),
  });
  decoded.metadata ??= {};
  if (!current) {
    if (decoded.metadata.name !== req.name) {
      throw new StatusError(badRequest(`the name of the object (${decoded.metadata.name}) does not match the name on the URL (${req.name})`));
    }
    return createObject(store, env, req.namespace, decoded, false);
  }
  const result = replace(store, env, current, decoded, req.subresource, false);
  return req.subresource === 'scale' ? { code: result.code, body: scaleOf(result.body as KubeObject) } : result;
}
