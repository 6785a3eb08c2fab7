// Front door and canonical layer: every built-in resource type, as data. Adding a type is one entry;
// routing, discovery, OpenAPI, validation and the store's Durable Object name all read from here.

// 'path': any name usable as a path segment (RBAC objects such as system:basic-user).
export type NameRule = 'dns1123Subdomain' | 'dns1123Label' | 'dns1035Label' | 'path';
export type Subresource =
  | 'status' | 'scale' | 'token' | 'finalize' | 'approval' | 'ephemeralcontainers' | 'binding' | 'eviction'
  | 'log' | 'exec' | 'attach' | 'portforward' | 'proxy';

export interface ResourceType {
  group: string; // '' for the core group
  version: string;
  kind: string;
  resource: string; // plural, as in the URL
  singular: string;
  shortNames: string[];
  namespaced: boolean;
  subresources: Subresource[];
  verbs: string[];
  categories: string[];
  nameRule: NameRule;
  // Type-specific field selectors beyond metadata.name/metadata.namespace: label -> dotted path in the object.
  // Mirrors the field-label conversion funcs in kubernetes pkg/apis/*/v1/conversion.go.
  fieldSelectors: Record<string, string>;
  // metadata.generation is 1 on create and bumps when spec changes (workload types).
  tracksGeneration: boolean;
  // The field whose change bumps metadata.generation, when not `spec` (webhook configurations: `webhooks`).
  generationField?: string;
  // DELETE answers with the deleted object (pods, services) rather than a Success Status.
  returnsDeletedObject: boolean;
  // The status a new object starts with (apiserver PrepareForCreate), e.g. a pod is Pending.
  initialStatus?: Record<string, unknown>;
  // false for the review APIs (SelfSubjectAccessReview, ...): create-only, answered, never stored.
  stored: boolean;
  // A deprecation warning kube adds to every answer (prerelease-lifecycle-gen), e.g. ComponentStatus.
  deprecated?: string;
  // A field selector label whose exact value indexes watchers (apiserver's "trigger" index), e.g. a
  // kubelet watching the pods of its node.
  watchIndexField?: string;
  // A second API over another type's store (events.k8s.io/v1 Event over core/events, autoscaling/v1
  // HorizontalPodAutoscaler over autoscaling/v2's): that store's group/resource.
  viewOf?: string;
  // Set on the types CustomResourceDefinitions define (core/crd/crd-types.ts): schema, columns, scale.
  custom?: import('./crd/crd-types').CustomTypeInfo;
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function type(t: Partial<ResourceType> & Pick<ResourceType, 'group' | 'kind' | 'resource'>): ResourceType {
  return {
    version: 'v1',
    singular: t.kind.toLowerCase(),
    shortNames: [],
    namespaced: true,
    subresources: [],
    verbs: ALL_VERBS,
    categories: [],
    nameRule: 'dns1123Subdomain',
    fieldSelectors: {},
    tracksGeneration: false,
    returnsDeletedObject: false,
    stored: true,
    ...t,
  };
}

const REVIEW: Partial<ResourceType> = { namespaced: false, verbs: ['create'], stored: false };

// The verbs of kube's connect and create-only subresources, and of the read-only ones.
const POD_SUBRESOURCES: Subresource[] = ['attach', 'binding', 'ephemeralcontainers', 'eviction', 'exec', 'log', 'portforward', 'proxy', 'status'];
// Types that hold data only: every verb, no status, nothing served beyond storage.
const CLUSTER: Partial<ResourceType> = { namespaced: false };
const API_EXTENSIONS = ['api-extensions'];

// Kept in the order of kube's discovery documents within each group; groups in kube's /apis priority order.
export const RESOURCE_TYPES: readonly ResourceType[] = [
  type({
    group: '', kind: 'Namespace', resource: 'namespaces', shortNames: ['ns'], namespaced: false,
    subresources: ['finalize', 'status'], nameRule: 'dns1123Label', fieldSelectors: { 'status.phase': 'status.phase' },
    initialStatus: { phase: 'Active' },
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  }),
  type({
    group: '', kind: 'Pod', resource: 'pods', shortNames: ['po'], categories: ['all'], subresources: POD_SUBRESOURCES,
    returnsDeletedObject: true, watchIndexField: 'spec.nodeName', initialStatus: { phase: 'Pending' },
    fieldSelectors: {
      'spec.nodeName': 'spec.nodeName', 'spec.host': 'spec.nodeName', 'spec.restartPolicy': 'spec.restartPolicy',
      'spec.schedulerName': 'spec.schedulerName', 'spec.serviceAccountName': 'spec.serviceAccountName',
      'spec.hostNetwork': 'spec.hostNetwork', 'status.phase': 'status.phase', 'status.podIP': 'status.podIP',
      'status.nominatedNodeName': 'status.nominatedNodeName',
    },
  }),
  type({
    group: '', kind: 'Service', resource: 'services', shortNames: ['svc'], categories: ['all'],
    subresources: ['proxy', 'status'], nameRule: 'dns1035Label', returnsDeletedObject: true,
    fieldSelectors: { 'spec.clusterIP': 'spec.clusterIP', 'spec.type': 'spec.type' },
  }),
  type({ group: '', kind: 'Endpoints', resource: 'endpoints', singular: 'endpoints', shortNames: ['ep'] }),
  type({ group: '', kind: 'ConfigMap', resource: 'configmaps', shortNames: ['cm'] }),
  type({
    group: '', kind: 'Secret', resource: 'secrets',
    fieldSelectors: { type: 'type' },
  }),
  type({
    group: '', kind: 'ServiceAccount', resource: 'serviceaccounts', shortNames: ['sa'], subresources: ['token'],
  }),
  type({
    group: '', kind: 'Node', resource: 'nodes', shortNames: ['no'], namespaced: false, subresources: ['proxy', 'status'],
    fieldSelectors: { 'spec.unschedulable': 'spec.unschedulable' },
  }),
  type({
    group: '', kind: 'Event', resource: 'events', shortNames: ['ev'],
    fieldSelectors: {
      'involvedObject.kind': 'involvedObject.kind', 'involvedObject.namespace': 'involvedObject.namespace',
      'involvedObject.name': 'involvedObject.name', 'involvedObject.uid': 'involvedObject.uid',
      'involvedObject.apiVersion': 'involvedObject.apiVersion',
      'involvedObject.resourceVersion': 'involvedObject.resourceVersion',
      'involvedObject.fieldPath': 'involvedObject.fieldPath', reason: 'reason',
      reportingComponent: 'reportingComponent', source: 'source.component', type: 'type',
    },
  }),
  type({
    group: '', kind: 'ReplicationController', resource: 'replicationcontrollers', shortNames: ['rc'], categories: ['all'],
    subresources: ['scale', 'status'], tracksGeneration: true,
  }),
  type({ group: '', kind: 'PodTemplate', resource: 'podtemplates' }),
  type({ group: '', kind: 'LimitRange', resource: 'limitranges', shortNames: ['limits'] }),
  // PrepareForCreate clears status; the phase is kube's default when it reads the object back (defaults.go).
  type({
    group: '', kind: 'PersistentVolumeClaim', resource: 'persistentvolumeclaims', shortNames: ['pvc'], subresources: ['status'],
    initialStatus: { phase: 'Pending' },
  }),
  type({
    group: '', kind: 'PersistentVolume', resource: 'persistentvolumes', shortNames: ['pv'], ...CLUSTER, subresources: ['status'],
    initialStatus: { phase: 'Pending' },
  }),
  type({ group: '', kind: 'ResourceQuota', resource: 'resourcequotas', shortNames: ['quota'], subresources: ['status'], initialStatus: {} }),
  // POST namespaces/<ns>/bindings: BindingREST (pkg/registry/core/pod/storage), answered over the pods store.
  type({ group: '', kind: 'Binding', resource: 'bindings', verbs: ['create'], stored: false }),
  type({
    group: '', kind: 'ComponentStatus', resource: 'componentstatuses', shortNames: ['cs'], ...CLUSTER, verbs: ['get', 'list'],
    stored: false, deprecated: 'v1 ComponentStatus is deprecated in v1.19+',
  }),
  type({
    group: 'apiregistration.k8s.io', kind: 'APIService', resource: 'apiservices', ...CLUSTER, categories: API_EXTENSIONS,
    subresources: ['status'], initialStatus: {}, nameRule: 'path', // `<version>.<group>`: the core group's is "v1.
  }),
  type({
    group: 'apps', kind: 'Deployment', resource: 'deployments', shortNames: ['deploy'], categories: ['all'],
    subresources: ['scale', 'status'], tracksGeneration: true,
  }),
  type({
    group: 'apps', kind: 'ReplicaSet', resource: 'replicasets', shortNames: ['rs'], categories: ['all'],
    subresources: ['scale', 'status'], tracksGeneration: true,
  }),
  type({
    group: 'apps', kind: 'StatefulSet', resource: 'statefulsets', shortNames: ['sts'], categories: ['all'],
    subresources: ['scale', 'status'], tracksGeneration: true,
  }),
  type({
    group: 'apps', kind: 'DaemonSet', resource: 'daemonsets', shortNames: ['ds'], categories: ['all'],
    subresources: ['status'], tracksGeneration: true,
  }),
  type({ group: 'apps', kind: 'ControllerRevision', resource: 'controllerrevisions' }),
  type({
    group: 'events.k8s.io', kind: 'Event', resource: 'events', shortNames: ['ev'], viewOf: 'core/events',
  }),
  type({ group: 'authentication.k8s.io', kind: 'SelfSubjectReview', resource: 'selfsubjectreviews', ...REVIEW }),
  type({ group: 'authentication.k8s.io', kind: 'TokenReview', resource: 'tokenreviews', ...REVIEW }),
  type({ group: 'authorization.k8s.io', kind: 'SelfSubjectAccessReview', resource: 'selfsubjectaccessreviews', ...REVIEW }),
  type({ group: 'authorization.k8s.io', kind: 'SelfSubjectRulesReview', resource: 'selfsubjectrulesreviews', ...REVIEW }),
  type({ group: 'authorization.k8s.io', kind: 'SubjectAccessReview', resource: 'subjectaccessreviews', ...REVIEW }),
  type({ group: 'authorization.k8s.io', kind: 'LocalSubjectAccessReview', resource: 'localsubjectaccessreviews', ...REVIEW, namespaced: true }),
  // autoscaling/v2 is the storage version (kube 1.32's); v1 is a view converted both ways (core/autoscaling/).
  type({
    group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler', resource: 'horizontalpodautoscalers', shortNames: ['hpa'],
    categories: ['all'], subresources: ['status'], initialStatus: { desiredReplicas: 0 },
  }),
  type({
    group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler', resource: 'horizontalpodautoscalers', shortNames: ['hpa'],
    categories: ['all'], subresources: ['status'], viewOf: 'autoscaling/horizontalpodautoscalers',
  }),
  type({
    group: 'batch', kind: 'Job', resource: 'jobs', categories: ['all'], subresources: ['status'], tracksGeneration: true,
  }),
  type({
    group: 'batch', kind: 'CronJob', resource: 'cronjobs', shortNames: ['cj'], categories: ['all'], subresources: ['status'],
    tracksGeneration: true, initialStatus: {},
  }),
  type({
    group: 'certificates.k8s.io', kind: 'CertificateSigningRequest', resource: 'certificatesigningrequests', shortNames: ['csr'],
    ...CLUSTER, subresources: ['approval', 'status'], initialStatus: {}, fieldSelectors: { 'spec.signerName': 'spec.signerName' },
  }),
  type({
    group: 'networking.k8s.io', kind: 'NetworkPolicy', resource: 'networkpolicies', shortNames: ['netpol'], tracksGeneration: true,
  }),
  type({
    group: 'networking.k8s.io', kind: 'Ingress', resource: 'ingresses', shortNames: ['ing'], subresources: ['status'],
    tracksGeneration: true, initialStatus: { loadBalancer: {} },
  }),
  type({ group: 'networking.k8s.io', kind: 'IngressClass', resource: 'ingressclasses', ...CLUSTER, tracksGeneration: true }),
  type({
    group: 'policy', kind: 'PodDisruptionBudget', resource: 'poddisruptionbudgets', shortNames: ['pdb'], subresources: ['status'],
    tracksGeneration: true, initialStatus: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
  }),
  type({ group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding', resource: 'clusterrolebindings', ...CLUSTER, nameRule: 'path' }),
  type({ group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', resource: 'clusterroles', ...CLUSTER, nameRule: 'path' }),
  type({ group: 'rbac.authorization.k8s.io', kind: 'RoleBinding', resource: 'rolebindings', nameRule: 'path' }),
  type({ group: 'rbac.authorization.k8s.io', kind: 'Role', resource: 'roles', nameRule: 'path' }),
  type({ group: 'storage.k8s.io', kind: 'StorageClass', resource: 'storageclasses', shortNames: ['sc'], ...CLUSTER }),
  type({
    group: 'storage.k8s.io', kind: 'VolumeAttachment', resource: 'volumeattachments', ...CLUSTER, subresources: ['status'],
    initialStatus: { attached: false },
  }),
  type({ group: 'storage.k8s.io', kind: 'CSIDriver', resource: 'csidrivers', ...CLUSTER, tracksGeneration: true }),
  type({ group: 'storage.k8s.io', kind: 'CSINode', resource: 'csinodes', ...CLUSTER }),
  type({ group: 'storage.k8s.io', kind: 'CSIStorageCapacity', resource: 'csistoragecapacities' }),
  type({
    group: 'admissionregistration.k8s.io', kind: 'MutatingWebhookConfiguration', resource: 'mutatingwebhookconfigurations', ...CLUSTER,
    categories: API_EXTENSIONS, tracksGeneration: true, generationField: 'webhooks',
  }),
  type({
    group: 'admissionregistration.k8s.io', kind: 'ValidatingWebhookConfiguration', resource: 'validatingwebhookconfigurations', ...CLUSTER,
    categories: API_EXTENSIONS, tracksGeneration: true, generationField: 'webhooks',
  }),
  type({
    group: 'admissionregistration.k8s.io', kind: 'ValidatingAdmissionPolicy', resource: 'validatingadmissionpolicies', ...CLUSTER,
    categories: API_EXTENSIONS, subresources: ['status'], tracksGeneration: true, initialStatus: {},
  }),
  type({
    group: 'admissionregistration.k8s.io', kind: 'ValidatingAdmissionPolicyBinding', resource: 'validatingadmissionpolicybindings', ...CLUSTER,
    categories: API_EXTENSIONS, tracksGeneration: true,
  }),
  type({
    group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition', resource: 'customresourcedefinitions',
    shortNames: ['crd', 'crds'], categories: API_EXTENSIONS, namespaced: false, subresources: ['status'],
    tracksGeneration: true,
  }),
  type({ group: 'scheduling.k8s.io', kind: 'PriorityClass', resource: 'priorityclasses', shortNames: ['pc'], ...CLUSTER }),
  type({ group: 'coordination.k8s.io', kind: 'Lease', resource: 'leases' }),
  type({ group: 'node.k8s.io', kind: 'RuntimeClass', resource: 'runtimeclasses', ...CLUSTER }),
  type({
    group: 'discovery.k8s.io', kind: 'EndpointSlice', resource: 'endpointslices',
  }),
  type({
    group: 'flowcontrol.apiserver.k8s.io', kind: 'FlowSchema', resource: 'flowschemas', ...CLUSTER, subresources: ['status'],
    tracksGeneration: true, initialStatus: {},
  }),
  type({
    group: 'flowcontrol.apiserver.k8s.io', kind: 'PriorityLevelConfiguration', resource: 'prioritylevelconfigurations', ...CLUSTER,
    subresources: ['status'], tracksGeneration: true, initialStatus: {},
  }),
  // metrics.k8s.io: metrics-server's API, served built in from the simulated kubelets' usage (core/metrics-api),
  // never stored; its APIService comes last in discovery (metrics-server's groupPriorityMinimum is 100).
  type({ group: 'metrics.k8s.io', version: 'v1beta1', kind: 'NodeMetrics', resource: 'nodes', ...CLUSTER, verbs: ['get', 'list'], stored: false }),
  type({ group: 'metrics.k8s.io', version: 'v1beta1', kind: 'PodMetrics', resource: 'pods', verbs: ['get', 'list'], stored: false }),
];

/**
 * Types kube 1.32 serves only when enabled (alpha APIs: `--runtime-config=<group>/<version>=true` with their feature
 * gate), here by the RUNTIME_CONFIG setting (enableApiVersions): off by default, so discovery is kube 1.32's.
 */
export const OPTIONAL_TYPES: readonly ResourceType[] = [
  // admissionregistration.k8s.io/v1alpha1 (feature gate MutatingAdmissionPolicy); no status in v1alpha1.
  type({
    group: 'admissionregistration.k8s.io', version: 'v1alpha1', kind: 'MutatingAdmissionPolicy', resource: 'mutatingadmissionpolicies', ...CLUSTER,
    categories: API_EXTENSIONS, tracksGeneration: true,
  }),
  type({
    group: 'admissionregistration.k8s.io', version: 'v1alpha1', kind: 'MutatingAdmissionPolicyBinding', resource: 'mutatingadmissionpolicybindings', ...CLUSTER,
    categories: API_EXTENSIONS, tracksGeneration: true,
  }),
];

/** The group versions OPTIONAL_TYPES may be enabled by (RUNTIME_CONFIG's known values). */
export const OPTIONAL_API_VERSIONS: readonly string[] = [...new Set(OPTIONAL_TYPES.map((t) => apiVersionOf(t)))];

/** The built-in groups served last, after the CRDs' (their APIServices' group priority is below a CRD's 1000). */
const LOW_PRIORITY_GROUPS = new Set(['metrics.k8s.io']);

/** What discovery says of a subresource: the kind it answers with (group/version when another group's) and its verbs. */
export interface SubresourceInfo {
  kind: string;
  group?: string;
  version?: string;
  verbs: string[];
}

// As kube-apiserver installs them (pkg/registry/*/storage): status-like subresources read and replace the parent;
// connect subresources (exec, attach, portforward: GET and POST; proxy: every method) answer with their options
// kind; binding, eviction and token are create-only, typed by their own request kinds.
const READ_WRITE = ['get', 'patch', 'update'];
const CONNECT = ['create', 'get'];
const PROXY = ['create', 'delete', 'get', 'patch', 'update'];

export function subresourceInfo(t: Pick<ResourceType, 'kind'>, sub: Subresource): SubresourceInfo {
  switch (sub) {
    case 'scale':
      return { kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: READ_WRITE };
    case 'token':
      return { kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1', verbs: ['create'] };
    case 'finalize':
      return { kind: t.kind, verbs: ['update'] };
    case 'binding':
      return { kind: 'Binding', verbs: ['create'] };
    case 'eviction':
      return { kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] };
    case 'log':
      return { kind: t.kind, verbs: ['get'] };
    case 'exec':
      return { kind: 'PodExecOptions', verbs: CONNECT };
    case 'attach':
      return { kind: 'PodAttachOptions', verbs: CONNECT };
    case 'portforward':
      return { kind: 'PodPortForwardOptions', verbs: CONNECT };
    case 'proxy':
      return { kind: `${t.kind}ProxyOptions`, verbs: PROXY };
    default: // status, approval, ephemeralcontainers
      return { kind: t.kind, verbs: READ_WRITE };
  }
}

/** Subresources a client reads or replaces as the parent object (get/update/patch through the store). */
export function isObjectSubresource(sub: string): boolean {
  return sub === 'status' || sub === 'scale' || sub === 'approval' || sub === 'ephemeralcontainers' || sub === 'finalize';
}

/** The types that have a canonical store (enabled optional ones: allStoredTypes). */
export const STORED_TYPES: readonly ResourceType[] = RESOURCE_TYPES.filter((t) => t.stored && !t.viewOf);

// The built-ins served now: RESOURCE_TYPES and the OPTIONAL_TYPES enabled (kept as arrays, replaced on change).
let builtIn: readonly ResourceType[] = RESOURCE_TYPES;
let builtInStored: readonly ResourceType[] = STORED_TYPES;

/** Another served version of a built-in type, over that type's own store (autoscaling/v1 HorizontalPodAutoscaler). */
export function isVersionView(t: ResourceType): boolean {
  return !!t.viewOf && t.viewOf === groupResource(t);
}

// By group/resource, the storage version's entry; by group/version/resource, every built-in.
const byGroupResource = new Map(RESOURCE_TYPES.filter((t) => !isVersionView(t)).map((t) => [groupResource(t), t]));
const byVersion = new Map(RESOURCE_TYPES.map((t) => [`${t.group}/${t.version}/${t.resource}`, t]));

/**
 * Serves the OPTIONAL_TYPES of these group versions (`admissionregistration.k8s.io/v1alpha1`; a `=true` suffix is
 * allowed, `=false` disables), and no others: called with the RUNTIME_CONFIG setting wherever settings are read.
 */
export function enableApiVersions(groupVersions: readonly string[]): void {
  const on = new Set(groupVersions.filter((v) => !/=\s*false$/i.test(v)).map((v) => v.replace(/=.*$/, '').trim()));
  const enabled = OPTIONAL_TYPES.filter((t) => on.has(apiVersionOf(t)));
  const current = builtIn.slice(RESOURCE_TYPES.length);
  if (enabled.length === current.length && enabled.every((t, i) => t === current[i])) return;
  for (const t of current) {
    byGroupResource.delete(groupResource(t));
    byVersion.delete(`${t.group}/${t.version}/${t.resource}`);
  }
  for (const t of enabled) {
    byGroupResource.set(groupResource(t), t);
    byVersion.set(`${t.group}/${t.version}/${t.resource}`, t);
  }
  builtIn = enabled.length ? [...RESOURCE_TYPES, ...enabled] : RESOURCE_TYPES;
  builtInStored = enabled.length ? [...STORED_TYPES, ...enabled.filter((t) => t.stored && !t.viewOf)] : STORED_TYPES;
  if (customTypes.length) setCustomTypes(customTypes);
}

// The types CustomResourceDefinitions define, one entry per served version, replaced as a whole whenever
// this isolate learns a new CRD list (core/crd/registry-sync.ts). Built-ins win every lookup.
let customTypes: readonly ResourceType[] = [];
let customByVersion = new Map<string, ResourceType>();
let customByGroupResource = new Map<string, ResourceType>();

/** Replaces the CRD-defined types; `storage` marks the entry the store and lookupGroupResource use. */
export function setCustomTypes(types: readonly ResourceType[]): void {
  customTypes = types.filter((t) => !byGroupResource.has(groupResource(t)));
  customByVersion = new Map(customTypes.map((t) => [`${t.group}/${t.version}/${t.resource}`, t]));
  customByGroupResource = new Map();
  for (const t of customTypes) {
    if (t.custom?.storage || !customByGroupResource.has(groupResource(t))) customByGroupResource.set(groupResource(t), t);
  }
}

/** Built-in types, then CRD-defined ones. */
export function allResourceTypes(): readonly ResourceType[] {
  return customTypes.length ? [...builtIn, ...customTypes] : builtIn;
}

/** Every stored type: the built-ins' and one (the storage version's) per CRD. */
export function allStoredTypes(): readonly ResourceType[] {
  return customByGroupResource.size ? [...builtInStored, ...customByGroupResource.values()] : builtInStored;
}

/** `core/pods`, `apps/deployments`: the canonical store's Durable Object name. */
export function groupResource(t: Pick<ResourceType, 'group' | 'resource'>): string {
  return `${t.group || 'core'}/${t.resource}`;
}

export function apiVersionOf(t: Pick<ResourceType, 'group' | 'version'>): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

export function lookupType(group: string, version: string, resource: string): ResourceType | undefined {
  if (byGroupResource.has(`${group || 'core'}/${resource}`)) return byVersion.get(`${group}/${version}/${resource}`);
  return customByVersion.get(`${group}/${version}/${resource}`);
}

export function lookupGroupResource(name: string): ResourceType | undefined {
  return byGroupResource.get(name) ?? customByGroupResource.get(name);
}

/** Whether a store name is a built-in type's (so it never waits for the CRD list). */
export function isBuiltInGroupResource(name: string): boolean {
  return byGroupResource.has(name);
}

/** Groups and their versions in a stable order, for /apis discovery: built-in groups first, as kube's priorities put them. */
export function apiGroups(): { name: string; versions: string[] }[] {
  const groups = new Map<string, Set<string>>();
  for (const t of builtIn) {
    if (!t.group || LOW_PRIORITY_GROUPS.has(t.group)) continue;
    if (!groups.has(t.group)) groups.set(t.group, new Set());
    groups.get(t.group)!.add(t.version);
  }
  const custom = new Map<string, string[]>();
  for (const t of customTypes) {
    if (groups.has(t.group)) {
      groups.get(t.group)!.add(t.version);
      continue;
    }
    const vs = custom.get(t.group) ?? [];
    if (!vs.includes(t.version)) vs.push(t.version);
    custom.set(t.group, vs);
  }
  const out = [...groups].map(([name, versions]) => ({ name, versions: [...versions] }));
  const sortedCustom = [...custom].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (const [name, versions] of sortedCustom) out.push({ name, versions: sortVersions(versions) });
  const low = new Map<string, string[]>();
  for (const t of RESOURCE_TYPES) {
    if (!LOW_PRIORITY_GROUPS.has(t.group) || groups.has(t.group) || custom.has(t.group)) continue;
    const vs = low.get(t.group) ?? [];
    if (!vs.includes(t.version)) vs.push(t.version);
    low.set(t.group, vs);
  }
  for (const [name, versions] of low) out.push({ name, versions });
  return out;
}

export function typesInGroupVersion(group: string, version: string): ResourceType[] {
  return allResourceTypes().filter((t) => t.group === group && t.version === version);
}

// apimachinery version.CompareKubeAwareVersionStrings: GA before beta before alpha, higher numbers first,
// then anything that is not a Kubernetes version, alphabetically.
const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
export function sortVersions(versions: string[]): string[] {
  const rank = (v: string): [number, number, number, string] => {
    const m = KUBE_VERSION.exec(v);
    if (!m) return [3, 0, 0, v];
    const stage = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0), v];
  };
  return [...versions].sort((a, b) => {
    const x = rank(a);
    const y = rank(b);
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
    return x[3] < y[3] ? -1 : x[3] > y[3] ? 1 : 0;
  });
}
