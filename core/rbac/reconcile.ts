// Core: reconciling a stored bootstrap role or binding with the one this version ships, as kube-apiserver's
// rbac/bootstrap-roles post-start hook does at every start (pkg/registry/rbac/reconciliation: reconcile_role.go,
// reconcile_rolebindings.go, run with Confirm and without removing extras):
//   - missing: created;
//   - annotated rbac.authorization.kubernetes.io/autoupdate=false: left alone;
//   - otherwise: expected labels and annotations merged in (the stored values win), missing rules, aggregation
//     selectors and subjects added, nothing removed; a binding whose roleRef differs is deleted and recreated.
// One addition: an object that carries no autoupdate annotation at all was seeded by an edgeplane version from
// before the bootstrap policy was kube's (every bootstrap object kube or edgeplane writes since carries it). Those
// older seeds granted more than kube (edit could write */status, Endpoints, EndpointSlices), so such an object gets
// kube's rules, aggregation and subjects exactly (stronger than reconcile's removeExtraPermissions / removeExtraSubjects
// mode, which keeps an equivalent set in its own order) instead of only being completed.
//
// Missing rules are added as the whole expected rule rather than kube's tuple-by-tuple breakdown of what is not yet
// covered: the same permissions, fewer rules. Coverage is kube's Covers (coverage.ts) under a step budget; a stored
// role too large to decide within it counts as not covering, so reconciliation adds kube's rule (never removes one).

import { coverage, CoverageLimitExceeded } from './coverage';
import type { PolicyRule } from './rules';
import { AUTOUPDATE_ANNOTATION, type BootstrapBinding, type BootstrapRole, type BootstrapSubject, type LabelSelectorSpec } from './bootstrap-policy';

/** Steps one coverage check may take here: far above what any bootstrap role needs, bounded for a stored giant. */
export const RECONCILE_COVERAGE_STEPS = 20_000;

export type Reconciled<T> =
  | { op: 'none' }
  | { op: 'create'; object: T }
  | { op: 'update'; object: T } // the stored object (resourceVersion included) with the reconciled fields
  | { op: 'recreate'; object: T }; // delete the stored one, then create this

interface StoredMeta {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [k: string]: unknown;
}

