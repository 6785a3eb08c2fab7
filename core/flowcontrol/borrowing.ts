// Core: borrowing of seats between priority levels (kube 1.32's apf_controller updateBorrowing and conc_alloc.go,
// KEP-1040): each level's seat demand (seats executing plus seats waiting) is integrated over time; every
// BORROWING_PERIOD_MS the levels' current concurrency limits are re-divided — each level gets at least what it
// cannot lend (nominal − lendable) or, if less, what it used at its peak, at most nominal + borrowing limit, and
// beyond those bounds a share of the total in proportion to its smoothed demand. The clock is injected.

/** kube's borrowingAdjustmentPeriod. */
export const BORROWING_PERIOD_MS = 10_000;
/** kube's seatDemandSmoothingCoefficient: the smoothed demand's half-life is about five minutes of periods. */
export const SMOOTHING = 0.977;
const MIN_TARGET = 0.001;
const EPSILON = 1e-7;

export interface DemandObservation {
  durationMs: number;
  average: number;
  deviation: number;
  max: number;
}

/**
 * kube's fairqueuing Integrator: a piecewise-constant value (the level's seat demand) integrated over time, with
 * its average, standard deviation and maximum since the last reset. O(1) per change.
 */
export class SeatDemand {
  private value = 0;
  private since: number;
  private lastMs: number;
  private sum = 0; // ∫ x dt (ms)
  private sumSquares = 0; // ∫ x² dt
  private max = 0;

  constructor(private readonly now: () => number) {
    this.since = this.lastMs = now();
  }

  set(x: number): void {
    this.advance();
    this.value = x;
    if (x > this.max) this.max = x;
  }

  get current(): number {
    return this.value;
  }

  /** The period's figures; a new period starts with the current value. */
  reset(): DemandObservation {
    this.advance();
    const durationMs = this.lastMs - this.since;
    let average = 0;
    let deviation = 0;
    if (durationMs > 0) {
      average = this.sum / durationMs;
      const variance = this.sumSquares / durationMs - average * average;
      deviation = variance > 0 ? Math.sqrt(variance) : 0;
    }
    const out = { durationMs, average, deviation, max: this.max };
    this.since = this.lastMs;
    this.sum = this.sumSquares = 0;
    this.max = this.value;
    return out;
  }

  private advance(): void {
    const now = this.now();
    const dt = Math.max(0, now - this.lastMs);
    this.sum += this.value * dt;
    this.sumSquares += this.value * this.value * dt;
    this.lastMs = Math.max(this.lastMs, now);
  }
}

export interface DemandStats {
  average: number;
  deviation: number;
  highWatermark: number;
  smoothed: number;
}

export const noDemand = (): DemandStats => ({ average: 0, deviation: 0, highWatermark: 0, smoothed: 0 });

/** kube's seatDemandStats.update: smoothed follows average + deviation up at once and down slowly. */
export function updateDemandStats(s: DemandStats, obs: DemandObservation): void {
  s.highWatermark = obs.max;
  if (obs.durationMs <= 0) return;
  s.average = obs.average;
  s.deviation = Number.isFinite(obs.deviation) ? obs.deviation : 0;
  const envelope = s.average + s.deviation;
  s.smoothed = Math.max(envelope, SMOOTHING * s.smoothed + (1 - SMOOTHING) * envelope);
}

export interface AllocationItem {
  target: number;
  lower: number;
  upper: number;
}

/**
 * The allocations summing to `total` where each item gets fairProp × its target clamped to [lower, upper], for the
 * one fairProp that makes them sum (kube's computeConcurrencyAllocation). undefined when the bounds make that
 * impossible (the caller keeps the current limits). The sum of the clamped values is a nondecreasing piecewise
 * linear function of fairProp whose breakpoints are each item's lower/target and upper/target: they are sorted and
 * walked once — O(n log n).
 */
export function allocateConcurrency(total: number, items: readonly AllocationItem[]): number[] | undefined {
  if (!(total >= 0)) return undefined;
  let lowSum = 0;
  let highSum = 0;
  for (const it of items) {
    if (!(it.lower >= 0) || !(it.upper >= it.lower) || !(it.target >= it.lower)) return undefined;
    lowSum += it.lower;
    highSum += it.upper;
  }
  if (lowSum - total > EPSILON || total - highSum > EPSILON) return undefined;
  if (total === 0) return items.map(() => 0);
  if (lowSum - total > -EPSILON) return items.map((it) => it.lower);
  if (total - highSum > -EPSILON) return items.map((it) => it.upper);
  const targets = items.map((it) => Math.max(MIN_TARGET, it.target));
  // Breakpoints: +target when fairProp passes an item's lower/target (it starts growing), −target at upper/target.
  const points: { at: number; slope: number }[] = [];
  items.forEach((it, i) => {
    points.push({ at: it.lower / targets[i]!, slope: targets[i]! }, { at: it.upper / targets[i]!, slope: -targets[i]! });
  });
  points.sort((a, b) => a.at - b.at);
  let prop = 0;
  let sum = lowSum; // every item at its lower bound while fairProp × target is below it
  let slope = 0;
  for (const p of points) {
    if (slope > 0 && sum + slope * (p.at - prop) >= total) break;
    sum += slope * (p.at - prop);
    prop = p.at;
    slope += p.slope;
  }
  if (slope > 0) prop += (total - sum) / slope;
  return items.map((it, i) => Math.max(it.lower, Math.min(it.upper, prop * targets[i]!)));
}
