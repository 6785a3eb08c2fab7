// Canonical layer: the objects a store holds from its first start, and what every start reconciles — the system
// namespaces, kube 1.32's bootstrap RBAC policy (core/rbac/bootstrap-policy.ts), the `kubernetes` Service with its
// Endpoints and EndpointSlice, the system PriorityClasses, a default StorageClass, the local APIServices, plus the
// one binding edgeplane's own components need. kube-apiserver does the same at each start (the system namespaces controller and the
// rbac/bootstrap-roles post-start hook): missing objects are created, autoupdate ones completed (core/rbac/reconcile.ts).

import { aggregateAll } from './rbac/aggregation';
import {
  AGGREGATE_TO, AUTOUPDATE_ANNOTATION, BOOTSTRAPPING_LABEL, clusterRoleBinding, group, KUBE_CLUSTER_ROLE_BINDINGS, KUBE_CLUSTER_ROLES, KUBE_ROLE_BINDINGS,
  KUBE_ROLES, type BootstrapBinding, type BootstrapRole,
} from './rbac/bootstrap-policy';
import { reconcileBinding, reconcileRole, type Reconciled } from './rbac/reconcile';
import { SYSTEM_PRIORITY_CLASSES } from './priority-classes';
import { localApiServices } from './apiservices';
import {
  MANDATORY_FLOW_SCHEMAS, MANDATORY_NAMES, MANDATORY_PRIORITY_LEVELS, reconcileFlowControl, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS,
  type FlowSchema, type PriorityLevelConfiguration,
} from './flowcontrol/bootstrap';

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
 * system:aggregated-metrics-reader, as metrics-server's manifests install it beside its APIService: reading
 * metrics.k8s.io, aggregated into view, edit and admin. edgeplane serves metrics.k8s.io built in, so the role ships
 * with it (a bootstrap role: the labels and annotation kube's reconciler keeps up to date).
 */
function metricsReaderRoles(): BootstrapRole[] {
  return [{
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole',
    metadata: {
      name: 'system:aggregated-metrics-reader',
      labels: {
        [BOOTSTRAPPING_LABEL]: 'rbac-defaults', 'k8s-app': 'metrics-server',
        [AGGREGATE_TO('admin')]: 'true', [AGGREGATE_TO('edit')]: 'true', [AGGREGATE_TO('view')]: 'true',
      },
      annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
    },
    rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: ['metrics.k8s.io'], resources: ['nodes', 'pods'] }],
  }];
}

/**
 * kube's ClusterRoles as its aggregation controller leaves them: admin, edit and view hold the rules of the
 * system:aggregate-to-* roles (and of each other: view into edit into admin). Until that controller runs here, roles
 * other than kube's that carry an aggregate-to-* label are not added to them.
 */
export const BOOTSTRAP_CLUSTER_ROLES: readonly BootstrapRole[] = aggregateAll([...KUBE_CLUSTER_ROLES, ...metricsReaderRoles()]);

const SYSTEM_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

const RBAC = 'rbac.authorization.k8s.io';

/**
 * The address the `kubernetes` Service's endpoints name: kube-apiserver's advertise address. edgeplane has no node
 * of its own, so it takes one beside the simulated nodes' (10.0.<i>.1, i ≥ 1) that no node ever gets; port 6443,
 * kube-apiserver's default --secure-port.
 */
export const APISERVER_ADDRESS = '10.0.0.1';
export const APISERVER_PORT = 6443;

// pkg/controlplane/controller/kubernetesservice: the Service in default, with no selector, on 10.96.0.1:443.
const KUBERNETES_SERVICE = {
  metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
  spec: {
    clusterIP: '10.96.0.1',
    ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: APISERVER_PORT }],
    sessionAffinity: 'None', type: 'ClusterIP',
  },
};

// pkg/controlplane/reconcilers (lease reconciler): its Endpoints (never mirrored) and EndpointSlice.
const KUBERNETES_ENDPOINTS = {
  metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
  subsets: [{ addresses: [{ ip: APISERVER_ADDRESS }], ports: [{ name: 'https', port: APISERVER_PORT, protocol: 'TCP' }] }],
};
const KUBERNETES_ENDPOINT_SLICE = {
  metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
  addressType: 'IPv4',
  endpoints: [{ addresses: [APISERVER_ADDRESS], conditions: { ready: true } }],
  ports: [{ name: 'https', port: APISERVER_PORT, protocol: 'TCP' }],
};

/**
 * The default StorageClass a cluster installer adds (kind's `standard`): kube has none of its own. Volumes of it
 * are provisioned by edgeplane's simulated provisioner, bound when a pod using the claim is scheduled.
 */
export const DEFAULT_STORAGE_CLASS = {
  metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
  provisioner: 'edgeplane.dev/simulated',
  reclaimPolicy: 'Delete',
  volumeBindingMode: 'WaitForFirstConsumer',
};

/** Bootstrap objects by store (group/resource). */
export const SEEDS: Record<string, object[]> = {
  'core/namespaces': SYSTEM_NAMESPACES.map((name) => ({ metadata: { name } })),
  [`${RBAC}/clusterroles`]: [...BOOTSTRAP_CLUSTER_ROLES],
  [`${RBAC}/clusterrolebindings`]: [...KUBE_CLUSTER_ROLE_BINDINGS, ...EDGEPLANE_CLUSTER_ROLE_BINDINGS],
  [`${RBAC}/roles`]: [...KUBE_ROLES],
  [`${RBAC}/rolebindings`]: [...KUBE_ROLE_BINDINGS],
  'core/services': [KUBERNETES_SERVICE],
  'core/endpoints': [KUBERNETES_ENDPOINTS],
  'discovery.k8s.io/endpointslices': [KUBERNETES_ENDPOINT_SLICE],
  'scheduling.k8s.io/priorityclasses': SYSTEM_PRIORITY_CLASSES,
  'storage.k8s.io/storageclasses': [DEFAULT_STORAGE_CLASS],
  // kube-aggregator's autoregister controller: a local APIService for every group version served built in.
  'apiregistration.k8s.io/apiservices': localApiServices(),
  // API Priority and Fairness (core/flowcontrol/bootstrap.ts): kube's config-producer post-start hook.
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS],
  'flowcontrol.apiserver.k8s.io/flowschemas': [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS],
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
    else if (groupResource === 'flowcontrol.apiserver.k8s.io/flowschemas') result = reconcileFlowControl(stored, seed as FlowSchema, MANDATORY_NAMES.flowSchemas.has(name));
    else if (groupResource === 'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations') {
      result = reconcileFlowControl(stored, seed as PriorityLevelConfiguration, MANDATORY_NAMES.priorityLevels.has(name));
    } else result = stored === undefined ? { op: 'create', object: seed } : { op: 'none' };
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
