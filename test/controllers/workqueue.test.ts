import { describe, expect, it } from 'vitest';
import { HotKeys, RateLimiter, runWorker, WorkQueue, DEFAULT_PACING } from '../../controllers/workqueue';
import { Expectations, EXPECTATIONS_TIMEOUT_MS } from '../../controllers/expectations';
import { FakeClock } from './fakes';

describe('WorkQueue', () => {
  it('queues a key once however often it is added', async () => {
    const q = new WorkQueue(new FakeClock());
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.len()).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.len()).toBe(0);
  });

  it('never hands a key being processed to a second worker; a re-add is queued by done()', async () => {
    const q = new WorkQueue(new FakeClock());
    q.add('a');
    const first = await q.get();
    q.add('a'); // while processing
    expect(q.len()).toBe(0);
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await Promise.resolve();
    expect(second).toBeUndefined();
    q.done(first!);
    await Promise.resolve();
    expect(second).toBe('a');
  });

  it('adds after a delay, the earlier of two delays winning', () => {
    const clock = new FakeClock();
    const q = new WorkQueue(clock);
    q.addAfter('a', 1000);
    q.addAfter('a', 200);
    q.addAfter('a', 5000);
    clock.advance(199);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    clock.advance(10_000);
    expect(q.len()).toBe(1); // the later timers were dropped, not run again
  });

  it('shutDown releases waiting workers with undefined', async () => {
    const q = new WorkQueue(new FakeClock());
    const waiting = q.get();
    q.shutDown();
    expect(await waiting).toBeUndefined();
    q.add('x');
    expect(q.len()).toBe(0);
  });

  it('runWorker forgets a key on success and requeues it rate-limited on failure', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue(clock);
    let failures = 2;
    const seen: string[] = [];
    const worker = runWorker(q, async (k) => {
      seen.push(k);
      if (failures-- > 0) throw new Error('boom');
    });
    q.add('k');
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toEqual(['k']);
    expect(q.numRequeues('k')).toBe(1);
    clock.advance(5);
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toEqual(['k', 'k']);
    expect(q.numRequeues('k')).toBe(2);
    clock.advance(9);
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toHaveLength(2); // the second retry waits 10 ms
    clock.advance(1);
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toHaveLength(3);
    expect(q.numRequeues('k')).toBe(0); // succeeded: forgotten
    q.shutDown();
    await worker;
  });

  it('drops a key after maxRetries', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue(clock);
    let calls = 0;
    const worker = runWorker(q, async () => {
      calls++;
      throw new Error('always');
    }, { maxRetries: 2 });
    q.add('k');
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setTimeout(r, 0));
      clock.advance(1000);
    }
    expect(calls).toBe(3); // the first try and two retries
    q.shutDown();
    await worker;
  });
});

const macrotask = () => new Promise<void>((r) => setTimeout(r, 0));

