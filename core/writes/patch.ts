// Core: PATCH (apiserver handlers/patch.go): JSON, merge and strategic merge patches applied to the stored object
// (or its Scale) and written as an update; server-side apply (application/apply-patch+yaml) merged by the field
// manager (core/apply/server-side-apply.ts), which says whether to create or update, and written so here.

import { StatusError, unsupportedMediaType } from '../status';
import type { KubeObject } from '../object-meta';
import { objectKey } from '../object-key';
import { scaleOf } from '../scale';
import { applyPatch } from '../patch/apply-patch';
import { decodePatchBody, PATCH_CONTENT_TYPES, patchTypeOf } from '../patch/patch-body';
import { goValue } from '../patch/go-format';
import { APPLY_PATCH_CONTENT_TYPE, isApplyPatch } from '../apply/apply-body';
import { serverSideApply } from '../apply/server-side-apply';
import { createObject } from './create';
import { replace, replaceScale } from './update';
import { decodeScale, decodeWritten } from './decode';
import { checkSubresource, existing } from './stored';
import type { PatchRequest, WriteContext, WriteResponse, WriteStore } from './types';

export function patch(store: WriteStore, ctx: WriteContext, req: PatchRequest): WriteResponse {
  const { type } = ctx;
  checkSubresource(type, req.subresource);
  const patchType = patchTypeOf(req.patchType);
  // Written through a view: field names (or JSON patch paths) in the store's terms, unless the view's patches are
  // applied to the object as it shows it (core/views/hpa-v1.ts).
  const inView = !!ctx.view?.patchInView && !!patchType && !isApplyPatch(req.patchType);
  const body = ctx.view && !inView ? ctx.view.patchToStorage(req.body) : req.body;
  if (!patchType && isApplyPatch(req.patchType)) return apply(store, ctx, req, body);
  if (!patchType) throw new StatusError(unsupportedMediaType(req.patchType, [...Object.values(PATCH_CONTENT_TYPES), APPLY_PATCH_CONTENT_TYPE]));
  const accepted = ctx.strategy.patchTypes;
  if (accepted && !accepted.includes(PATCH_CONTENT_TYPES[patchType])) throw new StatusError(unsupportedMediaType(req.patchType, [...accepted]));
  const stored = existing(store, type, req.namespace, req.name);
  const current = inView ? ctx.view!.fromStorage(stored) as KubeObject : stored;
  const patchDoc = decodePatchBody(patchType, body);
  const scale = req.subresource === 'scale';
  const scalePaths = type.custom?.scale;
  const patchedFrom = (base: KubeObject, doc: unknown) => applyPatch(patchType, scale ? scaleOf(base, scalePaths) : base, doc, scale ? 'Scale' : type.kind);
  const patched = patchedFrom(current, patchDoc);
  // kube shows the patch map (strategic) or the patched JSON (json, merge) in a decoding failure; the
  // latter is made again, as decoding has already changed `patched` in place.
  const converter = patchType === 'strategic';
  const patchValue = () => (converter ? goValue(patchDoc)
    : JSON.stringify(patchedFrom(inView ? ctx.view!.fromStorage(existing(store, type, req.namespace, req.name)) as KubeObject
      : existing(store, type, req.namespace, req.name), decodePatchBody(patchType, body))));
  if (scale) return replaceScale(store, ctx, stored, decodeScale(ctx, patched, { patchValue, converter }));
  const written = inView && patched && typeof patched === 'object' && !Array.isArray(patched) ? ctx.view!.toStorage(patched as Record<string, unknown>) : patched;
  return replace(store, ctx, stored, decodeWritten(ctx, written, { patchValue, converter }), req.subresource);
}

/** Server-side apply: the field manager merges and says what to write; creates are 201, /scale answers its Scale. */
function apply(store: WriteStore, ctx: WriteContext, req: PatchRequest, body: string): WriteResponse {
  const current = store.get(objectKey(req.namespace, req.name));
  const plan = serverSideApply(current, {
    type: ctx.type, now: ctx.now, manager: ctx.manager, view: ctx.view?.apiVersion,
    fieldValidation: ctx.fieldValidation, warnings: ctx.warnings,
    // The merged object decoded as a POST or PUT body is, so the same 422s follow.
    decode: (obj) => decodeWritten(ctx, obj, { patchValue: () => JSON.stringify(obj) }),
  }, { ...req, body });
  if (plan.verb === 'create') return createObject(store, ctx, req.namespace, plan.object, false);
  const result = replace(store, ctx, plan.current, plan.object, req.subresource, false);
  return req.subresource === 'scale' ? { code: result.code, body: scaleOf(result.body as KubeObject, ctx.type.custom?.scale) } : result;
}
