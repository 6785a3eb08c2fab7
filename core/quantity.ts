// Core: resource.Quantity (apimachinery pkg/api/resource/quantity.go) — the one parser, comparer and printer of
// quantities ("100m", "1.5Gi", "1e3"), used by the schema decoder (the stored form), validation (messages that
// echo a quantity) and the scheduler (millicores and bytes). Exact: a BigInt mantissa times a power of ten,
// rounded up to nano units as ParseQuantity does. As in Go, a string already in canonical form is kept verbatim
// (ParseQuantity's fast path keeps `s`), anything else is rendered canonically ("1.5" → "1500m", "0.5Gi" →
// "512Mi", "1000m" → "1").
//
// Linear in the input: digits are bounded (MAX_DIGITS; Go has no bound but no real quantity comes near), and no
// power of ten is ever raised to a user-written exponent (Go accepts any int32 exponent, so do we: "1e999999").

export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_NUMERIC_ERROR = 'unable to parse numeric part of quantity';
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  mantissa: bigint;
  exp10: number; // value = mantissa × 10^exp10
  format: QuantityFormat;
  text?: string; // the input, when Go would keep it (already canonical)
}

export class QuantityError extends Error {}

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_BY_EXPONENT = new Map(Object.entries(BINARY_SUFFIXES).map(([s, e]) => [e, s]));
const SUFFIX_CHARS = 'eEinumkKMGTP';
const MAX_INT64 = (1n << 63n) - 1n;
const MAX_PRECISION = 18; // maxInt64Factors: decimal digits that always fit an int64
const NANO = -9;
/** Digits before and after the point; beyond it, ErrNumeric (BigInt work on the digits stays small). */
export const MAX_DIGITS = 1000;

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** ParseQuantity: the quantity `text` denotes, or a QuantityError with Go's message. */
export function parseQuantity(text: string): Quantity {
  if (text.length === 0) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  if (text === '0') return { mantissa: 0n, exp10: 0, format: 'DecimalSI', text };
  const { positive, num, denom, suffix: suf } = split(text);
  const suffix = interpretSuffix(suf);
  if (!suffix) throw new QuantityError(QUANTITY_SUFFIX_ERROR);
  if (num.length + denom.length > MAX_DIGITS) throw new QuantityError(QUANTITY_NUMERIC_ERROR);
  let format = suffix.format;
  const kept = keepsText(num, denom, suffix.base, suffix.exponent, format) ? text : undefined;

  // value = ±digits × 10^-len(denom) × base^exponent, as an unscaled integer and a power of ten.
  let unscaled = BigInt(num + denom);
  let exp10 = -denom.length;
  if (suffix.base === 10) exp10 += suffix.exponent;
  else unscaled <<= BigInt(suffix.exponent);
  // Round up (away from zero) to nano units: a tiny request still gets something. A value below one nano unit
  // (more places to drop than it has digits) is one nano unit, without computing 10^places.
  if (exp10 < NANO && unscaled !== 0n) {
    const places = NANO - exp10;
    if (places > unscaled.toString().length) unscaled = 1n;
    else {
      const div = 10n ** BigInt(places);
      unscaled = (unscaled + div - 1n) / div;
    }
    exp10 = NANO;
  }
  if (format === 'BinarySI' && compareScaled(unscaled, exp10, MAX_INT64) > 0) {
    unscaled = MAX_INT64;
    exp10 = 0;
  }
  if (format === 'BinarySI' && unscaled !== 0n && compareScaled(unscaled, exp10, 1n) < 0) format = 'DecimalSI';
  return { mantissa: positive ? unscaled : -unscaled, exp10, format, text: kept };
}

/** The quantity `input` denotes (a string, or a JSON number as the decoder sees it), or Go's error message. */
export function tryParseQuantity(input: unknown): Quantity | string {
  const text = typeof input === 'number' ? String(input) : input;
  if (typeof text !== 'string') return QUANTITY_FORMAT_ERROR;
  try {
    return parseQuantity(text);
  } catch (e) {
    if (e instanceof QuantityError) return e.message;
    throw e;
  }
}

// Manifests repeat a few quantities ("100m", "128Mi") over and over: their stored forms are kept, up to
// CACHE_CHARS characters of keys and values, then the cache starts again.
const CACHE_CHARS = 64 * 1024;
const cache = new Map<string, string>();
let cachedChars = 0;

