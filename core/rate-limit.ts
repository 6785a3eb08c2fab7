// Front door: per-user token buckets, so one noisy client cannot starve the stores for the others.

interface Bucket {
  tokens: number;
  at: number; // ms of the last refill
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

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
