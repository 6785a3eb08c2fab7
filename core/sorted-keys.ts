// Core: a sorted set of strings in chunks of at most CHUNK_MAX keys, for ObjectState's key order. One sorted array
// spliced per new key moved every key after it (O(n) a create: 0.7% of a store-only create's CPU at 20,000 pods,
// bench/profile.ts writes-64, and quadratic as a type grows); here an insert or delete moves at most CHUNK_MAX
// references, plus the chunk list on a split or an emptied chunk (n / CHUNK_MAX entries, rare).

const CHUNK_MAX = 512;

export class SortedKeys {
  private chunks: string[][] = [];
  private count = 0;
  /** Moves on every insert and delete: an iterator re-finds its place after one. */
  private version = 0;

  get size(): number {
    return this.count;
  }

  /** Adds `key` (which must not be present: the caller keeps the set of keys). */
  insert(key: string): void {
    this.version++;
    this.count++;
    if (!this.chunks.length) {
      this.chunks.push([key]);
      return;
    }
    const c = Math.min(this.chunkFor(key), this.chunks.length - 1);
    const chunk = this.chunks[c]!;
    chunk.splice(lowerBound(chunk, key), 0, key);
    if (chunk.length > CHUNK_MAX) this.chunks.splice(c + 1, 0, chunk.splice(chunk.length >>> 1));
  }

  /** Removes `key` when present. */
  delete(key: string): void {
    const c = this.chunkFor(key);
    const chunk = this.chunks[c];
    if (!chunk) return;
    const i = lowerBound(chunk, key);
    if (chunk[i] !== key) return;
    this.version++;
    this.count--;
    chunk.splice(i, 1);
    if (!chunk.length) this.chunks.splice(c, 1);
  }

  /** How many keys sort before `key` (O(chunks)). */
  rank(key: string): number {
    const c = this.chunkFor(key);
    let n = 0;
    for (let i = 0; i < c && i < this.chunks.length; i++) n += this.chunks[i]!.length;
    return c < this.chunks.length ? n + lowerBound(this.chunks[c]!, key) : n;
  }

  /** Keys >= `from`, in order; a key inserted or deleted while iterating is seen (or not) as it sorts after the last one given. */
  *from(from: string): Generator<string> {
    let version = this.version;
    let c = this.chunkFor(from);
    let i = c < this.chunks.length ? lowerBound(this.chunks[c]!, from) : 0;
    let last: string | undefined;
    while (true) {
      if (version !== this.version) {
        // Changed since the last key given: find the first key after it.
        version = this.version;
        const after = last === undefined ? from : `${last}\u0000`;
        c = this.chunkFor(after);
        i = c < this.chunks.length ? lowerBound(this.chunks[c]!, after) : 0;
      }
      const chunk = this.chunks[c];
      if (!chunk) return;
      if (i >= chunk.length) {
        c++;
        i = 0;
        continue;
      }
      last = chunk[i++]!;
      yield last;
    }
  }

  /** The first chunk whose last key is >= key; chunks.length when key sorts after every key. */
  private chunkFor(key: string): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = this.chunks[mid]!;
      if (chunk[chunk.length - 1]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function lowerBound(sorted: string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
