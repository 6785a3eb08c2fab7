// Core: which policies and bindings apply to one request (apiserver pkg/admission/plugin/policy/validating
// dispatcher.go: DefinitionMatches on the policy's matchConstraints, then BindingMatches on each binding's
// matchResources; matching/matching.go: a binding without resourceRules takes every resource its policy
// matched). The admission configuration types are never validated by policies, so a bad policy can always be
// removed. Linear in policies plus bindings.

import { isExemptAdmissionConfiguration, kindOf, matchRequest, namespaceToRead, type Invocation, type MatchCriteria, type RequestAttributes, type RuleWithOperations } from '../match';
import type { Status } from '../../status';
import type { MatchResources, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from './types';

const EVERYTHING = [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'], scope: '*' }];

export function criteria(m: MatchResources | undefined, everythingWhenNoRules: boolean): MatchCriteria {
  const rules = m?.resourceRules?.length ? m.resourceRules : everythingWhenNoRules ? EVERYTHING : [];
  return {
    rules, excludeRules: m?.excludeResourceRules ?? [], named: true, matchPolicy: m?.matchPolicy ?? 'Equivalent',
    namespaceSelector: m?.namespaceSelector ?? null, objectSelector: m?.objectSelector ?? null,
  };
}

export interface PlannedPolicy {
  policy: ValidatingAdmissionPolicy;
  invocation: Invocation;
  bindings: ValidatingAdmissionPolicyBinding[];
  /** A matcher error of the policy or a binding (a namespace that does not exist, a bad selector). */
  errors: { binding?: string; status: Status }[];
}

/** Bindings by the policy they name (the front door keeps this with its cached lists). */
export function bindingsByPolicy(bindings: readonly ValidatingAdmissionPolicyBinding[]): Map<string, ValidatingAdmissionPolicyBinding[]> {
  const out = new Map<string, ValidatingAdmissionPolicyBinding[]>();
  for (const b of bindings) {
    const name = b.spec?.policyName;
    if (!name) continue;
    const list = out.get(name) ?? [];
    list.push(b);
    out.set(name, list);
  }
  return out;
}

/** Whether the request can be validated by policies at all (not the admission configuration itself). */
export function policiesMayApply(a: RequestAttributes): boolean {
  return !isExemptAdmissionConfiguration(kindOf(a.type, a.subresource));
}

/** The namespaces whose labels matching needs (read them, then call planPolicies with their labels). */
export function namespacesToRead(policies: readonly ValidatingAdmissionPolicy[], byPolicy: Map<string, ValidatingAdmissionPolicyBinding[]>, a: RequestAttributes): string[] {
  const names = new Set<string>();
  for (const p of policies) {
    const bindings = byPolicy.get(p.metadata.name ?? '');
    if (!bindings?.length) continue;
    const ns = namespaceToRead(criteria(p.spec?.matchConstraints, false), a);
    if (ns) names.add(ns);
    for (const b of bindings) {
      const bns = namespaceToRead(criteria(b.spec?.matchResources, true), a);
      if (bns) names.add(bns);
    }
  }
  return [...names];
}

/** Criteria by rules alone (no selectors, no resourceNames): what a request may match before its object is known. */
function rulesOnly(c: MatchCriteria): MatchCriteria {
  const strip = (rs: readonly RuleWithOperations[] | undefined) => (rs ?? []).map(({ resourceNames: _n, ...r }) => r);
  return { ...c, rules: strip(c.rules), excludeRules: [], namespaceSelector: null, objectSelector: null };
}

/**
 * Whether some bound policy's rules (and one of its bindings') could match a request to this type, for any of
 * the operations it may turn out to be (an apply may create or update): the cheap test every write pays before
 * the front door does the dry run policies judge.
 */
export function policiesMayMatch(policies: readonly ValidatingAdmissionPolicy[], byPolicy: Map<string, ValidatingAdmissionPolicyBinding[]>, a: RequestAttributes): boolean {
  if (!policiesMayApply(a)) return false;
  const operations: RequestAttributes['operation'][] = a.operation === 'UPDATE' || a.operation === 'CREATE' ? ['CREATE', 'UPDATE'] : [a.operation];
  for (const p of policies) {
    const bindings = byPolicy.get(p.metadata.name ?? '');
    if (!bindings?.length) continue;
    const pc = rulesOnly(criteria(p.spec?.matchConstraints, false));
    for (const operation of operations) {
      const probe = { ...a, operation, object: null, oldObject: null };
      if (matchRequest(pc, probe, undefined).matches !== true) continue;
      if (bindings.some((b) => matchRequest(rulesOnly(criteria(b.spec?.matchResources, true)), probe, undefined).matches === true)) return true;
    }
  }
  return false;
}

export function planPolicies(
  policies: readonly ValidatingAdmissionPolicy[],
  byPolicy: Map<string, ValidatingAdmissionPolicyBinding[]>,
  a: RequestAttributes,
  namespaceLabels: Record<string, string> | null | undefined,
): PlannedPolicy[] {
  const out: PlannedPolicy[] = [];
  if (!policiesMayApply(a)) return out;
  for (const policy of policies) {
    const bindings = byPolicy.get(policy.metadata.name ?? '');
    if (!bindings?.length) continue;
    const m = matchRequest(criteria(policy.spec?.matchConstraints, false), a, namespaceLabels);
    if (m.matches === false) continue;
    if (m.matches === 'error') {
      out.push({ policy, invocation: undefined as unknown as Invocation, bindings: [], errors: [{ status: m.status }] });
      continue;
    }
    const planned: PlannedPolicy = { policy, invocation: m.invocation, bindings: [], errors: [] };
    for (const b of bindings) {
      const bm = b.spec?.matchResources ? matchRequest(criteria(b.spec.matchResources, true), a, namespaceLabels) : { matches: true as const };
      if (bm.matches === true) planned.bindings.push(b);
      else if (bm.matches === 'error') planned.errors.push({ binding: b.metadata.name ?? '', status: bm.status });
    }
    if (planned.bindings.length || planned.errors.length) out.push(planned);
  }
  return out;
}
