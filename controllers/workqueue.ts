// Controllers: client-go's rate-limited work queue (util/workqueue): a key is queued once however often
// it is added (dedup), is never handed to two workers at once (a key re-added while processing is queued
// again by done()), can be added after a delay (the earlier of two delays wins), and failures back off per
// key exponentially (5 ms · 2^n, capped at 1000 s) and overall by a token bucket (10 qps, burst 100):
// DefaultControllerRateLimiter (default_rate_limiters.go), the max of both.
//
// Beyond client-go, because every loop shares one isolate with the API (workerd runs it on one thread, and a
// loop that never returns to the event loop stops every request — issue 18): a worker yields to the event loop
// (a macrotask) before every key, so a key that keeps re-adding itself cannot starve anyone; such a hot key
// (synced more than `hotSyncs` times in a window) backs off exponentially until it goes quiet; and each queue
// hands out at most `syncsPerSecond` keys (a token bucket), which bounds the CPU one loop can take per second
// whatever its bug. Counters for all of it are in stats().

import { sleepOn, type Clock } from './clock';
import { FairFifo, namespaceOf } from './fair-fifo';

export interface RateLimiterOptions {
  baseDelayMs: number;
  maxDelayMs: number;
  qps: number;
  burst: number;
}

export const DEFAULT_RATE_LIMITER: RateLimiterOptions = { baseDelayMs: 5, maxDelayMs: 1000_000, qps: 10, burst: 100 };

export interface PacingOptions {
  hotSyncs: number; // syncs of one key within hotWindowMs beyond which its re-adds are delayed
  hotWindowMs: number;
  hotBaseDelayMs: number; // a hot key's n-th delay: hotBaseDelayMs · 2^n, capped at hotMaxDelayMs
  hotMaxDelayMs: number;
  syncsPerSecond: number; // the queue's budget: keys handed out per second, after a burst
  burst: number;
}

// 50 syncs of one key in a second is far beyond what an informer-driven key needs (adds coalesce while a key
// waits or is processed); a hot key is coalesced for at most 5 s, so a legitimately busy key loses little
// latency while a poisoned one syncs once every 5 s. 250 keys a second per loop is above what the e2e
// workloads need (a 100-pod Deployment) and bounds a runaway loop to a few percent of a core.
export const DEFAULT_PACING: PacingOptions = { hotSyncs: 50, hotWindowMs: 1000, hotBaseDelayMs: 5, hotMaxDelayMs: 5000, syncsPerSecond: 250, burst: 500 };

export interface WorkQueueOptions {
  limiter?: RateLimiterOptions;
  pacing?: Partial<PacingOptions>;
  /** Resolves after the event loop has run (a macrotask). Not the clock: tests drive timers, not yields. */
  yieldToEventLoop?: () => Promise<void>;
}

type Scheduler = { wait?: (ms: number) => Promise<void> };

/** A macrotask: workerd's scheduler.wait(0) where it exists, else setTimeout 0. */
export function macrotask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: Scheduler }).scheduler;
  if (typeof scheduler?.wait === 'function') return scheduler.wait(0);
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** golang.org/x/time/rate as BucketRateLimiter uses it: Reserve() takes a token now, or says when one is due. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(private readonly clock: Clock, private readonly qps: number, private readonly burst: number) {
    this.tokens = burst;
    this.last = clock.now();
  }

  /** Takes a token; returns the ms until it is due (0: now). */
  reserve(): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }
}

/** ItemExponentialFailureRateLimiter + BucketRateLimiter, combined by MaxOfRateLimiter. */
export class RateLimiter {
  private readonly failures = new Map<string, number>();
  private readonly bucket: TokenBucket;

  constructor(clock: Clock, private readonly o: RateLimiterOptions = DEFAULT_RATE_LIMITER) {
    this.bucket = new TokenBucket(clock, o.qps, o.burst);
  }

  /** The delay before `key` may be retried; counts one more failure. */
  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const exp = Math.min(this.o.maxDelayMs, this.o.baseDelayMs * 2 ** Math.min(n, 60));
    return Math.max(exp, this.bucket.reserve());
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  forget(key: string): void {
    this.failures.delete(key);
  }
}

