// A map bounded in bytes, evicting the least recently used entries first. Used where keys come from
// requests (authorization decisions, per-user rate-limit buckets): a count bound alone lets one client
// fill memory with a few very long keys, so every entry is charged for its key's size.

/** Fixed charge per entry: the Map slot, the entry's object and its value (measured order of magnitude in V8). */
export const ENTRY_OVERHEAD_BYTES = 96;

export class ByteLru<V> {
  // A Map iterates in insertion order; re-inserting on use makes its first key the least recently used.
  private readonly entries = new Map<string, V>();
  private used = 0;

  constructor(readonly budgetBytes: number, private readonly valueBytes = 0) {}

  /** What an entry with this key costs: UTF-16 keys take two bytes per code unit. */
  cost(key: string): number {
    return key.length * 2 + ENTRY_OVERHEAD_BYTES + this.valueBytes;
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.used;
  }

  get(key: string): V | undefined {
    const v = this.entries.get(key);
    if (v === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, v);
    return v;
  }

  /** Stores `value`; false (and nothing stored) when one entry alone would exceed the budget. */
  set(key: string, value: V): boolean {
    const cost = this.cost(key);
    if (cost > this.budgetBytes) return false;
    if (this.entries.delete(key)) this.used -= cost;
    this.entries.set(key, value);
    this.used += cost;
    for (const oldest of this.entries.keys()) {
      if (this.used <= this.budgetBytes) break;
      this.entries.delete(oldest);
      this.used -= this.cost(oldest);
    }
    return true;
  }

  delete(key: string): void {
    if (this.entries.delete(key)) this.used -= this.cost(key);
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }
}
