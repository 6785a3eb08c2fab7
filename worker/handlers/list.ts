// Front door: LIST, from a watch-cache replica when the request allows (worker/replicas.ts), else from the store;
// either renders the page, as a List or a Table, in the request's view (core/list/render.ts).

import { groupResource } from '../../core/registry';
import { storeFor } from '../stores';
import { listFormat } from '../negotiation';
import { clientKey, mayChooseReplica, replicaFor, servableByReplica } from '../replicas';
import { crdRevision } from './write';
import type { Ctx, ResourceCall } from './call';

export async function list(c: Ctx, { type, info, url, view }: ResourceCall): Promise<Response> {
  const format = listFormat(c.req.header('accept'), url.searchParams.get('includeObject') ?? undefined);
  const req = { namespace: info.namespace, query: url.search, format: { ...format, view: view?.apiVersion }, crdRevision: crdRevision(type) };
  const user = c.get('user');
  const replica = servableByReplica(url.searchParams) ? replicaFor(c.env, c.get('settings'), type, c.req.raw, clientKey(user.username, c.req.raw), mayChooseReplica(user)) : undefined;
  if (replica) return replica.stub.list(groupResource(type), replica.name, req);
  return storeFor(c.env, type).list(groupResource(type), req);
}
