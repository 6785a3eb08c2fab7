// Client: the informer's local copy of a collection, keyed like the server keys objects, and the diff a
// relist needs to turn the old copy into the new one while telling handlers what changed in between.

import type { KubeObject } from './types';

/** namespace/name, or name alone for cluster-scoped objects. */
export function objectKey(obj: KubeObject): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name ?? ''}` : name ?? '';
}

export interface CacheDiff {
  added: KubeObject[];
  updated: { object: KubeObject; old: KubeObject }[];
  deleted: KubeObject[];
  next: Map<string, KubeObject>; // the cache as the list says it is now
}

/**
 * What changed between `cache` and a fresh list. An object whose resourceVersion did not change is the
 * same object (the server bumps it on every write), so it is neither an add nor an update.
 */
export function diffCache(cache: ReadonlyMap<string, KubeObject>, items: readonly KubeObject[]): CacheDiff {
  const next = new Map<string, KubeObject>();
  const added: KubeObject[] = [];
  const updated: CacheDiff['updated'] = [];
  for (const object of items) {
    const key = objectKey(object);
    next.set(key, object);
    const old = cache.get(key);
    if (!old) added.push(object);
    else if (old.metadata.resourceVersion !== object.metadata.resourceVersion || old.metadata.resourceVersion === undefined) {
      updated.push({ object, old });
    }
  }
  const deleted: KubeObject[] = [];
  for (const [key, old] of cache) if (!next.has(key)) deleted.push(old);
  return { added, updated, deleted, next };
}