/** The stored form of a quantity given as `text` (Quantity.String() after ParseQuantity), or a QuantityError. */
export function canonicalQuantity(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const out = formatQuantity(parseQuantity(text));
  if (text.length <= 64) {
    cachedChars += text.length + out.length;
    if (cachedChars > CACHE_CHARS) {
      cache.clear();
      cachedChars = text.length + out.length;
    }
    cache.set(text, out);
  }
  return out;
}

/** Quantity.String(): the kept input, else the canonical form (CanonicalizeBytes), e.g. 0.5 → 500m, 1024Mi → 1Gi. */
export function formatQuantity(q: Quantity): string {
  return q.text ?? render(q.mantissa, q.exp10, q.format);
}

/** -1, 0 or 1, as Quantity.Cmp — by order of magnitude first, so exponents far apart cost nothing. */
export function compareQuantity(a: Quantity, b: Quantity): number {
  const sa = sign(a.mantissa);
  const sb = sign(b.mantissa);
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const oa = magnitude(a);
  const ob = magnitude(b);
  if (oa !== ob) return (oa < ob ? -1 : 1) * sa;
  // Same order of magnitude: the exponents differ by less than the digits, so scaling is cheap.
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
  return q.mantissa % 10n ** BigInt(-q.exp10) === 0n; // exp10 ≥ -9 after parsing
}

/** MilliValue(): thousandths rounded up (cpu in millicores); a malformed or non-string quantity counts 0. */
export function milliValue(input: unknown): number {
  return scaledUp(input, 3);
}

/** Value(): units rounded up (bytes, pods); a malformed or non-string quantity counts 0. */
export function value(input: unknown): number {
  return scaledUp(input, 0);
}

function scaledUp(input: unknown, places: number): number {
  const q = tryParseQuantity(input);
  if (typeof q === 'string' || q.mantissa === 0n) return 0;
  const exp = q.exp10 + places;
  // Beyond 10^30 no node or request is comparable anyway: saturate instead of computing a huge power.
  if (magnitude(q) + places > 30) return q.mantissa > 0n ? Number.MAX_VALUE : -Number.MAX_VALUE;
  if (exp >= 0) return Number(q.mantissa * 10n ** BigInt(exp));
  const div = 10n ** BigInt(-exp);
  const whole = q.mantissa / div;
  return Number(q.mantissa > 0n && whole * div !== q.mantissa ? whole + 1n : whole);
}

const sign = (n: bigint): number => (n < 0n ? -1 : n > 0n ? 1 : 0);

/** Digits of |mantissa| plus the exponent: the position of the leading digit. */
function magnitude(q: Quantity): number {
  return (q.mantissa < 0n ? -q.mantissa : q.mantissa).toString().length + q.exp10;
}

interface Parts {
  positive: boolean;
  num: string;
  denom: string;
  suffix: string;
}

// parseQuantityString: sign, digits (leading zeros dropped), optional fraction, then a suffix of
// [eEinumkKMGTP]* with an optional signed exponent.
function split(str: string): Parts {
  let pos = 0;
  const end = str.length;
  let positive = true;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') {
    pos++;
  }
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  const num = str.slice(pos, i) || '0';
  if (i >= end) return { positive, num, denom: '', suffix: '' };
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, num, denom, suffix: '' };
    pos = i;
  }
  const suffixStart = pos;
  i = pos;
  while (i < end && SUFFIX_CHARS.includes(str[i])) i++;
  if (i >= end) return { positive, num, denom, suffix: str.slice(suffixStart) };
  if (str[i] === '-' || str[i] === '+') i++;
  while (i < end && isDigit(str[i])) i++;
  if (i < end) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  return { positive, num, denom, suffix: str.slice(suffixStart) };
}

function interpretSuffix(s: string): { base: 2 | 10; exponent: number; format: QuantityFormat } | undefined {
  if (s in DECIMAL_SUFFIXES) return { base: 10, exponent: DECIMAL_SUFFIXES[s], format: 'DecimalSI' };
  if (s in BINARY_SUFFIXES) return { base: 2, exponent: BINARY_SUFFIXES[s], format: 'BinarySI' };
  if (s.length > 1 && (s[0] === 'e' || s[0] === 'E') && /^[+-]?[0-9]+$/.test(s.slice(1))) {
    const exponent = Number(s.slice(1));
    if (Number.isSafeInteger(exponent) && Math.abs(exponent) < 2 ** 31) return { base: 10, exponent, format: 'DecimalExponent' };
  }
  return undefined;
}

