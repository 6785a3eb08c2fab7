import { describe, expect, it } from 'vitest';
import { Backoff, sleep } from '../../client/backoff';

describe('Backoff', () => {
  it('doubles up to the cap, each delay in the upper half of its step', () => {
    const lows = new Backoff({ initialMs: 100, maxMs: 1000, random: () => 0 });
    expect(Array.from({ length: 6 }, () => lows.next())).toEqual([50, 100, 200, 400, 500, 500]);
    const highs = new Backoff({ initialMs: 100, maxMs: 1000, random: () => 0.999999 });
    for (const step of [100, 200, 400, 800, 1000, 1000]) {
      const d = highs.next();
      expect(d).toBeLessThanOrEqual(step);
      expect(d).toBeGreaterThan(step * 0.99);
    }
  });

  it('is never zero and never above maxMs, whatever the randomness', () => {
    const b = new Backoff({ initialMs: 10, maxMs: 300 });
    for (let i = 0; i < 200; i++) {
      const d = b.next();
      expect(d).toBeGreaterThanOrEqual(5);
      expect(d).toBeLessThanOrEqual(300);
    }
  });

  it('starts over after reset', () => {
    const b = new Backoff({ initialMs: 100, maxMs: 10_000, random: () => 0 });
    b.next();
    b.next();
    expect(b.next()).toBe(200);
    b.reset();
    expect(b.next()).toBe(50);
  });

  it('spreads clients: different random draws give different delays', () => {
    let x = 0;
    const b = new Backoff({ initialMs: 1000, maxMs: 1000, random: () => (x += 0.25) % 1 });
    expect(new Set([b.next(), b.next(), b.next()]).size).toBe(3);
  });

  it('rejects nonsense settings', () => {
    expect(() => new Backoff({ initialMs: 0, maxMs: 10 })).toThrow(RangeError);
    expect(() => new Backoff({ initialMs: 100, maxMs: 10 })).toThrow(RangeError);
  });

  it('sleep ends early when aborted', async () => {
    const ac = new AbortController();
    const started = Date.now();
    const p = sleep(60_000, ac.signal);
    ac.abort();
    await p;
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
