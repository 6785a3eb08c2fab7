// Contract: this isolate's CRD-defined types. The Worker and every Durable Object running in an isolate read
// one registry (core/registry.ts), so they share its one follower of the CRD store (core/crd/registry-sync.ts):
// two followers feeding one registry could each move it back to what only they had seen. Built-in types never
// wait for it.

import { CRD_GROUP_RESOURCE } from '../core/crd/crd-object';
import { CustomTypeFollower, type SyncOptions } from '../core/crd/registry-sync';
import type { FollowedStore } from '../core/follow/store-follower';
import { isBuiltInGroupResource, setCustomTypes } from '../core/registry';
import type { Bindings } from './bindings';
import { followedStore } from './store-source';

// How stale an isolate's view of the CRDs may be; a forwarded request's revision overrides it.
export const CRD_MAX_AGE_MS = 1000;

const isolateTypes = new CustomTypeFollower(setCustomTypes);

/** The CRD store, for syncCustomTypes. */
export function crdSource(env: Pick<Bindings, 'STORE'>): FollowedStore {
  return followedStore(env, CRD_GROUP_RESOURCE);
}

export function syncCustomTypes(source: FollowedStore, o: SyncOptions): Promise<void> {
  return isolateTypes.sync(source, o);
}

/** Makes sure the registry knows `groupResource` as of `minRevision` (a store or replica about to serve it). */
export async function knowType(env: Partial<Pick<Bindings, 'STORE'>>, groupResource: string, minRevision?: number): Promise<void> {
  if (isBuiltInGroupResource(groupResource) || !env.STORE) return;
  await syncCustomTypes(crdSource({ STORE: env.STORE }), { now: Date.now(), maxAgeMs: CRD_MAX_AGE_MS, minRevision });
}

/** The revision to forward with a request, so the Durable Object serving it knows at least as much. */
export function forwardedCrdRevision(): number | undefined {
  const r = isolateTypes.revision;
  return r >= 0 ? r : undefined;
}
