// Core: cron schedules as the CronJob controller reads them (robfig/cron v3 ParseStandard, which kube uses):
// five fields (minute hour day-of-month month day-of-week) with names, ranges, steps, `*` and `?`, the
// descriptors @yearly/@annually/@monthly/@weekly/@daily/@midnight/@hourly and @every <duration>, and a
// leading TZ=<zone> or CRON_TZ=<zone>. next() and prev() search wall-clock fields in the zone field by field
// (a month, day, hour or minute that cannot match is skipped whole), so each is bounded work whatever the
// schedule: at most five years of months, days and hours are looked at, as robfig's Next gives up after five
// years. Wall-clock minutes a DST change skips never fire; a repeated one fires once (its first instant).

import { instantsOf, isUtc, timeZoneError, wallOf } from './time-zone';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const YEAR_LIMIT = 5;

export interface FieldSchedule {
  kind: 'fields';
  minute: boolean[]; // index = value
  hour: boolean[];
  dom: boolean[];
  month: boolean[]; // 1..12
  dow: boolean[]; // 0..6
  domStar: boolean; // `*` or `?` (robfig's starBit): day-of-month and day-of-week then both must match
  dowStar: boolean;
  zone?: string;
}

export interface EverySchedule {
  kind: 'every';
  ms: number; // whole seconds, at least one
  zone?: string;
}

export type Schedule = FieldSchedule | EverySchedule;

interface Bounds { min: number; max: number; names?: Record<string, number> }

const MONTHS: Bounds = { min: 1, max: 12, names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } };
const DOWS: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };
const FIELDS: Bounds[] = [{ min: 0, max: 59 }, { min: 0, max: 23 }, { min: 1, max: 31 }, MONTHS, DOWS];

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *', '@annually': '0 0 1 1 *', '@monthly': '0 0 1 * *', '@weekly': '0 0 * * 0', '@daily': '0 0 * * *', '@midnight': '0 0 * * *', '@hourly': '0 * * * *',
};

class CronError extends Error {}

/** Go's fmt %v of a []string: `[a b c]`. */
const goSlice = (xs: string[]) => `[${xs.join(' ')}]`;

