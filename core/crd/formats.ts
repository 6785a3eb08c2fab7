// Core: the string formats a CRD schema's `format` enforces, as kube-openapi's strfmt registry checks them
// (pkg/validation/strfmt default.go, time.go, date.go, duration.go), limited to the formats apiextensions
// keeps (pkg/apiserver/validation/formats.go supportedFormats; every other format is ignored). Names are
// normalized as go-openapi does (dashes dropped: "date-time" is "datetime"). Every check is one linear scan;
// the one pattern with classes JavaScript's engine could backtrack on (hostname) runs in core/regex.

import { RegexBudget } from '../regex/budget';
import { compileGoRegexp, goMatch, type GoRegexp } from '../regex/go-regexp';
import { parseIPv4, parseIPv6 } from '../validation/ip';
import { parseAddr } from './cel/go-netip';
import { parseRequestURI } from './cel/go-url';

type Check = (s: string, budget: RegexBudget) => boolean;

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
// govalidator patterns (Base64, Hexcolor, RGBcolor, SSN, CreditCard).
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const HEXCOLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const OCTET = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])';
const RGBCOLOR = new RegExp(`^rgb\\(\\s*${OCTET}\\s*,\\s*${OCTET}\\s*,\\s*${OCTET}\\s*\\)$`);
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const CREDIT_CARD = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
const HOSTNAME_PATTERN = '^([a-zA-Z0-9\\p{S}\\p{L}]((-?[a-zA-Z0-9\\p{S}\\p{L}]{0,62})?)|([a-zA-Z0-9\\p{S}\\p{L}](([a-zA-Z0-9-\\p{S}\\p{L}]{0,61}[a-zA-Z0-9\\p{S}\\p{L}])?)(\\.)){1,}([a-zA-Z\\p{L}]){2,63})$';
const TIME_OF_DAY = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;

let hostnameRe: GoRegexp | undefined;

/** time.Parse("2006-01-02", s): four-digit year, month 01-12, a day that exists in that month. */
export function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return d <= days;
}

/** strfmt IsDateTime: a date, a "t" (any case), then a time of day with an optional fraction and zone. */
export function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0])) return false;
  const m = TIME_OF_DAY.exec(parts[1]);
  return !!m && m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
}

const GO_DURATION_UNITS = new Set(['ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h']);

/** time.ParseDuration accepts `s` (validity only: [-+]?(digits[.digits]unit)+ or "0", within int64 ns). */
export function isGoDuration(s: string): boolean {
  let i = 0;
  if (s[0] === '-' || s[0] === '+') i++;
  if (s.slice(i) === '0') return true;
  if (i === s.length) return false;
  let total = 0;
  while (i < s.length) {
    const start = i;
    while (i < s.length && s[i] >= '0' && s[i] <= '9') i++;
    const whole = s.slice(start, i);
    let frac = '';
    if (s[i] === '.') {
      const f = ++i;
      while (i < s.length && s[i] >= '0' && s[i] <= '9') i++;
      frac = s.slice(f, i);
    }
    if (!whole && !frac) return false;
    const u = i;
    while (i < s.length && !(s[i] >= '0' && s[i] <= '9') && s[i] !== '.') i++;
    const unit = s.slice(u, i);
    if (!GO_DURATION_UNITS.has(unit)) return false;
    const ns = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 6e10, h: 3.6e12 }[unit]!;
    total += Number(`${whole || '0'}.${frac || '0'}`) * ns;
    if (total > 9.223372036854775807e18) return false;
  }
  return true;
}

const SCALA_UNITS = [['ns', 'nano'], ['us', 'µs', 'micro'], ['ms', 'milli'], ['s', 'sec'], ['m', 'min'], ['h', 'hr', 'hour'], ['d', 'day'], ['w', 'wk', 'week']];

/**
 * strfmt IsDuration: time.ParseDuration, else any `<digits><spaces><letters>` run anywhere in the text
 * whose unit is known (a last variant may be a prefix: "5 days"). A count beyond int64 fails as Atoi does.
 */
