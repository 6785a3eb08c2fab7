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
    const r = this.reserve(key, now, perSecond, burst, 0);
    return 'retryAfterMs' in r ? r.retryAfterMs : 0;
  }

  /**
   * Takes one token for `key`, or reserves the next one when it comes due within `maxDelayMs`: the request then
   * waits `delayMs` and goes on (the bucket owes that token, so the next caller waits one interval longer), as
   * golang.org/x/time/rate's Reserve. Past `maxDelayMs` nothing is taken and `retryAfterMs` says when to come back.
   * Waiting instead of refusing matters on one thread: a client answered 429 at once asks again at once (measured:
   * 64 looping clients past their bucket made ~830 refusals a second and kept every other user's p50 at 100×).
   */
  reserve(key: string, now: number, perSecond: number, burst: number, maxDelayMs: number): { delayMs: number } | { retryAfterMs: number } {
    const b = this.buckets.get(key) ?? { tokens: burst, at: now };
    b.tokens = Math.min(burst, b.tokens + (Math.max(0, now - b.at) / 1000) * perSecond);
    b.at = now;
    this.buckets.set(key, b);
    const waitMs = b.tokens >= 1 ? 0 : ((1 - b.tokens) / perSecond) * 1000;
    if (waitMs > maxDelayMs) return { retryAfterMs: waitMs };
    b.tokens -= 1;
    return { delayMs: waitMs };
  }
}