// ParseQuantity's int64 fast path: when it applies and the input is already canonical, Go keeps the text.
function keepsText(num: string, denom: string, base: 2 | 10, exponent: number, format: QuantityFormat): boolean {
  const shifted = num + denom;
  let precision: number;
  let scale: number;
  let mantissaBits = 0;
  if (format === 'BinarySI') {
    if (denom.length > 0) return false;
    scale = 0;
    mantissaBits = exponent;
    precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
  } else {
    scale = exponent;
    precision = MAX_PRECISION - shifted.length;
  }
  if (precision < 0) return false;
  scale -= denom.length;
  if (scale < NANO) return false;
  const v = BigInt(shifted);
  if (v > MAX_INT64 || v << BigInt(mantissaBits) > MAX_INT64) return false; // int64Multiply overflows
  if (base === 2) return exponent % 10 === 0 && (v & 7n) !== 0n;
  return scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
}

/**
 * The int64Amount ParseQuantity keeps when its fast path applies ({value, scale}: value × 10^scale), or
 * undefined when Go falls back to an inf.Dec. CEL's quantity library answers isInteger()/asInteger() from
 * this form (Quantity.AsInt64: a Dec, or a negative scale, is never an integer there).
 */
export function int64Amount(text: string): { value: bigint; scale: number } | undefined {
  if (text === '0') return { value: 0n, scale: 0 };
  const { positive, num, denom, suffix: suf } = split(text);
  const suffix = interpretSuffix(suf);
  if (!suffix) return undefined;
  const shifted = num + denom;
  let precision: number;
  let scale: number;
  let bits = 0;
  if (suffix.format === 'BinarySI') {
    if (denom.length > 0) return undefined;
    scale = 0;
    bits = suffix.exponent;
    precision = 15 - num.length - Math.trunc((suffix.exponent * 3) / 10) - 1;
  } else {
    scale = suffix.exponent;
    precision = MAX_PRECISION - shifted.length;
  }
  if (precision < 0) return undefined;
  scale -= denom.length;
  if (scale < NANO) return undefined;
  const v = BigInt(shifted) << BigInt(bits);
  if (v > MAX_INT64) return undefined;
  return { value: positive ? v : -v, scale };
}

// Compares unscaled × 10^exp10 with a small integer (exp10 is bounded here: BinarySI parsing only).
function compareScaled(unscaled: bigint, exp10: number, n: bigint): number {
  const left = exp10 >= 0 ? unscaled * 10n ** BigInt(exp10) : unscaled;
  const right = exp10 >= 0 ? n : n * 10n ** BigInt(-exp10);
  return left === right ? 0 : left > right ? 1 : -1;
}

// CanonicalizeBytes.
function render(unscaled: bigint, exp10: number, format: QuantityFormat): string {
  if (unscaled === 0n) return '0';
  const negative = unscaled < 0n;
  let mag = negative ? -unscaled : unscaled;
  const sign = negative ? '-' : '';
  if (format === 'BinarySI') {
    const small = compareScaled(mag, exp10, 1024n) < 0;
    let integer: bigint | undefined;
    if (!small) {
      if (exp10 >= 0) integer = mag * 10n ** BigInt(exp10);
      else if (mag % 10n ** BigInt(-exp10) === 0n) integer = mag / 10n ** BigInt(-exp10);
    }
    if (integer === undefined) {
      format = 'DecimalSI';
    } else {
      let e = 0;
      while (integer % 1024n === 0n && e < 60) {
        integer /= 1024n;
        e += 10;
      }
      return sign + integer.toString() + (BINARY_BY_EXPONENT.get(e) ?? '');
    }
  }
  // Trailing zeros come off the digits as text: one pass, however many there are.
  const digits = mag.toString();
  const trimmed = digits.replace(/0+$/, '');
  exp10 += digits.length - trimmed.length;
  mag = BigInt(trimmed);
  while (((exp10 % 3) + 3) % 3 !== 0) {
    mag *= 10n;
    exp10--;
  }
  const out = sign + mag.toString();
  if (format === 'DecimalExponent') return exp10 === 0 ? out : `${out}e${exp10}`;
  const suffix = DECIMAL_BY_EXPONENT.get(exp10);
  // Beyond E (10^18) or below n, Go prints the exponent form.
  return suffix !== undefined ? out + suffix : `${out}e${exp10}`;
}