function parseInt10(s: string, expr: string): number {
  if (!/^[+-]?[0-9]+$/.test(s) || s.length > 19) throw new CronError(`failed to parse int from ${s}: strconv.Atoi: parsing "${s}": invalid syntax`);
  const n = Number(s);
  if (n < 0) throw new CronError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function intOrName(s: string, b: Bounds, expr: string): number {
  const named = b.names?.[s.toLowerCase()];
  return named ?? parseInt10(s, expr);
}

/** One comma-separated part of a field (getRange). */
function applyRange(expr: string, b: Bounds, bits: boolean[]): boolean {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const single = lowAndHigh.length === 1;
  let start: number, end: number, star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = b.min;
    end = b.max;
    star = true;
  } else {
    start = intOrName(lowAndHigh[0]!, b, expr);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = intOrName(lowAndHigh[1]!, b, expr);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = parseInt10(rangeAndStep[1]!, expr);
    if (single) end = b.max; // "N/step" means "N-max/step"
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) throw new CronError(`too many slashes: ${expr}`);
  if (start < b.min) throw new CronError(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  if (end > b.max) throw new CronError(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`);
  for (let v = start; v <= end; v += step) bits[v] = true; // at most 60 values: the bounds were checked first
  return star;
}

function parseField(field: string, b: Bounds): { bits: boolean[]; star: boolean } {
  const bits: boolean[] = new Array(b.max + 1).fill(false);
  let star = false;
  for (const part of field.split(',')) star = applyRange(part, b, bits) || star;
  return { bits, star };
}

/** Go's time.ParseDuration for @every (units ns us µs ms s m h, signed decimals). */
function parseGoDuration(s: string): number {
  const bad = () => new CronError(`failed to parse duration @every ${s}: time: invalid duration "${s}"`);
  if (s === '0') return 0;
  const m = /^([-+]?)((?:[0-9]*\.?[0-9]+(?:ns|us|µs|μs|ms|s|m|h))+)$/.exec(s);
  if (!m || s.length > 64) throw bad();
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: MINUTE, h: HOUR };
  let total = 0;
  for (const [, num, unit] of m[2]!.matchAll(/([0-9]*\.?[0-9]+)(ns|us|µs|μs|ms|s|m|h)/g)) total += Number(num) * units[unit!]!;
  return m[1] === '-' ? -total : total;
}

/**
 * Parses a schedule as cron.ParseStandard does; throws an Error with robfig's message. Linear in the text
 * (fields are split once; each part sets at most 60 values).
 */
export function parseSchedule(text: string): Schedule {
  let spec = text;
  let zone: string | undefined;
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const eq = spec.indexOf('=');
    const name = space < 0 ? spec.slice(eq + 1) : spec.slice(eq + 1, space);
    const err = timeZoneError(name);
    if (err) throw new CronError(`provided bad location ${name}: ${err}`);
    zone = isUtc(name) ? undefined : name;
    spec = space < 0 ? '' : spec.slice(space).trim();
  }
  if (spec.length === 0) throw new CronError('empty spec string');
  if (spec.startsWith('@')) {
    if (spec.startsWith('@every ')) {
      const d = parseGoDuration(spec.slice('@every '.length));
      const ms = Math.max(1000, d - (d % 1000));
      return { kind: 'every', ms: Number.isFinite(ms) ? ms : 1000, ...(zone ? { zone } : {}) };
    }
    const expanded = DESCRIPTORS[spec];
    if (!expanded) throw new CronError(`unrecognized descriptor: ${spec}`);
    spec = expanded;
  }
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) throw new CronError(`expected exactly 5 fields, found ${fields.length}: ${goSlice(fields)}`);
  const [minute, hour, dom, month, dow] = fields.map((f, i) => parseField(f, FIELDS[i]!));
  return {
    kind: 'fields', minute: minute!.bits, hour: hour!.bits, dom: dom!.bits, month: month!.bits, dow: dow!.bits,
    domStar: dom!.star, dowStar: dow!.star, ...(zone ? { zone } : {}),
  };
}

/** The parse error's message, or undefined when the schedule parses. */
export function scheduleError(text: string): string | undefined {
  try {
    parseSchedule(text);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

function dayMatches(s: FieldSchedule, wall: Date): boolean {
  const dom = s.dom[wall.getUTCDate()]!;
  const dow = s.dow[wall.getUTCDay()]!;
  return s.domStar || s.dowStar ? dom && dow : dom || dow;
}

/** The first wall minute ≥ `from` (wall ms) the fields match, or undefined within five years. */
function nextWall(s: FieldSchedule, from: number): number | undefined {
  let t = Math.ceil(from / MINUTE) * MINUTE;
  const limit = new Date(t).getUTCFullYear() + YEAR_LIMIT;
  for (;;) {
    const d = new Date(t);
    if (d.getUTCFullYear() > limit) return undefined;
    if (!s.month[d.getUTCMonth() + 1]) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
      continue;
    }
    if (!dayMatches(s, d)) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
      continue;
    }
    if (!s.hour[d.getUTCHours()]) {
      t = Math.floor(t / HOUR) * HOUR + HOUR;
      continue;
    }
    if (!s.minute[d.getUTCMinutes()]) {
      t += MINUTE;
      continue;
    }
    return t;
  }
}

/** The last wall minute ≤ `from` (wall ms) the fields match, or undefined within five years. */
function prevWall(s: FieldSchedule, from: number): number | undefined {
  let t = Math.floor(from / MINUTE) * MINUTE;
  const limit = new Date(t).getUTCFullYear() - YEAR_LIMIT;
  for (;;) {
    const d = new Date(t);
    if (d.getUTCFullYear() < limit) return undefined;
    if (!s.month[d.getUTCMonth() + 1]) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) - MINUTE; // 23:59 on the last day of the month before
      continue;
    }
    if (!dayMatches(s, d)) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - MINUTE;
      continue;
    }
    if (!s.hour[d.getUTCHours()]) {
      t = Math.floor(t / HOUR) * HOUR - MINUTE;
      continue;
    }
    if (!s.minute[d.getUTCMinutes()]) {
      t -= MINUTE;
      continue;
    }
    return t;
  }
}

// A wall minute that exists has its instant within a day of wall − offset; one search step past a skipped or
// repeated minute is all DST needs, so a few steps bound the instant search.
const MAX_DST_STEPS = 4;

/** The first time the schedule fires strictly after `after` (ms), or undefined when it never does (5 years). */
export function nextAfter(s: Schedule, after: number): number | undefined {
  if (s.kind === 'every') return Math.floor(after / 1000) * 1000 + s.ms; // ConstantDelaySchedule: whole seconds
  let from = wallOf(after, s.zone) + 1000; // the first whole second after `after`
  for (let i = 0; i < MAX_DST_STEPS * 60; i++) {
    const wall = nextWall(s, from);
    if (wall === undefined) return undefined;
    const later = instantsOf(wall, s.zone).find((x) => x > after);
    // A repeated minute fires at its first instant only: the second is not a new firing.
    const first = instantsOf(wall, s.zone)[0];
    if (later !== undefined && later === first) return later;
    from = wall + MINUTE;
  }
  return undefined;
}

/** The last time the schedule fires at or before `at` (ms), or undefined. (@every has no fixed times: undefined.) */
export function prevAtOrBefore(s: Schedule, at: number): number | undefined {
  if (s.kind === 'every') return undefined;
  let from = wallOf(at, s.zone);
  for (let i = 0; i < MAX_DST_STEPS * 60; i++) {
    const wall = prevWall(s, from);
    if (wall === undefined) return undefined;
    const first = instantsOf(wall, s.zone)[0];
    if (first !== undefined && first <= at) return first;
    from = wall - MINUTE;
  }
  return undefined;
}

export const DAY_MS = DAY;
