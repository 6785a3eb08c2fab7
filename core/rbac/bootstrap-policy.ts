// Core: kube 1.32's bootstrap RBAC policy as data — the ClusterRoles and ClusterRoleBindings, the controller roles
// and the kube-system / kube-public Roles and RoleBindings that kube-apiserver creates and reconciles at every start
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy: policy.go, controller_policy.go, namespace_policy.go, with the
// feature gates at their 1.32 defaults). test/core/bootstrap-policy.test.ts checks it rule for rule against kube's
// own published test data (vendor/kubernetes-bootstrap-policy). Rules keep kube's order, and within a rule its
// sorted lists (the rule builder sorts them), so a stored object reads as kube's does.

import type { PolicyRule } from './rules';

export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
export const BOOTSTRAPPING_LABEL = 'kubernetes.io/bootstrapping';
export const AGGREGATE_TO = (role: 'admin' | 'edit' | 'view') => `rbac.authorization.k8s.io/aggregate-to-${role}`;
const RBAC_API_VERSION = 'rbac.authorization.k8s.io/v1';
const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface BootstrapRole {
  apiVersion: string;
  kind: 'ClusterRole' | 'Role';
  metadata: { name: string; namespace?: string; labels: Record<string, string>; annotations: Record<string, string> };
  aggregationRule?: { clusterRoleSelectors: LabelSelectorSpec[] };
  rules: PolicyRule[];
}

export interface BootstrapSubject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface BootstrapBinding {
  apiVersion: string;
  kind: 'ClusterRoleBinding' | 'RoleBinding';
  metadata: { name: string; namespace?: string; labels: Record<string, string>; annotations: Record<string, string> };
  roleRef: { apiGroup: string; kind: 'ClusterRole' | 'Role'; name: string };
  subjects?: BootstrapSubject[];
}

// bootstrappolicy's verb sets (policy.go Read, Write, ReadWrite, ReadUpdate), sorted as the rule builder stores them.
const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const READ_UPDATE = ['get', 'list', 'patch', 'update', 'watch'];
const LIST_WATCH = ['list', 'watch'];
const CREATE = ['create'];
const UPDATE = ['update'];
const PATCH_UPDATE = ['patch', 'update'];

const CORE = [''];
const APPS = ['apps'];
const APPS_EXTENSIONS = ['apps', 'extensions'];
const EXTENSIONS = ['extensions'];
const BATCH = ['batch'];
const AUTOSCALING = ['autoscaling'];
const POLICY = ['policy'];
const NETWORKING = ['networking.k8s.io'];
const DISCOVERY = ['discovery.k8s.io'];
const COORDINATION = ['coordination.k8s.io'];
const STORAGE = ['storage.k8s.io'];
const CERTIFICATES = ['certificates.k8s.io'];
const AUTHENTICATION = ['authentication.k8s.io'];
const AUTHORIZATION = ['authorization.k8s.io'];
const RBAC = [RBAC_GROUP];
const ADMISSION = ['admissionregistration.k8s.io'];
const ALL = ['*'];

const sorted = (v: readonly string[]) => [...v].sort();

/** rbacv1helpers.NewRule(verbs).Groups(groups).Resources(resources).Names(names), as it stores them (sorted). */
function rule(verbs: readonly string[], apiGroups: readonly string[], resources: readonly string[], resourceNames?: readonly string[]): PolicyRule {
  const r: PolicyRule = { verbs: sorted(verbs), apiGroups: sorted(apiGroups), resources: sorted(resources) };
  if (resourceNames) r.resourceNames = sorted(resourceNames);
  return r;
}

function urls(verbs: readonly string[], nonResourceURLs: readonly string[]): PolicyRule {
  return { verbs: sorted(verbs), nonResourceURLs: sorted(nonResourceURLs) };
}

// policy.go eventsRule(): what every recording component may do with Events, in both groups.
const events = (): PolicyRule => rule(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']);

function meta(name: string, namespace: string | undefined, labels: Record<string, string> = {}) {
  return {
    name, ...(namespace ? { namespace } : {}),
    labels: { [BOOTSTRAPPING_LABEL]: 'rbac-defaults', ...labels },
    annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

function clusterRole(name: string, rules: PolicyRule[], labels: Record<string, string> = {}, aggregateFrom?: string): BootstrapRole {
  const role: BootstrapRole = { apiVersion: RBAC_API_VERSION, kind: 'ClusterRole', metadata: meta(name, undefined, labels), rules };
  if (aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [aggregateFrom]: 'true' } }] };
  return role;
}

