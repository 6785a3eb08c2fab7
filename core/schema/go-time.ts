// Core: metav1.Time and metav1.MicroTime as their UnmarshalJSON sees them: Go's time.Parse with the
// layouts RFC3339 ("2006-01-02T15:04:05Z07:00") and RFC3339Micro ("2006-01-02T15:04:05.000000Z07:00"),
// with Go's error text (`parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"`),
// and the UTC text kube stores (second precision for Time, microseconds for MicroTime).

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

export class TimeParseError extends Error {}

const isDigit = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39;

/** The stored form of `value` (UTC, "Z"), or undefined for Go's zero time (stored as null); throws TimeParseError. */
export function canonicalTime(value: string, micro: boolean): string | undefined {
  const layout = micro ? RFC3339_MICRO : RFC3339;
  const fail = (layoutElem: string, valueElem: string): never => {
    throw new TimeParseError(`parsing time ${quote(value)} as ${quote(layout)}: cannot parse ${quote(valueElem)} as ${quote(layoutElem)}`);
  };
  const failRange = (message: string): never => {
    throw new TimeParseError(`parsing time ${quote(value)}${message}`);
  };
  let rest = value;
  const literal = (ch: string) => {
    if (rest.length === 0 || rest[0] !== ch) fail(ch, rest);
    rest = rest.slice(1);
  };
  // getnum: one or two digits; `fixed` requires two.
  const num2 = (elem: string, fixed: boolean): number => {
    if (!isDigit(rest, 0) || (fixed && !isDigit(rest, 1))) fail(elem, rest);
    const two = isDigit(rest, 1);
    const n = two ? Number(rest.slice(0, 2)) : Number(rest[0]);
    rest = rest.slice(two ? 2 : 1);
    return n;
  };

  if (rest.length < 4 || !isDigit(rest, 0) || !/^[0-9]{4}/.test(rest)) fail('2006', rest);
  const year = Number(rest.slice(0, 4));
  rest = rest.slice(4);
  literal('-');
  const month = num2('01', true);
  if (month < 1 || month > 12) failRange(': month out of range');
  literal('-');
  const day = num2('02', true);
  literal('T');
  const hour = num2('15', false);
  if (hour > 23) failRange(': hour out of range');
  literal(':');
  const minute = num2('04', true);
  if (minute > 59) failRange(': minute out of range');
  literal(':');
  const second = num2('05', true);
  if (second > 59) failRange(': second out of range');
  let nanos = 0;
  if (micro) {
    // stdFracSecond0 with 6 digits: a '.' or ',' and exactly six digits.
    if (rest.length < 7 || (rest[0] !== '.' && rest[0] !== ',') || !/^[0-9]{6}$/.test(rest.slice(1, 7))) fail('.000000', rest);
    nanos = Number(rest.slice(1, 7)) * 1000;
    rest = rest.slice(7);
  } else if (rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest, 1)) {
    // A fraction the layout does not name is accepted after the seconds.
    let n = 2;
    while (isDigit(rest, n)) n++;
    nanos = Number(rest.slice(1, Math.min(n, 10)).padEnd(9, '0'));
    rest = rest.slice(n);
  }
  let offsetMinutes = 0;
  if (rest[0] === 'Z') {
    rest = rest.slice(1);
  } else {
    const sign = rest[0];
    if (rest.length < 6 || rest[3] !== ':' || (sign !== '+' && sign !== '-') || !/^[0-9]{2}$/.test(rest.slice(1, 3)) || !/^[0-9]{2}$/.test(rest.slice(4, 6))) {
      fail('Z07:00', rest);
    }
    const hh = Number(rest.slice(1, 3));
    const mm = Number(rest.slice(4, 6));
    if (hh > 24) failRange(': time zone offset hour out of range');
    if (mm > 60) failRange(': time zone offset minute out of range');
    offsetMinutes = (sign === '-' ? -1 : 1) * (hh * 60 + mm);
    rest = rest.slice(6);
  }
  if (rest.length > 0) failRange(`: extra text: ${quote(rest)}`);
  if (day < 1 || day > daysIn(month, year)) failRange(': day out of range');

  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute - offsetMinutes, second, 0);
  if (d.getTime() === GO_ZERO_TIME && nanos === 0) return undefined; // IsZero: marshalled as null
  const iso = d.toISOString(); // ±YYYYYY for years outside 0..9999, which Go cannot reach from a 4-digit year
  const base = iso.slice(0, 19);
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}

const GO_ZERO_TIME = -62135596800000; // 0001-01-01T00:00:00Z, Go's zero time

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

// time.quote: double quotes, with \" and \\ escaped and bytes outside printable ASCII as \xNN.
function quote(s: string): string {
  let out = '"';
  for (const byte of new TextEncoder().encode(s)) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte < 0x20 || byte >= 0x80) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    else out += String.fromCharCode(byte);
  }
  return `${out}"`;
}
