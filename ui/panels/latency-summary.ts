// Console: one second of the load generator's write→delivery samples as the latency chart draws it.

export interface LatencySummary {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

/** p50, p99, max and count of one second's samples (n·log n, once per finished second); undefined for none. */
export function summarize(samples: number[]): LatencySummary | undefined {
  if (!samples.length) return undefined;
  const sorted = [...samples].sort((a, c) => a - c);
  return {
    p50: sorted[Math.floor(sorted.length * 0.5)]!, p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!,
    max: sorted[sorted.length - 1]!, count: sorted.length,
  };
}
