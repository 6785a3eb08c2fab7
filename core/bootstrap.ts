// Canonical layer: the objects a store holds from its first start: the system namespaces and the
// bootstrap RBAC policy (kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy), by store.

import type { PolicyRule } from './rbac/rules';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];

// The namespaced resources a workload owner reads and writes (admin/edit/view), by API group.
const WORKLOADS: PolicyRule[] = [
  { apiGroups: [''], resources: ['pods', 'pods/status', 'services', 'services/status', 'endpoints', 'configmaps', 'serviceaccounts', 'events'] },
  { apiGroups: ['apps'], resources: ['deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status', 'daemonsets', 'daemonsets/status'] },
  { apiGroups: [''], resources: ['replicationcontrollers', 'replicationcontrollers/scale', 'replicationcontrollers/status'] },
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
  { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
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

// kube-controller-manager and its controllers (bootstrappolicy/policy.go, controller_policy.go). Each
// controller runs as ServiceAccount kube-system/<name> (--use-service-account-credentials), the manager
// itself as user system:kube-controller-manager (core/auth/internal-identity.ts).
const EVENTS_RULE: PolicyRule = { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] };
const CONTROLLER_ROLES: Record<string, PolicyRule[]> = {
  'deployment-controller': [
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'update', 'watch'] },
    { apiGroups: ['apps'], resources: ['deployments/status'], verbs: ['update'] },
    { apiGroups: ['apps'], resources: ['deployments/finalizers'], verbs: ['update'] },
    { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'update', 'watch'] },
    EVENTS_RULE,
  ],
  'replicaset-controller': [
    { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['get', 'list', 'update', 'watch'] },
    { apiGroups: ['apps'], resources: ['replicasets/status'], verbs: ['update'] },
    { apiGroups: ['apps'], resources: ['replicasets/finalizers'], verbs: ['update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'list', 'patch', 'watch'] },
    EVENTS_RULE,
  ],
  'generic-garbage-collector': [
    { apiGroups: ['*'], resources: ['*'], verbs: ['delete', 'get', 'list', 'patch', 'update', 'watch'] },
    EVENTS_RULE,
  ],
  'job-controller': [
    { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['batch'], resources: ['jobs/status'], verbs: ['patch', 'update'] },
    { apiGroups: ['batch'], resources: ['jobs/finalizers'], verbs: ['patch', 'update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'list', 'patch', 'watch'] },
    EVENTS_RULE,
  ],
  'ttl-after-finished-controller': [
    { apiGroups: ['batch'], resources: ['jobs'], verbs: ['delete', 'get', 'list', 'watch'] },
    EVENTS_RULE,
  ],
  'statefulset-controller': [
    { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
    { apiGroups: ['apps'], resources: ['statefulsets'], verbs: ['list', 'watch'] },
    { apiGroups: ['apps'], resources: ['statefulsets'], verbs: ['get'] },
    { apiGroups: ['apps'], resources: ['statefulsets/status'], verbs: ['update'] },
    { apiGroups: ['apps'], resources: ['statefulsets/finalizers'], verbs: ['update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'get', 'patch', 'update'] },
    { apiGroups: ['apps'], resources: ['controllerrevisions'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['create', 'get'] },
    EVENTS_RULE,
  ],
  'daemon-set-controller': [
    { apiGroups: ['extensions', 'apps'], resources: ['daemonsets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['extensions', 'apps'], resources: ['daemonsets/status'], verbs: ['update'] },
    { apiGroups: ['extensions', 'apps'], resources: ['daemonsets/finalizers'], verbs: ['update'] },
    { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'list', 'patch', 'watch'] },
    { apiGroups: [''], resources: ['pods/binding'], verbs: ['create'] },
    { apiGroups: ['apps'], resources: ['controllerrevisions'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    EVENTS_RULE,
  ],
  'replication-controller': [
    { apiGroups: [''], resources: ['replicationcontrollers'], verbs: ['get', 'list', 'update', 'watch'] },
    { apiGroups: [''], resources: ['replicationcontrollers/status'], verbs: ['update'] },
    { apiGroups: [''], resources: ['replicationcontrollers/finalizers'], verbs: ['update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'list', 'patch', 'watch'] },
    EVENTS_RULE,
  ],
  'service-account-controller': [
    { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['create'] },
    EVENTS_RULE,
  ],
  'endpointslice-controller': [
    { apiGroups: [''], resources: ['services', 'pods', 'nodes'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['services/finalizers'], verbs: ['update'] },
    { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['create', 'delete', 'get', 'list', 'update'] },
    EVENTS_RULE,
  ],
  'endpoint-controller': [
    { apiGroups: [''], resources: ['services', 'pods'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['endpoints'], verbs: ['create', 'delete', 'get', 'list', 'update'] },
    { apiGroups: [''], resources: ['endpoints/restricted'], verbs: ['create'] },
    EVENTS_RULE,
  ],
  'namespace-controller': [
    { apiGroups: [''], resources: ['namespaces'], verbs: ['delete', 'get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['namespaces/finalize', 'namespaces/status'], verbs: ['update'] },
    { apiGroups: ['*'], resources: ['*'], verbs: ['delete', 'deletecollection', 'get', 'list'] },
  ],
  'node-controller': [
    { apiGroups: [''], resources: ['nodes'], verbs: ['delete', 'get', 'list', 'patch', 'update'] },
    { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch', 'update'] },
    { apiGroups: [''], resources: ['pods/status'], verbs: ['patch', 'update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['delete', 'list'] },
    EVENTS_RULE,
  ],
  'taint-eviction-controller': [
    { apiGroups: [''], resources: ['pods'], verbs: ['delete', 'get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
    EVENTS_RULE,
  ],
};
// system:node-proxier (bootstrappolicy/policy.go), bound to user system:kube-proxy.
const NODE_PROXIER: PolicyRule[] = [
  { apiGroups: [''], resources: ['endpoints', 'services'], verbs: ['list', 'watch'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
  EVENTS_RULE,
  { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
];
const KUBE_CONTROLLER_MANAGER: PolicyRule[] = [
  EVENTS_RULE,
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['kube-controller-manager'], verbs: ['get', 'update'] },
  { apiGroups: [''], resources: ['secrets', 'serviceaccounts'], verbs: ['create'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['delete'] },
  { apiGroups: [''], resources: ['configmaps', 'namespaces', 'secrets', 'serviceaccounts'], verbs: ['get'] },
  { apiGroups: [''], resources: ['secrets', 'serviceaccounts'], verbs: ['update'] },
  { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
  { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
  { apiGroups: ['*'], resources: ['*'], verbs: ['list', 'watch'] },
  { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
];
// kube-scheduler (bootstrappolicy/policy.go system:kube-scheduler), run as user system:kube-scheduler.
const KUBE_SCHEDULER: PolicyRule[] = [
  EVENTS_RULE,
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['kube-scheduler'], verbs: ['get', 'update'] },
  { apiGroups: [''], resources: ['nodes'], verbs: READ },
  { apiGroups: [''], resources: ['namespaces'], verbs: ['list', 'watch'] },
  { apiGroups: [''], resources: ['pods'], verbs: ['delete', ...READ] },
  { apiGroups: [''], resources: ['bindings', 'pods/binding'], verbs: ['create'] },
  { apiGroups: [''], resources: ['pods/status'], verbs: ['patch', 'update'] },
  { apiGroups: ['', 'apps'], resources: ['replicationcontrollers', 'services', 'replicasets', 'statefulsets'], verbs: ['list', 'watch'] },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['list', 'watch'] },
  { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
  { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
];
// kube's system:node role (what a kubelet may do, before the Node authorizer narrows it to its own node);
// the simulated nodes stand in for kubelets.
const NODE: PolicyRule[] = [
  { apiGroups: [''], resources: ['nodes'], verbs: ['create', 'get', 'list', 'watch', 'patch', 'update'] },
  { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch', 'update'] },
  { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'create', 'delete'] },
  { apiGroups: [''], resources: ['pods/status'], verbs: ['patch', 'update'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'delete', 'get', 'patch', 'update'] },
  EVENTS_RULE,
];

function bindSubjects(name: string, role: string, subjects: object[]) {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding',
    metadata: { name, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects,
  };
}

const CONTROLLER_CLUSTER_ROLES = Object.entries(CONTROLLER_ROLES).map(([name, rules]) => clusterRole(`system:controller:${name}`, rules));
const CONTROLLER_BINDINGS = Object.keys(CONTROLLER_ROLES).map((name) =>
  bindSubjects(`system:controller:${name}`, `system:controller:${name}`, [{ kind: 'ServiceAccount', name, namespace: 'kube-system' }]));

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
    clusterRole('system:kube-controller-manager', KUBE_CONTROLLER_MANAGER),
    clusterRole('system:node', NODE),
    clusterRole('system:node-proxier', NODE_PROXIER),
    clusterRole('system:kube-scheduler', KUBE_SCHEDULER),
    ...CONTROLLER_CLUSTER_ROLES,
  ],
  'rbac.authorization.k8s.io/clusterrolebindings': [
    bindGroups('cluster-admin', 'cluster-admin', ['system:masters']),
    bindGroups('system:discovery', 'system:discovery', ['system:authenticated']),
    bindGroups('system:basic-user', 'system:basic-user', ['system:authenticated']),
    bindGroups('system:public-info-viewer', 'system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
    bindSubjects('system:kube-controller-manager', 'system:kube-controller-manager', [
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:kube-controller-manager' },
    ]),
    // kube ships system:node unbound (the Node authorizer decides for kubelets); the simulated nodes get it
    // through this edgeplane binding instead.
    bindSubjects('system:node-proxier', 'system:node-proxier', [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:kube-proxy' }]),
    bindGroups('edgeplane:simulated-nodes', 'system:node', ['system:nodes']),
    bindSubjects('system:kube-scheduler', 'system:kube-scheduler', [
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:kube-scheduler' },
    ]),
    ...CONTROLLER_BINDINGS,
  ],
};
