// Controllers: client-go's rate-limited work queue (util/workqueue): a key is queued once however often
// it is added (dedup), is never handed to two workers at once (a key re-added while processing is queued
// again by done()), can be added after a delay (the earlier of two delays wins), and failures back off per
// key exponentially (5 ms · 2^n, capped at 1000 s) and overall by a token bucket (10 qps, burst 100):
// DefaultControllerRateLimiter (default_rate_limiters.go), the max of both.

import type { Clock } from './clock';

export interface RateLimiterOptions {
  baseDelayMs: number;
  maxDelayMs: number;
  qps: number;
  burst: number;
}

export const DEFAULT_RATE_LIMITER: RateLimiterOptions = { baseDelayMs: 5, maxDelayMs: 1000_000, qps: 10, burst: 100 };

/** ItemExponentialFailureRateLimiter + BucketRateLimiter, combined by MaxOfRateLimiter. */
export class RateLimiter {
  private readonly failures = new Map<string, number>();
  private tokens: number;
  private last: number;

  constructor(private readonly clock: Clock, private readonly o: RateLimiterOptions = DEFAULT_RATE_LIMITER) {
    this.tokens = o.burst;
    this.last = clock.now();
  }

  /** The delay before `key` may be retried; counts one more failure. */
  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const exp = Math.min(this.o.maxDelayMs, this.o.baseDelayMs * 2 ** Math.min(n, 60));
    return Math.max(exp, this.bucketDelay());
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  // golang.org/x/time/rate Reserve(): take a token now, or the time until one is due.
  private bucketDelay(): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.o.burst, this.tokens + ((now - this.last) / 1000) * this.o.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.o.qps) * 1000;
  }
}

export class WorkQueue {
  private queue: string[] = [];
  private head = 0;
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly waiting = new Map<string, { at: number; handle: unknown }>();
  private readonly getters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;
  readonly limiter: RateLimiter;

  constructor(private readonly clock: Clock, limiter?: RateLimiterOptions) {
    this.limiter = new RateLimiter(clock, limiter);
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.push(key);
  }

  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const at = this.clock.now() + delayMs;
    const prior = this.waiting.get(key);
    if (prior && prior.at <= at) return;
    if (prior) this.clock.clearTimeout(prior.handle);
    const handle = this.clock.setTimeout(() => {
      this.waiting.delete(key);
      this.add(key);
    }, delayMs);
    this.waiting.set(key, { at, handle });
  }

  addRateLimited(key: string): void {
    this.addAfter(key, this.limiter.when(key));
  }

  forget(key: string): void {
    this.limiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.limiter.numRequeues(key);
  }

  /** The next key to work on; undefined once shut down. Callers must call done(key) afterwards. */
  get(): Promise<string | undefined> {
    if (this.head < this.queue.length) return Promise.resolve(this.take());
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) this.push(key);
  }

  len(): number {
    return this.queue.length - this.head;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const w of this.waiting.values()) this.clock.clearTimeout(w.handle);
    this.waiting.clear();
    for (const g of this.getters.splice(0)) g(undefined);
  }

  private push(key: string): void {
    const getter = this.getters.shift();
    if (getter) {
      this.dirty.delete(key);
      this.processing.add(key);
      getter(key);
      return;
    }
    this.queue.push(key);
  }

  private take(): string {
    const key = this.queue[this.head++];
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }
}

/**
 * The canonical worker loop: take a key, sync it, forget it on success or requeue it rate-limited on
 * failure (dropped after maxRetries when given, as the deployment controller does).
 */
/**
 * Logs a failed sync, except conflicts (409) and objects gone meanwhile (404): the informer brings the
 * news and the retry settles them, routinely.
 */
export function logSyncError(component: string): (key: string, e: unknown) => void {
  return (key, e) => {
    const code = (e as { code?: number })?.code;
    if (code === 409 || code === 404) return;
    console.error(`${component}: sync ${key}: ${(e as Error)?.message ?? e}`);
  };
}

export async function runWorker(queue: WorkQueue, sync: (key: string) => Promise<void>, opts: { maxRetries?: number; onError?: (key: string, e: unknown) => void } = {}): Promise<void> {
  for (;;) {
    const key = await queue.get();
    if (key === undefined) return;
    try {
      await sync(key);
      queue.forget(key);
    } catch (e) {
      opts.onError?.(key, e);
      if (opts.maxRetries === undefined || queue.numRequeues(key) < opts.maxRetries) queue.addRateLimited(key);
      else queue.forget(key);
    } finally {
      queue.done(key);
    }
  }
}
