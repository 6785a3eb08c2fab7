// Escalation coverage without the breakdown: same answers as kube's Covers (checked against a direct
// transcription of its tuple-by-tuple algorithm), same message lines, and bounded work.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compactString, coverage, CoverageLimitExceeded, describeMissing, MAX_LISTED_MISSING } from '../../../core/rbac/coverage';
import type { PolicyRule } from '../../../core/rbac/rules';

// kube's policy_comparator.go, tuple by tuple: the reference the bounded algorithm must agree with.
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const g of rule.apiGroups ?? []) for (const r of rule.resources ?? []) for (const v of rule.verbs ?? []) {
    if (rule.resourceNames?.length) for (const n of rule.resourceNames) out.push({ apiGroups: [g], resources: [r], verbs: [v], resourceNames: [n] });
    else out.push({ apiGroups: [g], resources: [r], verbs: [v] });
  }
  for (const u of rule.nonResourceURLs ?? []) for (const v of rule.verbs ?? []) out.push({ nonResourceURLs: [u], verbs: [v] });
  return out;
}
const has = (s: string[] | undefined, e: string) => !!s?.includes(e);
const hasAll = (s: string[] | undefined, c: string[] | undefined) => (c ?? []).every((e) => has(s, e));
function resourceCoversAll(owner: string[] | undefined, servant: string[] | undefined): boolean {
  if (has(owner, '*') || hasAll(owner, servant)) return true;
  return (servant ?? []).every((p) => has(owner, p) || (p.includes('/') && has(owner, `*/${p.slice(p.indexOf('/') + 1)}`)));
}
const urlCovers = (o: string, s: string) => o === s || (o.endsWith('*') && s.startsWith(o.replace(/\*+$/, '')));
function ruleCovers(o: PolicyRule, s: PolicyRule): boolean {
  const verbs = has(o.verbs, '*') || hasAll(o.verbs, s.verbs);
  const groups = has(o.apiGroups, '*') || hasAll(o.apiGroups, s.apiGroups);
  const resources = resourceCoversAll(o.resources, s.resources);
  const urls = (s.nonResourceURLs ?? []).every((p) => (o.nonResourceURLs ?? []).some((u) => urlCovers(u, p)));
  const names = !s.resourceNames?.length ? !o.resourceNames?.length : !o.resourceNames?.length || hasAll(o.resourceNames, s.resourceNames);
  return verbs && groups && resources && urls && names;
}
function kubeCovers(owner: PolicyRule[], servant: PolicyRule[]) {
  const missing = servant.flatMap(breakdown).filter((t) => !owner.some((o) => ruleCovers(o, t)));
  return { covered: missing.length === 0, missing };
}

const small = (values: string[]) => fc.option(fc.uniqueArray(fc.constantFrom(...values), { maxLength: 3 }), { nil: undefined });
const rule = fc.record({
  verbs: small(['get', 'list', 'delete', '*']),
  apiGroups: small(['', 'apps', '*']),
  resources: small(['pods', 'pods/log', 'deployments', '*', '*/log']),
  resourceNames: small(['a', 'b']),
  nonResourceURLs: small(['/healthz', '/api/*', '/api/v1', '*']),
}).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as PolicyRule);

