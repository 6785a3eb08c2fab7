// Escalation prevention's coverage test: do a user's rules (the owner's) grant everything some rules
// (the servant's) grant? Same answer as kube's rbac/validation Covers (policy_comparator.go), which
// breaks every servant rule into single verb × group × resource × name tuples and tests each against
// every owner rule. That breakdown is the product of the rule's list sizes: a Role with 30 values in
// each of four lists is 810,000 tuples, 10,000 values each would be 10^16. This module never builds it.
//
// A servant rule is a box: the product of its value lists. Restricted to that box, an owner rule covers
// a sub-box (per list, the values it matches), and the servant rule is covered iff the union of those
// sub-boxes is the whole box. Coverage by a union can need splitting (verbs get/list held through one
// rule and delete through another), so we split, but only where owners disagree:
//   1. drop owners whose sub-box is empty; if one owner's sub-box is the whole box, it is covered; if no
//      owner is left, the whole box is missing;
//   2. otherwise pick a list that some owner covers only in part, group its values by the exact set of
//      owners that match them (values alike for every owner are interchangeable), and solve each group
//      with just those owners. Within a group every remaining owner covers that whole list, so a list is
//      split at most once on any path: depth ≤ 4, and the pieces are at most the tuples kube would make.
// Each step costs linear time in the box's list sizes times the owners left. The work is counted, and a
// check that would exceed MAX_COVERAGE_STEPS stops with CoverageLimitExceeded, which callers turn into a
// denial: unable to prove the grant is held, the write is refused (fail closed), never allowed.

import type { PolicyRule } from './rules';

/** Work budget of one escalation check (set membership tests and the like): a few ms of CPU. */
export const MAX_COVERAGE_STEPS = 2_000_000;
/** Missing tuples named in a denial; kube lists them all, which for a huge role is megabytes. */
export const MAX_LISTED_MISSING = 100;

export class CoverageLimitExceeded extends Error {
  constructor(readonly steps: number) {
    super(`the escalation check needs more than ${steps} steps`);
  }
}

export interface CoverageResult {
  covered: boolean;
  missingCount: number; // tuples kube's breakdown would report as not covered
  missing: PolicyRule[]; // up to MAX_LISTED_MISSING of them, one verb/group/resource/name each, in kube's order
  steps: number; // work done, for tests and budgeting
}

interface Owner {
  verbs: Set<string>;
  groups: Set<string>;
  resources: Set<string>;
  names: Set<string> | undefined; // undefined: the rule has no resourceNames, so it names every object
  urls: string[];
}

// A servant value is an index into its deduplicated list; names use -1 for "no resourceNames".
type Dims = number[][];

interface Part {
  rule: number; // servant rule index
  resource: boolean; // resource tuples (verb, group, resource, name) or non-resource ones (verb, url)
  lists: (string | null)[][]; // resource: verbs, groups, resources, names; non-resource: verbs, urls
}

class Budget {
  steps = 0;
  constructor(private readonly limit: number) {}
  spend(n: number): void {
    this.steps += n;
    if (this.steps > this.limit) throw new CoverageLimitExceeded(this.limit);
  }
}

const uniq = (v: string[] | undefined) => [...new Set(v ?? [])];

function compile(rule: PolicyRule): Owner {
  return {
    verbs: new Set(rule.verbs ?? []),
    groups: new Set(rule.apiGroups ?? []),
    resources: new Set(rule.resources ?? []),
    names: rule.resourceNames?.length ? new Set(rule.resourceNames) : undefined,
    urls: rule.nonResourceURLs ?? [],
  };
}

// ruleCovers of policy_comparator.go, one list at a time. A servant wildcard is matched only by the
// owner's wildcard, exactly as by its literal value.
function resourceListMatches(o: Owner, d: number, v: string | null): boolean {
  switch (d) {
    case 0: return o.verbs.has('*') || o.verbs.has(v!);
    case 1: return o.groups.has('*') || o.groups.has(v!);
    case 2: {
      if (o.resources.has('*') || o.resources.has(v!)) return true;
      const slash = v!.indexOf('/');
      return slash >= 0 && o.resources.has(`*/${v!.slice(slash + 1)}`);
    }
    default: return v === null ? o.names === undefined : o.names === undefined || o.names.has(v);
  }
}

