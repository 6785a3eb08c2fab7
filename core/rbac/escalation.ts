// Canonical layer: escalation prevention for Roles, ClusterRoles and their bindings (kube
// pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased/storage.go), run by the
// store on the object it is about to write, inside the write's transaction.
//
// Why here and not in the front door: the front door can only guess what a write will store (a patch
// applied to a read that may be stale, a patch type it does not know, a body the store decodes
// differently), and a check made on a guess fails open whenever the guess is wrong or cannot be made.
// The store computes the final object anyway, so it runs the check on exactly that, synchronously before
// commit (kube does the same: the check wraps the update's transform inside GuaranteedUpdate). What the
// store cannot know is the requester's permissions, held by the authorizer shards: the front door fetches
// them (an EscalationGrant) and sends them with the write. They may be a moment old, as the informer-fed
// rule resolver kube uses may be. The one input the grant fixes in advance is the role a binding points
// to, resolved from the roleRef the front door expected; the guard refuses (409, retry) a write whose
// final roleRef is another one, so no binding is ever checked against the wrong role.
// Anything the guard cannot evaluate — no grant, a malformed candidate, an error, a check too large to
// finish within its budget — refuses the write.

import type { ResourceType } from '../registry';
import type { KubeObject } from '../object-meta';
import { sameJson } from '../object-meta';
import { conflict, forbidden, notFound, OPTIMISTIC_LOCK_MESSAGE, StatusError } from '../status';
import { aggregate, referenceError, type RoleReference } from './authorize';
import { coverage, CoverageLimitExceeded, describeMissing, MAX_COVERAGE_STEPS } from './coverage';
import { ruleAllows, type PolicyRule, type RequestAttributes } from './rules';
import { parseRules, type RoleRef } from './stored';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** What the front door sends with an RBAC write: who asks, and what they hold where the object applies. */
export interface EscalationGrant {
  user: { username: string; groups: string[] };
  privileged: boolean; // system:masters: kube's EscalationAllowed, no check at all
  namespace: string; // where the rules below apply: the request's namespace, '' for cluster-scoped types
  ownerRules: PolicyRule[]; // RulesFor(user, namespace)
  resolutionErrors: string[]; // met while resolving them, appended to a denial as kube does
  role?: { ref: RoleRef; resolved: RoleReference }; // bindings: the role the expected roleRef names
}

/** The bootstrap policy's own writes (kube writes it through a privileged loopback client). */
export const SYSTEM_GRANT: EscalationGrant = {
  user: { username: 'system:apiserver', groups: ['system:masters'] }, privileged: true, namespace: '', ownerRules: [], resolutionErrors: [],
};

/** A check on the object a write will store (`current`: the stored one, for updates); throws to refuse. */
export type WriteGuard = (next: KubeObject, current: KubeObject | undefined) => void;

const ROLE_KINDS = new Set(['Role', 'ClusterRole']);
const BINDING_KINDS = new Set(['RoleBinding', 'ClusterRoleBinding']);

/** Types whose writes need a grant. */
export function guardsEscalation(type: ResourceType): boolean {
  return type.group === RBAC_GROUP && (ROLE_KINDS.has(type.kind) || BINDING_KINDS.has(type.kind));
}

/** The guard for one write of `type`, or undefined when the type needs none. */
export function escalationGuard(type: ResourceType, grant: EscalationGrant | undefined): WriteGuard | undefined {
  if (!guardsEscalation(type)) return undefined;
  return (next, current) => {
    const name = typeof next.metadata?.name === 'string' ? next.metadata.name : '';
    try {
      if (!grant) throw new StatusError(forbidden(type, name, 'no escalation check was made for this write'));
      if (grant.privileged) return;
      check(type, grant, next, current, name);
    } catch (e) {
      if (e instanceof StatusError) throw e;
      console.error('escalation check failed', type.kind, name, (e as Error)?.message);
      throw new StatusError(forbidden(type, name, 'the escalation check could not be completed'));
    }
  };
}

function check(type: ResourceType, grant: EscalationGrant, next: KubeObject, current: KubeObject | undefined, name: string): void {
  const namespace = type.namespaced ? next.metadata.namespace ?? '' : '';
  if (namespace !== grant.namespace) throw new StatusError(forbidden(type, name, 'the escalation check was made for another namespace'));
  // rbac/helpers.go IsOnlyMutatingGCFields: finalizers and ownerReferences may always change, so a
  // garbage collector (or an admin clearing a finalizer) can finish deleting any role or binding.
  if (current && onlyGcFieldsChange(next, current)) return;
  if (ROLE_KINDS.has(type.kind)) return checkRole(type, grant, next, current, name);
  return checkBinding(type, grant, next, name);
}

