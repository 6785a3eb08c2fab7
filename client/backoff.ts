// Client: reconnect delays. Exponential so a down server is not hammered, jittered so many clients cut off
// together do not come back in lockstep, and never zero so a server that closes at once cannot cause a hot loop.

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  random?: () => number; // [0, 1); injectable for tests
}

export class Backoff {
  private attempt = 0;
  private readonly random: () => number;

  constructor(private readonly opts: BackoffOptions) {
    if (!(opts.initialMs > 0) || !(opts.maxMs >= opts.initialMs)) {
      throw new RangeError('backoff needs 0 < initialMs <= maxMs');
    }
    this.random = opts.random ?? Math.random;
  }

  /** The next delay: the capped exponential step, of which a random upper half is taken ("equal jitter"). */
  next(): number {
    const step = Math.min(this.opts.maxMs, this.opts.initialMs * 2 ** Math.min(this.attempt, 52));
    this.attempt++;
    return step / 2 + (step / 2) * this.random();
  }

  /** After progress (an event arrived): the next failure starts again from initialMs. */
  reset(): void {
    this.attempt = 0;
  }
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 800, maxMs: 30_000 }; // client-go's reflector values

/** Waits `ms`, or less if `signal` aborts, so stopping never waits out a backoff. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}
