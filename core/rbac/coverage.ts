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
// A step costs, per owner left, the shorter of its list and the box's (hash look-ups), plus one pass over
// the box's lists; the missing tuples a denial names come from a heap merge of the missing boxes, not
// from enumerating them. The work is counted, and a
// check that would exceed MAX_COVERAGE_STEPS stops with CoverageLimitExceeded, which callers turn into a
// denial: unable to prove the grant is held, the write is refused (fail closed), never allowed.

import type { PolicyRule } from './rules';

/** Work budget of one escalation check, in set look-ups and the like: measured at 0.5–2 µs each in the
 * worst shapes (tens of thousands of owner rules), so at most a few hundred ms, usually well under 1 ms. */
export const MAX_COVERAGE_STEPS = 250_000;
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
    const dims: Dims = part.lists.map((l) => l.map((_, i) => i));
    solve(new Box(part, dims, budget), part.resource ? owners : unnamed, budget, (box) => missingBoxes.push({ part, dims: box }));
  }
  const missingCount = missingBoxes.reduce((n, b) => n + b.dims.reduce((p, l) => p * l.length, 1), 0);
  return { covered: missingCount === 0, missingCount, missing: listMissing(missingBoxes), steps: budget.steps };
}

function size(r: PolicyRule): number {
  return 1 + (r.verbs?.length ?? 0) + (r.apiGroups?.length ?? 0) + (r.resources?.length ?? 0) + (r.resourceNames?.length ?? 0) + (r.nonResourceURLs?.length ?? 0);
}

// What an owner rule matches of one list of a box: all of it, or these servant indices.
type Match = true | Set<number>;

/** A box of one servant part, with value lookups built on first use (each costs the list's length). */
class Box {
  private readonly byValue: (Map<string | null, number> | undefined)[] = [];
  private bySubresource: Map<string, number[]> | undefined;

  constructor(readonly part: Part, readonly dims: Dims, private readonly budget: Budget) {}

  with(d: number, values: number[]): Box {
    return new Box(this.part, this.dims.map((l, i) => (i === d ? values : l)), this.budget);
  }

  private lookup(d: number): Map<string | null, number> {
    let m = this.byValue[d];
    if (!m) {
      this.budget.spend(this.dims[d].length);
      m = new Map(this.dims[d].map((i) => [this.part.lists[d][i], i]));
      this.byValue[d] = m;
    }
    return m;
  }

  private subresources(): Map<string, number[]> {
    if (!this.bySubresource) {
      this.budget.spend(this.dims[2].length);
      this.bySubresource = new Map();
      for (const i of this.dims[2]) {
        const v = this.part.lists[2][i]!;
        const slash = v.indexOf('/');
        if (slash < 0) continue;
        const sub = v.slice(slash + 1);
        const list = this.bySubresource.get(sub);
        if (list) list.push(i);
        else this.bySubresource.set(sub, [i]);
      }
    }
    return this.bySubresource;
  }

  /** Values of list `d` present in the owner's `list`, walking the shorter of the two. */
  private exact(d: number, list: Set<string>, out = new Set<number>()): Set<number> {
    const values = this.dims[d];
    if (values.length <= list.size) {
      this.budget.spend(values.length);
      for (const i of values) if (list.has(this.part.lists[d][i]!)) out.add(i);
    } else {
      this.budget.spend(list.size);
      const m = this.lookup(d);
      for (const v of list) {
        const i = m.get(v);
        if (i !== undefined) out.add(i);
      }
    }
    return out;
  }

  // ruleCovers of policy_comparator.go, one list at a time. A servant wildcard is matched only by the
  // owner's wildcard, exactly as by its literal value.
  match(o: Owner, d: number): Match {
    if (d === 0) return o.verbs.has('*') ? true : this.exact(0, o.verbs);
    if (!this.part.resource) return this.urls(o);
    if (d === 1) return o.groups.has('*') ? true : this.exact(1, o.groups);
    if (d === 2) {
      if (o.resources.has('*')) return true;
      const out = this.exact(2, o.resources);
      for (const r of o.resources) {
        if (!r.startsWith('*/')) continue;
        this.budget.spend(1);
        for (const i of this.subresources().get(r.slice(2)) ?? []) out.add(i);
      }
      return out;
    }
    // Names: a tuple without resourceNames (index of null) only by an owner without them, which
    // matches every name.
    if (o.names === undefined) return true;
    return this.exact(3, o.names);
  }

  private urls(o: Owner): Match {
    const out = new Set<number>();
    const m = this.lookup(1);
    for (const u of o.urls) {
      this.budget.spend(1);
      if (!u.endsWith('*')) {
        const i = m.get(u);
        if (i !== undefined) out.add(i);
        continue;
      }
      const prefix = u.replace(/\*+$/, '');
      if (prefix === '') return true;
      this.budget.spend(this.dims[1].length);
      for (const i of this.dims[1]) if (this.part.lists[1][i]!.startsWith(prefix)) out.add(i);
    }
    return out;
  }
}

