// Canonical layer admission: core/v1 defaulting besides pods (kubernetes pkg/apis/core/v1/defaults.go
// SetDefaults_Service, _Namespace, _Secret, _EndpointPort, _NodeStatus) and the zero values the Go
// structs always serialize (a Service's `status.loadBalancer`, an Event's null timestamps).

import { fill, fillString, isObject, objects, type Obj } from './fill';

// core/v1 DefaultClientIPServiceAffinitySeconds: three hours.
const CLIENT_IP_AFFINITY_SECONDS = 10800;
// core/v1 LabelMetadataName: every namespace carries its own name as a label.
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

export function service(obj: Obj): void {
  if (!isObject(obj.spec)) obj.spec = {};
  const spec = obj.spec;
  fillString(spec, { sessionAffinity: 'None' });
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP' && spec.sessionAffinityConfig?.clientIP?.timeoutSeconds == null) {
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: CLIENT_IP_AFFINITY_SECONDS } };
  }
  fillString(spec, { type: 'ClusterIP' });
  for (const p of objects(spec.ports)) {
    fillString(p, { protocol: 'TCP' });
    // An unset targetPort (0 or "") is the port itself.
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  const externallyAccessible = spec.type === 'LoadBalancer' || spec.type === 'NodePort'
    || (spec.type === 'ClusterIP' && Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);
  if (externallyAccessible) fillString(spec, { externalTrafficPolicy: 'Cluster' });
  if (spec.type === 'ClusterIP' || spec.type === 'NodePort' || spec.type === 'LoadBalancer') {
    fill(spec, { internalTrafficPolicy: 'Cluster' });
  }
  if (spec.type === 'LoadBalancer') fill(spec, { allocateLoadBalancerNodePorts: true });
  // ServiceStatus.LoadBalancer is a struct: kube always writes it.
  if (obj.status === undefined || obj.status === null) obj.status = {};
  if (isObject(obj.status)) fill(obj.status, { loadBalancer: {} });
}

/** SetDefaults_Namespace: the name label (namespaces made with generateName have no name yet). */
export function namespace(obj: Obj): void {
  if (!isObject(obj.spec)) obj.spec = {};
  // Namespace strategy PrepareForCreate: the kubernetes finalizer guards content deletion.
  fill(obj.spec, { finalizers: ['kubernetes'] });
  const name = obj.metadata?.name;
  if (name) obj.metadata.labels = { ...(isObject(obj.metadata.labels) ? obj.metadata.labels : {}), [NAMESPACE_NAME_LABEL]: name };
}

export function secret(obj: Obj): void {
  fillString(obj, { type: 'Opaque' });
}

export function endpoints(obj: Obj): void {
  for (const subset of objects(obj.subsets)) for (const p of objects(subset.ports)) fillString(p, { protocol: 'TCP' });
}

/** SetDefaults_NodeStatus: allocatable is capacity unless reported. NodeSpec is a struct, always written. */
export function node(obj: Obj): void {
  fill(obj, { spec: {} });
  const status = obj.status;
  if (isObject(status) && isObject(status.capacity) && status.allocatable == null) status.allocatable = { ...status.capacity };
}

/**
 * core/v1 Event: involvedObject and source are structs, the three timestamps are Go Times written as
 * null when unset, and reportingComponent/reportingInstance have no omitempty.
 */
export function event(obj: Obj): void {
  fill(obj, { involvedObject: {}, source: {} });
  for (const k of ['firstTimestamp', 'lastTimestamp', 'eventTime']) if (obj[k] === undefined) obj[k] = null;
  for (const k of ['reportingComponent', 'reportingInstance']) if (obj[k] === undefined) obj[k] = '';
}

/** coordination/v1 Lease: the spec is a struct. */
export function lease(obj: Obj): void {
  fill(obj, { spec: {} });
}

/**
 * SetDefaults_LimitRangeItem: a Container limit's default is its max, its defaultRequest the default (else the
 * min), each resource only where unset. Empty maps are left out, as omitempty would.
 */
export function limitRange(obj: Obj): void {
  if (!isObject(obj.spec)) obj.spec = {};
  for (const item of objects(obj.spec.limits)) {
    if (item.type !== 'Container') continue;
    const def: Obj = isObject(item.default) ? { ...item.default } : {};
    const req: Obj = isObject(item.defaultRequest) ? { ...item.defaultRequest } : {};
    if (isObject(item.max)) for (const [k, v] of Object.entries(item.max)) if (!(k in def)) def[k] = v;
    for (const [k, v] of Object.entries(def)) if (!(k in req)) req[k] = v;
    if (isObject(item.min)) for (const [k, v] of Object.entries(item.min)) if (!(k in req)) req[k] = v;
    if (Object.keys(def).length) item.default = def;
    if (Object.keys(req).length) item.defaultRequest = req;
  }
}

/**
 * SetDefaults_PersistentVolume: Retain, a filesystem, and the volume source defaults the pod volumes share
 * (hostPath type ""; iSCSI interface "default"); the phase is the store's initial status (Pending).
 */
export function persistentVolume(obj: Obj): void {
  if (!isObject(obj.spec)) obj.spec = {};
  const spec = obj.spec;
  fillString(spec, { persistentVolumeReclaimPolicy: 'Retain' });
  fill(spec, { volumeMode: 'Filesystem' });
  if (isObject(spec.hostPath)) fill(spec.hostPath, { type: '' });
  if (isObject(spec.iscsi)) fillString(spec.iscsi, { iscsiInterface: 'default' });
  if (isObject(spec.rbd)) fillString(spec.rbd, { pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });
}

/** SetDefaults_PersistentVolumeClaimSpec: a filesystem unless a block device is asked for. */
export function persistentVolumeClaim(obj: Obj): void {
  if (!isObject(obj.spec)) obj.spec = {};
  fill(obj.spec, { volumeMode: 'Filesystem' });
  // ResourceRequirements is a struct: always written.
  fill(obj.spec, { resources: {} });
}
