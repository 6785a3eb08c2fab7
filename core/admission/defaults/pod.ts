// Canonical layer admission: pod defaulting as kube-apiserver decodes a core/v1 PodSpec, wherever one
// appears (Pod, and the templates of Deployment, ReplicaSet, StatefulSet, DaemonSet, Job). Follows
// kubernetes pkg/apis/core/v1/defaults.go (SetDefaults_PodSpec, _Container, _Probe, _HTTPGetAction,
// _Volume and the volume sources, _ObjectFieldSelector) plus the zero values the Go structs always
// serialize (a container's `resources: {}`, a resourceFieldRef's `divisor: "0"`).

import { fill, fillString, isObject, objects, type Obj } from './fill';

// core/v1 SecretVolumeSourceDefaultMode & co.: 0644.
const DEFAULT_MODE = 0o644;
// core/v1 defaults.go SetDefaults_ServiceAccountTokenProjection: one hour.
const TOKEN_EXPIRATION_SECONDS = 60 * 60;

/**
 * imagePullPolicy as SetDefaults_Container picks it: Always when the reference's tag is "latest" (an
 * untagged, undigested image counts as :latest), IfNotPresent otherwise — including references the
 * docker parser rejects, for which it sees no tag at all.
 */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  return imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
}

function imageTag(image: string): string {
  if (!image) return '';
  const at = image.indexOf('@');
  const named = at >= 0 ? image.slice(0, at) : image;
  const slash = named.indexOf('/');
  // docker reference splitDockerDomain: the first component is a registry when it looks like a host.
  const first = slash >= 0 ? named.slice(0, slash) : '';
  const isDomain = slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase());
  const path = isDomain ? named.slice(slash + 1) : named;
  const colon = path.lastIndexOf(':');
  const repo = colon >= 0 ? path.slice(0, colon) : path;
  if (!repo || repo !== repo.toLowerCase()) return ''; // "repository name must be lowercase": a parse error
  const tag = colon >= 0 ? path.slice(colon + 1) : '';
  if (!tag && at < 0) return 'latest';
  return tag;
}

function probe(p: unknown): void {
  if (!isObject(p)) return;
  for (const [k, v] of [['timeoutSeconds', 1], ['periodSeconds', 10], ['successThreshold', 1], ['failureThreshold', 3]] as const) {
    if (!p[k]) p[k] = v; // Go int32: 0 and unset are the same value
  }
  handler(p);
}

/** ProbeHandler / LifecycleHandler: httpGet gets path "/" and scheme HTTP. */
function handler(h: unknown): void {
  if (!isObject(h) || !isObject(h.httpGet)) return;
  fillString(h.httpGet, { path: '/', scheme: 'HTTP' });
}

function fieldRef(ref: unknown): void {
  if (isObject(ref)) fillString(ref, { apiVersion: 'v1' });
}

function resourceFieldRef(ref: unknown): void {
  if (isObject(ref)) fill(ref, { divisor: '0' });
}

