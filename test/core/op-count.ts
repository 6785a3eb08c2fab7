// Test helper: a deterministic cost count for pure functions over JSON, immune to machine speed.
// While `fn` runs, the built-ins such code spends its time in are wrapped: a property probe or a
// hash lookup counts 1, a linear array scan or splice counts the array's length, a string search what it reads. Growth of the
// count with the input shows the algorithm's complexity exactly (quadratic code gives 16x the
// count for 4x the input, linear code 4x).

type Fn = (...args: unknown[]) => unknown;

const UNIT: [object, string][] = [
  [Object.prototype, 'hasOwnProperty'],
  [Map.prototype, 'get'],
  [Map.prototype, 'has'],
  [Map.prototype, 'set'],
  [Set.prototype, 'has'],
  [Set.prototype, 'add'],
  [String.prototype, 'charCodeAt'],
];
const BY_LENGTH: [object, string][] = [
  [Array.prototype, 'includes'],
  [Array.prototype, 'indexOf'],
  [Array.prototype, 'lastIndexOf'],
  [Array.prototype, 'splice'],
  [Array.prototype, 'find'],
  [Array.prototype, 'findIndex'],
  [Array.prototype, 'some'],
  [Array.prototype, 'every'],
  [Array.prototype, 'filter'],
  [Array.prototype, 'map'],
  [Array.prototype, 'slice'],
  [String.prototype, 'includes'],
  [String.prototype, 'startsWith'],
];
const STATIC: [object, string][] = [
  [Object, 'keys'],
  [Object, 'entries'],
];

/** Runs `fn` and returns its cost in the units above (an exception from `fn` is rethrown). */
export function countOps(fn: () => void): number {
  let ops = 0;
  const restore: (() => void)[] = [];
  const wrap = (owner: object, name: string, cost: (self: unknown, args: unknown[], out: unknown) => number) => {
    const original = (owner as Record<string, Fn>)[name];
    Object.defineProperty(owner, name, {
      configurable: true,
      writable: true,
      value: function (this: unknown, ...args: unknown[]) {
        const out = original.apply(this, args);
        ops += cost(this, args, out);
        return out;
      },
    });
    restore.push(() => Object.defineProperty(owner, name, { configurable: true, writable: true, value: original }));
  };
  for (const [owner, name] of UNIT) wrap(owner, name, () => 1);
  for (const [owner, name] of BY_LENGTH) wrap(owner, name, (self) => 1 + ((self as { length?: number }).length ?? 0));
  for (const [owner, name] of STATIC) wrap(owner, name, (_self, _args, out) => 1 + (out as unknown[]).length);
  // A string search from a position reads up to its match (or the end), not the whole string.
  wrap(String.prototype, 'indexOf', (self, args, out) => {
    const from = Math.max(0, Math.trunc(Number(args[1] ?? 0)) || 0);
    return 1 + Math.max(0, ((out as number) >= 0 ? (out as number) + String(args[0]).length : (self as string).length) - from);
  });
  try {
    fn();
  } finally {
    for (const r of restore.reverse()) r();
  }
  return ops;
}

/** countOps(make(factor·n)) / countOps(make(n)): ~factor for linear code, ~factor² for quadratic. */
export function opGrowth(make: (n: number) => () => void, n: number, factor = 4): number {
  return countOps(make(n * factor)) / Math.max(countOps(make(n)), 1);
}
