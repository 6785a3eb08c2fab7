// Core: kube's matching of a request against admission rules (apiserver/pkg/admission/plugin/webhook/predicates/
// rules/rules.go Matcher): operations, apiGroups, apiVersions, resources with `*`, `*/*`, `<res>/*`, `*/<sub>`,
// scope, and the admission-configuration types that are never sent to webhooks or policies.

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** The group/version/resource a rule is matched against (the request's, or an equivalent one's). */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** admissionregistration/v1 RuleWithOperations (also NamedRuleWithOperations without resourceNames). */
export interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
  /** NamedRuleWithOperations (ValidatingAdmissionPolicy's matchResources). */
  resourceNames?: string[];
}

/** What the rule matcher reads of a request. */
export interface RuleAttributes {
  operation: AdmissionOperation;
  resource: GroupVersionResource;
  subresource: string;
  /** For a Namespace object, its own name (kube's request info sets it so). */
  namespace: string;
  name: string;
}

const has = (list: readonly string[] | undefined, v: string) => !!list && (list.includes('*') || list.includes(v));

function resourceMatches(rule: RuleWithOperations, a: RuleAttributes): boolean {
  for (const r of rule.resources ?? []) {
    const slash = r.indexOf('/');
    const res = slash < 0 ? r : r.slice(0, slash);
    const sub = slash < 0 ? '' : r.slice(slash + 1);
    if ((res === '*' || res === a.resource.resource) && (sub === '*' || sub === a.subresource)) return true;
  }
  return false;
}

const isNamespaceResource = (r: GroupVersionResource) => r.group === '' && r.version === 'v1' && r.resource === 'namespaces';

function scopeMatches(rule: RuleWithOperations, a: RuleAttributes): boolean {
  const scope = rule.scope ?? '*';
  // A Namespace is cluster-scoped although its requests carry its name as their namespace.
  if (scope === 'Namespaced') return !isNamespaceResource(a.resource) && a.namespace !== '';
  if (scope === 'Cluster') return isNamespaceResource(a.resource) || a.namespace === '';
  return true;
}

/** rules.Matcher.Matches. */
export function ruleMatches(rule: RuleWithOperations, a: RuleAttributes): boolean {
  return (
    scopeMatches(rule, a) &&
    has(rule.operations, a.operation) &&
    has(rule.apiGroups, a.resource.group) &&
    has(rule.apiVersions, a.resource.version) &&
    resourceMatches(rule, a)
  );
}

/**
 * A NamedRuleWithOperations (policies' resourceRules and excludeResourceRules): the rule, and the object's name
 * among resourceNames when it lists any (validatingadmissionpolicy matching/matching.go matchesResourceRules).
 */
export function namedRuleMatches(rule: RuleWithOperations, a: RuleAttributes): boolean {
  if (rule.resourceNames?.length && !rule.resourceNames.includes(a.name)) return false;
  return ruleMatches(rule, a);
}

const EXEMPT_KINDS = new Set([
  'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding',
]);

/**
 * rules.IsExemptAdmissionConfigurationResource: writes of the admission configuration itself never go to webhooks
 * or policies, so a broken webhook can always be removed.
 */
export function isExemptAdmissionConfiguration(kind: GroupVersionKind): boolean {
  return kind.group === 'admissionregistration.k8s.io' && EXEMPT_KINDS.has(kind.kind);
}
