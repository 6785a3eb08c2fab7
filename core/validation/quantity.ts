// Core: resource.Quantity as apimachinery parses, compares and prints it (pkg/api/resource), for the
// messages that echo a quantity (`must be less than or equal to cpu limit of 1`). Exact: a BigInt
// mantissa times a power of ten, so 0.1 + 0.2 style errors cannot happen.

export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

export interface Quantity {
  mantissa: bigint;
  exp10: number; // value = mantissa × 10^exp10
  format: 'BinarySI' | 'DecimalSI' | 'DecimalExponent';
}

const MAX_DIGITS = 100;
const MAX_EXPONENT = 300;
const SHAPE = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };

/** resource.ParseQuantity; a message (kube's decoder error) when the text is not a quantity. */
export function parseQuantity(input: unknown): Quantity | string {
  const text = typeof input === 'number' ? String(input) : input;
  if (typeof text !== 'string' || text.length === 0) return QUANTITY_FORMAT_ERROR;
  const m = SHAPE.exec(text);
  if (!m) return QUANTITY_FORMAT_ERROR;
  const [, num, suffix] = m;
  const numeric = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(num);
  if (!numeric || (numeric[2] === '' && (numeric[3] ?? '') === '')) return 'unable to parse numeric part of quantity';
  const [, sign, whole, frac = ''] = numeric;
  // Bounded so a hostile body cannot make BigInt arithmetic expensive; no real quantity comes near.
  if (whole.length + frac.length > MAX_DIGITS) return 'unable to parse numeric part of quantity';
  let mantissa = BigInt(`${whole}${frac}` || '0');
  if (sign === '-') mantissa = -mantissa;
  let exp10 = -frac.length;
  let format: Quantity['format'];
  if (suffix in DECIMAL_SUFFIX) {
    exp10 += DECIMAL_SUFFIX[suffix];
    format = 'DecimalSI';
  } else if (suffix in BINARY_SUFFIX) {
    mantissa *= 1024n ** BigInt(BINARY_SUFFIX[suffix]);
    format = 'BinarySI';
  } else if (/^[eE][-+]?[0-9]+$/.test(suffix) && Math.abs(Number(suffix.slice(1))) <= MAX_EXPONENT) {
    exp10 += Number(suffix.slice(1));
    format = 'DecimalExponent';
  } else {
    return "unable to parse quantity's suffix";
  }
  // Precision below nano is rounded up (away from -inf), as ParseQuantity does.
  if (exp10 < -9) {
    const div = 10n ** BigInt(-9 - exp10);
    const q = mantissa / div;
    mantissa = mantissa > 0n && q * div !== mantissa ? q + 1n : q;
    exp10 = -9;
  }
  return { mantissa, exp10, format };
}

/** -1, 0 or 1, as Quantity.Cmp. */
export function compareQuantity(a: Quantity, b: Quantity): number {
  const e = Math.min(a.exp10, b.exp10);
  const x = a.mantissa * 10n ** BigInt(a.exp10 - e);
  const y = b.mantissa * 10n ** BigInt(b.exp10 - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function isNegative(q: Quantity): boolean {
  return q.mantissa < 0n;
}

/** True when the quantity is a whole number (MilliValue() % 1000 == 0). */
export function isWhole(q: Quantity): boolean {
  if (q.exp10 >= 0) return true;
  return q.mantissa % 10n ** BigInt(-q.exp10) === 0n;
}

/** Quantity.String(): the canonical form, e.g. 0.5 → 500m, 1024Mi → 1Gi, 2000 → 2k. */
export function formatQuantity(q: Quantity): string {
  if (q.mantissa === 0n) return '0';
  if (q.format === 'BinarySI' && isWhole(q)) {
    const whole = q.exp10 >= 0 ? q.mantissa * 10n ** BigInt(q.exp10) : q.mantissa / 10n ** BigInt(-q.exp10);
    if (whole <= -1024n || whole >= 1024n) {
      let amount = whole;
      let k = 0;
      while (k < 6 && amount % 1024n === 0n) {
        amount /= 1024n;
        k++;
      }
      return `${amount}${['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'][k]}`;
    }
  }
  let amount = q.mantissa;
  let exp = q.exp10;
  while (amount % 10n === 0n) {
    amount /= 10n;
    exp++;
  }
  const r = ((exp % 3) + 3) % 3;
  amount *= 10n ** BigInt(r);
  exp -= r;
  if (q.format === 'DecimalExponent') return exp === 0 ? `${amount}` : `${amount}e${exp}`;
  const suffix = Object.entries(DECIMAL_SUFFIX).find(([, e]) => e === exp)?.[0];
  return suffix !== undefined ? `${amount}${suffix}` : `${amount}e${exp}`;
}
