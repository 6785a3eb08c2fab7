// Controllers: time as the loops see it, injected so tests drive timers by hand.

export interface Clock {
  now(): number; // ms since the epoch
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * The longest delay setTimeout takes as it is (a signed 32-bit count of ms, 24.8 days). Node and browsers fire a
 * longer one at once; workerd waits it out (measured: 2^31 ms and 10^15 ms did not fire). Delays come from seconds
 * users write — ttlSecondsAfterFinished, minReadySeconds, progressDeadlineSeconds, activeDeadlineSeconds,
 * tolerationSeconds — where "fires at once" would make a requeue loop spin, so a longer wait is a chain of timers.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A wait longer than one timer can hold: the timer running now. */
class ChainedTimer {
  handle: ReturnType<typeof setTimeout> | undefined;

  constructor(fn: () => void, ms: number) {
    this.arm(fn, ms);
  }

  private arm(fn: () => void, left: number): void {
    this.handle = left > MAX_TIMER_MS ? setTimeout(() => this.arm(fn, left - MAX_TIMER_MS), MAX_TIMER_MS) : setTimeout(fn, left);
  }
}

export const REAL_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => (ms > MAX_TIMER_MS ? new ChainedTimer(fn, ms) : setTimeout(fn, ms)),
  clearTimeout: (h) => clearTimeout((h instanceof ChainedTimer ? h.handle : h) as ReturnType<typeof setTimeout>),
};

export function sleepOn(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}
