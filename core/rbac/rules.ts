// Front door authorization: RBAC policy rules, matched against one request's attributes
// (kubernetes pkg/apis/rbac/v1/evaluation_helpers.go); the escalation "covers" test is coverage.ts.

import { compactString, coverage } from './coverage';

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** What a request asks to do, as the authorizer sees it (apiserver authorizer.Attributes). */
export interface RequestAttributes {
  verb: string;
  resourceRequest: boolean;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
  namespace: string;
  path: string; // for non-resource requests
}

const has = (list: string[] | undefined, value: string) => !!list && (list.includes('*') || list.includes(value));

// RuleAllows: verb, group, resource (with its subresource, or a wildcard), then resourceNames.
export function ruleAllows(rule: PolicyRule, a: RequestAttributes): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.resourceRequest) return nonResourceURLMatches(rule.nonResourceURLs, a.path);
  if (!has(rule.apiGroups, a.apiGroup)) return false;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const resources = rule.resources ?? [];
  const resourceOk = resources.some((r) => r === '*' || r === combined || (a.subresource && r === `*/${a.subresource}`));
  if (!resourceOk) return false;
  return !rule.resourceNames?.length || rule.resourceNames.includes(a.name);
}

function nonResourceURLMatches(urls: string[] | undefined, path: string): boolean {
  return !!urls?.some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
}

/** True when `owner` rules grant everything `servant` does (kube's Covers; see coverage.ts). */
export function covers(owner: PolicyRule[], servant: PolicyRule): boolean {
  return coverage(owner, [servant]).covered;
}

/** The parts of `wanted` that `owner` does not grant, one tuple each (at most MAX_LISTED_MISSING). */
export function uncovered(owner: PolicyRule[], wanted: PolicyRule[]): PolicyRule[] {
  return coverage(owner, wanted).missing;
}

/** A rule as kube-apiserver prints it in escalation errors (CompactString). */
export const describeRule = compactString;
