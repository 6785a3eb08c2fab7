// Broadcast layer: watchers indexed by what they can match (one object by name, one trigger value such as
// a pod's spec.nodeName, one namespace, or everything), so an event visits only candidates
// (apiserver cacher.go indexedWatchers).

import type { WatchEvent } from './event';

export interface IndexKey {
  namespace: string;
  name?: string; // from fieldSelector metadata.name=<name>
  trigger?: string; // from fieldSelector <type's indexed field>=<value>
}

export class WatcherIndex<W> {
  private readonly all = new Set<W>();
  private readonly byNamespace = new Map<string, Set<W>>();
  private readonly byName = new Map<string, Set<W>>();
  private readonly byTrigger = new Map<string, Set<W>>();
  private readonly placed = new Map<W, [Map<string, Set<W>> | undefined, string]>();

  get size(): number {
    return this.placed.size;
  }

  add(w: W, key: IndexKey): void {
    if (key.name !== undefined) this.put(w, this.byName, `${key.namespace}/${key.name}`);
    else if (key.trigger !== undefined) this.put(w, this.byTrigger, key.trigger);
    else if (key.namespace) this.put(w, this.byNamespace, key.namespace);
    else {
      this.all.add(w);
      this.placed.set(w, [undefined, '']);
    }
  }

  remove(w: W): void {
    const place = this.placed.get(w);
    if (!place) return;
    this.placed.delete(w);
    const [map, k] = place;
    if (!map) {
      this.all.delete(w);
      return;
    }
    const set = map.get(k)!;
    set.delete(w);
    if (set.size === 0) map.delete(k);
  }

  /** Every watcher that might match `ev`; `triggerOf` reads the indexed field of a state entry. */
  *candidates(ev: WatchEvent, triggerOf?: (fields: Record<string, string>) => string | undefined): Generator<W> {
    yield* this.all;
    yield* this.byNamespace.get(ev.namespace) ?? [];
    yield* this.byName.get(`${ev.namespace}/${ev.name}`) ?? [];
    // A name watch across every namespace (/api/v1/pods?fieldSelector=metadata.name=x) is keyed "/x":
    // it is a candidate for that name in any namespace. (Cluster-scoped objects are keyed "/x" already.)
    if (ev.namespace) yield* this.byName.get(`/${ev.name}`) ?? [];
    if (!triggerOf || this.byTrigger.size === 0) return;
    const now = safely(triggerOf, ev.object.fields);
    const before = ev.prev ? safely(triggerOf, ev.prev.fields) : undefined;
    if (now !== undefined) yield* this.byTrigger.get(now) ?? [];
    if (before !== undefined && before !== now) yield* this.byTrigger.get(before) ?? [];
  }

  *watchers(): Generator<W> {
    yield* this.placed.keys();
  }

  private put(w: W, map: Map<string, Set<W>>, k: string): void {
    let set = map.get(k);
    if (!set) map.set(k, (set = new Set()));
    set.add(w);
    this.placed.set(w, [map, k]);
  }
}

/** An index lookup that throws must not cost the other candidates their event: no trigger, then. */
function safely(triggerOf: (fields: Record<string, string>) => string | undefined, fields: Record<string, string>): string | undefined {
  try {
    return triggerOf(fields);
  } catch (e) {
    console.error('watch index lookup failed', e);
    return undefined;
  }
}
