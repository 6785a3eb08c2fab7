// Test helper: how a function's cost grows with its input, measured so that machine speed cancels
// out. Each size is timed as the best of several runs (noise on a shared machine only adds time),
// and the caller asserts on the ratio between sizes, which a quadratic algorithm cannot hide.

/** Best-of-`runs` wall time of `fn()`, in ms. */
export function bestTime(fn: () => void, runs = 5): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

/**
 * time(make(factor·n)) / time(make(n)). For an n·log n algorithm and factor 8 this stays near 8-10;
 * a quadratic one gives ~64. Sizes should make the small run take a few ms, so timer resolution
 * does not dominate.
 */
export function growthRatio(make: (n: number) => () => void, n: number, factor = 8): number {
  const small = make(n);
  const large = make(n * factor);
  small(); // warm up the JIT on the small input
  large();
  return bestTime(large) / Math.max(bestTime(small), 0.05);
}
