// Scheduler: resource.Quantity strings as numbers (cpu in millicores, everything else in base units),
// rounded up as kube's MilliValue/Value do. Malformed quantities count as 0 (the apiserver validated them).

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

function amount(q: unknown): number {
  if (typeof q === 'number') return q;
  if (typeof q !== 'string') return 0;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/.exec(q.trim());
  if (!m) return 0;
  const n = Number(m[1]);
  if (m[2]) return n * 10 ** Number(m[2].slice(1));
  const suffix = m[3] ?? '';
  return n * (BINARY[suffix] ?? DECIMAL[suffix]);
}

/** The quantity in thousandths (cpu: millicores), rounded up. */
export const milliValue = (q: unknown): number => Math.ceil(Math.round(amount(q) * 1e6) / 1e3);

/** The quantity in units (bytes, pods), rounded up. */
export const value = (q: unknown): number => Math.ceil(Math.round(amount(q) * 1e3) / 1e3);
