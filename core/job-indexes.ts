// Core: the completion indexes of an Indexed Job (status.completedIndexes, status.failedIndexes,
// successPolicy.rules[].succeededIndexes) as ordered intervals, never as one entry per index: a 40-byte
// "0-15999999" is one interval, not sixteen million numbers. Mirrors kube's interval arithmetic
// (pkg/controller/job/indexed_job_utils.go: orderedIntervals, parseIndexesFromString, withOrderedIndexes,
// merge, total, has, firstPendingIndexes) and the format checks of status validation
// (pkg/apis/batch/validation/validation.go: validateIndexesFormat, parseIndexInterval,
// validateFailedIndexesNotOverlapCompleted, with their messages). Every function is linear in the number of
// intervals (plus n·log n where it sorts what it was given), whatever the numbers in them.
import { goQuote } from './validation/names';

/** Indexes first..last, both included. */
export interface Interval {
  first: number;
  last: number;
}

/**
 * strconv.Atoi of s[from, to): optional sign, decimal digits, within int64; undefined where Go returns an
 * error. Values past 2^53 lose precision, which no comparison here can notice: every bound they meet is an
 * int32. Reads the characters in place (a status list may hold 200,000 fragments).
 */
function atoiAt(s: string, from: number, to: number): number | undefined {
  const c0 = s.charCodeAt(from);
  const negative = c0 === 45; // '-'
  let i = negative || c0 === 43 ? from + 1 : from; // '+'
  if (i >= to) return undefined;
  while (i < to - 1 && s.charCodeAt(i) === 48) i++; // leading zeros
  const start = i;
  let n = 0;
  for (; i < to; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    n = n * 10 + d;
  }
  if (to - start > 15) {
    const digits = s.slice(start, to);
    if (digits.length > 19 || (digits.length === 19 && digits > (negative ? '9223372036854775808' : '9223372036854775807'))) return undefined;
    n = Number(digits);
  }
  return negative ? -n : n;
}

export const goAtoi = (s: string): number | undefined => atoiAt(s, 0, s.length);

/** One comma-separated fragment s[from, to) and where its first two '-' are (−1: none). */
interface Fragment {
  from: number;
  to: number;
  dash: number;
  dash2: number;
}

/** strings.Split(s, ",") without the strings: calls `f` per fragment until it returns false. */
function eachFragment(s: string, f: (fr: Fragment) => boolean): void {
  const fr: Fragment = { from: 0, to: 0, dash: -1, dash2: -1 };
  for (let from = 0; ;) {
    let to = s.indexOf(',', from);
    if (to < 0) to = s.length;
    const dash = s.indexOf('-', from);
    fr.from = from;
    fr.to = to;
    fr.dash = dash >= 0 && dash < to ? dash : -1;
    const dash2 = fr.dash >= 0 ? s.indexOf('-', fr.dash + 1) : -1;
    fr.dash2 = dash2 >= 0 && dash2 < to ? dash2 : -1;
    if (!f(fr) || to === s.length) return;
    from = to + 1;
  }
}

/**
 * parseIndexesFromString: the intervals of a compressed index list such as "1,3-5,7", for a Job of
 * `completions`. As kube's controller does, a fragment that is not a number is skipped, the list ends at the
 * first index ≥ completions and an interval reaching past it is cut at completions − 1, and an interval right
 * after the previous one extends it. Beyond kube, a list that validation would refuse (out of order,
 * overlapping, first > last) comes back sorted and merged, so every caller may rely on ordered, disjoint
 * intervals.
 */
export function parseIndexes(s: string | undefined, completions: number): Interval[] {
  if (!s) return [];
  const out: Interval[] = [];
  let ordered = true;
  eachFragment(s, ({ from, to, dash, dash2 }) => {
    const first = atoiAt(s, from, dash >= 0 ? dash : to);
    if (first === undefined) return true;
    if (first >= completions) return false;
    let last = first;
    if (dash >= 0) {
      const l = atoiAt(s, dash + 1, dash2 >= 0 ? dash2 : to); // a third part is ignored, as kube's controller does
      if (l === undefined) return true;
      last = Math.min(l, completions - 1);
    }
    if (first < 0 || last < first) {
      ordered = false;
      return true;
    }
    const prev = out[out.length - 1];
    if (prev && first <= prev.last) ordered = false;
    if (prev && prev.last === first - 1) prev.last = last;
    else out.push({ first, last });
    return true;
  });
  return ordered ? out : normalize(out);
}

/** Sorted by first index, overlapping and adjacent intervals joined. */
function normalize(list: Interval[]): Interval[] {
  const sorted = [...list].sort((a, b) => a.first - b.first);
  const out: Interval[] = [];
  for (const iv of sorted) append(out, iv);
  return out;
}

// appendOrMergeWithLastInterval
function append(out: Interval[], iv: Interval): void {
  const prev = out[out.length - 1];
  if (!prev || iv.first > prev.last + 1) out.push({ first: iv.first, last: iv.last });
  else if (prev.last < iv.last) prev.last = iv.last;
}

/** merge: the union of two ordered interval lists, in one pass over both. */
export function mergeIntervals(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0, j = 0;
  while (i < a.length && j < b.length) append(out, a[i]!.first < b[j]!.first ? a[i++]! : b[j++]!);
  while (i < a.length) append(out, a[i++]!);
  while (j < b.length) append(out, b[j++]!);
  return out;
}