function checkRole(type: ResourceType, grant: EscalationGrant, next: KubeObject, current: KubeObject | undefined, name: string): void {
  // RoleEscalationAuthorized: `escalate` on the role type (the URL's name: none for a create) waives it.
  if (holds(grant, { verb: 'escalate', apiGroup: type.group, resource: type.resource, name: current?.metadata.name ?? '' })) return;
  const rules = parseRules(next.rules);
  if (!rules) throw new StatusError(forbidden(type, name, 'rules must be a list of policy rules to be checked for escalation'));
  confirmNoEscalation(type, grant, rules, name);
  // clusterrole/policybased: an aggregationRule can gather any rule, so setting, changing or keeping one
  // takes the full authority of cluster-admin.
  const aggregates = (o: KubeObject | undefined) => o?.aggregationRule !== undefined && o?.aggregationRule !== null;
  if (type.kind === 'ClusterRole' && (aggregates(next) || aggregates(current)) && !coverage(grant.ownerRules, FULL_AUTHORITY).covered) {
    throw new StatusError(forbidden(type, name, 'must have cluster-admin privileges to use the aggregationRule'));
  }
}

const FULL_AUTHORITY: PolicyRule[] = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }];

function checkBinding(type: ResourceType, grant: EscalationGrant, next: KubeObject, name: string): void {
  const raw = (next.roleRef ?? {}) as Record<string, unknown>;
  const ref: RoleRef = {
    apiGroup: typeof raw.apiGroup === 'string' ? raw.apiGroup : '',
    kind: typeof raw.kind === 'string' ? raw.kind : '',
    name: typeof raw.name === 'string' ? raw.name : '',
  };
  // BindingAuthorized: `bind` on the referenced role, where the binding applies, waives the check.
  const resource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : '';
  if (resource && holds(grant, { verb: 'bind', apiGroup: ref.apiGroup ?? '', resource, name: ref.name })) return;
  const expected = grant.role;
  if (!expected || !sameJson(expected.ref, ref)) {
    // The grant resolved another role than the one this write stores (the binding changed meanwhile,
    // or the front door could not tell): refused, and the client retries on the current object.
    throw new StatusError(conflict(type, name, OPTIMISTIC_LOCK_MESSAGE));
  }
  const resolved = expected.resolved;
  if ('notFound' in resolved) throw new StatusError(notFound({ group: RBAC_GROUP, resource: resolved.notFound }, resolved.name));
  if ('unsupportedKind' in resolved) throw new StatusError(forbidden(type, name, referenceError(resolved, 'registry')));
  confirmNoEscalation(type, grant, resolved.rules, name);
}

function holds(grant: EscalationGrant, a: Pick<RequestAttributes, 'verb' | 'apiGroup' | 'resource' | 'name'>): boolean {
  const attrs: RequestAttributes = { ...a, resourceRequest: true, subresource: '', namespace: grant.namespace, path: '' };
  return grant.ownerRules.some((r) => ruleAllows(r, attrs));
}

/** rbac/validation/rule.go ConfirmNoEscalation, with its message; bounded (coverage.ts). */
function confirmNoEscalation(type: ResourceType, grant: EscalationGrant, rules: PolicyRule[], name: string): void {
  const who = `user ${JSON.stringify(grant.user.username)} (groups=[${grant.user.groups.map((g) => JSON.stringify(g)).join(' ')}])`;
  const suffix = grant.resolutionErrors.length ? `; resolution errors: [${aggregate(grant.resolutionErrors)}]` : '';
  let result;
  try {
    result = coverage(grant.ownerRules, rules);
  } catch (e) {
    if (!(e instanceof CoverageLimitExceeded)) throw e;
    throw new StatusError(forbidden(type, name,
      `${who} is attempting to grant RBAC permissions that could not be verified as currently held: the escalation check needs more than ${MAX_COVERAGE_STEPS} steps; grant them in fewer or smaller rules${suffix}`));
  }
  if (result.covered) return;
  let lines = describeMissing(result.missing).join('\n');
  const unlisted = result.missingCount - result.missing.length;
  if (unlisted > 0) lines += `\n... and ${unlisted} more`;
  throw new StatusError(forbidden(type, name, `${who} is attempting to grant RBAC permissions not currently held:\n${lines}${suffix}`));
}

const GC_FIELDS = ['ownerReferences', 'finalizers', 'managedFields', 'selfLink', 'resourceVersion'] as const;

function onlyGcFieldsChange(next: KubeObject, current: KubeObject): boolean {
  const copy = { ...next, metadata: { ...next.metadata } } as KubeObject;
  const meta = copy.metadata as Record<string, unknown>;
  const old = current.metadata as Record<string, unknown>;
  for (const f of GC_FIELDS) {
    if (old[f] === undefined) delete meta[f];
    else meta[f] = old[f];
  }
  return sameJson(copy, current);
}
