// Front door: deletecollection page by page (core/list/delete-collection-page.ts). The store deletes one page per call,
// bounded in bytes and items, each in its own transaction, and answers that page's items; they go out as the one
// List kube-apiserver answers (the objects as they were when deleted), streamed as the client reads. No reply
// depends on one RPC message (32 MiB), this isolate holds one page at a time, and other requests reach the store
// between pages.

import { groupResource, type ResourceType } from '../../core/registry';
import { statusResponse, type Result } from '../../core/status';
import type { WriteRequest } from '../../core/writes';
import type { StoreReply, WriteOptions } from '../../contract/rpc';
import type { Bindings } from '../env';
import { storeFor } from '../stores';

type DeleteCollection = Extract<WriteRequest, { verb: 'deletecollection' }>;

/** The pages of one deletecollection, in key order; a failure is the last one yielded. */
export async function* deletePages(env: Bindings, type: ResourceType, req: DeleteCollection, options: WriteOptions): AsyncGenerator<Result<StoreReply>> {
  let after = '';
  for (;;) {
    const page = await storeFor(env, type).write(groupResource(type), req, { ...options, deletePage: { after } });
    yield page;
    if (!page.ok || !page.value.continue) return;
    after = page.value.continue;
    // A timer, not a resolved promise: locally every isolate shares one thread, and a chain of RPCs that never
    // waits on I/O keeps workerd from accepting anyone else's request until it ends (measured: 1.4–3 s for 40 MiB).
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/**
 * The answer. The first page is deleted before answering, so its failure (bad options, a precondition) is the
 * answer's Status; later pages are deleted as the client reads, and a failure among them ends the body short, as
 * a failed DeleteCollection leaves what it deleted deleted. `settled` runs with the last page's reply.
 */
export async function deleteCollectionResponse(env: Bindings, type: ResourceType, req: DeleteCollection, options: WriteOptions,
  settled: (last: Result<StoreReply>) => Promise<void>): Promise<Response> {
  const pages = deletePages(env, type, req, options);
  const first = (await pages.next()).value as Result<StoreReply>;
  if (!first.ok) return statusResponse(first.status);
  const encoder = new TextEncoder();
  let page: StoreReply | undefined = first.value;
  let items = 0;
  let started = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!page) return;
      const list = JSON.parse(page.body) as { kind: string; apiVersion: string; metadata: { resourceVersion?: string }; items: unknown[] };
      let text = '';
      if (!started) {
        started = true;
        const metadata = list.metadata.resourceVersion ? { resourceVersion: list.metadata.resourceVersion } : {};
        text = `{"kind":${JSON.stringify(list.kind)},"apiVersion":${JSON.stringify(list.apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[`;
      }
      for (const item of list.items) text += (items++ ? ',' : '') + JSON.stringify(item);
      if (page.continue) {
        const next = (await pages.next()).value as Result<StoreReply>;
        controller.enqueue(encoder.encode(text));
        if (!next.ok) {
          console.error('deletecollection: a later page failed', next.status.message);
          page = undefined;
          controller.error(new Error(next.status.message));
          return;
        }
        page = next.value;
        return;
      }
      const last = page;
      page = undefined;
      await settled({ ok: true, value: last });
      controller.enqueue(encoder.encode(`${text}]}`));
      controller.close();
    },
    async cancel() {
      page = undefined;
      await pages.return(undefined);
    },
  }, { highWaterMark: 0 });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
}
