// Front door admission: objects are created only in namespaces that exist and are not terminating,
// and deleting a namespace deletes its objects of every type first (apiserver NamespaceLifecycle).

import { allStoredTypes, groupResource, lookupGroupResource, type ResourceType } from '../../core/registry';
import { forbidden, notFound, StatusError, type Result } from '../../core/status';
import { namespaceTerminating } from '../../core/namespaces/terminating';
import type { StoreReply } from '../../contract/rpc';
import type { Bindings } from '../env';
import { storeFor } from '../stores';
import { forwardedCrdRevision } from '../../contract/crd-types';
import { namespaceObject } from '../admission-inputs';
import { afterWrite as afterAdmissionRead } from '../admission-cache';
import type { Settings } from '../../core/settings';

const NAMESPACES = lookupGroupResource('core/namespaces')!;
const UNDELETABLE = new Set(['default', 'kube-system', 'kube-public']);

/**
 * Admits a create: the namespace must exist and not be terminating. Returns the namespace's
 * resourceVersion as read, for the store's fence (durable-objects/namespace-fence.ts), which refuses the
 * create if the namespace was marked Terminating after this read; undefined for cluster-scoped types.
 *
 * The namespace comes from the isolate's admission cache (worker/admission-cache.ts, about a second old at most)
 * unless `fresh`: a create then costs one Durable Object call, not two (bench/profile.ts writes-64). A stale
 * Active copy admits nothing the fence lets through: every deletion marks the namespace Terminating at revision M
 * and fences every built-in type's store at M before deleting anything, so a create admitted at an older revision
 * is refused by the store, and createInNamespace reads the namespace again and retries once. Custom types always
 * read fresh: a CRD created after a namespace was deleted has a store that never saw that namespace's fence.
 */
export async function admitCreate(env: Bindings, type: ResourceType, namespace: string, body: string, fresh = false): Promise<number | undefined> {
  if (!type.namespaced) return undefined;
  const exact = fresh || !!type.custom;
  let ns = await namespaceObject(env, namespace, exact);
  // A namespace cannot leave Terminating except by going away: a cached Terminating one is checked again, in case
  // it was deleted and created anew meanwhile.
  if (!exact && (ns as Namespace | undefined)?.status?.phase === 'Terminating') ns = await namespaceObject(env, namespace, true);
  if (!ns) throw new StatusError(notFound(NAMESPACES, namespace));
  const obj = ns as Namespace;
  if (obj.status?.phase === 'Terminating') throw new StatusError(namespaceTerminating(type, nameIn(body), namespace));
  return Number(obj.metadata.resourceVersion);
}

type Namespace = { metadata: { resourceVersion: string }; status?: { phase?: string } };

/**
 * A create admitted by admitCreate and written by `write`; when the store's namespace fence refused it (the
 * namespace was being deleted after the copy admission read), the namespace is read again: the answer is then
 * admission's own (NotFound, or Forbidden while terminating), or, for a namespace created anew, the create once more.
 */
export async function createInNamespace(env: Bindings, type: ResourceType, namespace: string, body: string, write: (namespaceRevision: number | undefined) => Promise<Result<StoreReply>>): Promise<Result<StoreReply>> {
  const result = await write(await admitCreate(env, type, namespace, body));
  if (!type.namespaced || !fencedOut(result)) return result;
  return write(await admitCreate(env, type, namespace, body, true));
}

/** The store's fence refusal (core/namespaces/terminating.ts), the one write answer with a NamespaceTerminating cause. */
function fencedOut(result: Result<StoreReply>): boolean {
  return !result.ok && result.status.code === 403 && !!result.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating');
}

/**
 * Marks the namespace Terminating (so admission refuses creates), then has each type's store fence the
 * namespace and delete its objects in one step (so a create admitted before the mark either lands before
 * that step and is deleted by it, or is refused by the fence), then deletes the namespace itself. Objects held by finalizers keep it Terminating; deleting it again once they are
 * gone completes it (the work kube-controller-manager's namespace controller does).
 */
export async function deleteNamespace(env: Bindings, settings: Settings, name: string, body: string): Promise<Result<StoreReply>> {
  try {
    return await deleteNamespaceObjects(env, settings, name, body);
  } finally {
    // This isolate's creates read the namespace afresh from now on (the fence would refuse them anyway).
    afterAdmissionRead(groupResource(NAMESPACES));
  }
}

async function deleteNamespaceObjects(env: Bindings, settings: Settings, name: string, body: string): Promise<Result<StoreReply>> {
  if (UNDELETABLE.has(name)) {
    return { ok: false, status: forbidden(NAMESPACES, name, 'this namespace may not be deleted') };
  }
  if (settings.controllers) return markForController(env, name, body);
  const store = storeFor(env, NAMESPACES);
  const gr = groupResource(NAMESPACES);
  const marked = await store.write(gr, {
    verb: 'patch', namespace: '', name, subresource: 'status',
    patchType: 'application/merge-patch+json', body: JSON.stringify({ status: { phase: 'Terminating' } }),
  });
  if (!marked.ok) return marked;
  // The revision that made it Terminating; the namespace as admission read it before then is older.
  const terminatingAt = marked.value.revision ?? Number((JSON.parse(marked.value.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
  let remaining = 0;
  for (const type of allStoredTypes().filter((t) => t.namespaced)) {
    const emptied = await storeFor(env, type).terminateNamespace(groupResource(type), name, terminatingAt, type.custom ? forwardedCrdRevision() : undefined);
    if (!emptied.ok) return emptied;
    // Objects still carrying finalizers are marked, not gone yet.
    remaining += emptied.value.held ?? 0;
  }
  if (remaining > 0) return marked;
  return store.write(gr, { verb: 'delete', namespace: '', name, body, query: {} });
}

/**
 * With the namespace controller (controllers/namespace.ts): phase Terminating first (admission refuses
 * creates from then on; its revision M is the fence), then every type's store fences the namespace at M
 * (a create admitted earlier but committing later is refused), then the DELETE proper, which sets
 * deletionTimestamp while spec.finalizers holds `kubernetes` (core/namespaces/deletion.ts). The controller
 * acts on deletionTimestamp, so it starts only once every fence stands. Later DELETEs go to the store as
 * they are (answer the object, or delete it once its finalizers are gone).
 */
async function markForController(env: Bindings, name: string, body: string): Promise<Result<StoreReply>> {
  const store = storeFor(env, NAMESPACES);
  const gr = groupResource(NAMESPACES);
  const current = await store.get(gr, { namespace: '', name, subresource: '' });
  if (!current.ok) return current;
  const ns = JSON.parse(current.value.body) as { metadata: { deletionTimestamp?: string } };
  if (!ns.metadata.deletionTimestamp) {
    const marked = await store.write(gr, {
      verb: 'patch', namespace: '', name, subresource: 'status',
      patchType: 'application/merge-patch+json', body: JSON.stringify({ status: { phase: 'Terminating' } }),
    });
    if (!marked.ok) return marked;
    const terminatingAt = marked.value.revision ?? Number((JSON.parse(marked.value.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    for (const type of allStoredTypes().filter((t) => t.namespaced)) {
      const fenced = await storeFor(env, type).fenceNamespace(groupResource(type), name, terminatingAt, type.custom ? forwardedCrdRevision() : undefined);
      if (!fenced.ok) return fenced;
    }
  }
  return store.write(gr, { verb: 'delete', namespace: '', name, body, query: {} });
}

function nameIn(body: string): string {
  try {
    return (JSON.parse(body) as { metadata?: { name?: string } }).metadata?.name ?? '';
  } catch {
    return '';
  }
}
