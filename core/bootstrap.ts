// Canonical layer: the objects a store holds from its first start, and what every start reconciles — the system
// namespaces and kube 1.32's bootstrap RBAC policy (core/rbac/bootstrap-policy.ts), plus the one binding edgeplane's
// own components need. kube-apiserver does the same at each start (the system namespaces controller and the
// rbac/bootstrap-roles post-start hook): missing objects are created, autoupdate ones completed (core/rbac/reconcile.ts).

import { aggregateAll } from './rbac/aggregation';
import {
  AUTOUPDATE_ANNOTATION, BOOTSTRAPPING_LABEL, clusterRoleBinding, group, KUBE_CLUSTER_ROLE_BINDINGS, KUBE_CLUSTER_ROLES, KUBE_ROLE_BINDINGS,
  KUBE_ROLES, type BootstrapBinding, type BootstrapRole,
} from './rbac/bootstrap-policy';
import { reconcileBinding, reconcileRole, type Reconciled } from './rbac/reconcile';

/**
 * edgeplane's own bindings, for identities kube does not have in this form. The simulated kubelets are kube's node
 * identities (system:node:<name> in group system:nodes), but kube authorizes kubelets with the Node authorizer (each to
 * its own node's objects) and ships the system:node role unbound; edgeplane has no Node authorizer, so it binds the
 * group to kube's system:node role: a simulated kubelet may do what that role grants, on any node's objects, no more.
 */
export const EDGEPLANE_CLUSTER_ROLE_BINDINGS: readonly BootstrapBinding[] = [
  clusterRoleBinding('edgeplane:simulated-nodes', 'system:node', [group('system:nodes')]),
];

/**
 * kube's ClusterRoles as its aggregation controller leaves them: admin, edit and view hold the rules of the
 * system:aggregate-to-* roles (and of each other: view into edit into admin). Until that controller runs here, roles
 * other than kube's that carry an aggregate-to-* label are not added to them.
 */
export const BOOTSTRAP_CLUSTER_ROLES: readonly BootstrapRole[] = aggregateAll(KUBE_CLUSTER_ROLES);

const SYSTEM_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

const RBAC = 'rbac.authorization.k8s.io';

/** Bootstrap objects by store (group/resource). */
export const SEEDS: Record<string, object[]> = {
  'core/namespaces': SYSTEM_NAMESPACES.map((name) => ({ metadata: { name } })),
  [`${RBAC}/clusterroles`]: [...BOOTSTRAP_CLUSTER_ROLES],
  [`${RBAC}/clusterrolebindings`]: [...KUBE_CLUSTER_ROLE_BINDINGS, ...EDGEPLANE_CLUSTER_ROLE_BINDINGS],
  [`${RBAC}/roles`]: [...KUBE_ROLES],
  [`${RBAC}/rolebindings`]: [...KUBE_ROLE_BINDINGS],
};

/**
 * Objects only older edgeplane versions seeded (kube has none of them): taint-based eviction ran as its own
 * ServiceAccount, where kube runs it as node-controller. Removed at start while they still look as seeded (the
 * bootstrapping label, no autoupdate annotation).
 */
const LEGACY_SEEDS: Record<string, string[]> = {
  [`${RBAC}/clusterroles`]: ['system:controller:taint-eviction-controller'],
  [`${RBAC}/clusterrolebindings`]: ['system:controller:taint-eviction-controller'],
};

/** One write of a start's bootstrap, as kube-apiserver's own (the store runs it with the system grant). */
export type BootstrapWrite =
  | { verb: 'create'; namespace: string; body: string }
  | { verb: 'update'; namespace: string; name: string; body: string }
  | { verb: 'delete'; namespace: string; name: string };

interface Meta {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, unknown>; annotations?: Record<string, unknown> };
}

/**
 * The writes that bring one store's bootstrap objects to this version's: `read` gives the stored object (or
 * undefined). Work is linear in the bootstrap objects and their stored counterparts.
 */
export function bootstrapWrites(groupResource: string, read: (namespace: string, name: string) => unknown): BootstrapWrite[] {
  const out: BootstrapWrite[] = [];
  const kind = groupResource.startsWith(`${RBAC}/`) ? groupResource.slice(RBAC.length + 1) : '';
  for (const seed of SEEDS[groupResource] ?? []) {
    const { name, namespace = '' } = (seed as { metadata: { name: string; namespace?: string } }).metadata;
    const stored = read(namespace, name);
    let result: Reconciled<object>;
    if (kind === 'clusterroles' || kind === 'roles') result = reconcileRole(stored, seed as BootstrapRole);
    else if (kind === 'clusterrolebindings' || kind === 'rolebindings') result = reconcileBinding(stored, seed as BootstrapBinding);
    else result = stored === undefined ? { op: 'create', object: seed } : { op: 'none' };
    if (result.op === 'recreate') out.push({ verb: 'delete', namespace, name });
    if (result.op === 'create' || result.op === 'recreate') out.push({ verb: 'create', namespace, body: JSON.stringify(result.object) });
    if (result.op === 'update') out.push({ verb: 'update', namespace, name, body: JSON.stringify(result.object) });
  }
  for (const name of LEGACY_SEEDS[groupResource] ?? []) {
    const meta = (read('', name) as Meta | undefined)?.metadata;
    const annotations = typeof meta?.annotations === 'object' && meta.annotations !== null ? meta.annotations : {};
    if (meta?.labels?.[BOOTSTRAPPING_LABEL] === 'rbac-defaults' && !(AUTOUPDATE_ANNOTATION in annotations)) {
      out.push({ verb: 'delete', namespace: '', name });
    }
  }
  return out;
}
