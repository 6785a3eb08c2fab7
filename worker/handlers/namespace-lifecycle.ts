// Front door admission: objects are created only in namespaces that exist and are not terminating,
// and deleting a namespace deletes its objects of every type first (apiserver NamespaceLifecycle).

import { allStoredTypes, groupResource, lookupGroupResource, type ResourceType } from '../../core/registry';
import { forbidden, notFound, StatusError, type Result } from '../../core/status';
import { parseSelectors } from '../../core/list-options';
import type { StoreReply } from '../../durable-objects/resource-store';
import type { Bindings } from '../env';
import { storeFor } from '../stores';

const NAMESPACES = lookupGroupResource('core/namespaces')!;
const UNDELETABLE = new Set(['default', 'kube-system', 'kube-public']);

export async function admitCreate(env: Bindings, type: ResourceType, namespace: string, body: string): Promise<void> {
  if (!type.namespaced) return;
  const ns = await storeFor(env, NAMESPACES).get(groupResource(NAMESPACES), { namespace: '', name: namespace, subresource: '' });
  if (!ns.ok) throw new StatusError(ns.status.code === 404 ? notFound(NAMESPACES, namespace) : ns.status);
  const phase = (JSON.parse(ns.value.body) as { status?: { phase?: string } }).status?.phase;
  if (phase === 'Terminating') {
    throw new StatusError(forbidden(type, nameIn(body), `unable to create new content in namespace ${namespace} because it is being terminated`, [
      { reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' },
    ]));
  }
}

/**
 * Marks the namespace Terminating (so creates are refused), deletes its objects of every type, then the
 * namespace itself. Objects held by finalizers keep it Terminating; deleting it again once they are
 * gone completes it (the work kube-controller-manager's namespace controller does).
 */
export async function deleteNamespace(env: Bindings, name: string, body: string): Promise<Result<StoreReply>> {
  if (UNDELETABLE.has(name)) {
    return { ok: false, status: forbidden(NAMESPACES, name, 'this namespace may not be deleted') };
  }
  const store = storeFor(env, NAMESPACES);
  const gr = groupResource(NAMESPACES);
  const marked = await store.write(gr, {
    verb: 'patch', namespace: '', name, subresource: 'status',
    patchType: 'application/merge-patch+json', body: JSON.stringify({ status: { phase: 'Terminating' } }),
  });
  if (!marked.ok) return marked;
  const everything = parseSelectors({ labelSelector: '', fieldSelector: '' });
  let remaining = 0;
  for (const type of allStoredTypes().filter((t) => t.namespaced)) {
    const emptied = await storeFor(env, type).write(groupResource(type), {
      verb: 'deletecollection', namespace: name, selectors: everything, body: '', query: {},
    });
    if (!emptied.ok) return emptied;
    // Items still carrying finalizers come back with a deletionTimestamp: they are not gone yet.
    const items = (JSON.parse(emptied.value.body) as { items: { metadata: { deletionTimestamp?: string } }[] }).items;
    remaining += items.filter((i) => i.metadata.deletionTimestamp).length;
  }
  if (remaining > 0) return marked;
  return store.write(gr, { verb: 'delete', namespace: '', name, body, query: {} });
}

function nameIn(body: string): string {
  try {
    return (JSON.parse(body) as { metadata?: { name?: string } }).metadata?.name ?? '';
  } catch {
    return '';
  }
}
