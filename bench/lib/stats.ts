// Measurement: percentiles and summaries of latency samples (milliseconds), rounded for reports.

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export function round(n: number, digits = 1): number {
  if (!Number.isFinite(n)) return n;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))];
}

export function summarize(samples: number[] | Float64Array): Summary {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 0.5), 2),
    p99: round(percentile(sorted, 0.99), 2),
    max: round(sorted.length ? sorted[sorted.length - 1] : NaN, 2),
    mean: round(sorted.length ? sum / sorted.length : NaN, 2),
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `fn` repeatedly (one at a time) until `maxCount` runs or `maxMs` elapsed; returns each run's ms. */
export async function timeRepeated(fn: () => Promise<unknown>, maxCount: number, maxMs: number): Promise<number[]> {
  const out: number[] = [];
  const end = performance.now() + maxMs;
  while (out.length < maxCount && performance.now() < end) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}