function role(namespace: string, name: string, rules: PolicyRule[]): BootstrapRole {
  return { apiVersion: RBAC_API_VERSION, kind: 'Role', metadata: meta(name, namespace), rules };
}

export const user = (name: string): BootstrapSubject => ({ apiGroup: RBAC_GROUP, kind: 'User', name });
export const group = (name: string): BootstrapSubject => ({ apiGroup: RBAC_GROUP, kind: 'Group', name });
export const serviceAccount = (namespace: string, name: string): BootstrapSubject => ({ kind: 'ServiceAccount', name, namespace });

export function clusterRoleBinding(name: string, roleName: string, subjects: BootstrapSubject[]): BootstrapBinding {
  const b: BootstrapBinding = {
    apiVersion: RBAC_API_VERSION, kind: 'ClusterRoleBinding', metadata: meta(name, undefined),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: roleName },
  };
  if (subjects.length) b.subjects = subjects;
  return b;
}

function roleBinding(namespace: string, name: string, roleName: string, subjects: BootstrapSubject[]): BootstrapBinding {
  return {
    apiVersion: RBAC_API_VERSION, kind: 'RoleBinding', metadata: meta(name, namespace),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: roleName }, subjects,
  };
}

// admin, edit and view are aggregated roles: kube ships them without rules and its ClusterRole aggregation controller
// fills them in from the roles labelled aggregate-to-<name> (see aggregation.ts). edit aggregates into admin and view
// into edit through these labels.
const AGGREGATED: BootstrapRole[] = [
  clusterRole('admin', [], {}, AGGREGATE_TO('admin')),
  clusterRole('edit', [], { [AGGREGATE_TO('admin')]: 'true' }, AGGREGATE_TO('edit')),
  clusterRole('view', [], { [AGGREGATE_TO('edit')]: 'true' }, AGGREGATE_TO('view')),
];

