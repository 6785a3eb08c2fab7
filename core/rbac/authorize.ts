// Front door authorization: the RBAC authorizer. Given the RBAC objects in force and a user, decides a
// request (kubernetes plugin/pkg/auth/authorizer/rbac/rbac.go) and lists a user's rules for
// SelfSubjectRulesReview. Bindings are indexed by namespace so a decision never scans every binding.

import { ruleAllows, type PolicyRule, type RequestAttributes } from './rules';

export interface UserInfo {
  username: string;
  uid: string;
  groups: string[];
}

export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  name: string;
  namespace?: string;
}

export interface RoleRef {
  kind: 'Role' | 'ClusterRole';
  name: string;
}

interface RbacObject {
  metadata: { name: string; namespace?: string };
}
export interface Role extends RbacObject { rules?: PolicyRule[] }
export interface Binding extends RbacObject { subjects?: Subject[]; roleRef: RoleRef }

/** The RBAC objects in force, kept by whoever follows the four RBAC stores. */
export class RbacPolicy {
  private readonly clusterRoles = new Map<string, Role>();
  private readonly roles = new Map<string, Role>(); // namespace/name
  private readonly clusterBindings = new Map<string, Binding>();
  private readonly bindings = new Map<string, Map<string, Binding>>(); // namespace → name → binding
  generation = 0; // bumps on every change, so cached decisions can be dropped

  set(kind: 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding', obj: Role | Binding | undefined, key: { namespace?: string; name: string }): void {
    this.generation++;
    const ns = key.namespace ?? '';
    const put = <T>(map: Map<string, T>, k: string, v: T | undefined) => (v ? map.set(k, v) : map.delete(k));
    if (kind === 'ClusterRole') put(this.clusterRoles, key.name, obj as Role | undefined);
    else if (kind === 'Role') put(this.roles, `${ns}/${key.name}`, obj as Role | undefined);
    else if (kind === 'ClusterRoleBinding') put(this.clusterBindings, key.name, obj as Binding | undefined);
    else {
      let inNs = this.bindings.get(ns);
      if (!inNs) this.bindings.set(ns, (inNs = new Map()));
      put(inNs, key.name, obj as Binding | undefined);
    }
  }

  /** Every rule the user holds in `namespace` ('' : cluster-wide only), with where it came from. */
  rulesFor(user: UserInfo, namespace: string): PolicyRule[] {
    const rules: PolicyRule[] = [];
    for (const b of this.clusterBindings.values()) {
      if (appliesTo(b, user, '') && b.roleRef.kind === 'ClusterRole') rules.push(...(this.clusterRoles.get(b.roleRef.name)?.rules ?? []));
    }
    if (namespace) {
      for (const b of this.bindings.get(namespace)?.values() ?? []) {
        if (!appliesTo(b, user, namespace)) continue;
        const role = b.roleRef.kind === 'ClusterRole' ? this.clusterRoles.get(b.roleRef.name) : this.roles.get(`${namespace}/${b.roleRef.name}`);
        rules.push(...(role?.rules ?? []));
      }
    }
    return rules;
  }

  allows(user: UserInfo, a: RequestAttributes): boolean {
    return this.rulesFor(user, a.resourceRequest ? a.namespace : '').some((r) => ruleAllows(r, a));
  }

  roleRules(ref: RoleRef, namespace: string): PolicyRule[] | undefined {
    return ref.kind === 'ClusterRole' ? this.clusterRoles.get(ref.name)?.rules : this.roles.get(`${namespace}/${ref.name}`)?.rules;
  }
}

function appliesTo(b: Binding, user: UserInfo, bindingNamespace: string): boolean {
  return (b.subjects ?? []).some((s) => {
    if (s.kind === 'User') return s.name === user.username;
    if (s.kind === 'Group') return user.groups.includes(s.name);
    // A ServiceAccount subject without a namespace means the binding's own (RoleBinding) namespace.
    const ns = s.namespace || bindingNamespace;
    return user.username === `system:serviceaccount:${ns}:${s.name}`;
  });
}

/** kube-apiserver's 403 wording for a denied request (endpoints/handlers/responsewriters/errors.go). */
export function forbiddenReason(user: UserInfo, a: RequestAttributes): string {
  if (!a.resourceRequest) return `User "${user.username}" cannot ${a.verb} path "${a.path}"`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `User "${user.username}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" ${scope}`;
}
