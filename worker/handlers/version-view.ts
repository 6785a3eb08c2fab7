// Front door: a second served version of a built-in type over the storage version's store — autoscaling/v1
// HorizontalPodAutoscaler over autoscaling/v2's (core/autoscaling/hpa-v1.ts). As kube-apiserver does for any
// non-storage version: request bodies are converted to the storage version, replies (objects, lists, tables,
// watch frames) back; a patch is applied to the object as the requested version shows it (kube's patcher
// converts the live object first), then stored as an update guarded by the resourceVersion it read — retried,
// as kube retries a patch, when another write got in between. A server-side apply configuration is converted
// field for field and applied in the storage version.

import type { Context } from 'hono';
import type { ResourceRequest } from '../../core/request-info';
import { groupResource, lookupGroupResource, type ResourceType } from '../../core/registry';
import { StatusError, type Result } from '../../core/status';
import { applyPatch } from '../../core/patch/apply-patch';
import { decodePatchBody, patchTypeOf } from '../../core/patch/patch-body';
import { isApplyPatch } from '../../core/apply/apply-body';
import { HPA_V1, hpaFromV1, hpaToV1, replyToHpaV1 } from '../../core/autoscaling/hpa-v1';
import type { StoreReply } from '../../contract/rpc';
import type { AppEnv } from '../env';
import { storeFor } from '../stores';

type Ctx = Context<AppEnv>;
type Obj = Record<string, any>;

// kube's patcher retries a conflicting patch (rest/patch.go, GuaranteedUpdate); five tries is ample.
const PATCH_ATTEMPTS = 5;

/** Body rewriting for create/update/apply: the requested version's object as the storage version's. */
export function bodyToStorage(text: string, partial = false): string {
  try {
    const obj = JSON.parse(text) as Obj;
    return obj && typeof obj === 'object' && !Array.isArray(obj) ? JSON.stringify(hpaFromV1(obj, partial)) : text;
  } catch {
    return text; // the store words the decoding error
  }
}

export const replyFromStorage = replyToHpaV1;

export const VIEW_API_VERSION = HPA_V1;

/** The storage type behind a version view. */
export function storageOf(type: ResourceType): ResourceType {
  return lookupGroupResource(type.viewOf!)!;
}

/**
 * A JSON, merge or strategic-merge patch through the view: read, convert, patch, convert back, update guarded by
 * the read resourceVersion. A patch that names its own resourceVersion is not retried (it asked for exactly that).
 */
export async function patchThroughView(
  c: Ctx, type: ResourceType, info: ResourceRequest, body: string, write: (req: { body: string }) => Promise<Result<StoreReply>>,
): Promise<Result<StoreReply> | undefined> {
  const contentType = c.req.header('content-type') ?? '';
  const patchType = patchTypeOf(contentType);
  if (!patchType || isApplyPatch(contentType)) return undefined; // the store answers these (415, or apply)
  const storage = storageOf(type);
  const doc = decodePatchBody(patchType, body);
  for (let attempt = 1; ; attempt++) {
    const got = await storeFor(c.env, storage).get(groupResource(storage), { namespace: info.namespace, name: info.name, subresource: '' });
    if (!got.ok) return got;
    const live = hpaToV1(JSON.parse(got.value.body) as Obj);
    const liveVersion = live.metadata?.resourceVersion;
    const patched = applyPatch(patchType, live, doc, type.kind) as Obj;
    const named = patched?.metadata?.resourceVersion;
    const pinned = named !== undefined && named !== liveVersion;
    if (patched && typeof patched === 'object' && !pinned) {
      patched.metadata = { ...(patched.metadata ?? {}), resourceVersion: liveVersion };
    }
    const result = await write({ body: bodyToStorage(JSON.stringify(patched)) });
    if (result.ok || result.status.code !== 409 || result.status.reason !== 'Conflict' || pinned || attempt >= PATCH_ATTEMPTS) return result;
  }
}

export function isStatusError(e: unknown): e is StatusError {
  return e instanceof StatusError;
}
