// Front door authorization: RBAC policy rules, matched against one request's attributes, and the
// "covers" test that prevents escalation (kubernetes pkg/apis/rbac/v1/evaluation_helpers.go and
// pkg/registry/rbac/validation/policy_comparator.go).

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

/**
 * True when `owner` rules grant everything `servant` does: each single verb/group/resource/name of the
 * servant must be allowed by one owner rule, a servant wildcard only by an owner wildcard.
 */
export function covers(owner: PolicyRule[], servant: PolicyRule): boolean {
  return uncovered(owner, [servant]).length === 0;
}

/** The parts of `wanted` that `owner` does not grant, one atomic rule each (for the 403 message). */
export function uncovered(owner: PolicyRule[], wanted: PolicyRule[]): PolicyRule[] {
  return wanted.flatMap(atomic).filter((a) => !owner.some((o) => ownerCovers(o, a)));
}

function atomic(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const verb of rule.verbs ?? []) {
    for (const url of rule.nonResourceURLs ?? []) out.push({ verbs: [verb], nonResourceURLs: [url] });
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        const names = rule.resourceNames?.length ? rule.resourceNames : [undefined];
        for (const name of names) out.push({ verbs: [verb], apiGroups: [group], resources: [resource], ...(name ? { resourceNames: [name] } : {}) });
      }
    }
  }
  return out;
}

function ownerCovers(o: PolicyRule, a: PolicyRule): boolean {
  if (!has(o.verbs, a.verbs![0])) return false;
  if (a.nonResourceURLs) return nonResourceURLMatches(o.nonResourceURLs, a.nonResourceURLs[0]);
  if (!has(o.apiGroups, a.apiGroups![0])) return false;
  const res = a.resources![0];
  const resOk = (o.resources ?? []).some((r) => r === '*' || r === res || (res.includes('/') && r === `*/${res.split('/')[1]}`));
  if (!resOk) return false;
  if (!o.resourceNames?.length) return true;
  return !!a.resourceNames && o.resourceNames.includes(a.resourceNames[0]);
}

/** Go's %+v of a rule, as kube-apiserver prints it in escalation errors. */
export function describeRule(r: PolicyRule): string {
  const parts: string[] = [];
  const list = (v: string[]) => `[${v.map((x) => JSON.stringify(x)).join(' ')}]`;
  if (r.apiGroups) parts.push(`APIGroups:${list(r.apiGroups)}`);
  if (r.resources) parts.push(`Resources:${list(r.resources)}`);
  if (r.resourceNames) parts.push(`ResourceNames:${list(r.resourceNames)}`);
  if (r.nonResourceURLs) parts.push(`NonResourceURLs:${list(r.nonResourceURLs)}`);
  parts.push(`Verbs:${list(r.verbs ?? [])}`);
  return `{${parts.join(', ')}}`;
}