const AGGREGATE_TO_ROLES: BootstrapRole[] = [
  clusterRole('system:aggregate-to-admin', [
    rule(CREATE, AUTHORIZATION, ['localsubjectaccessreviews']),
    rule(READ_WRITE, RBAC, ['rolebindings', 'roles']),
  ], { [AGGREGATE_TO('admin')]: 'true' }),
  // What a namespace editor may write: workloads and their configuration. Not the status subresources, Endpoints,
  // EndpointSlices or anything else the control plane writes (kube dropped Endpoints writes in 1.22, CVE-2021-25740).
  clusterRole('system:aggregate-to-edit', [
    rule(READ, CORE, ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
    rule(['impersonate'], CORE, ['serviceaccounts']),
    rule(WRITE, CORE, ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
    rule(CREATE, CORE, ['pods/eviction']),
    rule(WRITE, CORE, ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy',
      'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
    rule(CREATE, CORE, ['serviceaccounts/token']),
    rule(WRITE, APPS, ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback',
      'replicasets', 'replicasets/scale']),
    rule(WRITE, AUTOSCALING, ['horizontalpodautoscalers']),
    rule(WRITE, BATCH, ['jobs', 'cronjobs']),
    rule(WRITE, EXTENSIONS, ['daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses', 'replicasets',
      'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies']),
    rule(WRITE, POLICY, ['poddisruptionbudgets']),
    rule(WRITE, NETWORKING, ['networkpolicies', 'ingresses']),
    rule(READ_WRITE, COORDINATION, ['leases']),
  ], { [AGGREGATE_TO('edit')]: 'true' }),
  clusterRole('system:aggregate-to-view', [
    rule(READ, CORE, ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status',
      'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
    rule(READ, CORE, ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status',
      'replicationcontrollers/status', 'pods/log']),
    // At namespace scope: the namespace the role is bound in.
    rule(READ, CORE, ['namespaces']),
    rule(READ, DISCOVERY, ['endpointslices']),
    rule(READ, APPS, ['controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status',
      'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
    rule(READ, AUTOSCALING, ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
    rule(READ, BATCH, ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
    rule(READ, EXTENSIONS, ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses',
      'ingresses/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies']),
    rule(READ, POLICY, ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
    rule(READ, NETWORKING, ['networkpolicies', 'ingresses', 'ingresses/status']),
  ], { [AGGREGATE_TO('view')]: 'true' }),
];

// What kube's kubelet may do before the Node authorizer narrows it to its own node's objects (policy.go NodeRules).
const NODE_RULES: PolicyRule[] = [
  rule(CREATE, AUTHENTICATION, ['tokenreviews']),
  rule(CREATE, AUTHORIZATION, ['subjectaccessreviews', 'localsubjectaccessreviews']),
  rule(READ, CORE, ['services']),
  rule(['create', 'get', 'list', 'watch'], CORE, ['nodes']),
  rule(PATCH_UPDATE, CORE, ['nodes/status']),
  rule(PATCH_UPDATE, CORE, ['nodes']),
  rule(['create', 'update', 'patch'], CORE, ['events']),
  rule(READ, CORE, ['pods']),
  rule(['create', 'delete'], CORE, ['pods']),
  rule(PATCH_UPDATE, CORE, ['pods/status']),
  rule(CREATE, CORE, ['pods/eviction']),
  rule(READ, CORE, ['secrets', 'configmaps']),
  rule(['get'], CORE, ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['get'], CORE, ['endpoints']),
  rule(['create', 'get', 'list', 'watch'], CERTIFICATES, ['certificatesigningrequests']),
  rule(['get', 'create', 'update', 'patch', 'delete'], COORDINATION, ['leases']),
  rule(['get'], STORAGE, ['volumeattachments']),
  rule(CREATE, CORE, ['serviceaccounts/token']),
  rule(['get', 'update', 'patch'], CORE, ['persistentvolumeclaims/status']),
  rule(READ, STORAGE, ['csidrivers']),
  rule(['get', 'create', 'update', 'patch', 'delete'], STORAGE, ['csinodes']),
  rule(READ, ['node.k8s.io'], ['runtimeclasses']),
];

const OTHER_CLUSTER_ROLES: BootstrapRole[] = [
  clusterRole('cluster-admin', [rule(['*'], ALL, ['*']), urls(['*'], ['*'])]),
  clusterRole('system:auth-delegator', [
    rule(CREATE, AUTHENTICATION, ['tokenreviews']),
    rule(CREATE, AUTHORIZATION, ['subjectaccessreviews']),
  ]),
  clusterRole('system:basic-user', [
    rule(CREATE, AUTHORIZATION, ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
    rule(CREATE, AUTHENTICATION, ['selfsubjectreviews']),
  ]),
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [rule(CREATE, CERTIFICATES, ['certificatesigningrequests/nodeclient'])]),
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [rule(CREATE, CERTIFICATES, ['certificatesigningrequests/selfnodeclient'])]),
  ...['kube-apiserver-client', 'kube-apiserver-client-kubelet', 'kubelet-serving', 'legacy-unknown'].map((signer) =>
    clusterRole(`system:certificates.k8s.io:${signer}-approver`, [rule(['approve'], CERTIFICATES, ['signers'], [`kubernetes.io/${signer}`])])),
  clusterRole('system:discovery', [
    urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/', '/api', '/api/*', '/apis', '/apis/*', '/openapi', '/openapi/*']),
  ]),
  clusterRole('system:heapster', [
    rule(READ, CORE, ['events', 'pods', 'nodes', 'namespaces']),
    rule(READ, EXTENSIONS, ['deployments']),
  ]),
  clusterRole('system:kube-aggregator', [rule(READ, CORE, ['services', 'endpoints'])]),
  clusterRole('system:kube-controller-manager', [
    events(),
    // Its leader-election Lease; the controllers run with their own ServiceAccounts' roles.
    rule(CREATE, COORDINATION, ['leases']),
    rule(['get', 'update'], COORDINATION, ['leases'], ['kube-controller-manager']),
    rule(CREATE, CORE, ['secrets', 'serviceaccounts']),
    rule(['delete'], CORE, ['secrets']),
    rule(['get'], CORE, ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
    rule(UPDATE, CORE, ['secrets', 'serviceaccounts']),
    rule(CREATE, AUTHENTICATION, ['tokenreviews']),
    rule(CREATE, AUTHORIZATION, ['subjectaccessreviews']),
    // The shared informers.
    rule(LIST_WATCH, ALL, ['*']),
    rule(CREATE, CORE, ['serviceaccounts/token']),
  ]),
  clusterRole('system:kube-dns', [rule(LIST_WATCH, CORE, ['endpoints', 'services'])]),
  clusterRole('system:kube-scheduler', [
    events(),
    rule(CREATE, COORDINATION, ['leases']),
    rule(['get', 'update', 'list', 'watch'], COORDINATION, ['leases'], ['kube-scheduler']),
    rule(READ_WRITE, COORDINATION, ['leasecandidates']),
    rule(READ, CORE, ['nodes']),
    rule(['get', 'list', 'watch', 'delete'], CORE, ['pods']),
    rule(CREATE, CORE, ['pods/binding', 'bindings']),
    rule(PATCH_UPDATE, CORE, ['pods/status']),
    rule(READ, CORE, ['services', 'replicationcontrollers']),
    rule(READ, APPS_EXTENSIONS, ['replicasets']),
    rule(READ, APPS, ['statefulsets']),
    rule(READ, POLICY, ['poddisruptionbudgets']),
    rule(READ, CORE, ['persistentvolumeclaims', 'persistentvolumes']),
    rule(CREATE, AUTHENTICATION, ['tokenreviews']),
    rule(CREATE, AUTHORIZATION, ['subjectaccessreviews']),
    rule(READ, STORAGE, ['csinodes']),
    rule(READ, STORAGE, ['volumeattachments']),
    rule(READ, CORE, ['namespaces']),
    rule(READ, STORAGE, ['csidrivers']),
    rule(READ, STORAGE, ['csistoragecapacities']),
  ]),
  clusterRole('system:kubelet-api-admin', [
    rule(READ, CORE, ['nodes']),
    rule(['proxy'], CORE, ['nodes']),
    rule(['*'], CORE, ['nodes/proxy', 'nodes/metrics', 'nodes/stats', 'nodes/log']),
  ]),
  clusterRole('system:monitoring', [
    urls(['get'], ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*']),
  ]),
  clusterRole('system:node', NODE_RULES),
  clusterRole('system:node-bootstrapper', [rule(['create', 'get', 'list', 'watch'], CERTIFICATES, ['certificatesigningrequests'])]),
  clusterRole('system:node-problem-detector', [
    rule(['get'], CORE, ['nodes']),
    rule(['patch'], CORE, ['nodes/status']),
    events(),
  ]),
  clusterRole('system:node-proxier', [
    rule(LIST_WATCH, CORE, ['services', 'endpoints']),
    rule(READ, CORE, ['nodes']),
    events(),
    rule(LIST_WATCH, DISCOVERY, ['endpointslices']),
  ]),
  clusterRole('system:persistent-volume-provisioner', [
    rule(['get', 'list', 'watch', 'create', 'delete'], CORE, ['persistentvolumes']),
    rule(['get', 'list', 'watch', 'update'], CORE, ['persistentvolumeclaims']),
    rule(READ, STORAGE, ['storageclasses']),
    rule(['watch'], CORE, ['events']),
    events(),
  ]),
  clusterRole('system:public-info-viewer', [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])]),
  clusterRole('system:service-account-issuer-discovery', [
    urls(['get'], ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/']),
  ]),
  clusterRole('system:volume-scheduler', [
    rule(READ_UPDATE, CORE, ['persistentvolumes']),
    rule(READ, STORAGE, ['storageclasses']),
    rule(READ_UPDATE, CORE, ['persistentvolumeclaims']),
  ]),
];

// controller_policy.go: one role per kube-controller-manager controller, named system:controller:<name> and bound
// to ServiceAccount kube-system/<name> (--use-service-account-credentials).
const CONTROLLER_RULES: Record<string, PolicyRule[]> = {
  'attachdetach-controller': [
    rule(LIST_WATCH, CORE, ['persistentvolumes', 'persistentvolumeclaims']),
    rule(READ, CORE, ['nodes']),
    rule(PATCH_UPDATE, CORE, ['nodes/status']),
    rule(LIST_WATCH, CORE, ['pods']),
    events(),
    rule(['get', 'create', 'delete', 'list', 'watch'], STORAGE, ['volumeattachments']),
    rule(READ, STORAGE, ['csidrivers']),
    rule(READ, STORAGE, ['csinodes']),
  ],
  'certificate-controller': [
    rule(['get', 'list', 'watch', 'delete'], CERTIFICATES, ['certificatesigningrequests']),
    rule(UPDATE, CERTIFICATES, ['certificatesigningrequests/status', 'certificatesigningrequests/approval']),
    rule(['approve'], CERTIFICATES, ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet']),
    rule(['sign'], CERTIFICATES, ['signers'], ['kubernetes.io/legacy-unknown', 'kubernetes.io/kube-apiserver-client',
      'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving']),
    rule(CREATE, AUTHORIZATION, ['subjectaccessreviews']),
    events(),
  ],
  'clusterrole-aggregation-controller': [
    // escalate: it writes aggregated rules it does not hold itself.
    rule(['escalate', 'get', 'list', 'watch', 'update', 'patch'], RBAC, ['clusterroles']),
  ],
  'cronjob-controller': [
    rule(['get', 'list', 'watch', 'update'], BATCH, ['cronjobs']),
    rule(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], BATCH, ['jobs']),
    rule(UPDATE, BATCH, ['cronjobs/status']),
    rule(UPDATE, BATCH, ['cronjobs/finalizers']),
    rule(['list', 'watch', 'delete'], CORE, ['pods']),
    events(),
  ],
  'daemon-set-controller': [
    rule(READ, APPS_EXTENSIONS, ['daemonsets']),
    rule(UPDATE, APPS_EXTENSIONS, ['daemonsets/status']),
    rule(UPDATE, APPS_EXTENSIONS, ['daemonsets/finalizers']),
    rule(LIST_WATCH, CORE, ['nodes']),
    rule(['list', 'watch', 'create', 'delete', 'patch'], CORE, ['pods']),
    rule(CREATE, CORE, ['pods/binding']),
    rule(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], APPS, ['controllerrevisions']),
    events(),
  ],
  'deployment-controller': [
    rule(['get', 'list', 'watch', 'update'], APPS_EXTENSIONS, ['deployments']),
    rule(UPDATE, APPS_EXTENSIONS, ['deployments/status']),
    rule(UPDATE, APPS_EXTENSIONS, ['deployments/finalizers']),
    rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], APPS_EXTENSIONS, ['replicasets']),
    rule(['get', 'list', 'watch', 'update'], CORE, ['pods']),
    events(),
  ],
  'disruption-controller': [
    rule(READ, APPS_EXTENSIONS, ['deployments']),
    rule(READ, APPS_EXTENSIONS, ['replicasets']),
    rule(READ, CORE, ['replicationcontrollers']),
    rule(READ, POLICY, ['poddisruptionbudgets']),
    rule(READ, APPS, ['statefulsets']),
    rule(UPDATE, POLICY, ['poddisruptionbudgets/status']),
    rule(PATCH_UPDATE, CORE, ['pods/status']),
    rule(['get'], ALL, ['*/scale']),
    events(),
  ],
  'endpoint-controller': [
    rule(READ, CORE, ['services', 'pods']),
    rule(['get', 'list', 'create', 'update', 'delete', 'watch'], CORE, ['endpoints']),
    rule(CREATE, CORE, ['endpoints/restricted']),
    events(),
  ],
  'endpointslice-controller': [
    rule(READ, CORE, ['services', 'pods', 'nodes']),
    // Setting blockOwnerDeletion on a slice's ownerReference to its Service needs services/finalizers.
    rule(UPDATE, CORE, ['services/finalizers']),
    rule(['get', 'list', 'create', 'update', 'delete', 'watch'], DISCOVERY, ['endpointslices']),
    events(),
  ],
  'endpointslicemirroring-controller': [
    rule(READ, CORE, ['services', 'endpoints']),
    rule(UPDATE, CORE, ['services/finalizers']),
    rule(UPDATE, CORE, ['endpoints/finalizers']),
    rule(['get', 'list', 'create', 'update', 'delete', 'watch'], DISCOVERY, ['endpointslices']),
    events(),
  ],
  'ephemeral-volume-controller': [
    rule(READ, CORE, ['pods']),
    rule(UPDATE, CORE, ['pods/finalizers']),
    rule(['get', 'list', 'watch', 'create'], CORE, ['persistentvolumeclaims']),
    events(),
  ],
  'expand-controller': [
    rule(READ_UPDATE, CORE, ['persistentvolumes']),
    rule(PATCH_UPDATE, CORE, ['persistentvolumeclaims/status']),
    rule(READ, CORE, ['persistentvolumeclaims']),
    events(),
    rule(['get'], CORE, ['services']),
  ],
  'generic-garbage-collector': [
    rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], ALL, ['*']),
    events(),
  ],
  'horizontal-pod-autoscaler': [
    rule(READ, AUTOSCALING, ['horizontalpodautoscalers']),
    rule(UPDATE, AUTOSCALING, ['horizontalpodautoscalers/status']),
    rule(['get', 'update'], ALL, ['*/scale']),
    rule(LIST_WATCH, CORE, ['pods']),
    rule(LIST_WATCH, ['metrics.k8s.io'], ['pods']),
    rule(READ, ['custom.metrics.k8s.io'], ['*']),
    rule(READ, ['external.metrics.k8s.io'], ['*']),
    events(),
  ],
  'job-controller': [
    rule(['get', 'list', 'watch', 'update', 'patch'], BATCH, ['jobs']),
    rule(UPDATE, BATCH, ['jobs/status']),
    rule(UPDATE, BATCH, ['jobs/finalizers']),
    rule(['list', 'watch', 'create', 'delete', 'patch'], CORE, ['pods']),
    events(),
  ],
  'legacy-service-account-token-cleaner': [
    rule(['get'], CORE, ['configmaps'], ['kube-apiserver-legacy-service-account-token-tracking']),
    rule(['delete', 'patch'], CORE, ['secrets']),
  ],
  'namespace-controller': [
    rule(['get', 'list', 'watch', 'delete'], CORE, ['namespaces']),
    rule(UPDATE, CORE, ['namespaces/finalize', 'namespaces/status']),
    rule(['get', 'list', 'watch', 'delete', 'deletecollection'], ALL, ['*']),
  ],
  // The node lifecycle controller and, since kube runs it with this ServiceAccount too, taint-based eviction.
  'node-controller': [
    rule(['get', 'list', 'watch', 'update', 'delete', 'patch'], CORE, ['nodes']),
    rule(PATCH_UPDATE, CORE, ['nodes/status']),
    rule(PATCH_UPDATE, CORE, ['pods/status']),
    rule(['list', 'watch', 'get', 'delete'], CORE, ['pods']),
    events(),
  ],
  'persistent-volume-binder': [
    rule(['get', 'list', 'watch', 'update', 'create', 'delete'], CORE, ['persistentvolumes']),
    rule(UPDATE, CORE, ['persistentvolumes/status']),
    rule(['get', 'list', 'watch', 'update'], CORE, ['persistentvolumeclaims']),
    rule(UPDATE, CORE, ['persistentvolumeclaims/status']),
    rule(['list', 'watch', 'get', 'create', 'delete'], CORE, ['pods']),
    rule(READ, STORAGE, ['storageclasses']),
    rule(LIST_WATCH, CORE, ['nodes']),
    events(),
    rule(['watch'], CORE, ['events']),
    rule(['get'], CORE, ['services']),
  ],
  'pod-garbage-collector': [
    rule(['list', 'watch', 'delete'], CORE, ['pods']),
    rule(READ, CORE, ['nodes']),
    rule(['patch'], CORE, ['pods/status']),
  ],
  'pv-protection-controller': [
    rule(['get', 'list', 'watch', 'update'], CORE, ['persistentvolumes']),
    events(),
  ],
  'pvc-protection-controller': [
    rule(['get', 'list', 'watch', 'update'], CORE, ['persistentvolumeclaims']),
    rule(READ, CORE, ['pods']),
    events(),
  ],
  'replicaset-controller': [
    rule(['get', 'list', 'watch', 'update'], APPS_EXTENSIONS, ['replicasets']),
    rule(UPDATE, APPS_EXTENSIONS, ['replicasets/status']),
    rule(UPDATE, APPS_EXTENSIONS, ['replicasets/finalizers']),
    rule(['list', 'watch', 'patch', 'create', 'delete'], CORE, ['pods']),
    events(),
  ],
  'replication-controller': [
    rule(['get', 'list', 'watch', 'update'], CORE, ['replicationcontrollers']),
    rule(UPDATE, CORE, ['replicationcontrollers/status']),
    rule(UPDATE, CORE, ['replicationcontrollers/finalizers']),
    rule(['list', 'watch', 'patch', 'create', 'delete'], CORE, ['pods']),
    events(),
  ],
  'resourcequota-controller': [
    rule(LIST_WATCH, ALL, ['*']),
    rule(UPDATE, CORE, ['resourcequotas/status']),
    events(),
  ],
  'root-ca-cert-publisher': [
    rule(['create', 'update'], CORE, ['configmaps']),
    events(),
  ],
  'route-controller': [
    rule(LIST_WATCH, CORE, ['nodes']),
    rule(['patch'], CORE, ['nodes/status']),
    events(),
  ],
  'service-account-controller': [
    rule(CREATE, CORE, ['serviceaccounts']),
    events(),
  ],
  'service-ca-cert-publisher': [
    rule(['create', 'update'], CORE, ['configmaps']),
    events(),
  ],
  'service-controller': [
    rule(READ, CORE, ['services']),
    rule(PATCH_UPDATE, CORE, ['services/status']),
    rule(LIST_WATCH, CORE, ['nodes']),
    events(),
  ],
  'statefulset-controller': [
    rule(LIST_WATCH, CORE, ['pods']),
    rule(READ, APPS, ['statefulsets']),
    rule(UPDATE, APPS, ['statefulsets/status']),
    rule(UPDATE, APPS, ['statefulsets/finalizers']),
    rule(['get', 'create', 'delete', 'update', 'patch'], CORE, ['pods']),
    rule(['get', 'create', 'delete', 'update', 'patch', 'list', 'watch'], APPS, ['controllerrevisions']),
    rule(['get', 'create', 'list', 'watch'], CORE, ['persistentvolumeclaims']),
    events(),
    // StatefulSetAutoDeletePVC (on by default since 1.27).
    rule(['update', 'delete'], CORE, ['persistentvolumeclaims']),
    rule(UPDATE, CORE, ['pods/finalizers']),
  ],
  'ttl-after-finished-controller': [
    rule(['get', 'list', 'watch', 'delete'], BATCH, ['jobs']),
    events(),
  ],
  'ttl-controller': [
    rule(['update', 'patch', 'list', 'watch'], CORE, ['nodes']),
    events(),
  ],
  'validatingadmissionpolicy-status-controller': [
    rule(READ, ADMISSION, ['validatingadmissionpolicies']),
    rule(['get', 'patch', 'update'], ADMISSION, ['validatingadmissionpolicies/status']),
    events(),
  ],
};

export const CONTROLLER_ROLE_PREFIX = 'system:controller:';

/** kube's bootstrap ClusterRoles, with admin, edit and view still unaggregated (no rules), as kube ships them. */
export const KUBE_CLUSTER_ROLES: readonly BootstrapRole[] = [
  ...AGGREGATED, ...AGGREGATE_TO_ROLES, ...OTHER_CLUSTER_ROLES,
  ...Object.entries(CONTROLLER_RULES).map(([name, rules]) => clusterRole(`${CONTROLLER_ROLE_PREFIX}${name}`, rules)),
];

export const KUBE_CLUSTER_ROLE_BINDINGS: readonly BootstrapBinding[] = [
  clusterRoleBinding('cluster-admin', 'cluster-admin', [group('system:masters')]),
  clusterRoleBinding('system:monitoring', 'system:monitoring', [group('system:monitoring')]),
  clusterRoleBinding('system:discovery', 'system:discovery', [group('system:authenticated')]),
  clusterRoleBinding('system:basic-user', 'system:basic-user', [group('system:authenticated')]),
  clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
  clusterRoleBinding('system:node-proxier', 'system:node-proxier', [user('system:kube-proxy')]),
  clusterRoleBinding('system:kube-controller-manager', 'system:kube-controller-manager', [user('system:kube-controller-manager')]),
  clusterRoleBinding('system:kube-dns', 'system:kube-dns', [serviceAccount('kube-system', 'kube-dns')]),
  clusterRoleBinding('system:kube-scheduler', 'system:kube-scheduler', [user('system:kube-scheduler')]),
  clusterRoleBinding('system:volume-scheduler', 'system:volume-scheduler', [user('system:kube-scheduler')]),
  // Deprecated since the Node authorizer (1.7): kept, without subjects, so that reconciliation can drop them.
  clusterRoleBinding('system:node', 'system:node', []),
  clusterRoleBinding('system:service-account-issuer-discovery', 'system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
  ...Object.keys(CONTROLLER_RULES).map((name) =>
    clusterRoleBinding(`${CONTROLLER_ROLE_PREFIX}${name}`, `${CONTROLLER_ROLE_PREFIX}${name}`, [serviceAccount('kube-system', name)])),
];

// namespace_policy.go: leader election and the bootstrap-token controllers, in kube-system and kube-public.
const LEADER_LOCKING = (component: string) => [
  rule(['watch'], CORE, ['configmaps']),
  rule(['get', 'update'], CORE, ['configmaps'], [component]),
  rule(['get', 'list', 'watch', 'create', 'update'], COORDINATION, ['leases']),
  rule(['get', 'list', 'watch', 'create', 'update'], COORDINATION, ['leasecandidates']),
];

export const KUBE_ROLES: readonly BootstrapRole[] = [
  role('kube-system', 'extension-apiserver-authentication-reader', [rule(READ, CORE, ['configmaps'], ['extension-apiserver-authentication'])]),
  role('kube-system', 'system::leader-locking-kube-controller-manager', LEADER_LOCKING('kube-controller-manager')),
  role('kube-system', 'system::leader-locking-kube-scheduler', LEADER_LOCKING('kube-scheduler')),
  role('kube-system', 'system:controller:bootstrap-signer', [rule(READ, CORE, ['secrets'])]),
  role('kube-system', 'system:controller:cloud-provider', [rule(['create', 'get', 'list', 'watch'], CORE, ['configmaps'])]),
  role('kube-system', 'system:controller:token-cleaner', [rule(['delete', 'get', 'list', 'watch'], CORE, ['secrets']), events()]),
  role('kube-public', 'system:controller:bootstrap-signer', [
    rule(READ, CORE, ['configmaps']),
    rule(UPDATE, CORE, ['configmaps'], ['cluster-info']),
    events(),
  ]),
];

export const KUBE_ROLE_BINDINGS: readonly BootstrapBinding[] = [
  roleBinding('kube-system', 'system::extension-apiserver-authentication-reader', 'extension-apiserver-authentication-reader',
    [user('system:kube-controller-manager'), user('system:kube-scheduler')]),
  roleBinding('kube-system', 'system::leader-locking-kube-controller-manager', 'system::leader-locking-kube-controller-manager',
    [user('system:kube-controller-manager'), serviceAccount('kube-system', 'kube-controller-manager'), serviceAccount('kube-system', 'leader-election-controller')]),
  roleBinding('kube-system', 'system::leader-locking-kube-scheduler', 'system::leader-locking-kube-scheduler',
    [user('system:kube-scheduler'), serviceAccount('kube-system', 'kube-scheduler')]),
  roleBinding('kube-system', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount('kube-system', 'bootstrap-signer')]),
  roleBinding('kube-system', 'system:controller:cloud-provider', 'system:controller:cloud-provider', [serviceAccount('kube-system', 'cloud-provider')]),
  roleBinding('kube-system', 'system:controller:token-cleaner', 'system:controller:token-cleaner', [serviceAccount('kube-system', 'token-cleaner')]),
  roleBinding('kube-public', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount('kube-system', 'bootstrap-signer')]),
];
