// Core: a label selector compiled for matching, so that testing one object costs O(its labels)
// whatever the selector's size. Matching a list evaluates the selector once per object in the
// single-threaded store; with requirements checked one by one, `a in (v1,...,v4000)` or 4000
// `a!=vN` terms would cost 4000 steps per object. Go's labels.Requirement keeps values in a set
// (sets.String), which is the In/NotIn half of this; grouping the requirements by key does the rest.
//
// Same answers as checking each requirement (label-selector.ts requirementMatches): all are ANDed,
// so per key they fold into one check: must exist / must not exist, the intersection of the allowed
// sets, the union of the forbidden ones, the tightest integer bounds.

import type { LabelRequirement, LabelSelector } from './label-selector';

interface KeyCheck {
  mustExist: boolean;
  mustNotExist: boolean;
  /** undefined: any value; otherwise the value must be in it (the intersection of every In/Equals). */
  allowed?: Set<string>;
  forbidden?: Set<string>;
  /** Exclusive integer bounds from Gt / Lt; a label that is not an int64 then fails. */
  above?: bigint;
  below?: bigint;
  /** A Gt/Lt requirement with an unusable value never matches. */
  impossible: boolean;
}

export interface LabelMatcher {
  nothing: boolean;
  checks: Map<string, KeyCheck>;
  /** How many keys must be present: counted while walking the object's labels. */
  required: number;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64); BigInt keeps the whole int64 range exact. */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

export function compileLabelSelector(sel: LabelSelector): LabelMatcher {
  const checks = new Map<string, KeyCheck>();
  for (const r of sel.requirements) {
    let check = checks.get(r.key);
    if (!check) {
      check = { mustExist: false, mustNotExist: false, impossible: false };
      checks.set(r.key, check);
    }
    fold(check, r);
  }
  let required = 0;
  for (const check of checks.values()) if (check.mustExist) required++;
  return { nothing: !!sel.matchesNothing, checks, required };
}

function fold(check: KeyCheck, r: LabelRequirement): void {
  switch (r.operator) {
    case 'In':
    case 'Equals':
    case 'DoubleEquals':
      check.mustExist = true;
      check.allowed = intersect(check.allowed, r.values);
      return;
    case 'NotIn':
    case 'NotEquals':
      check.forbidden ??= new Set();
      for (const v of r.values) check.forbidden.add(v);
      return;
    case 'Exists':
      check.mustExist = true;
      return;
    case 'DoesNotExist':
      check.mustNotExist = true;
      return;
    case 'GreaterThan':
    case 'LessThan': {
      check.mustExist = true;
      const bound = r.values.length === 1 ? parseInt64(r.values[0]) : undefined;
      if (bound === undefined) check.impossible = true;
      else if (r.operator === 'GreaterThan') check.above = check.above === undefined || bound > check.above ? bound : check.above;
      else check.below = check.below === undefined || bound < check.below ? bound : check.below;
    }
  }
}

// Linear in the smaller side: keeps the members of the current set that `values` also holds.
function intersect(current: Set<string> | undefined, values: string[]): Set<string> {
  const next = new Set(values);
  if (current === undefined) return next;
  const out = new Set<string>();
  for (const v of current) if (next.has(v)) out.add(v);
  return out;
}

/** Does an object with `labels` match? O(number of labels). */
export function matchLabels(m: LabelMatcher, labels: Record<string, string>): boolean {
  if (m.nothing) return false;
  let present = 0;
  for (const key of Object.keys(labels)) {
    const check = m.checks.get(key);
    if (!check) continue;
    if (check.mustNotExist || check.impossible) return false;
    const value = labels[key];
    if (check.allowed && !check.allowed.has(value)) return false;
    if (check.forbidden?.has(value)) return false;
    if (check.above !== undefined || check.below !== undefined) {
      const n = parseInt64(value);
      if (n === undefined) return false;
      if (check.above !== undefined && !(n > check.above)) return false;
      if (check.below !== undefined && !(n < check.below)) return false;
    }
    if (check.mustExist) present++;
  }
  return present === m.required;
}
