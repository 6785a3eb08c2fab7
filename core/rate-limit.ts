// Front door: per-user token buckets, so one noisy client cannot starve the stores for the others.

import { ByteLru } from './byte-lru';

interface Bucket {
  tokens: number;
  at: number; // ms of the last refill
}

// Usernames come from authenticated tokens, so there are as many buckets as active users; bounded in
// bytes all the same (1 MiB ≈ 6,000 users with 64-character names). Evicting the least recently used
// bucket forgets an idle user, whose bucket has refilled by then: what it loses is at most one burst.
const DEFAULT_BUDGET_BYTES = 1 << 20;
const BUCKET_BYTES = 48;

export class TokenBuckets {
  private readonly buckets: ByteLru<Bucket>;

  constructor(budgetBytes = DEFAULT_BUDGET_BYTES) {
    this.buckets = new ByteLru(budgetBytes, BUCKET_BYTES);
  }

  get size(): number {
    return this.buckets.size;
  }

  get bytes(): number {
    return this.buckets.bytes;
  }

  /** Takes one token for `key`; returns 0 if it had one, else the ms until one is available. */
  take(key: string, now: number, perSecond: number, burst: number): number {
    const b = this.buckets.get(key) ?? { tokens: burst, at: now };
    b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * perSecond);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return ((1 - b.tokens) / perSecond) * 1000;
  }
}
