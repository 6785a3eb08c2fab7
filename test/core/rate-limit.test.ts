import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../core/rate-limit';

describe('token buckets', () => {
  it('allows a burst, then one request per 1/qps seconds, per key', () => {
    const b = new TokenBuckets();
    for (let i = 0; i < 3; i++) expect(b.take('a', 0, 2, 3)).toBe(0);
    expect(b.take('a', 0, 2, 3)).toBe(500);
    expect(b.take('b', 0, 2, 3)).toBe(0);
    expect(b.take('a', 500, 2, 3)).toBe(0);
  });
});

describe('token bucket reservations', () => {
  it('reserves the next tokens due within the delay, each one interval after the last, and refuses past it', () => {
    const b = new TokenBuckets();
    expect(b.reserve('a', 0, 5, 2, 1000)).toEqual({ delayMs: 0 });
    expect(b.reserve('a', 0, 5, 2, 1000)).toEqual({ delayMs: 0 });
    // Empty: the next tokens come every 200 ms; each reservation owes one more.
    const delays = [1, 2, 3, 4, 5].map(() => b.reserve('a', 0, 5, 2, 1000));
    expect(delays).toEqual([200, 400, 600, 800, 1000].map((delayMs) => ({ delayMs: expect.closeTo(delayMs, 6) })));
    // The sixth would wait 1.2 s: refused, nothing taken, told when to come back.
    expect(b.reserve('a', 0, 5, 2, 1000)).toEqual({ retryAfterMs: expect.closeTo(1200, 6) });
    expect(b.reserve('a', 0, 5, 2, 1000)).toEqual({ retryAfterMs: expect.closeTo(1200, 6) });
    // A second on, five tokens have come in and paid the debt: the next is due in 200 ms again.
    expect(b.reserve('a', 1000, 5, 2, 1000)).toEqual({ delayMs: expect.closeTo(200, 6) });
    // Another key is untouched.
    expect(b.reserve('b', 0, 5, 2, 1000)).toEqual({ delayMs: 0 });
  });

  it('with no delay allowed, refuses as soon as the bucket is empty (take)', () => {
    const b = new TokenBuckets();
    expect(b.reserve('a', 0, 1, 1, 0)).toEqual({ delayMs: 0 });
    expect(b.reserve('a', 0, 1, 1, 0)).toEqual({ retryAfterMs: 1000 });
    expect(b.take('a', 0, 1, 1)).toBe(1000);
  });
});