function solve(box: Box, owners: Owner[], budget: Budget, missing: (dims: Dims) => void): void {
  const { dims } = box;
  // Step 1: each owner's sub-box, as one match per list.
  const relevant: { owner: Owner; matches: Match[] }[] = [];
  for (const owner of owners) {
    budget.spend(1);
    const matches: Match[] = [];
    let full = true;
    let empty = false;
    for (let d = 0; d < dims.length && !empty; d++) {
      const m = box.match(owner, d);
      empty = m !== true && m.size === 0;
      full &&= m === true || m.size === dims[d].length;
      matches.push(m);
    }
    if (empty) continue;
    if (full) return;
    relevant.push({ owner, matches });
  }
  if (relevant.length === 0) return missing(dims);
  // Step 2: split the list whose grouping leaves the fewest groups with owners to solve. An owner that
  // matches the whole list is in every group, so only partial matches make signatures.
  let best: { d: number; groups: { values: number[]; owners: Owner[] }[]; branches: number } | undefined;
  for (let d = 0; d < dims.length; d++) {
    const partial = relevant.filter((r) => r.matches[d] !== true && (r.matches[d] as Set<number>).size < dims[d].length);
    if (partial.length === 0) continue;
    const signature = new Map<number, number[]>();
    partial.forEach((r, k) => {
      const set = r.matches[d] as Set<number>;
      budget.spend(set.size);
      for (const i of set) {
        const sig = signature.get(i);
        if (sig) sig.push(k);
        else signature.set(i, [k]);
      }
    });
    budget.spend(dims[d].length);
    const partialSet = new Set(partial);
    const whole = relevant.filter((r) => !partialSet.has(r)).map((r) => r.owner);
    const byKey = new Map<string, { values: number[]; owners: Owner[] }>();
    for (const i of dims[d]) {
      const sig = signature.get(i) ?? [];
      const key = sig.join(',');
      const g = byKey.get(key);
      if (g) g.values.push(i);
      else {
        budget.spend(whole.length + sig.length);
        byKey.set(key, { values: [i], owners: [...whole, ...sig.map((k) => partial[k].owner)] });
      }
    }
    const groups = [...byKey.values()];
    const branches = groups.filter((g) => g.owners.length > 0).length;
    if (!best || branches < best.branches) best = { d, groups, branches };
  }
  for (const g of best!.groups) {
    if (g.owners.length === 0) missing(dims.map((l, d) => (d === best!.d ? g.values : l)));
    else solve(box.with(best!.d, g.values), g.owners, budget, missing);
  }
}

/**
 * The first MAX_LISTED_MISSING missing tuples in the order kube's breakdown yields them: per servant
 * rule, resource tuples by group, resource, verb, name, then non-resource ones by URL, verb. Each box
 * enumerates its own tuples in that order (its lists keep the rule's order), so a heap of the boxes'
 * next tuples merges them: O((boxes + listed) · log boxes), never the whole breakdown.
 */
function listMissing(boxes: { part: Part; dims: Dims }[]): PolicyRule[] {
  const heap = new MinHeap<{ key: number[]; next: Generator<number[]>; part: Part; tuple: number[] }>((a, b) => compareKeys(a.key, b.key));
  const advance = (part: Part, next: Generator<number[]>) => {
    const step = next.next();
    if (step.done) return;
    const tuple = step.value;
    const key = part.resource ? [part.rule, 0, tuple[1], tuple[2], tuple[0], tuple[3]] : [part.rule, 1, tuple[1], tuple[0]];
    heap.push({ key, next, part, tuple });
  };
  for (const { part, dims } of boxes) {
    // Enumerate in kube's nesting: resource parts as group, resource, verb, name; URL parts as URL, verb.
    const order = part.resource ? [1, 2, 0, 3] : [1, 0];
    advance(part, reorder(product(order.map((d) => dims[d])), order));
  }
  const out: PolicyRule[] = [];
  while (out.length < MAX_LISTED_MISSING && heap.size > 0) {
    const { part, tuple, next } = heap.pop()!;
    const [v, a, b, n] = tuple.map((i, d) => part.lists[d][i]);
    if (part.resource) {
      const rule: PolicyRule = { apiGroups: [a!], resources: [b!], verbs: [v!] };
      if (n !== null) rule.resourceNames = [n!];
      out.push(rule);
    } else {
      out.push({ nonResourceURLs: [a!], verbs: [v!] });
    }
    advance(part, next);
  }
  return out;
}

function compareKeys(x: number[], y: number[]): number {
  for (let i = 0; i < x.length && i < y.length; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/** Tuples of `dims` in lexicographic order, lazily. */
function* product(dims: Dims): Generator<number[]> {
  if (dims.some((l) => l.length === 0)) return;
  const at = dims.map(() => 0);
  for (;;) {
    yield at.map((k, d) => dims[d][k]);
    let d = dims.length - 1;
    while (d >= 0 && ++at[d] === dims[d].length) at[d--] = 0;
    if (d < 0) return;
  }
}

/** Maps tuples enumerated in `order` back to the part's own list positions. */
function* reorder(tuples: Generator<number[]>, order: number[]): Generator<number[]> {
  for (const t of tuples) {
    const out: number[] = [];
    order.forEach((d, i) => (out[d] = t[i]));
    yield out;
  }
}

class MinHeap<T> {
  private readonly items: T[] = [];
  constructor(private readonly less: (a: T, b: T) => number) {}
  get size(): number {
    return this.items.length;
  }
  push(item: T): void {
    const a = this.items;
    a.push(item);
    for (let i = a.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (this.less(a[i], a[p]) >= 0) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }
  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.less(a[l], a[m]) < 0) m = l;
        if (r < a.length && this.less(a[r], a[m]) < 0) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
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