function container(c: Obj): void {
  if (!c.imagePullPolicy) c.imagePullPolicy = defaultPullPolicy(String(c.image ?? ''));
  fillString(c, { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
  fill(c, { resources: {} });
  for (const p of objects(c.ports)) fillString(p, { protocol: 'TCP' });
  for (const e of objects(c.env)) {
    if (!isObject(e.valueFrom)) continue;
    fieldRef(e.valueFrom.fieldRef);
    resourceFieldRef(e.valueFrom.resourceFieldRef);
  }
  probe(c.livenessProbe);
  probe(c.readinessProbe);
  probe(c.startupProbe);
  if (isObject(c.lifecycle)) {
    handler(c.lifecycle.postStart);
    handler(c.lifecycle.preStop);
  }
}

function downwardItems(items: unknown): void {
  for (const item of objects(items)) {
    fieldRef(item.fieldRef);
    resourceFieldRef(item.resourceFieldRef);
  }
}

/** The sources a Volume may name (VolumeSource's fields); none set means an emptyDir. */
const VOLUME_SOURCES = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi',
  'glusterfs', 'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc',
  'azureFile', 'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected',
  'portworxVolume', 'scaleIO', 'storageos', 'csi', 'ephemeral', 'image',
];

function volume(v: Obj): void {
  if (!VOLUME_SOURCES.some((s) => v[s] !== undefined && v[s] !== null)) v.emptyDir = {};
  if (isObject(v.hostPath)) fill(v.hostPath, { type: '' });
  for (const s of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    if (isObject(v[s])) fill(v[s], { defaultMode: DEFAULT_MODE });
  }
  if (isObject(v.downwardAPI)) downwardItems(v.downwardAPI.items);
  if (isObject(v.projected)) {
    for (const source of objects(v.projected.sources)) {
      if (isObject(source.downwardAPI)) downwardItems(source.downwardAPI.items);
      if (isObject(source.serviceAccountToken)) fill(source.serviceAccountToken, { expirationSeconds: TOKEN_EXPIRATION_SECONDS });
    }
  }
  if (isObject(v.iscsi)) fillString(v.iscsi, { iscsiInterface: 'default' });
  if (isObject(v.azureDisk)) {
    fillString(v.azureDisk, { cachingMode: 'ReadWrite', fsType: 'ext4', kind: 'Shared' });
    fill(v.azureDisk, { readOnly: false });
  }
  if (isObject(v.scaleIO)) fillString(v.scaleIO, { storageMode: 'ThinProvisioned', fsType: 'xfs' });
  if (isObject(v.ephemeral) && isObject(v.ephemeral.volumeClaimTemplate)) {
    claimSpec(v.ephemeral.volumeClaimTemplate.spec);
  }
}

/** SetDefaults_PersistentVolumeClaimSpec: a claim mounts a filesystem unless it asks for a block device. */
export function claimSpec(spec: unknown): void {
  if (isObject(spec)) fill(spec, { volumeMode: 'Filesystem' });
}

/** SetDefaults_PodSpec and everything nested in it. */
export function podSpec(spec: unknown): void {
  if (!isObject(spec)) return;
  fillString(spec, { dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', schedulerName: 'default-scheduler' });
  fill(spec, { securityContext: {}, terminationGracePeriodSeconds: 30 });
  for (const c of [...objects(spec.initContainers), ...objects(spec.containers), ...objects(spec.ephemeralContainers)]) {
    container(c);
  }
  for (const v of objects(spec.volumes)) volume(v);
}

/**
 * A pod template (PodTemplateSpec): its spec is defaulted, and its metadata is a Go struct, so kube
 * 1.32 always writes it, with `creationTimestamp: null`.
 */
export function podTemplate(template: unknown): void {
  if (!isObject(template)) return;
  objectMetaZero(template);
  podSpec(template.spec);
}

/** An embedded ObjectMeta (templates): present, with a null creationTimestamp when unset. */
export function objectMetaZero(holder: Obj): void {
  if (!isObject(holder.metadata)) holder.metadata = {};
  if (holder.metadata.creationTimestamp === undefined) holder.metadata.creationTimestamp = null;
}

/**
 * SetDefaults_Pod, which only a Pod gets (not templates): container requests default to their limits,
 * enableServiceLinks is true, and with hostNetwork every container port is also a host port.
 */
export function pod(obj: Obj): void {
  if (!isObject(obj.spec)) obj.spec = {};
  const spec = obj.spec;
  podSpec(spec);
  for (const c of [...objects(spec.initContainers), ...objects(spec.containers)]) {
    const r = c.resources;
    if (isObject(r) && isObject(r.limits)) {
      if (!isObject(r.requests)) r.requests = {};
      for (const [k, v] of Object.entries(r.limits)) if (r.requests[k] === undefined) r.requests[k] = v;
    }
  }
  fill(spec, { enableServiceLinks: true });
  if (spec.hostNetwork === true) {
    for (const c of [...objects(spec.initContainers), ...objects(spec.containers)]) {
      for (const p of objects(c.ports)) if (!p.hostPort) p.hostPort = p.containerPort;
    }
  }
  if (isObject(obj.status) && obj.status.qosClass === undefined) obj.status.qosClass = qosClass(spec);
}

// pkg/apis/core/v1/helper/qos GetPodQOS: only cpu and memory count.
const QOS_RESOURCES = ['cpu', 'memory'];

/**
 * The QoS class the pod strategy records on create: BestEffort with no cpu/memory requests or limits,
 * Guaranteed when every container limits both and requests equal limits, Burstable otherwise.
 */
export function qosClass(spec: Obj): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  let any = false;
  let guaranteed = true;
  for (const c of [...objects(spec.initContainers), ...objects(spec.containers)]) {
    const requests = isObject(c.resources?.requests) ? c.resources.requests : {};
    const limits = isObject(c.resources?.limits) ? c.resources.limits : {};
    for (const r of QOS_RESOURCES) {
      if (requests[r] !== undefined || limits[r] !== undefined) any = true;
      if (limits[r] === undefined || (requests[r] !== undefined && String(requests[r]) !== String(limits[r]))) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
