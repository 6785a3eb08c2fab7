// Core: PUT of an object, its /status, /scale or another subresource the type writes itself (store.go Update with
// rest.BeforeUpdate): optimistic concurrency, the request defaulted and merged with the stored object by the type's
// strategy, immutable fields, managedFields, validation, no-op detection, and the last finalizer's removal
// completing a deletion.

import { badRequest, conflict, createdStatus, invalid, OPTIMISTIC_LOCK_MESSAGE, StatusError } from '../status';
import { reconcileNamespace, sameJson, validateObject, type KubeObject } from '../object-meta';
import { objectKey } from '../object-key';
import { scaleOf, withScale } from '../scale';
import { recordWrite } from '../apply/record-write';
import { decodeScale, decodeWritten, parseWrittenBody } from './decode';
import { checkSize, checkSubresource, existing } from './stored';
import type { UpdateRequest, WriteContext, WriteResponse, WriteStore } from './types';
import { admissionOf, mutate, validate } from './admission';

export function update(store: WriteStore, ctx: WriteContext, req: UpdateRequest): WriteResponse {
  const own = ctx.strategy.subresources?.get(req.subresource);
  if (own) {
    // A subresource the type writes itself (pods/binding): one MODIFIED commit of the object it makes.
    const key = objectKey(req.namespace, req.name);
    store.commit('MODIFIED', key, own(store.get(key), req.name, req.body, ctx.strategyEnv));
    return { code: 201, body: createdStatus() };
  }
  checkSubresource(ctx.type, req.subresource);
  const current = existing(store, ctx.type, req.namespace, req.name);
  const scale = req.subresource === 'scale';
  const { body, source } = parseWrittenBody(ctx, req.body, scale);
  if (scale) return replaceScale(store, ctx, current, decodeScale(ctx, body, source));
  return replace(store, ctx, current, decodeWritten(ctx, body, source), req.subresource, !req.managedFieldsAsSent);
}

/**
 * Stores `next` in place of `current`: optimistic concurrency, metadata rules, no-op detection, finalizers.
 * `track` is false when managedFields were already set (apply).
 */
export function replace(store: WriteStore, ctx: WriteContext, current: KubeObject, next: KubeObject, subresource: string, track = true): WriteResponse {
  const { type, strategy } = ctx;
  const env = ctx.strategyEnv;
  const name = current.metadata.name!;
  const status = subresource === 'status';
  reconcileNamespace(type, next, current.metadata.namespace ?? '');
  if (next.metadata.name && next.metadata.name !== name) {
    throw new StatusError(badRequest(`the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`));
  }
  next.metadata.name = name;
  const rv = next.metadata.resourceVersion;
  if (rv && rv !== current.metadata.resourceVersion) {
    throw new StatusError(conflict(type, name, OPTIMISTIC_LOCK_MESSAGE));
  }
  // Defaults first, as decoding does, so an update that omits a defaulted field changes nothing.
  if (!status) strategy.default(next, current, env);
  const merged = strategy.prepareForUpdate(next, current, subresource, env);
  const admission = admissionOf(ctx, 'UPDATE', current.metadata.namespace ?? '', subresource, merged, current);
  mutate(ctx, admission);
  ctx.guard?.(merged, current);
  if (!status) {
    const causes = strategy.validateUpdate(merged, current, env, subresource);
    if (causes.length) throw new StatusError(invalid(type.group, type.kind, name, causes));
  }
  if (track) recordWrite({ type, now: ctx.now, manager: ctx.manager, view: ctx.view?.apiVersion }, current, merged, subresource);
  else if (status) merged.metadata.managedFields = next.metadata.managedFields; // set by apply
  if (!subresource) strategy.allocate?.(merged, current, env);
  validateObject(type, merged, status ? strategy.validateStatusUpdate?.(merged, current, env) ?? [] : strategy.validate(merged, current, env), current);
  strategy.beforeStore?.(merged, current, subresource, env);
  validate(ctx, admission);
  checkSize(store, merged);
  merged.metadata.resourceVersion = current.metadata.resourceVersion;
  if (sameJson(merged, current)) return { code: 200, body: current };
  const key = objectKey(current.metadata.namespace ?? '', name);
  return { code: 200, body: store.commit(strategy.shouldDeleteDuringUpdate(merged) ? 'DELETED' : 'MODIFIED', key, merged) };
}

/** PUT or PATCH of /scale: the Scale's spec.replicas written into the object, the answer the Scale it now has. */
export function replaceScale(store: WriteStore, ctx: WriteContext, current: KubeObject, scale: KubeObject): WriteResponse {
  const replicas = (scale?.spec as { replicas?: unknown } | undefined)?.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw new StatusError(invalid('autoscaling', 'Scale', current.metadata.name!, [{
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
      field: 'spec.replicas',
    }]));
  }
  const result = replace(store, ctx, current, withScale(current, scale, ctx.type.custom?.scale), 'scale');
  return { code: result.code, body: scaleOf(result.body as KubeObject, ctx.type.custom?.scale) };
}
