// Core: which policies and bindings apply to one request (apiserver pkg/admission/plugin/policy/validating
// dispatcher.go: DefinitionMatches on the policy's matchConstraints, then BindingMatches on each binding's
// matchResources; matching/matching.go: a binding without resourceRules takes every resource its policy
// matched). The admission configuration types are never validated by policies, so a bad policy can always be
// removed. Linear in policies plus bindings.

import { isExemptAdmissionConfiguration, kindOf, matchRequest, namespaceToRead, type Invocation, type MatchCriteria, type RequestAttributes } from '../match';
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
