// Core: DELETE (store.go Delete with rest.BeforeDelete): DeleteOptions, preconditions, the garbage-collection
// finalizers the propagation policy asks for, the type's own steps (a CRD's cleanup finalizer, a pod's grace
// period, a namespace its controller finalizes), then a mark (deletionTimestamp) while finalizers remain, else the
// DELETED commit.

import { badRequest, conflict, StatusError, success } from '../status';
import { timestamp, type KubeObject } from '../object-meta';
import { objectKey } from '../object-key';
import { deletionFinalizers } from '../gc-finalizers';
import { jsonDepthError } from '../encoding/json-depth';
import { existing } from './stored';
import type { DeleteQuery, DeleteRequest, WriteContext, WriteResponse, WriteStore } from './types';

export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  orphanDependents?: boolean;
}

export function deleteOne(store: WriteStore, ctx: WriteContext, req: DeleteRequest): WriteResponse {
  const { type, strategy } = ctx;
  const env = ctx.strategyEnv;
  const current = existing(store, type, req.namespace, req.name);
  const options = parseDeleteOptions(req.body);
  checkPreconditions(type.kind, current, options);
  const target = strategy.beforeDelete?.(current, env) ?? current;
  if (strategy.checkGracefulDelete) {
    const query = req.query.gracePeriodSeconds !== undefined ? Number(req.query.gracePeriodSeconds) : undefined;
    const requested = options.gracePeriodSeconds ?? (Number.isInteger(query) ? query : undefined);
    const outcome = strategy.checkGracefulDelete(withPropagation(ctx, target, options, req.query), requested, env);
    if (outcome.kind === 'unchanged') return { code: 200, body: current };
    if (outcome.kind === 'mark') return { code: 200, body: store.commit('MODIFIED', objectKey(current.metadata.namespace ?? '', current.metadata.name!), outcome.object) };
  }
  return { code: 200, body: remove(store, ctx, withPropagation(ctx, target, options, req.query), current) };
}

/** The DeleteOptions of a body (none when it is empty). */
export function parseDeleteOptions(body: string): DeleteOptions {
  if (!body.trim()) return {};
  const tooDeep = jsonDepthError(body); // before anything recursive walks it (core/encoding/json-depth.ts)
  if (tooDeep) throw new StatusError(badRequest(`couldn't get version/kind; json parse error: ${tooDeep}`));
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (e) {
    throw new StatusError(badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`));
  }
  if (typeof parsed !== 'object' || parsed === null) throw new StatusError(badRequest('DeleteOptions must be an object'));
  return parsed as DeleteOptions;
}

// apiserver registry/rest/delete.go: precondition messages name the Kind, not the resource.
export function checkPreconditions(kind: string, current: KubeObject, options: DeleteOptions): void {
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

/** The propagation policy from the body, else the query (kubectl sends it in the body). */
export function withPropagation(ctx: WriteContext, current: KubeObject, options: DeleteOptions, query: DeleteQuery): KubeObject {
  const propagationPolicy = options.propagationPolicy ?? query.propagationPolicy;
  const finalizers = deletionFinalizers(current.kind ?? '', current.metadata.finalizers, { orphanDependents: options.orphanDependents, propagationPolicy });
  if (!finalizers || ctx.garbageCollection === false) return current;
  const next = structuredClone(current);
  if (finalizers.length) next.metadata.finalizers = finalizers;
  else delete next.metadata.finalizers;
  return next;
}

/**
 * Deletes `current`, or, while it has finalizers, marks it with deletionTimestamp and keeps it; the type may do
 * its own (a namespace its controller finalizes). `stored` is the object as stored, to tell whether anything changed.
 */
export function remove(store: WriteStore, ctx: WriteContext, current: KubeObject, stored: KubeObject = current): unknown {
  const { type } = ctx;
  const key = objectKey(current.metadata.namespace ?? '', current.metadata.name!);
  const own = ctx.strategy.delete?.(current, ctx.strategyEnv);
  if (own) return own === current ? current : store.commit('MODIFIED', key, own);
  if (current.metadata.finalizers?.length) {
    if (current.metadata.deletionTimestamp) {
      // Already deleting: only a change of GC finalizers (e.g. foreground to orphan) is written.
      return current === stored ? current : store.commit('MODIFIED', key, current);
    }
    const marked = structuredClone(current);
    marked.metadata.deletionTimestamp = timestamp(ctx.now);
    marked.metadata.deletionGracePeriodSeconds = 0;
    if (marked.metadata.generation) marked.metadata.generation += 1;
    return store.commit('MODIFIED', key, marked);
  }
  const deleted = store.commit('DELETED', key, current);
  return type.returnsDeletedObject ? deleted : success(type, current.metadata.name!, current.metadata.uid);
}
