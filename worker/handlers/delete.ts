// Front door: DELETE of one object or of a collection. A namespace is deleted with its contents, store by store
// (./namespace-lifecycle.ts); a collection page by page (./delete-collection.ts); anything else by its store.

import { groupResource } from '../../core/registry';
import { methodNotAllowed, StatusError } from '../../core/status';
import { optionalQueryBool } from '../../core/query-bool';
import type { DeleteQuery, WriteRequest } from '../../core/writes';
import { parseSelectors } from '../../core/list/options';
import { deleteNamespace } from './namespace-lifecycle';
import { reply } from './reply';
import type { KubeObject } from '../../core/object-meta';
import { storeFor } from '../stores';
import { admitWithoutWrite } from '../admission-webhooks';
import { deleteCollectionWithWebhooks } from '../admission-webhooks-collection';
import { settle } from './after-write';
import { deleteCollectionResponse } from './delete-collection';
import { crdRevision, send, writeQuery, writtenBody } from './write';
import type { Ctx, ResourceCall } from './call';
import { admitNodeRequest } from '../node-restriction';

export async function deleteOne(c: Ctx, call: ResourceCall): Promise<Response> {
  const body = await writtenBody(c, call);
  const query = writeQuery(call.url);
  const { type, info } = call;
  if (info.subresource) throw new StatusError(methodNotAllowed());
  if (groupResource(type) === 'core/namespaces' && !query.dryRun) {
    // Not a store write: the webhooks see the namespace as it is (worker/admission-webhooks.ts).
    const current = await storeFor(c.env, type).get(groupResource(type), { namespace: '', name: info.name, subresource: '' });
    if (current.ok) {
      await admitWithoutWrite(c, call, {
        operation: 'DELETE', subresource: '', name: info.name, object: null, oldObject: JSON.parse(current.value.body) as KubeObject, dryRun: false,
        options: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' },
      });
    }
    return reply(await deleteNamespace(c.env, c.get('settings'), info.name, body));
  }
  await admitNodeRequest(c, call, 'DELETE'); // NodeRestriction: a kubelet deletes only what is its own
  return reply(await send(c, call, { verb: 'delete', namespace: info.namespace, name: info.name, body, query: deleteQuery(call.url) }, query));
}

/** DELETE of a collection: the objects matching the selectors, deleted and answered page by page. */
export async function deleteCollection(c: Ctx, call: ResourceCall): Promise<Response> {
  const { type, info, url } = call;
  const body = await writtenBody(c, call);
  const query = writeQuery(url);
  const q = url.searchParams;
  const req: Extract<WriteRequest, { verb: 'deletecollection' }> = {
    verb: 'deletecollection', namespace: info.namespace, body, query: deleteQuery(url),
    selectors: parseSelectors({ labelSelector: q.get('labelSelector') ?? '', fieldSelector: q.get('fieldSelector') ?? '' }, type),
  };
  if (call.view) req.view = call.view.apiVersion;
  // Admission webhooks see each object as one DELETE (worker/admission-webhooks-collection.ts).
  const viaWebhooks = await deleteCollectionWithWebhooks(c, call, body, query, req.query);
  if (viaWebhooks) return reply(viaWebhooks);
  return deleteCollectionResponse(c.env, type, req, { ...query, crdRevision: crdRevision(type) },
    async (last) => void await settle(c, type, info.verb, query.dryRun, last));
}

/** gracePeriodSeconds, propagationPolicy and orphanDependents from the query (the body's DeleteOptions win in the store). */
function deleteQuery(url: URL): DeleteQuery {
  const q = url.searchParams;
  return {
    gracePeriodSeconds: q.get('gracePeriodSeconds') ?? undefined,
    propagationPolicy: q.get('propagationPolicy') ?? undefined,
    orphanDependents: optionalQueryBool(q, 'orphanDependents'),
  };
}