function urlListMatches(o: Owner, d: number, v: string | null, budget: Budget): boolean {
  if (d === 0) return o.verbs.has('*') || o.verbs.has(v!);
  budget.spend(o.urls.length);
  return o.urls.some((u) => u === v || (u.endsWith('*') && v!.startsWith(u.replace(/\*+$/, ''))));
}

function split(rule: PolicyRule, index: number): Part[] {
  const verbs = uniq(rule.verbs);
  const parts: Part[] = [];
  const groups = uniq(rule.apiGroups);
  const resources = uniq(rule.resources);
  if (verbs.length && groups.length && resources.length) {
    const names = rule.resourceNames?.length ? uniq(rule.resourceNames) : [null];
    parts.push({ rule: index, resource: true, lists: [verbs, groups, resources, names] });
  }
  const urls = uniq(rule.nonResourceURLs);
  if (verbs.length && urls.length) parts.push({ rule: index, resource: false, lists: [verbs, urls] });
  return parts;
}

/** Covers(owner, servant): whether the owner rules grant all the servant rules do, and what they lack. */
export function coverage(owner: PolicyRule[], servant: PolicyRule[], limit = MAX_COVERAGE_STEPS): CoverageResult {
  const budget = new Budget(limit);
  budget.spend(owner.reduce((n, r) => n + size(r), 0) + servant.reduce((n, r) => n + size(r), 0));
  const owners = owner.map(compile);
  // A tuple without resourceNames is only covered by an owner rule without them: non-resource tuples
  // never have names, so only such owners can cover them.
  const unnamed = owners.filter((o) => o.names === undefined);
  const missingBoxes: { part: Part; dims: Dims }[] = [];
  for (const part of servant.flatMap(split)) {
    const matches = part.resource
      ? (o: Owner, d: number, v: string | null) => resourceListMatches(o, d, v)
      : (o: Owner, d: number, v: string | null) => urlListMatches(o, d, v, budget);
    const dims: Dims = part.lists.map((l) => l.map((_, i) => i));
    solve(dims, part.resource ? owners : unnamed, (d, i, o) => matches(o, d, part.lists[d][i]), budget,
      (box) => missingBoxes.push({ part, dims: box }));
  }
  const missingCount = missingBoxes.reduce((n, b) => n + b.dims.reduce((p, l) => p * l.length, 1), 0);
  return { covered: missingCount === 0, missingCount, missing: listMissing(missingBoxes), steps: budget.steps };
}

function size(r: PolicyRule): number {
  return 1 + (r.verbs?.length ?? 0) + (r.apiGroups?.length ?? 0) + (r.resources?.length ?? 0) + (r.resourceNames?.length ?? 0) + (r.nonResourceURLs?.length ?? 0);
}

function solve(dims: Dims, owners: Owner[], matches: (d: number, i: number, o: Owner) => boolean, budget: Budget, missing: (box: Dims) => void): void {
  // Step 1: each owner's sub-box, as one membership mask per list.
  const relevant: { owner: Owner; masks: boolean[][] }[] = [];
  for (const owner of owners) {
    const masks: boolean[][] = [];
    let full = true;
    let empty = false;
    for (let d = 0; d < dims.length && !empty; d++) {
      budget.spend(dims[d].length);
      const mask = dims[d].map((i) => matches(d, i, owner));
      const hits = mask.filter(Boolean).length;
      empty = hits === 0;
      full &&= hits === mask.length;
      masks.push(mask);
    }
    if (empty) continue;
    if (full) return;
    relevant.push({ owner, masks });
  }
  if (relevant.length === 0) return missing(dims);
  // Step 2: split the list whose grouping leaves the fewest groups with owners to solve.
  let best: { d: number; groups: Map<string, { values: number[]; owners: Owner[] }>; branches: number } | undefined;
  for (let d = 0; d < dims.length; d++) {
    if (relevant.every((r) => r.masks[d].every(Boolean))) continue;
    budget.spend(dims[d].length * relevant.length);
    const groups = new Map<string, { values: number[]; owners: Owner[] }>();
    dims[d].forEach((value, i) => {
      let signature = '';
      const holders: Owner[] = [];
      relevant.forEach((r, k) => {
        if (!r.masks[d][i]) return;
        signature += `${k},`;
        holders.push(r.owner);
      });
      const g = groups.get(signature);
      if (g) g.values.push(value);
      else groups.set(signature, { values: [value], owners: holders });
    });
    const branches = [...groups.values()].filter((g) => g.owners.length > 0).length;
    if (!best || branches < best.branches) best = { d, groups, branches };
  }
  for (const g of best!.groups.values()) {
    const sub = dims.map((l, d) => (d === best!.d ? g.values : l));
    if (g.owners.length === 0) missing(sub);
    else solve(sub, g.owners, matches, budget, missing);
  }
}

