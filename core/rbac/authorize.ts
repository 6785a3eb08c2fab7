// Front door authorization: the RBAC authorizer. Given the RBAC objects in force and a user, decides a
// request (kubernetes plugin/pkg/auth/authorizer/rbac/rbac.go) and lists a user's rules for
// SelfSubjectRulesReview. Bindings are indexed by namespace so a decision never scans every binding.
// Every stored object passes through stored.ts first: a malformed one is kept aside (counted, never
// evaluated), so evaluation works only on well-typed values and cannot throw.

import { ruleAllows, type PolicyRule, type RequestAttributes } from './rules';
import { parseBinding, parseRole, type RoleRef, type StoredBinding, type StoredRole, type Subject } from './stored';
import { goQuote } from '../validation/names';

export type { RoleRef, Subject } from './stored';

export interface UserInfo {
  username: string;
  uid: string;
  groups: string[];
  extra?: Record<string, string[]>; // user.Info's Extra (impersonated extras); RBAC never reads it
}

export type RbacKind = 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding';

/** kube's user.SystemPrivilegedGroup: allowed everything before RBAC is consulted (authorizerfactory). */
export const PRIVILEGED_GROUP = 'system:masters';

export function isPrivileged(user: Pick<UserInfo, 'groups'>): boolean {
  return Array.isArray(user.groups) && user.groups.includes(PRIVILEGED_GROUP);
}

/** The rules a user holds somewhere, and the errors met resolving them (bindings to missing roles). */
export interface ResolvedRules {
  rules: PolicyRule[];
  errors: string[];
}

/** What a binding's roleRef resolves to. */
export type RoleReference =
  | { rules: PolicyRule[] }
  | { notFound: 'roles' | 'clusterroles'; name: string }
  | { unsupportedKind: string };

/**
 * The error text kube gives for an unresolvable roleRef: the authorizer's informer listers name the
 * resource in the singular (`role.rbac...`), the registry's storage (escalation checks) in the plural.
 */
export function referenceError(r: Exclude<RoleReference, { rules: PolicyRule[] }>, wording: 'lister' | 'registry'): string {
  if ('unsupportedKind' in r) return `unsupported role reference kind: ${JSON.stringify(r.unsupportedKind)}`;
  const resource = wording === 'lister' ? r.notFound.slice(0, -1) : r.notFound;
  return `${resource}.rbac.authorization.k8s.io ${JSON.stringify(r.name)} not found`;
}

export interface Decision {
  allowed: boolean;
  reason: string; // kube's "RBAC: <errors>" suffix of a denial, or ''
  allowedBy?: string; // an allowed request: the binding that allowed it, as rbac.go's reason words it (audit logs record it)
}

/** The RBAC objects in force, kept by whoever follows the four RBAC stores. */
export class RbacPolicy {
  private readonly clusterRoles = new Map<string, StoredRole>();
  private readonly roles = new Map<string, StoredRole>(); // namespace/name
  private readonly clusterBindings = new Map<string, StoredBinding>();
  private readonly bindings = new Map<string, Map<string, StoredBinding>>(); // namespace → name → binding
  private readonly malformedKeys = new Set<string>(); // kind/namespace/name of stored objects ignored
  generation = 0; // bumps on every change, so cached decisions can be dropped

  /** Stored objects currently ignored because they do not have RBAC's shape. */
  get malformed(): number {
    return this.malformedKeys.size;
  }

  /**
   * Puts (or with `obj` undefined, removes) one stored object, identified by its store key rather than
   * by its own metadata, which a malformed object may lack. Returns false if the object was malformed.
   */
  set(kind: RbacKind, obj: unknown, key: { namespace?: string; name: string }): boolean {
    this.generation++;
    const ns = key.namespace ?? '';
    const id = `${kind}/${ns}/${key.name}`;
    const parsed = obj === undefined ? undefined : kind === 'Role' || kind === 'ClusterRole' ? parseRole(obj) : parseBinding(obj);
    const bad = obj !== undefined && !parsed;
    if (bad) this.malformedKeys.add(id);
    else this.malformedKeys.delete(id);
    const put = <T>(map: Map<string, T>, k: string, v: T | undefined) => (v ? map.set(k, v) : map.delete(k));
    if (kind === 'ClusterRole') put(this.clusterRoles, key.name, parsed as StoredRole | undefined);
    else if (kind === 'Role') put(this.roles, `${ns}/${key.name}`, parsed as StoredRole | undefined);
    else if (kind === 'ClusterRoleBinding') put(this.clusterBindings, key.name, parsed as StoredBinding | undefined);
    else {
      let inNs = this.bindings.get(ns);
      if (!inNs) this.bindings.set(ns, (inNs = new Map()));
      put(inNs, key.name, parsed as StoredBinding | undefined);
      if (inNs.size === 0) this.bindings.delete(ns);
    }
    return !bad;
  }

  /** Visits the rule lists of every binding that applies, cluster bindings first (kube's VisitRulesFor). */
  private visit(user: UserInfo, namespace: string, visit: (rules: PolicyRule[] | undefined, error: string | undefined, source: BindingSource) => boolean): void {
    for (const ref of this.refsFor(user, namespace)) {
      const resolved = this.roleReference(ref.roleRef, ref.namespace);
      const goOn = 'rules' in resolved ? visit(resolved.rules, undefined, ref) : visit(undefined, referenceError(resolved, 'lister'), ref);
      if (!goOn) return;
    }
  }