/**
 * Keys synced too often. Syncs are counted per key in fixed windows; a key re-added after `hotSyncs` syncs in
 * the current window is hot and gets a delay that doubles with every further re-add, until the key has been
 * left alone for a window (and for twice its last delay, so two keys re-adding each other stay hot).
 */
export class HotKeys {
  private windowStart: number;
  private readonly syncs = new Map<string, number>(); // this window's; cleared as it ends
  private readonly strikes = new Map<string, { n: number; last: number; delay: number }>();

  constructor(private readonly clock: Clock, private readonly o: PacingOptions) {
    this.windowStart = clock.now();
  }

  /** `key` was handed to a worker. */
  synced(key: string): void {
    const now = this.roll();
    this.syncs.set(key, (this.syncs.get(key) ?? 0) + 1);
    const s = this.strikes.get(key);
    if (s) s.last = now;
  }

  /** 0 when `key` may be queued now; else its next delay (and one more strike). */
  delay(key: string): number {
    const now = this.roll();
    let s = this.strikes.get(key);
    if (s && this.cooled(s, now)) {
      this.strikes.delete(key);
      s = undefined;
    }
    if (!s && (this.syncs.get(key) ?? 0) < this.o.hotSyncs) return 0;
    const n = s?.n ?? 0;
    const delay = Math.min(this.o.hotMaxDelayMs, this.o.hotBaseDelayMs * 2 ** Math.min(n, 40));
    this.strikes.set(key, { n: n + 1, last: s?.last ?? now, delay });
    return delay;
  }

  isHot(key: string): boolean {
    const s = this.strikes.get(key);
    return !!s && !this.cooled(s, this.clock.now());
  }

  /** Keys currently backing off. */
  size(): number {
    return this.strikes.size;
  }

  private cooled(s: { last: number; delay: number }, now: number): boolean {
    return now - s.last >= Math.max(this.o.hotWindowMs, 2 * s.delay);
  }

  private roll(): number {
    const now = this.clock.now();
    if (now - this.windowStart >= this.o.hotWindowMs) {
      this.syncs.clear();
      this.windowStart = now;
      for (const [k, s] of this.strikes) if (this.cooled(s, now)) this.strikes.delete(k);
    }
    return now;
  }
}

/** What one queue has done since it was made (for the manager's stats and /metrics). */
export interface QueueStats {
  depth: number; // keys ready to be handed out
  delayed: number; // keys waiting on a timer (addAfter, retries, hot keys)
  processing: number;
  adds: number;
  syncs: number; // keys handed to workers
  failures: number; // syncs that threw (requeued rate-limited)
  hotDelays: number; // re-adds of a hot key turned into a delay
  hotKeys: number; // keys backing off now
  budgetWaits: number; // times a worker waited for the queue's syncs-per-second budget
  syncMs: number; // wall time keys spent with workers (in workerd the clock only moves across I/O)
  maxSyncMs: number;
}

export class WorkQueue {
  private readonly ready = new FairFifo<string>(); // namespaces take turns (fair-fifo.ts)
  private readonly dirty = new Set<string>();
  private readonly processing = new Map<string, number>(); // key → handed out at
  private readonly waiting = new Map<string, { at: number; handle: unknown; hot: boolean }>();
  private readonly getters: ((key: string | undefined) => void)[] = [];
  private readonly sleepers = new Set<() => void>();
  private shuttingDown = false;
  readonly limiter: RateLimiter;
  readonly hot: HotKeys;
  private readonly budget: TokenBucket;
  private readonly yieldToEventLoop: () => Promise<void>;
  private readonly counts = { adds: 0, syncs: 0, failures: 0, hotDelays: 0, budgetWaits: 0, syncMs: 0, maxSyncMs: 0 };

