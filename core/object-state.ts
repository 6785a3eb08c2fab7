// Caching layer: the current state of one resource type in memory, as encoded JSON plus the few
// derived fields selectors need, kept in key order so lists and continue tokens never sort or scan.

import { SortedKeys } from './sorted-keys';

export interface StateEntry {
  key: string;
  revision: number;
  json: string; // the object exactly as served, serialized once per write
  labels: Record<string, string>;
  fields: Record<string, string>;
}

export class ObjectState {
  private readonly entries = new Map<string, StateEntry>();
  private readonly keys = new SortedKeys();

  get size(): number {
    return this.entries.size;
  }

  get(key: string): StateEntry | undefined {
    return this.entries.get(key);
  }

  set(entry: StateEntry): void {
    if (!this.entries.has(entry.key)) this.keys.insert(entry.key);
    this.entries.set(entry.key, entry);
  }

  delete(key: string): void {
    if (this.entries.delete(key)) this.keys.delete(key);
  }

  /** Entries with key >= start and the given prefix, in key order. */
  *range(prefix: string, start = ''): Generator<StateEntry> {
    const from = start > prefix ? start : prefix;
    for (const key of this.keys.from(from)) {
      if (!key.startsWith(prefix)) return;
      const entry = this.entries.get(key);
      if (entry) yield entry;
    }
  }

  /** How many keys with the prefix sort at or after `start`: remainingItemCount without a scan. */
  countFrom(prefix: string, start: string): number {
    const from = start > prefix ? start : prefix;
    const lo = this.keys.rank(from);
    const hi = prefix ? this.keys.rank(prefixEnd(prefix)) : this.keys.size;
    return Math.max(0, hi - lo);
  }
}

// The smallest string greater than every string with this prefix (prefixes here end in '/').
function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
