// Core: resource.Quantity (apimachinery pkg/api/resource) — parsing "100m", "1.5Gi", "1e3" and the string
// kube stores for it. The value is exact (BigInt mantissa and a power of ten), rounded up to nano units
// as ParseQuantity does. As in Go, a string already in canonical form is kept verbatim (quantity.go's
// fast path caches the input), anything else is re-rendered canonically ("1.5" → "1500m", "0.5Gi" →
// "512Mi", "1000m" → "1").

export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_NUMERIC_ERROR = 'unable to parse numeric part of quantity';
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_BY_EXPONENT = new Map(Object.entries(BINARY_SUFFIXES).map(([s, e]) => [e, s]));
const SUFFIX_CHARS = 'eEinumkKMGTP';
const MAX_INT64 = (1n << 63n) - 1n;
const MAX_PRECISION = 18; // maxInt64Factors: decimal digits that always fit an int64

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

export class QuantityError extends Error {}

/** The stored form of a quantity given as `text`, or a QuantityError with Go's message. */
export function canonicalQuantity(text: string): string {
  if (text.length === 0) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  if (text === '0') return '0';
  const parts = split(text);
  const suffix = interpretSuffix(parts.suffix);
  if (!suffix) throw new QuantityError(QUANTITY_SUFFIX_ERROR);
  const { num, denom, positive } = parts;
  let format = suffix.format;

  // quantity.go's int64 fast path: when it applies and the input is already canonical, Go keeps the text.
  if (keepsText(num, denom, suffix.base, suffix.exponent, format)) return text;

  // value = ±digits × 10^-len(denom) × base^exponent, as an unscaled integer and a power of ten.
  let unscaled = BigInt(num + denom);
  let exp10 = -denom.length;
  if (suffix.base === 10) exp10 += suffix.exponent;
  else unscaled <<= BigInt(suffix.exponent);
  // Round up (away from zero) to nano units: a tiny request still gets something.
  if (exp10 < -9 && unscaled !== 0n) {
    const div = 10n ** BigInt(-9 - exp10);
    unscaled = (unscaled + div - 1n) / div;
    exp10 = -9;
  }
  if (format === 'BinarySI' && compare(unscaled, exp10, MAX_INT64) > 0) {
    unscaled = MAX_INT64;
    exp10 = 0;
  }
  if (format === 'BinarySI' && unscaled !== 0n && compare(unscaled, exp10, 1n) < 0) format = 'DecimalSI';
  return render(positive ? unscaled : -unscaled, exp10, format);
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

function interpretSuffix(s: string): { base: 2 | 10; exponent: number; format: Format } | undefined {
  if (s in DECIMAL_SUFFIXES) return { base: 10, exponent: DECIMAL_SUFFIXES[s], format: 'DecimalSI' };
  if (s in BINARY_SUFFIXES) return { base: 2, exponent: BINARY_SUFFIXES[s], format: 'BinarySI' };
  if (s.length > 1 && (s[0] === 'e' || s[0] === 'E') && /^[+-]?[0-9]+$/.test(s.slice(1))) {
    const exponent = Number(s.slice(1));
    if (Number.isSafeInteger(exponent) && Math.abs(exponent) < 2 ** 31) return { base: 10, exponent, format: 'DecimalExponent' };
  }
  return undefined;
}

function keepsText(num: string, denom: string, base: 2 | 10, exponent: number, format: Format): boolean {
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
  if (scale < -9) return false;
  const value = BigInt(shifted);
  if (value > MAX_INT64 || value << BigInt(mantissaBits) > MAX_INT64) return false; // int64Multiply overflows
  if (base === 2) return exponent % 10 === 0 && (value & 7n) !== 0n;
  return scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
}

// Compares unscaled × 10^exp10 with an integer.
function compare(unscaled: bigint, exp10: number, n: bigint): number {
  const left = exp10 >= 0 ? unscaled * 10n ** BigInt(exp10) : unscaled;
  const right = exp10 >= 0 ? n : n * 10n ** BigInt(-exp10);
  return left === right ? 0 : left > right ? 1 : -1;
}

// CanonicalizeBytes.
function render(unscaled: bigint, exp10: number, format: Format): string {
  if (unscaled === 0n) return '0';
  const negative = unscaled < 0n;
  let mag = negative ? -unscaled : unscaled;
  const sign = negative ? '-' : '';
  if (format === 'BinarySI') {
    const small = compare(mag, exp10, 1024n) < 0;
    let integer: bigint | undefined;
    if (!small) {
      if (exp10 >= 0) integer = mag * 10n ** BigInt(exp10);
      else if (mag % 10n ** BigInt(-exp10) === 0n) integer = mag / 10n ** BigInt(-exp10);
    }
    if (integer === undefined) {
      format = 'DecimalSI';
    } else {
      let e = 0;
      while (integer % 1024n === 0n) {
        integer /= 1024n;
        e += 10;
      }
      return sign + integer.toString() + (BINARY_BY_EXPONENT.get(e) ?? '');
    }
  }
  while (mag % 10n === 0n) {
    mag /= 10n;
    exp10++;
  }
  while (((exp10 % 3) + 3) % 3 !== 0) {
    mag *= 10n;
    exp10--;
  }
  const digits = sign + mag.toString();
  if (format === 'DecimalExponent') return exp10 === 0 ? digits : `${digits}e${exp10}`;
  return digits + (DECIMAL_BY_EXPONENT.get(exp10) ?? '');
}