/** withOrderedIndexes: the intervals with these indexes added (any order, duplicates allowed). */
export function withIndexes(intervals: readonly Interval[], indexes: Iterable<number>): Interval[] {
  const sorted = [...new Set(indexes)].sort((x, y) => x - y);
  return mergeIntervals(intervals, sorted.map((ix) => ({ first: ix, last: ix })));
}

/** total: how many indexes the intervals hold. */
export function countIndexes(intervals: readonly Interval[]): number {
  let n = 0;
  for (const iv of intervals) n += iv.last - iv.first + 1;
  return n;
}

/** has: whether `ix` is in the (ordered) intervals, by binary search. */
export function hasIndex(intervals: readonly Interval[], ix: number): boolean {
  let lo = 0, hi = intervals.length;
  while (hi > lo) {
    const mid = lo + ((hi - lo) >> 1);
    if (intervals[mid]!.last >= ix) hi = mid;
    else lo = mid + 1;
  }
  return hi < intervals.length && intervals[hi]!.first <= ix;
}

/** String(): "1,3-5,7"; two neighbours are written "3,4" as kube does, three or more as a range. */
export function formatIndexes(intervals: readonly Interval[]): string {
  const parts: string[] = [];
  for (const { first, last } of intervals) {
    if (last === first) parts.push(String(first));
    else parts.push(`${first}${last === first + 1 ? ',' : '-'}${last}`);
  }
  return parts.join(',');
}

/**
 * firstPendingIndexes: the lowest `count` indexes below `completions` outside `taken` (ordered), in time
 * proportional to the intervals and `count`, never to the indexes skipped.
 */
export function firstPendingIndexes(taken: readonly Interval[], count: number, completions: number): number[] {
  const out: number[] = [];
  let candidate = 0;
  for (const iv of taken) {
    for (; candidate < completions && out.length < count && candidate < iv.first; candidate++) out.push(candidate);
    if (out.length >= count || candidate >= completions) return out;
    if (candidate < iv.last + 1) candidate = iv.last + 1;
  }
  for (; candidate < completions && out.length < count; candidate++) out.push(candidate);
  return out;
}

// --- status validation (validateIndexesFormat) --------------------------------------------------------

/** parseIndexInterval: one fragment, or kube's error text. */
function parseInterval(s: string, { from, to, dash, dash2 }: Fragment, completions: number): Interval | string {
  if (dash2 >= 0) return `the fragment ${goQuote(s.slice(from, to))} violates the requirement that an index interval can have at most two parts separated by '-'`;
  const xEnd = dash >= 0 ? dash : to;
  const x = atoiAt(s, from, xEnd);
  if (x === undefined) return `cannot convert string to integer for index: ${goQuote(s.slice(from, xEnd))}`;
  if (x >= completions) return `too large index: ${goQuote(s.slice(from, xEnd))}`;
  if (dash < 0) return { first: x, last: x };
  const y = atoiAt(s, dash + 1, to);
  if (y === undefined) return `cannot convert string to integer for index: ${goQuote(s.slice(dash + 1, to))}`;
  if (y >= completions) return `too large index: ${goQuote(s.slice(dash + 1, to))}`;
  if (x >= y) return `non-increasing order, previous: ${x}, current: ${y}`;
  return { first: x, last: y };
}

/**
 * validateIndexesFormat: the number of indexes in a well-formed list ("" holds none), or the error kube
 * reports. A negative index cannot be written: "-1" splits into an empty fragment first.
 */
export function checkIndexesFormat(s: string, completions: number): { total: number } | { error: string } {
  if (s.length === 0) return { total: 0 };
  let last: number | undefined;
  let total = 0;
  let error: string | undefined;
  eachFragment(s, (fr) => {
    const iv = parseInterval(s, fr, completions);
    if (typeof iv === 'string') error = iv;
    else if (last !== undefined && last >= iv.first) error = `non-increasing order, previous: ${last}, current: ${iv.first}`;
    else {
      total += iv.last - iv.first + 1;
      last = iv.last;
    }
    return error === undefined;
  });
  return error === undefined ? { total } : { error };
}

/** The parsed fragments of a list, in order (an error text where one does not parse). */
function parsedFragments(s: string, completions: number): (Interval | string)[] {
  const out: (Interval | string)[] = [];
  eachFragment(s, (fr) => {
    out.push(parseInterval(s, fr, completions));
    return true;
  });
  return out;
}

/**
 * validateFailedIndexesNotOverlapCompleted: walks both lists once, skipping fragments that do not parse (the
 * format check reports them), and names the first index both hold.
 */
export function overlapError(completed: string, failed: string, completions: number): string | undefined {
  if (completed.length === 0 || failed.length === 0) return undefined;
  const c = parsedFragments(completed, completions), f = parsedFragments(failed, completions);
  let ci = 0, fi = 0;
  while (ci < c.length && fi < f.length) {
    const cv = c[ci]!, fv = f[fi]!;
    if (typeof cv === 'string') ci++;
    else if (typeof fv === 'string') fi++;
    else if (cv.first <= fv.last && fv.first <= cv.last) return `failedIndexes and completedIndexes overlap at index: ${Math.max(cv.first, fv.first)}`;
    else if (cv.first <= fv.first) ci++;
    else fi++;
  }
  return undefined;
}