export function isDuration(s: string): boolean {
  if (isGoDuration(s)) return true;
  let ok = false;
  let i = 0;
  const isLetter = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === 'µ';
  while (i < s.length) {
    if (!(s[i] >= '0' && s[i] <= '9')) {
      i++;
      continue;
    }
    const d = i;
    while (i < s.length && s[i] >= '0' && s[i] <= '9') i++;
    const digits = s.slice(d, i);
    let j = i;
    while (j < s.length && /\s/.test(s[j])) j++;
    const l = j;
    while (j < s.length && isLetter(s[j])) j++;
    if (j === l) continue; // no unit: no match starts anywhere in this run of digits
    // strconv.Atoi: leading zeros are fine, more than int64 is an error (no BigInt work on a long run).
    const significant = digits.replace(/^0+/, '');
    if (significant.length > 19 || (significant.length === 19 && BigInt(significant) > 9223372036854775807n)) return false;
    const unit = s.slice(l, j).toLowerCase();
    for (const variants of SCALA_UNITS) {
      const last = variants.length - 1;
      if (variants.some((v, k) => (k === last && unit.startsWith(v)) || v === unit)) ok = true;
    }
    i = j;
  }
  return ok;
}

function isHostname(s: string, budget: RegexBudget): boolean {
  const re = (hostnameRe ??= compileGoRegexp(HOSTNAME_PATTERN) as GoRegexp);
  if (!goMatch(re, s, budget)) return false;
  if (new TextEncoder().encode(s).length > 255) return false;
  return s.split('.').every((p) => new TextEncoder().encode(p).length <= 63);
}

// netutils.ParseIPSloppy (leading zeros allowed) with a dot somewhere.
function isIPv4(s: string): boolean {
  return s.includes('.') && (parseIPv4(s) !== undefined || parseIPv6(s) !== undefined);
}

// govalidator.IsIPv6: net.ParseIP (strict IPv4 tails, no zone) with a colon.
function isIPv6(s: string): boolean {
  if (!s.includes(':')) return false;
  try {
    return !parseAddr(s).zone;
  } catch {
    return false;
  }
}

// netutils.ParseCIDRSloppy: a sloppy IP, a slash, decimal bits (leading zeros allowed) within the family.
function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^[0-9]{1,6}$/.test(bits)) return false;
  const v4 = parseIPv4(ip);
  const max = v4 ? 32 : parseIPv6(ip) ? 128 : -1;
  return max >= 0 && Number(bits) <= max;
}

// net.ParseMAC: 6, 8 or 20 octets as xx:xx:…, xx-xx-…, or xxxx.xxxx.….
function isMAC(s: string): boolean {
  if (/^[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}/.test(s)) {
    const sep = s[2];
    const groups = s.split(sep);
    return [6, 8, 20].includes(groups.length) && groups.every((g) => /^[0-9a-fA-F]{2}$/.test(g));
  }
  const groups = s.split('.');
  return [3, 4, 10].includes(groups.length) && groups.every((g) => /^[0-9a-fA-F]{4}$/.test(g));
}

function isbn10(s: string): boolean {
  const t = s.replace(/[\s-]+/g, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(t)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(t[i]);
  sum += 10 * (t[9] === 'X' ? 10 : Number(t[9]));
  return sum % 11 === 0;
}

function isbn13(s: string): boolean {
  const t = s.replace(/[\s-]+/g, '');
  if (!/^[0-9]{13}$/.test(t)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(t[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(t[12]);
}

function isCreditCard(s: string): boolean {
  const t = s.replace(/[^0-9]+/g, '');
  if (!CREDIT_CARD.test(t)) return false;
  let sum = 0;
  let double = false;
  for (let i = t.length - 1; i >= 0; i--) {
    let d = Number(t[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

const CHECKS: Record<string, Check> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: (s) => {
    try {
      parseRequestURI(s);
      return true;
    } catch {
      return false;
    }
  },
  email: (s) => /^[^@\s]+@[^@\s]+$/.test(s),
  hostname: isHostname,
  ipv4: isIPv4,
  ipv6: isIPv6,
  cidr: isCIDR,
  mac: isMAC,
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => isbn10(s) || isbn13(s),
  isbn10,
  isbn13,
  creditcard: isCreditCard,
  ssn: (s) => s.length === 11 && SSN.test(s),
  hexcolor: (s) => HEXCOLOR.test(s),
  rgbcolor: (s) => RGBCOLOR.test(s),
  byte: (s) => BASE64.test(s),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
};

/** Whether kube validates strings of this format at all. */
export function knownFormat(format: string): boolean {
  return Object.hasOwn(CHECKS, format.replaceAll('-', ''));
}

/** Whether `v` is valid in `format` (true for formats kube ignores). */
export function formatMatches(format: string, v: string, budget: RegexBudget): boolean {
  const key = format.replaceAll('-', '');
  return Object.hasOwn(CHECKS, key) ? CHECKS[key](v, budget) : true;
}
