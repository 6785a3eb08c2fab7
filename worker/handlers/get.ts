// Front door: GET of one object (or its /status, /scale) from its store, answered in the request's view by the
// store; a Table for `kubectl get` is made here from the stored object, its row's object then shown in the view.

import { groupResource } from '../../core/registry';
import { toTableIsolated } from '../../core/tables/isolated';
import { logRenderError } from '../../core/list/render';
import { storeFor } from '../stores';
import { listFormat } from '../negotiation';
import { json, reply } from './reply';
import { crdRevision } from './write';
import type { Ctx, ResourceCall } from './call';

export async function get(c: Ctx, { type, info, url, view }: ResourceCall): Promise<Response> {
  const format = listFormat(c.req.header('accept'), url.searchParams.get('includeObject') ?? undefined);
  const table = format.as === 'Table' && !info.subresource ? format : undefined;
  const result = await storeFor(c.env, type).get(groupResource(type), {
    namespace: info.namespace, name: info.name, subresource: info.subresource, crdRevision: crdRevision(type),
    view: table ? undefined : view?.apiVersion, // a Table's row is made from the stored object
  });
  if (!result.ok || !table) return reply(result);
  const obj = JSON.parse(result.value.body);
  const rows = toTableIsolated(type, [obj], {
    includeObject: table.includeObject, now: Date.now(), listMeta: { resourceVersion: obj.metadata?.resourceVersion },
  }, logRenderError);
  return json(200, JSON.stringify(view ? view.fromStorage(rows) : rows));
}