/** Up to MAX_LISTED_MISSING tuples of the missing boxes, in the order kube's breakdown yields them. */
function listMissing(boxes: { part: Part; dims: Dims }[]): PolicyRule[] {
  const atoms: { key: number[]; rule: PolicyRule }[] = [];
  for (const { part, dims } of boxes) {
    for (const tuple of product(dims, MAX_LISTED_MISSING - atoms.length)) {
      const [v, a, b, n] = tuple.map((i, d) => part.lists[d][i]);
      if (part.resource) {
        // breakdownRule's loop order: group, resource, verb, name.
        const rule: PolicyRule = { apiGroups: [a!], resources: [b!], verbs: [v!] };
        if (n !== null) rule.resourceNames = [n!];
        atoms.push({ key: [part.rule, 0, tuple[1], tuple[2], tuple[0], tuple[3]], rule });
      } else {
        atoms.push({ key: [part.rule, 1, tuple[1], tuple[0]], rule: { nonResourceURLs: [a!], verbs: [v!] } });
      }
    }
    if (atoms.length >= MAX_LISTED_MISSING) break;
  }
  atoms.sort((x, y) => {
    for (let i = 0; i < x.key.length; i++) if (x.key[i] !== y.key[i]) return x.key[i] - y.key[i];
    return 0;
  });
  return atoms.map((a) => a.rule);
}

function* product(dims: Dims, limit: number): Generator<number[]> {
  if (limit <= 0 || dims.some((l) => l.length === 0)) return;
  const at = dims.map(() => 0);
  for (let n = 0; n < limit; n++) {
    yield at.map((k, d) => dims[d][k]);
    let d = dims.length - 1;
    while (d >= 0 && ++at[d] === dims[d].length) at[d--] = 0;
    if (d < 0) return;
  }
}

/**
 * The lines of kube's escalation message for missing tuples: CompactRules (tuples differing only by
 * verb merged, policy_compact.go), each as CompactString (rbac/v1 helpers), deduplicated and sorted.
 */
export function describeMissing(missing: PolicyRule[]): string[] {
  const merged = new Map<string, PolicyRule>();
  const others: PolicyRule[] = [];
  for (const r of missing) {
    const simple = !r.resourceNames?.length && !r.nonResourceURLs?.length && r.apiGroups?.length === 1 && r.resources?.length === 1;
    if (!simple) {
      others.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0]]);
    const seen = merged.get(key);
    if (seen) seen.verbs = [...(seen.verbs ?? []), ...(r.verbs ?? [])];
    else merged.set(key, { ...r, verbs: [...(r.verbs ?? [])] });
  }
  return [...new Set([...others, ...merged.values()].map(compactString))].sort();
}

/** rbac/v1 CompactString: the non-empty lists in this order, each as Go's %q of a []string. */
export function compactString(r: PolicyRule): string {
  const list = (v: string[]) => `[${v.map((x) => JSON.stringify(x)).join(' ')}]`;
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${list(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${list(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${list(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${list(r.resourceNames)}`);
  parts.push(`Verbs:${list(r.verbs ?? [])}`);
  return `{${parts.join(', ')}}`;
}
