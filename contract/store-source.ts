// Contract: a canonical store as a follower reaches it (core/follow/store-follower.ts): consistent lists page by
// page through its list RPC, log reads, and — for followers it can push to — a subscription under their name.

import type { FollowedStore } from '../core/follow/store-follower';
import type { SnapshotItem, SnapshotPage } from '../core/follow/change-log';
import { objectKey } from '../core/object-key';
import { lookupGroupResource } from '../core/registry';
import type { Bindings } from './bindings';
import { storeStub } from './names';

// Objects per snapshot page: every page is read at the first one's revision (continue tokens pin it).
export const SNAPSHOT_PAGE = 500;

/**
 * The store of `groupResource`. `subscriber`: the name pushes go to (a replica or an authorizer shard);
 * without one the follower pulls. A stub is taken per call: in a Worker a stub belongs to the request that
 * made it, and this source outlives requests.
 */
export function followedStore(env: Pick<Bindings, 'STORE'>, groupResource: string, subscriber?: string): FollowedStore {
  const store = () => storeStub(env, groupResource);
  const source: FollowedStore = {
    listPage: async (token) => {
      const query = `?limit=${SNAPSHOT_PAGE}${token ? `&continue=${encodeURIComponent(token)}` : ''}`;
      const res = await store().list(groupResource, { namespace: '', query, format: { as: 'List' } });
      const body = await res.json();
      if (!res.ok) throw new Error(`snapshot list of ${groupResource} failed: ${JSON.stringify(body)}`);
      return snapshotPage(body, lookupGroupResource(groupResource)?.namespaced ?? true);
    },
    readLog: (after) => store().readLog(groupResource, after),
  };
  if (subscriber) {
    source.subscribe = (after) => store().subscribe(groupResource, subscriber, after);
    source.unsubscribe = () => store().unsubscribe(groupResource, subscriber);
  }
  return source;
}

/**
 * A `<Kind>List` page as a snapshot page: each item under its store key, read from its own metadata (a
 * cluster-scoped object's key is its name alone, whatever namespace it claims).
 */
export function snapshotPage(body: unknown, namespaced: boolean): SnapshotPage {
  const list = body as { metadata?: { resourceVersion?: unknown; continue?: unknown }; items?: unknown };
  const revision = Number(list?.metadata?.resourceVersion);
  if (!Number.isSafeInteger(revision) || !Array.isArray(list.items)) throw new Error('snapshot list: not a list at a revision');
  const items: SnapshotItem[] = list.items.map((object) => {
    // Stored objects may be malformed (the authorizer counts those): a key is made of whatever strings are there.
    const meta = (object as { metadata?: { namespace?: unknown; name?: unknown } })?.metadata;
    const namespace = namespaced && typeof meta?.namespace === 'string' ? meta.namespace : '';
    const name = typeof meta?.name === 'string' ? meta.name : '';
    return { key: objectKey(namespace, name), object };
  });
  const token = list.metadata?.continue;
  return { revision, items, continue: typeof token === 'string' ? token : '' };
}
