// Core: ClusterRole aggregation — the rules kube's ClusterRole aggregation controller stores in a role with an
// aggregationRule (pkg/controller/clusterroleaggregation): the rules of every other ClusterRole its selectors match,
// selector by selector and in name order, each rule once. The controller (controllers/clusterrole-aggregation.ts)
// keeps them so; the bootstrap policy stores admin, edit and view as it leaves them after aggregating kube's own
// roles (core/bootstrap.ts), so a start finds nothing to write.

import { matchesLabels, selectorFromLabelSelector, type LabelSelectorSpec } from '../selectors/label-selector';
import type { PolicyRule } from './rules';

export interface AggregatableRole {
  metadata: { name: string; labels?: Record<string, string> };
  aggregationRule?: { clusterRoleSelectors?: LabelSelectorSpec[] };
  rules?: PolicyRule[];
}

// equality.Semantic.DeepEqual on a PolicyRule: the same lists in the same order, a missing list equal to an empty one.
function ruleKey(r: PolicyRule): string {
  return JSON.stringify([r.verbs ?? [], r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? []]);
}

/**
 * The rules `role` aggregates from `roles` (syncClusterRole): for each selector in turn, the roles it matches sorted
 * by name, the role itself skipped, every rule not already taken (selectors ORed, the first occurrence of a rule
 * kept). O(selectors × roles log roles + rules), with a Set of rule keys where kube rescans the list per rule.
 */
export function aggregatedRules(role: AggregatableRole, roles: readonly AggregatableRole[]): PolicyRule[] {
  const seen = new Set<string>();
  const out: PolicyRule[] = [];
  for (const spec of role.aggregationRule?.clusterRoleSelectors ?? []) {
    const selector = selectorFromLabelSelector(spec);
    const matching = roles.filter((r) => r.metadata.name !== role.metadata.name && matchesLabels(selector, r.metadata.labels))
      .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
    for (const r of matching) {
      for (const rule of r.rules ?? []) {
        const key = ruleKey(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(rule);
      }
    }
  }
  return out;
}

/** equality.Semantic.DeepEqual of two rule lists (a missing list equal to an empty one). */
export function sameRules(a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean {
  return a.length === b.length && a.every((r, i) => ruleKey(r) === ruleKey(b[i]));
}

/**
 * Every aggregated role of `roles` with its rules filled in, as the controller leaves them once it has settled: a
 * role aggregated into another (edit into admin) is filled first, so chains resolve whatever the order given.
 * Chains deeper than the number of roles (cycles) stop there.
 */
export function aggregateAll<T extends AggregatableRole>(roles: readonly T[]): T[] {
  let current = roles.map((r) => ({ ...r }));
  for (let pass = 0; pass < current.length; pass++) {
    let changed = false;
    current = current.map((r) => {
      if (!r.aggregationRule) return r;
      const rules = aggregatedRules(r, current);
      if (sameRules(rules, r.rules ?? [])) return r;
      changed = true;
      return { ...r, rules };
    });
    if (!changed) break;
  }
  return current;
}
