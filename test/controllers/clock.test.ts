// Unit tests: the real clock's timers wait out delays longer than setTimeout's 32-bit limit (Node fires those at
// once; seconds users write — ttlSecondsAfterFinished, minReadySeconds — reach them), and can be cancelled.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, REAL_CLOCK } from '../../controllers/clock';

const DAY = 86_400_000;

describe('REAL_CLOCK timers', () => {
  beforeEach(() => { vi.useFakeTimers(); });
  afterEach(() => { vi.useRealTimers(); });

  it('fires a 68-year timer after 68 years, not at once', () => {
    const fired = vi.fn();
    const ms = 2147483647 * 1000; // ttlSecondsAfterFinished: 2^31−1
    REAL_CLOCK.setTimeout(fired, ms);
    vi.advanceTimersByTime(DAY);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(ms - DAY - 1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('cancels a chained timer whichever link is running', () => {
    const fired = vi.fn();
    const h = REAL_CLOCK.setTimeout(fired, 3 * MAX_TIMER_MS);
    vi.advanceTimersByTime(MAX_TIMER_MS + 5);
    REAL_CLOCK.clearTimeout(h);
    vi.advanceTimersByTime(3 * MAX_TIMER_MS);
    expect(fired).not.toHaveBeenCalled();
  });

  it('waits forever for an infinite delay, holding one timer', () => {
    const fired = vi.fn();
    REAL_CLOCK.setTimeout(fired, Infinity);
    vi.advanceTimersByTime(10 * MAX_TIMER_MS);
    expect(fired).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(1);
  });

  it('keeps short timers plain', () => {
    const fired = vi.fn();
    const h = REAL_CLOCK.setTimeout(fired, 10);
    vi.advanceTimersByTime(10);
    expect(fired).toHaveBeenCalledTimes(1);
    REAL_CLOCK.clearTimeout(h);
  });
});
