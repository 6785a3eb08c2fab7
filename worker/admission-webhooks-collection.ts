// Front door: deletecollection when admission webhooks (or a validating stage) may see DELETE of the type: kube
// admits each object of the collection as one DELETE (registry/generic/registry/store.go DeleteCollection), so the
// collection is listed page by page and each object deleted through the webhooks (worker/admission-webhooks.ts)
// with a precondition on the version they saw. The answer is the list of the objects deleted; the first refusal
// or failure ends it, as a failed DeleteCollection leaves what it deleted deleted.

import { apiVersionOf } from '../core/registry';
import type { KubeObject } from '../core/object-meta';
import { internalError, StatusError, type Result } from '../core/status';
import type { DeleteQuery } from '../core/writes';
import type { StoreReply } from '../contract/rpc';
import { groupResource } from '../core/registry';
import { readCapped } from './body';
import { storeFor } from './stores';
import { webhooksMayApply } from './admission-webhooks';
import { send, type WriteQuery } from './handlers/write';
import type { Ctx, ResourceCall } from './handlers/call';

const PAGE = 500;
const PAGE_BYTES = 16 * 1024 * 1024;

/** The answer, or undefined when no webhook applies (the store deletes the collection page by page as usual). */
export async function deleteCollectionWithWebhooks(c: Ctx, call: ResourceCall, body: string, query: WriteQuery, deleteQuery: DeleteQuery): Promise<Result<StoreReply> | undefined> {
  // Through another API version's view (events.k8s.io Events, autoscaling/v1): the store's pages as usual.
  if (call.view || !(await webhooksMayApply(c, call, 'DELETE'))) return undefined;
  const { type, info, url } = call;
  const deleted: KubeObject[] = [];
  let resourceVersion = '';
  let cont = '';
  do {
    const q = new URLSearchParams({ limit: String(PAGE) });
    for (const k of ['labelSelector', 'fieldSelector']) {
      const v = url.searchParams.get(k);
      if (v) q.set(k, v);
    }
    if (cont) q.set('continue', cont);
    const res = await storeFor(c.env, type).list(groupResource(type), { namespace: info.namespace, query: `?${q}`, format: { as: 'List' } });
    const text = await readCapped(res, PAGE_BYTES);
    if (text === undefined) throw new StatusError(internalError(`deletecollection: a page of ${type.resource} over ${PAGE_BYTES} bytes`));
    const list = JSON.parse(text) as { items?: KubeObject[]; metadata?: { continue?: string; resourceVersion?: string } };
    if (res.status !== 200) return { ok: false, status: list as never };
    resourceVersion ||= list.metadata?.resourceVersion ?? '';
    for (const item of list.items ?? []) {
      const name = item.metadata?.name ?? '';
      const one = await send(c, { ...call, info: { ...info, name, verb: 'delete' } }, { verb: 'delete', namespace: item.metadata?.namespace ?? info.namespace, name, body, query: deleteQuery }, query);
      if (!one.ok) {
        if (one.status.code === 404) continue; // deleted meanwhile
        return one;
      }
      const answer = JSON.parse(one.value.body) as KubeObject;
      deleted.push(answer.kind === 'Status' ? item : answer);
    }
    cont = list.metadata?.continue ?? '';
  } while (cont);
  return { ok: true, value: { code: 200, body: JSON.stringify({ kind: `${type.kind}List`, apiVersion: apiVersionOf(type), metadata: { resourceVersion }, items: deleted }) } };
}