  /**
   * Every rule the user holds in `namespace` ('' : cluster-wide only), and resolution errors worded as
   * `wording` says (the authorizer's listers and the registry's storage word a missing role differently).
   */
  resolve(user: UserInfo, namespace: string, wording: 'lister' | 'registry' = 'lister'): ResolvedRules {
    const out: ResolvedRules = { rules: [], errors: [] };
    for (const ref of this.refsFor(user, namespace)) {
      const resolved = this.roleReference(ref.roleRef, ref.namespace);
      if ('rules' in resolved) out.rules.push(...resolved.rules);
      else out.errors.push(referenceError(resolved, wording));
    }
    return out;
  }

  private *refsFor(user: UserInfo, namespace: string): Generator<BindingSource> {
    for (const [name, b] of this.clusterBindings) {
      const subject = appliesTo(b.subjects, user, '');
      if (subject) yield { roleRef: b.roleRef, namespace: '', binding: name, subject };
    }
    if (!namespace) return;
    for (const [name, b] of this.bindings.get(namespace) ?? []) {
      const subject = appliesTo(b.subjects, user, namespace);
      if (subject) yield { roleRef: b.roleRef, namespace, binding: name, subject };
    }
  }

  rulesFor(user: UserInfo, namespace: string): PolicyRule[] {
    return this.resolve(user, namespace).rules;
  }

  /** rbac.go Authorize: stops at the first rule that allows; on denial, the errors met are the reason. */
  decide(user: UserInfo, a: RequestAttributes): Decision {
    let allowed: BindingSource | undefined;
    const errors: string[] = [];
    this.visit(user, a.resourceRequest ? a.namespace : '', (rules, error, source) => {
      if (error) errors.push(error);
      if (rules?.some((r) => ruleAllows(r, a))) allowed = source;
      return !allowed;
    });
    if (allowed) return { allowed: true, reason: '', allowedBy: `RBAC: allowed by ${describeSource(allowed)}` };
    return { allowed: false, reason: errors.length === 0 ? '' : `RBAC: ${aggregate(errors)}` };
  }

  allows(user: UserInfo, a: RequestAttributes): boolean {
    return this.decide(user, a).allowed;
  }

  /** GetRoleReferenceRules: the rules of the role a binding refers to, or why there are none. */
  roleReference(ref: RoleRef, namespace: string): RoleReference {
    if (ref.kind !== 'ClusterRole' && ref.kind !== 'Role') return { unsupportedKind: ref.kind };
    const role = ref.kind === 'ClusterRole' ? this.clusterRoles.get(ref.name) : this.roles.get(`${namespace}/${ref.name}`);
    return role ? { rules: role.rules } : { notFound: ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles', name: ref.name };
  }

  roleRules(ref: RoleRef, namespace: string): PolicyRule[] | undefined {
    const resolved = this.roleReference(ref, namespace);
    return 'rules' in resolved ? resolved.rules : undefined;
  }
}

/** A binding that applies to a user: its role, where it applies, its name and the first subject that matched. */
interface BindingSource {
  roleRef: RoleRef;
  namespace: string; // '' for a ClusterRoleBinding
  binding: string;
  subject: Subject;
}

// rbac/validation/rule.go appliesToUser: unknown subject kinds never apply; a ServiceAccount subject
// without a namespace means the binding's own (RoleBinding) namespace, and none for a cluster binding.
// Returns the first subject that applies (appliesTo's index), for the allowed-by reason.
function appliesTo(subjects: Subject[], user: UserInfo, bindingNamespace: string): Subject | undefined {
  return subjects.find((s) => {
    if (s.kind === 'User') return s.name === user.username;
    if (s.kind === 'Group') return user.groups.includes(s.name);
    if (s.kind !== 'ServiceAccount') return false;
    const ns = s.namespace || bindingNamespace;
    return !!ns && user.username === `system:serviceaccount:${ns}:${s.name}`;
  });
}

// rule.go clusterRoleBindingDescriber / roleBindingDescriber and describeSubject.
function describeSource(s: BindingSource): string {
  const subject = s.subject.kind === 'ServiceAccount'
    ? `${s.subject.kind} ${goQuote(`${s.subject.name}/${s.subject.namespace || s.namespace}`)}`
    : `${s.subject.kind} ${goQuote(s.subject.name)}`;
  const binding = s.namespace ? `RoleBinding ${goQuote(`${s.binding}/${s.namespace}`)}` : `ClusterRoleBinding ${goQuote(s.binding)}`;
  return `${binding} of ${s.roleRef.kind} ${goQuote(s.roleRef.name)} to ${subject}`;
}

// apimachinery util/errors Aggregate.Error(): one error as is, several deduplicated in brackets.
export function aggregate(errors: string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/** kube-apiserver's 403 wording for a denied request (endpoints/handlers/responsewriters/errors.go). */
export function forbiddenReason(user: UserInfo, a: RequestAttributes, reason = ''): string {
  let msg: string;
  if (!a.resourceRequest) msg = `User "${user.username}" cannot ${a.verb} path "${a.path}"`;
  else {
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
    msg = `User "${user.username}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" ${scope}`;
  }
  return reason ? `${msg}: ${reason}` : msg;
}