describe('coverage', () => {
  it('agrees with kube\'s tuple-by-tuple Covers, and names the same missing tuples', () => {
    fc.assert(fc.property(fc.array(rule, { maxLength: 5 }), fc.array(rule, { maxLength: 3 }), (owner, servant) => {
      const expected = kubeCovers(owner, servant);
      const got = coverage(owner, servant);
      expect(got.covered).toBe(expected.covered);
      // Counted per servant rule, each tuple once; the message lines are the same set.
      const perRule = servant.reduce((n, r) => n + new Set(kubeCovers(owner, [r]).missing.map(compactString)).size, 0);
      expect(got.missingCount).toBe(perRule);
      if (perRule <= MAX_LISTED_MISSING) expect(describeMissing(got.missing)).toEqual(describeMissing(expected.missing));
    }), { numRuns: 500 });
  });

  it('covers by a union of owner rules, splitting only where they differ', () => {
    const owner: PolicyRule[] = [
      { verbs: ['get', 'list'], apiGroups: ['*'], resources: ['pods'] },
      { verbs: ['delete'], apiGroups: [''], resources: ['pods', 'configmaps'] },
      { verbs: ['delete'], apiGroups: ['apps'], resources: ['*'] },
    ];
    expect(coverage(owner, [{ verbs: ['get', 'list', 'delete'], apiGroups: ['', 'apps'], resources: ['pods'] }]).covered).toBe(true);
    const partly = coverage(owner, [{ verbs: ['get', 'delete'], apiGroups: ['', 'batch'], resources: ['pods'] }]);
    expect(partly.covered).toBe(false);
    expect(describeMissing(partly.missing)).toEqual(['{APIGroups:["batch"], Resources:["pods"], Verbs:["delete"]}']);
  });

  it('words missing rules as kube does: verbs merged in the role\'s order, lines sorted', () => {
    const res = coverage([], [
      { verbs: ['watch', 'get'], apiGroups: ['apps'], resources: ['deployments'] },
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['x'] },
      { verbs: ['get'], nonResourceURLs: ['/metrics'] },
    ]);
    expect(describeMissing(res.missing)).toEqual([
      '{APIGroups:[""], Resources:["pods"], ResourceNames:["x"], Verbs:["get"]}',
      '{APIGroups:["apps"], Resources:["deployments"], Verbs:["watch" "get"]}',
      '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
    ]);
  });

  it('decides rules whose breakdown would be 10^12 tuples without building it', () => {
    const values = (p: string) => Array.from({ length: 1000 }, (_, i) => `${p}${i}`);
    const huge: PolicyRule = { verbs: values('v'), apiGroups: values('g'), resources: values('r'), resourceNames: values('n') };
    // Held through one rule per verb: the union covers it, one owner per verb group after one split.
    const perVerb = huge.verbs!.map((v) => ({ verbs: [v], apiGroups: ['*'], resources: ['*'] }));
    const held = coverage(perVerb, [huge]);
    expect(held.covered).toBe(true);
    expect(held.steps).toBeLessThan(50_000);
    // Held for all but one group: exactly 1000 × 1000 × 1000 tuples missing, counted, a few listed.
    const allButOne = [{ verbs: ['*'], apiGroups: huge.apiGroups!.slice(1), resources: ['*'] }];
    const lacking = coverage(allButOne, [huge]);
    expect(lacking.covered).toBe(false);
    expect(lacking.missingCount).toBe(1e9);
    expect(lacking.missing).toHaveLength(MAX_LISTED_MISSING);
    expect(lacking.missing[0]).toEqual({ apiGroups: ['g0'], resources: ['r0'], verbs: ['v0'], resourceNames: ['n0'] });
    expect(lacking.steps).toBeLessThan(100_000);
  });

  it('a 30×30×30×30 role against a namespace admin\'s rules takes a few thousand steps, not 810,000 tuples', () => {
    const values = (p: string, extra: string[]) => [...extra, ...Array.from({ length: 30 - extra.length }, (_, i) => `${p}${i}`)];
    const role: PolicyRule = {
      verbs: values('verb', ['get', 'list']), apiGroups: values('group', ['', 'apps']),
      resources: values('res', ['pods', 'deployments']), resourceNames: values('name', []),
    };
    const admin: PolicyRule[] = [
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'configmaps'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: ['apps'], resources: ['deployments'] },
    ];
    const res = coverage(admin, [role]);
    expect(res.covered).toBe(false);
    // Covered: get/list × ''/pods and get/list × apps/deployments, for each of the 30 names.
    expect(res.missingCount).toBe(30 ** 4 - 2 * 2 * 30);
    expect(res.steps).toBeLessThan(10_000);
  });

  it('stops with CoverageLimitExceeded rather than running past its budget', () => {
    // Owners that each hold one (verb, group) pair: every pair its own piece, 200 × 200 of them.
    const verbs = Array.from({ length: 200 }, (_, i) => `v${i}`);
    const groups = Array.from({ length: 200 }, (_, i) => `g${i}`);
    const owner = verbs.flatMap((v, i) => groups.filter((_, j) => (i + j) % 2 === 0).map((g) => ({ verbs: [v], apiGroups: [g], resources: ['*'] })));
    expect(() => coverage(owner, [{ verbs, apiGroups: groups, resources: ['pods'] }], 100_000)).toThrow(CoverageLimitExceeded);
  });
});