  constructor(private readonly clock: Clock, opts: WorkQueueOptions = {}) {
    const pacing = { ...DEFAULT_PACING, ...opts.pacing };
    this.limiter = new RateLimiter(clock, opts.limiter);
    this.hot = new HotKeys(clock, pacing);
    this.budget = new TokenBucket(clock, pacing.syncsPerSecond, pacing.burst);
    this.yieldToEventLoop = opts.yieldToEventLoop ?? macrotask;
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return; // queued already (or again, while processing)
    if (this.waiting.get(key)?.hot) return; // a hot key's timer brings it back; adds meanwhile coalesce
    const delay = this.hot.delay(key);
    if (delay > 0) {
      this.counts.hotDelays++;
      this.schedule(key, delay, () => this.enqueue(key), true);
      return;
    }
    this.enqueue(key);
  }

  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    this.schedule(key, delayMs, () => this.add(key));
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
    if (this.ready.size) return Promise.resolve(this.take());
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /**
   * What a worker awaits before each get(): a macrotask, so requests and other loops run between any two keys,
   * or — once the queue's syncs-per-second budget is spent — a timer until the next token is due.
   */
  async pace(): Promise<void> {
    const wait = this.budget.reserve();
    if (wait <= 0 || this.shuttingDown) return this.yieldToEventLoop();
    this.counts.budgetWaits++;
    await new Promise<void>((resolve) => {
      const wake = () => {
        this.sleepers.delete(wake);
        resolve();
      };
      this.sleepers.add(wake);
      void sleepOn(this.clock, wait).then(wake);
    });
  }

  done(key: string): void {
    const since = this.processing.get(key);
    if (since !== undefined) {
      const ms = Math.max(0, this.clock.now() - since);
      this.counts.syncMs += ms;
      this.counts.maxSyncMs = Math.max(this.counts.maxSyncMs, ms);
    }
    this.processing.delete(key);
    if (this.dirty.has(key)) this.push(key);
  }

  /** A sync that threw (runWorker counts it). */
  failed(): void {
    this.counts.failures++;
  }

  len(): number {
    return this.ready.size;
  }

  stats(): QueueStats {
    return { ...this.counts, depth: this.len(), delayed: this.waiting.size, processing: this.processing.size, hotKeys: this.hot.size() };
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const w of this.waiting.values()) this.clock.clearTimeout(w.handle);
    this.waiting.clear();
    for (const g of this.getters.splice(0)) g(undefined);
    for (const wake of [...this.sleepers]) wake();
  }

  // The earlier of two pending timers for a key wins.
  private schedule(key: string, delayMs: number, fire: () => void, hot = false): void {
    const at = this.clock.now() + delayMs;
    const prior = this.waiting.get(key);
    if (prior && prior.at <= at) return;
    if (prior) this.clock.clearTimeout(prior.handle);
    const handle = this.clock.setTimeout(() => {
      this.waiting.delete(key);
      if (!this.shuttingDown) fire();
    }, delayMs);
    this.waiting.set(key, { at, handle, hot });
  }

  private enqueue(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.counts.adds++;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.push(key);
  }

  private push(key: string): void {
    const getter = this.getters.shift();
    if (getter) {
      this.handOut(key);
      getter(key);
      return;
    }
    this.ready.push(namespaceOf(key), key);
  }

  private take(): string {
    const key = this.ready.shift()!;
    this.handOut(key);
    return key;
  }

  private handOut(key: string): void {
    this.dirty.delete(key);
    this.processing.set(key, this.clock.now());
    this.hot.synced(key);
    this.counts.syncs++;
  }
}

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

/**
 * The canonical worker loop: wait for the queue's pace (a macrotask, or the budget), take a key, sync it,
 * forget it on success or requeue it rate-limited on failure (dropped after maxRetries when given, as the
 * deployment controller does).
 */
export async function runWorker(queue: WorkQueue, sync: (key: string) => Promise<void>, opts: { maxRetries?: number; onError?: (key: string, e: unknown) => void } = {}): Promise<void> {
  for (;;) {
    await queue.pace();
    const key = await queue.get();
    if (key === undefined) return;
    try {
      await sync(key);
      queue.forget(key);
    } catch (e) {
      queue.failed();
      opts.onError?.(key, e);
      if (opts.maxRetries === undefined || queue.numRequeues(key) < opts.maxRetries) queue.addRateLimited(key);
      else queue.forget(key);
    } finally {
      queue.done(key);
    }
  }
}
