// Front door and canonical layer: every built-in resource type, as data. Adding a type is one entry;
// routing, discovery, OpenAPI, validation and the store's Durable Object name all read from here.

// 'path': any name usable as a path segment (RBAC objects such as system:basic-user).
export type NameRule = 'dns1123Subdomain' | 'dns1123Label' | 'dns1035Label' | 'path';
export type Subresource = 'status' | 'scale' | 'token' | 'finalize';

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
  // DELETE answers with the deleted object (pods, services) rather than a Success Status.
  returnsDeletedObject: boolean;
  // The status a new object starts with (apiserver PrepareForCreate), e.g. a pod is Pending.
  initialStatus?: Record<string, unknown>;
  // false for the review APIs (SelfSubjectAccessReview, ...): create-only, answered, never stored.
  stored: boolean;
  // A field selector label whose exact value indexes watchers (apiserver's "trigger" index), e.g. a
  // kubelet watching the pods of its node.
  watchIndexField?: string;
  // A second API over another type's store (events.k8s.io/v1 Event over core/events): that store's group/resource.
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

export const RESOURCE_TYPES: readonly ResourceType[] = [
  type({
    group: '', kind: 'Namespace', resource: 'namespaces', shortNames: ['ns'], namespaced: false,
    subresources: ['finalize', 'status'], nameRule: 'dns1123Label', fieldSelectors: { 'status.phase': 'status.phase' },
    initialStatus: { phase: 'Active' },
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  }),
  type({
    group: '', kind: 'Pod', resource: 'pods', shortNames: ['po'], categories: ['all'], subresources: ['status'],
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
    subresources: ['status'], nameRule: 'dns1035Label', returnsDeletedObject: true,
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
    group: '', kind: 'Node', resource: 'nodes', shortNames: ['no'], namespaced: false, subresources: ['status'],
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
    subresources: ['status', 'scale'], tracksGeneration: true,
  }),
  type({
    group: 'events.k8s.io', kind: 'Event', resource: 'events', shortNames: ['ev'], viewOf: 'core/events',
  }),
  type({
    group: 'apps', kind: 'Deployment', resource: 'deployments', shortNames: ['deploy'], categories: ['all'],
    subresources: ['status', 'scale'], tracksGeneration: true,
  }),
  type({
    group: 'apps', kind: 'ReplicaSet', resource: 'replicasets', shortNames: ['rs'], categories: ['all'],
    subresources: ['status', 'scale'], tracksGeneration: true,
  }),
  type({
    group: 'apps', kind: 'StatefulSet', resource: 'statefulsets', shortNames: ['sts'], categories: ['all'],
    subresources: ['status', 'scale'], tracksGeneration: true,
  }),
  type({
    group: 'apps', kind: 'DaemonSet', resource: 'daemonsets', shortNames: ['ds'], categories: ['all'],
    subresources: ['status'], tracksGeneration: true,
  }),
  type({ group: 'apps', kind: 'ControllerRevision', resource: 'controllerrevisions' }),
  type({
    group: 'batch', kind: 'Job', resource: 'jobs', categories: ['all'], subresources: ['status'], tracksGeneration: true,
  }),
  type({
    group: 'discovery.k8s.io', kind: 'EndpointSlice', resource: 'endpointslices',
  }),
  type({ group: 'coordination.k8s.io', kind: 'Lease', resource: 'leases' }),
  type({ group: 'rbac.authorization.k8s.io', kind: 'Role', resource: 'roles', nameRule: 'path' }),
  type({ group: 'rbac.authorization.k8s.io', kind: 'RoleBinding', resource: 'rolebindings', nameRule: 'path' }),
  type({
    group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', resource: 'clusterroles', namespaced: false,
    nameRule: 'path',
  }),
  type({
    group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding', resource: 'clusterrolebindings', namespaced: false,
    nameRule: 'path',
  }),
  type({
    group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition', resource: 'customresourcedefinitions',
    shortNames: ['crd', 'crds'], categories: ['api-extensions'], namespaced: false, subresources: ['status'],
    tracksGeneration: true,
  }),
  type({ group: 'authentication.k8s.io', kind: 'SelfSubjectReview', resource: 'selfsubjectreviews', ...REVIEW }),
  type({ group: 'authorization.k8s.io', kind: 'SelfSubjectAccessReview', resource: 'selfsubjectaccessreviews', ...REVIEW }),
  type({ group: 'authorization.k8s.io', kind: 'SelfSubjectRulesReview', resource: 'selfsubjectrulesreviews', ...REVIEW }),
];

/** The types that have a canonical store. */
export const STORED_TYPES: readonly ResourceType[] = RESOURCE_TYPES.filter((t) => t.stored && !t.viewOf);

const byGroupResource = new Map(RESOURCE_TYPES.map((t) => [groupResource(t), t]));

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
  return customTypes.length ? [...RESOURCE_TYPES, ...customTypes] : RESOURCE_TYPES;
}

/** Every stored type: the built-ins' and one (the storage version's) per CRD. */
export function allStoredTypes(): readonly ResourceType[] {
  return customByGroupResource.size ? [...STORED_TYPES, ...customByGroupResource.values()] : STORED_TYPES;
}

/** `core/pods`, `apps/deployments`: the canonical store's Durable Object name. */
export function groupResource(t: Pick<ResourceType, 'group' | 'resource'>): string {
  return `${t.group || 'core'}/${t.resource}`;
}

export function apiVersionOf(t: Pick<ResourceType, 'group' | 'version'>): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

export function lookupType(group: string, version: string, resource: string): ResourceType | undefined {
  const t = byGroupResource.get(`${group || 'core'}/${resource}`);
  if (t) return t.version === version ? t : undefined;
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
  for (const t of RESOURCE_TYPES) {
    if (!t.group) continue;
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
