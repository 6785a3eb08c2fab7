// Caching layer: the current state of one resource type in memory, as encoded JSON plus the few
// derived fields selectors need, kept in key order so lists and continue tokens never sort or scan.

export interface StateEntry {
  key: string;
  revision: number;
  json: string; // the object exactly as served, serialized once per write
  labels: Record<string, string>;
  fields: Record<string, string>;
}

export class ObjectState {
  private readonly entries = new Map<string, StateEntry>();
  private keys: string[] = []; // sorted

  get size(): number {
    return this.entries.size;
  }

  get(key: string): StateEntry | undefined {
    return this.entries.get(key);
  }

  set(entry: StateEntry): void {
    if (!this.entries.has(entry.key)) this.keys.splice(lowerBound(this.keys, entry.key), 0, entry.key);
    this.entries.set(entry.key, entry);
  }

  delete(key: string): void {
    if (!this.entries.delete(key)) return;
    const i = lowerBound(this.keys, key);
    if (this.keys[i] === key) this.keys.splice(i, 1);
  }

  /** Entries with key >= start and the given prefix, in key order. */
  *range(prefix: string, start = ''): Generator<StateEntry> {
    const from = start > prefix ? start : prefix;
    for (let i = lowerBound(this.keys, from); i < this.keys.length; i++) {
      const key = this.keys[i];
      if (!key.startsWith(prefix)) return;
      yield this.entries.get(key)!;
    }
  }

  /** How many keys with the prefix sort at or after `start`: remainingItemCount without a scan. */
  countFrom(prefix: string, start: string): number {
    const from = start > prefix ? start : prefix;
    const lo = lowerBound(this.keys, from);
    const hi = prefix ? lowerBound(this.keys, prefixEnd(prefix)) : this.keys.length;
    return Math.max(0, hi - lo);
  }
}

function lowerBound(sorted: string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The smallest string greater than every string with this prefix (prefixes here end in '/').
function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
