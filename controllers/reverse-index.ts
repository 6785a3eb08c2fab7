// Controllers: which names point at one key (APIServices by the Service they name, CRDs by their group) — an
// indexer as client-go's cache.Indexer keeps one, updated from the informer's handlers so a change of the key's
// object enqueues only the names that point at it, never a scan.

export class ReverseIndex {
  private readonly keyOf = new Map<string, string>();
  private readonly byKey = new Map<string, Set<string>>();

  /** `name` now points at `key` (undefined: at nothing). */
  set(name: string, key: string | undefined): void {
    const prior = this.keyOf.get(name);
    if (prior === key) return;
    if (prior !== undefined) {
      const names = this.byKey.get(prior);
      names?.delete(name);
      if (names?.size === 0) this.byKey.delete(prior);
    }
    if (key === undefined) {
      this.keyOf.delete(name);
      return;
    }
    this.keyOf.set(name, key);
    let names = this.byKey.get(key);
    if (!names) this.byKey.set(key, (names = new Set()));
    names.add(name);
  }

  names(key: string): ReadonlySet<string> {
    return this.byKey.get(key) ?? EMPTY;
  }
}

const EMPTY: ReadonlySet<string> = new Set();
