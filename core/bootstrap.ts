// Canonical layer: the objects a store holds from its first start: the system namespaces and the
// bootstrap RBAC policy (kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy), by store.

import type { PolicyRule } from './rbac/rules';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];

// The namespaced resources a workload owner reads and writes (admin/edit/view), by API group.
const WORKLOADS: PolicyRule[] = [
  { apiGroups: [''], resources: ['pods', 'pods/status', 'services', 'services/status', 'endpoints', 'configmaps', 'serviceaccounts', 'events'] },
  { apiGroups: ['apps'], resources: ['deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status', 'daemonsets', 'daemonsets/status'] },
  { apiGroups: ['batch'], resources: ['jobs', 'jobs/status'] },
  { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'] },
];

const withVerbs = (rules: PolicyRule[], verbs: string[]) => rules.map((r) => ({ ...r, verbs }));

const VIEW: PolicyRule[] = [
  ...withVerbs(WORKLOADS, READ),
  { apiGroups: [''], resources: ['namespaces'], verbs: READ },
];
const EDIT: PolicyRule[] = [
  ...VIEW,
  ...withVerbs(WORKLOADS, WRITE),
  { apiGroups: [''], resources: ['secrets'], verbs: [...READ, ...WRITE] },
  { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
];
const ADMIN: PolicyRule[] = [
  ...EDIT,
  { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: [...READ, ...WRITE] },
];

function clusterRole(name: string, rules: PolicyRule[]) {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } }, rules };
}

function bindGroups(name: string, role: string, groups: string[]) {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding',
    metadata: { name, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: groups.map((g) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: g })),
  };
}

/** First-start objects by store (group/resource). */
export const SEEDS: Record<string, object[]> = {
  'core/namespaces': ['default', 'kube-node-lease', 'kube-public', 'kube-system'].map((name) => ({ metadata: { name } })),
  'rbac.authorization.k8s.io/clusterroles': [
    clusterRole('cluster-admin', [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]),
    clusterRole('admin', ADMIN),
    clusterRole('edit', EDIT),
    clusterRole('view', VIEW),
    clusterRole('system:discovery', [{
      nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/openapi', '/openapi/*', '/version', '/version/'],
      verbs: ['get'],
    }]),
    clusterRole('system:basic-user', [
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
    ]),
    clusterRole('system:public-info-viewer', [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }]),
  ],
  'rbac.authorization.k8s.io/clusterrolebindings': [
    bindGroups('cluster-admin', 'cluster-admin', ['system:masters']),
    bindGroups('system:discovery', 'system:discovery', ['system:authenticated']),
    bindGroups('system:basic-user', 'system:basic-user', ['system:authenticated']),
    bindGroups('system:public-info-viewer', 'system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
  ],
};