describe('WorkQueue pacing (issue 18: no loop may starve the isolate)', () => {
  it('a worker returns to the event loop between keys, even for a key that re-adds itself for ever', async () => {
    // Hot-key backoff off: only the yield keeps this loop from spinning in resolved promises.
    const q = new WorkQueue(new FakeClock(), { pacing: { hotSyncs: Infinity } });
    let syncs = 0;
    const worker = runWorker(q, async (k) => {
      syncs++;
      q.add(k); // a controller bug: the key is always dirty again
    });
    q.add('loop');
    // Without a yield these timers would never run: the worker would hand 'loop' back in a microtask for ever.
    for (let i = 0; i < 5; i++) await macrotask();
    expect(syncs).toBeGreaterThan(0);
    expect(syncs).toBeLessThanOrEqual(6); // about one key per macrotask
    q.shutDown();
    await worker;
  });

  it('yields before every key', async () => {
    let yields = 0;
    const q = new WorkQueue(new FakeClock(), { yieldToEventLoop: () => (yields++, macrotask()) });
    const seen: string[] = [];
    const worker = runWorker(q, async (k) => void seen.push(k));
    for (const k of ['a', 'b', 'c']) q.add(k);
    while (seen.length < 3) await macrotask();
    expect(yields).toBeGreaterThanOrEqual(3);
    q.shutDown();
    await worker;
  });

  it('a key that keeps re-adding itself backs off exponentially once hot, and cools down when left alone', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue(clock, { pacing: { hotSyncs: 5, hotWindowMs: 1000, hotBaseDelayMs: 10, hotMaxDelayMs: 80 } });
    let syncs = 0;
    let again = true;
    const worker = runWorker(q, async (k) => {
      syncs++;
      if (again) q.add(k);
    });
    q.add('loop');
    for (let i = 0; i < 20; i++) await macrotask();
    expect(syncs).toBe(5); // hot: the sixth re-add became a 10 ms delay
    expect(q.stats()).toMatchObject({ hotDelays: 1, hotKeys: 1, delayed: 1, depth: 0 });
    const gaps: number[] = [];
    for (const delay of [10, 20, 40, 80, 80]) {
      const before = syncs;
      clock.advance(delay - 1);
      for (let i = 0; i < 5; i++) await macrotask();
      expect(syncs).toBe(before); // not yet
      clock.advance(1);
      for (let i = 0; i < 5; i++) await macrotask();
      expect(syncs).toBe(before + 1);
      gaps.push(delay);
    }
    expect(gaps).toEqual([10, 20, 40, 80, 80]); // doubling, capped
    // Left alone for a window (and twice its delay) it is an ordinary key again.
    again = false;
    clock.advance(80);
    for (let i = 0; i < 5; i++) await macrotask();
    clock.advance(1000);
    expect(q.hot.isHot('loop')).toBe(false);
    const before = syncs;
    q.add('loop');
    for (let i = 0; i < 5; i++) await macrotask();
    expect(syncs).toBe(before + 1);
    q.shutDown();
    await worker;
  });

  it('two keys that re-add each other (an A↔B cycle) back off', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue(clock, { pacing: { hotSyncs: 5, hotBaseDelayMs: 10, hotMaxDelayMs: 1000 } });
    const seen: string[] = [];
    const worker = runWorker(q, async (k) => {
      seen.push(k);
      q.add(k === 'a' ? 'b' : 'a');
    }, {});
    q.add('a');
    for (let i = 0; i < 40; i++) await macrotask();
    expect(seen.length).toBe(10); // five each, then both wait
    for (let t = 0; t < 10_000; t += 100) {
      clock.advance(100);
      await macrotask();
      await macrotask();
    }
    // Ten seconds later: with delays doubling to a second, a handful of syncs each — not thousands.
    expect(seen.length).toBeLessThan(40);
    expect(q.stats().hotKeys).toBeGreaterThanOrEqual(1); // the key whose re-add came first waits; the other waits on it
    q.shutDown();
    await worker;
  });

  it('a queue hands out at most its syncs-per-second budget after a burst', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue(clock, { pacing: { syncsPerSecond: 10, burst: 10 } });
    const seen: string[] = [];
    const worker = runWorker(q, async (k) => void seen.push(k));
    for (let i = 0; i < 100; i++) q.add(`k${i}`);
    for (let i = 0; i < 30; i++) await macrotask();
    expect(seen.length).toBeLessThanOrEqual(11); // the burst (and the token the worker took before it waited)
    expect(q.stats().budgetWaits).toBeGreaterThan(0);
    for (let t = 0; t < 1000; t += 50) {
      clock.advance(50);
      for (let i = 0; i < 3; i++) await macrotask();
    }
    expect(seen.length).toBeGreaterThanOrEqual(19);
    expect(seen.length).toBeLessThanOrEqual(22); // 10 more in a second
    q.shutDown(); // wakes a worker waiting for a token
    await worker;
  });

  it('counts syncs, failures and the time keys spend with workers', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue(clock);
    const worker = runWorker(q, async (k) => {
      clock.advance(7);
      if (k === 'bad') throw new Error('boom');
    });
    q.add('good');
    q.add('bad');
    for (let i = 0; i < 5; i++) await macrotask();
    expect(q.stats()).toMatchObject({ adds: 2, syncs: 2, failures: 1, syncMs: 14, maxSyncMs: 7, processing: 0, delayed: 1 });
    q.shutDown();
    await worker;
  });
});