interface Stored {
  metadata?: StoredMeta;
  [k: string]: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const stringMap = (v: unknown): Record<string, string> =>
  isRecord(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};

/** kube's reconciliation merge(expected, existing): every key of both, the stored value winning. */
function merged(expected: Record<string, string>, existing: Record<string, string>): Record<string, string> {
  return { ...expected, ...existing };
}

const sameMap = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

type Mode = 'protected' | 'union' | 'replace';

function modeOf(existing: Stored): Mode {
  const annotations = stringMap(existing.metadata?.annotations);
  if (!(AUTOUPDATE_ANNOTATION in annotations)) return 'replace';
  return annotations[AUTOUPDATE_ANNOTATION] === 'false' ? 'protected' : 'union';
}

function rulesOf(v: unknown): PolicyRule[] {
  return Array.isArray(v) ? v.filter(isRecord) as PolicyRule[] : [];
}

/** Whether `owner` grants everything `rule` does; undecidable within the budget counts as not. */
function covered(owner: PolicyRule[], rule: PolicyRule): boolean {
  try {
    return coverage(owner, [rule], RECONCILE_COVERAGE_STEPS).covered;
  } catch (e) {
    if (e instanceof CoverageLimitExceeded) return false;
    throw e;
  }
}

/** JSON with object keys sorted: stored objects need not keep the key order they were written with. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isRecord(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v ?? null);
}

// equality.Semantic.DeepEqual on rules: the same lists in the same order, a missing list equal to an empty one.
const ruleKey = (r: PolicyRule) => JSON.stringify([r.verbs ?? [], r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? []]);
const sameRules = (a: PolicyRule[], b: PolicyRule[]) => a.length === b.length && a.every((r, i) => ruleKey(r) === ruleKey(b[i]!));

/** computeReconciledRole for a stored role (or undefined) and the one this version ships. */
export function reconcileRole(stored: unknown, expected: BootstrapRole): Reconciled<object> {
  if (!isRecord(stored)) return { op: 'create', object: expected };
  const existing = stored as Stored;
  const mode = modeOf(existing);
  if (mode === 'protected') return { op: 'none' };
  const out: Stored & { rules?: PolicyRule[]; aggregationRule?: { clusterRoleSelectors: LabelSelectorSpec[] } } = { ...existing, metadata: { ...existing.metadata } };
  let changed = mergeMetadata(out, existing, expected);

  const have = rulesOf(existing.rules);
  const storedAggregation = isRecord(existing.aggregationRule) ? existing.aggregationRule : undefined;
  if (mode === 'replace') {
    // An older edgeplane seed: kube's rules and aggregation, exactly.
    if (!sameRules(have, expected.rules)) {
      out.rules = expected.rules;
      changed = true;
    }
    if (canonical(storedAggregation) !== canonical(expected.aggregationRule)) {
      if (expected.aggregationRule) out.aggregationRule = expected.aggregationRule;
      else delete out.aggregationRule;
      changed = true;
    }
    return changed ? { op: 'update', object: out } : { op: 'none' };
  }

  const missing = expected.rules.filter((r) => !covered(have, r));
  if (missing.length) {
    out.rules = [...have, ...missing];
    changed = true;
  }
  const haveSelectors: unknown[] = storedAggregation && Array.isArray(storedAggregation.clusterRoleSelectors) ? storedAggregation.clusterRoleSelectors : [];
  const haveKeys = new Set(haveSelectors.map(canonical));
  const missingSelectors = (expected.aggregationRule?.clusterRoleSelectors ?? []).filter((sel) => !haveKeys.has(canonical(sel)));
  if (!expected.aggregationRule && storedAggregation) {
    // Not an aggregated role (any more): kube drops the aggregation.
    delete out.aggregationRule;
    changed = true;
  } else if (missingSelectors.length) {
    out.aggregationRule = { ...storedAggregation, clusterRoleSelectors: [...haveSelectors as LabelSelectorSpec[], ...missingSelectors] };
    changed = true;
  }
  return changed ? { op: 'update', object: out } : { op: 'none' };
}

/** Merges the expected labels and annotations into `out` (the stored values win); true when that changed them. */
function mergeMetadata(out: Stored, existing: Stored, expected: BootstrapRole | BootstrapBinding): boolean {
  let changed = false;
  for (const field of ['labels', 'annotations'] as const) {
    const have = stringMap(existing.metadata?.[field]);
    const want = merged(expected.metadata[field], have);
    if (!sameMap(want, have)) {
      out.metadata![field] = want;
      changed = true;
    }
  }
  return changed;
}

// rbacv1.Subject equality (diffSubjectLists compares whole subjects; an unset apiGroup or namespace is "").
const subjectKey = (s: unknown) => {
  const o = isRecord(s) ? s : {};
  return JSON.stringify([o.kind ?? '', o.apiGroup ?? '', o.name ?? '', o.namespace ?? '']);
};

/** computeReconciledRoleBinding for a stored binding (or undefined) and the one this version ships. */
export function reconcileBinding(stored: unknown, expected: BootstrapBinding): Reconciled<object> {
  if (!isRecord(stored)) return { op: 'create', object: expected };
  const existing = stored as Stored;
  const mode = modeOf(existing);
  if (mode === 'protected') return { op: 'none' };
  const ref = isRecord(existing.roleRef) ? existing.roleRef : {};
  if (ref.apiGroup !== expected.roleRef.apiGroup || ref.kind !== expected.roleRef.kind || ref.name !== expected.roleRef.name) {
    return { op: 'recreate', object: expected };
  }
  const out: Stored & { subjects?: BootstrapSubject[] } = { ...existing, metadata: { ...existing.metadata } };
  let changed = mergeMetadata(out, existing, expected);
  const have: unknown[] = Array.isArray(existing.subjects) ? existing.subjects : [];
  const want = expected.subjects ?? [];
  if (mode === 'replace') {
    if (have.length !== want.length || have.some((s, i) => subjectKey(s) !== subjectKey(want[i]))) {
      if (want.length) out.subjects = want;
      else delete out.subjects;
      changed = true;
    }
  } else {
    const haveKeys = new Set(have.map(subjectKey));
    const missing = want.filter((s) => !haveKeys.has(subjectKey(s)));
    if (missing.length) {
      out.subjects = [...have as BootstrapSubject[], ...missing];
      changed = true;
    }
  }
  return changed ? { op: 'update', object: out } : { op: 'none' };
}
