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

  /**
   * Calls `visit` for every watcher that might match `ev`; `triggerOf` reads the indexed field of a state entry.
   * Plain loops over the sets, not a generator: at 1,000 watchers of one event, resuming a generator per
   * candidate was 4% of the isolate's time in the fan-out profile (bench/profile.ts fanout).
   */
  forEachCandidate(ev: WatchEvent, triggerOf: ((fields: Record<string, string>) => string | undefined) | undefined, visit: (w: W) => void): void {
    for (const w of this.all) visit(w);
    const ns = this.byNamespace.get(ev.namespace);
    if (ns) for (const w of ns) visit(w);
    if (this.byName.size > 0) {
      const named = this.byName.get(`${ev.namespace}/${ev.name}`);
      if (named) for (const w of named) visit(w);
      // A name watch across every namespace (/api/v1/pods?fieldSelector=metadata.name=x) is keyed "/x":
      // it is a candidate for that name in any namespace. (Cluster-scoped objects are keyed "/x" already.)
      const anywhere = ev.namespace ? this.byName.get(`/${ev.name}`) : undefined;
      if (anywhere) for (const w of anywhere) visit(w);
    }
    if (!triggerOf || this.byTrigger.size === 0) return;
    const now = safely(triggerOf, ev.object.fields);
    const before = ev.prev ? safely(triggerOf, ev.prev.fields) : undefined;
    const nowSet = now !== undefined ? this.byTrigger.get(now) : undefined;
    if (nowSet) for (const w of nowSet) visit(w);
    const beforeSet = before !== undefined && before !== now ? this.byTrigger.get(before) : undefined;
    if (beforeSet) for (const w of beforeSet) visit(w);
  }

  /** Every watcher that might match `ev`, as a list (tests; the hub visits them with forEachCandidate). */
  candidates(ev: WatchEvent, triggerOf?: (fields: Record<string, string>) => string | undefined): W[] {
    const out: W[] = [];
    this.forEachCandidate(ev, triggerOf, (w) => out.push(w));
    return out;
  }

  /** Every watcher, as a list the caller may change the index while walking. */
  watchers(): W[] {
    return Array.from(this.placed.keys());
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