describe('HotKeys', () => {
  it('counts a key hot only past hotSyncs in one window, and forgets quiet keys as windows end', () => {
    const clock = new FakeClock();
    const hot = new HotKeys(clock, { ...DEFAULT_PACING, hotSyncs: 3, hotWindowMs: 1000, hotBaseDelayMs: 5, hotMaxDelayMs: 1000 });
    for (let i = 0; i < 3; i++) {
      expect(hot.delay('k')).toBe(0);
      hot.synced('k');
    }
    expect(hot.delay('k')).toBe(5);
    expect(hot.delay('k')).toBe(10);
    expect(hot.delay('other')).toBe(0);
    clock.advance(1000); // quiet for a window and for twice its last delay: cooled down
    expect(hot.delay('k')).toBe(0);
    expect(hot.size()).toBe(0);
  });
});

describe('RateLimiter (DefaultControllerRateLimiter)', () => {
  it('backs off per key 5 ms · 2^n, capped at 1000 s, and forget resets it', () => {
    const limiter = new RateLimiter(new FakeClock(), { baseDelayMs: 5, maxDelayMs: 1000_000, qps: 1e9, burst: 1e9 });
    expect([0, 1, 2, 3].map(() => limiter.when('a'))).toEqual([5, 10, 20, 40]);
    expect(limiter.when('b')).toBe(5);
    for (let i = 4; i < 17; i++) limiter.when('a');
    expect(limiter.when('a')).toBe(655_360); // 5 ms · 2^17
    expect(limiter.when('a')).toBe(1000_000);
    expect(limiter.numRequeues('a')).toBe(19);
    limiter.forget('a');
    expect(limiter.when('a')).toBe(5);
  });

  it('limits everything together with a 10 qps bucket of 100 once the burst is spent', () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock);
    for (let i = 0; i < 100; i++) expect(limiter.when(`k${i}`)).toBe(5);
    expect(limiter.when('k100')).toBe(100); // one token owed at 10/s
    expect(limiter.when('k101')).toBe(200);
    clock.advance(1000);
    expect(limiter.when('k102')).toBeCloseTo(5, 5); // 10 tokens came back, 2 were owed
  });
});

describe('Expectations', () => {
  it('holds a controller until its creations and deletions are observed', () => {
    const e = new Expectations(new FakeClock());
    expect(e.satisfied('ns/rs')).toBe(true);
    e.expectCreations('ns/rs', 2);
    expect(e.satisfied('ns/rs')).toBe(false);
    e.creationObserved('ns/rs');
    expect(e.satisfied('ns/rs')).toBe(false);
    e.creationObserved('ns/rs');
    expect(e.satisfied('ns/rs')).toBe(true);
  });

  it('counts each expected deletion once, by pod key', () => {
    const e = new Expectations(new FakeClock());
    e.expectDeletions('ns/rs', ['ns/a', 'ns/b']);
    e.deletionObserved('ns/rs', 'ns/a');
    e.deletionObserved('ns/rs', 'ns/a'); // the update that set deletionTimestamp, then the delete
    e.deletionObserved('ns/rs', 'ns/other');
    expect(e.pending('ns/rs')).toEqual({ add: 0, del: 1 });
    e.deletionObserved('ns/rs', 'ns/b');
    expect(e.satisfied('ns/rs')).toBe(true);
  });

  it('lowers expectations for creations that failed, and expires after 5 minutes', () => {
    const clock = new FakeClock();
    const e = new Expectations(clock);
    e.expectCreations('ns/rs', 3);
    e.lowerCreations('ns/rs', 2);
    expect(e.pending('ns/rs')).toEqual({ add: 1, del: 0 });
    clock.advance(EXPECTATIONS_TIMEOUT_MS);
    expect(e.satisfied('ns/rs')).toBe(false);
    clock.advance(1);
    expect(e.satisfied('ns/rs')).toBe(true);
    e.deleteExpectations('ns/rs');
    expect(e.pending('ns/rs')).toBeUndefined();
  });
});
