// Core: how many of its seats an isolate can use right now. kube's seats stand for a many-core server's
// goroutines; an isolate is ONE thread, so past a few requests doing work at once more seats only interleave them
// (each runs slower, none finishes sooner) and a flood's running requests delay everyone's. Seats held by requests
// that wait on the network (a webhook, a store) cost the thread nothing and must stay available. So the isolate
// watches its own event-loop lag — how late a zero-delay timer fires, sampled as requests end — and scales every
// limited level's limit by a capacity factor: multiplied by 0.9 on each late sample, raised by 2% of the seats on
// each timely one (AIMD), back to full when no sample came for a second. A request waiting on the network adds no
// lag, so it never shrinks the factor. The clock is injected.

export interface LagGovernorOptions {
  /** A sample later than this is "late" (ms). */
  targetMs: number;
  decrease: number;
  /** Samples closer together than this count once (ms). */
  minSpacingMs: number;
  /** No sample for this long: the factor goes back to 1 (ms). */
  staleMs: number;
}

export const DEFAULT_LAG: LagGovernorOptions = { targetMs: 4, decrease: 0.9, minSpacingMs: 10, staleMs: 1000 };

export class LagGovernor {
  private capacity: number;
  private sampledAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly seats: number, private readonly now: () => number, private readonly o: LagGovernorOptions = DEFAULT_LAG) {
    this.capacity = seats;
  }

  /** A zero-delay timer fired `lagMs` late. Returns true when the factor changed. */
  sample(lagMs: number): boolean {
    const now = this.now();
    if (now - this.sampledAt < this.o.minSpacingMs) return false;
    const stale = now - this.sampledAt >= this.o.staleMs;
    this.sampledAt = now;
    const before = this.capacity;
    if (stale) this.capacity = this.seats;
    if (lagMs > this.o.targetMs) this.capacity = Math.max(1, this.capacity * this.o.decrease);
    else this.capacity = Math.min(this.seats, this.capacity + Math.max(1, this.seats * 0.02));
    return this.capacity !== before;
  }

  /** The share of each level's limit in force (0 < factor ≤ 1). */
  get factor(): number {
    if (this.now() - this.sampledAt >= this.o.staleMs) return 1;
    return this.capacity / this.seats;
  }

  /** Whether a sample is wanted now (the caller measures one at most this often). */
  wantsSample(): boolean {
    return this.now() - this.sampledAt >= this.o.minSpacingMs;
  }
}
