// Front door: what follows a CustomResourceDefinition write. This isolate's registry takes the change at
// once (read-your-writes for discovery and routing). A DELETE that left the CRD Terminating (the store
// added the cleanup finalizer) deletes every object of its type — watchers see each DELETED event, then
// their watches end — and then removes the finalizer, so the CRD and its type disappear
// (apiextensions controller/finalizer/crd_finalizer.go, done in the request rather than by a controller).

import { CLEANUP_FINALIZER, CRD_GROUP_RESOURCE, type Crd } from '../../core/crd/crd-object';
import { setCondition } from '../../core/crd/crd-status';
import { typesFromCrd } from '../../core/crd/crd-types';
import { parseSelectors } from '../../core/list/options';
import { groupResource, lookupGroupResource } from '../../core/registry';
import type { Result } from '../../core/status';
import type { StoreReply } from '../../contract/rpc';
import { crdSource, CRD_MAX_AGE_MS, forwardedCrdRevision, syncCustomTypes } from '../../contract/crd-types';
import type { Bindings } from '../env';
import { storeFor } from '../stores';
import { deletePages } from './delete-collection';

const CRD_TYPE = lookupGroupResource(CRD_GROUP_RESOURCE)!;

export async function afterCrdWrite(env: Bindings, verb: string, result: Result<StoreReply>): Promise<Result<StoreReply>> {
  if (!result.ok) return result;
  let reply = result;
  if (verb === 'delete' && result.value.code === 200) {
    const crd = JSON.parse(result.value.body) as Crd;
    if (crd.kind === 'CustomResourceDefinition' && crd.metadata.deletionTimestamp && crd.metadata.finalizers?.includes(CLEANUP_FINALIZER)) {
      const removed = await cleanUp(env, crd);
      if (removed) reply = { ok: true, value: { ...result.value, revision: removed } };
    }
  }
  if (reply.value.revision) {
    await syncCustomTypes(crdSource(env), { now: Date.now(), maxAgeMs: CRD_MAX_AGE_MS, minRevision: reply.value.revision });
  }
  return reply;
}

/**
 * After a write to a terminating CRD's type (e.g. the last finalizer of an object removed): carry on
 * with the cleanup, as kube's finalizer controller would on its next poll.
 */
export async function resumeCrdCleanup(env: Bindings, crdName: string): Promise<void> {
  const got = await storeFor(env, CRD_TYPE).get(CRD_GROUP_RESOURCE, { namespace: '', name: crdName, subresource: '' });
  if (!got.ok) return;
  const crd = JSON.parse(got.value.body) as Crd;
  if (!crd.metadata.deletionTimestamp || !crd.metadata.finalizers?.includes(CLEANUP_FINALIZER)) return;
  const removed = await cleanUp(env, crd);
  if (removed) await syncCustomTypes(crdSource(env), { now: Date.now(), maxAgeMs: CRD_MAX_AGE_MS, minRevision: removed });
}

/** Deletes every object of the CRD's type, then the CRD; the revision of its removal, if removed. */
async function cleanUp(env: Bindings, crd: Crd): Promise<number | undefined> {
  const types = typesFromCrd(crd);
  const type = types.find((t) => t.custom?.storage) ?? types[0];
  const crdStore = storeFor(env, CRD_TYPE);
  const name = crd.metadata.name!;
  if (type) {
    let left = 0;
    for await (const page of deletePages(env, type, {
      verb: 'deletecollection', namespace: '', body: '', query: {},
      selectors: parseSelectors({ labelSelector: '', fieldSelector: '' }, type),
    }, { crdRevision: forwardedCrdRevision() })) {
      if (!page.ok) return undefined;
      left += page.value.held ?? 0;
    }
    if (left) {
      // Objects with finalizers of their own hold the CRD until they are gone, as kube's finalizer waits.
      const waiting = structuredClone(crd);
      setCondition(waiting, {
        type: 'Terminating', status: 'True', reason: 'InstanceDeletionCheck',
        message: `could not confirm zero CustomResources remaining: ${left} with finalizers`,
      }, Date.now());
      await crdStore.write(CRD_GROUP_RESOURCE, { verb: 'update', namespace: '', name, subresource: 'status', body: JSON.stringify(waiting) });
      return undefined;
    }
  }
  const done = structuredClone(crd);
  done.metadata.finalizers = (done.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
  setCondition(done, { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' }, Date.now());
  const removed = await crdStore.write(CRD_GROUP_RESOURCE, { verb: 'update', namespace: '', name, subresource: '', body: JSON.stringify(done) });
  if (!removed.ok) return undefined;
  // The type is gone from the CRD store: end its watches (store and replicas), as kube does when the
  // type's storage is torn down; a watch opened again finds no such resource.
  if (type) await storeFor(env, type).endWatches(groupResource(type));
  return removed.value.revision;
}
