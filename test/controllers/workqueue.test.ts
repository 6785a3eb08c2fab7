import { describe, expect, it } from 'vitest';
import { RateLimiter, runWorker, WorkQueue } from '../../controllers/workqueue';
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
