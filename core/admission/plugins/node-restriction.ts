// Core: the NodeRestriction admission plugin as kube 1.32's (plugin/pkg/admission/noderestriction): a kubelet —
// user system:node:<name> in group system:nodes — may write only what belongs to its own node. Pods: create only
// mirror pods (kubernetes.io/config.mirror) bound to itself, controlled by its Node (UID checked), referencing no
// ServiceAccount, Secret, ConfigMap, ClusterTrustBundle or claim; delete, evict and update the status of only pods
// bound to itself, and never their labels through status. Nodes: only its own, without a configSource, with no
// change to its taints and none to node-restriction.kubernetes.io/ or unknown kubernetes.io / k8s.io labels.
// PVCs: status only, capacity and conditions only. Leases: its own in kube-node-lease. CSINodes: its own. Token
// requests: bound to a pod (with uid) on itself. Messages as kube's. Pure: the pod or node a check consults is
// handed over (read by the front door: worker/node-restriction.ts, worker/admission-inputs.ts).

import type { KubeObject } from '../../object-meta';
import type { UserInfo } from '../../rbac/authorize';
import { notFound, StatusError } from '../../status';
import { admissionForbidden, type AdmissionAttributes, type AdmissionPlugin } from '../attributes';
import { sameJson } from '../../object-meta';

type Obj = Record<string, any>;
export type NodeOperation = 'CREATE' | 'UPDATE' | 'DELETE';

const NODE_USER_PREFIX = 'system:node:';
const NODES_GROUP = 'system:nodes';
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const NODE_RESTRICTION_LABELS = 'node-restriction.kubernetes.io';

// kubelet/pkg/apis IsKubeletLabel: the labels a kubelet may set on its Node besides unprefixed ones.
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'topology.kubernetes.io/region', 'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region', 'beta.kubernetes.io/instance-type', 'node.kubernetes.io/instance-type',
  'kubernetes.io/os', 'kubernetes.io/arch', 'beta.kubernetes.io/os', 'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

/** nodeidentifier.NodeIdentity: the node's name when the user is a node (name prefix and group both), else undefined. */
export function nodeIdentity(user: UserInfo | undefined): string | undefined {
  if (!user || !user.username.startsWith(NODE_USER_PREFIX)) return undefined;
  if (!user.groups.includes(NODES_GROUP)) return undefined;
  return user.username.slice(NODE_USER_PREFIX.length);
}

/** What a node's request is about; `name` is the request's (on a create, the object's). */
export interface NodeRequest {
  operation: NodeOperation;
  attrs: AdmissionAttributes; // type, namespace, subresource, object (for a delete: a stand-in), oldObject
  name: string;
}

/** What the checks consult: the pod a delete, eviction or token names; the Node a mirror pod's owner must be. */
export interface NodeLookups {
  /** The existing pod (delete, eviction, token request); null: not found. */
  pod?: KubeObject | null;
  /** The requesting node's Node (mirror pod creates); null: not found. */
  node?: KubeObject | null;
}

/** Which lookups `nodeRestriction` needs for this request (so the front door reads no more than that). */
export function lookupsNeeded(r: Pick<NodeRequest, 'operation' | 'name'> & { type: { group: string; resource: string }; subresource: string }): { pod?: boolean; node?: boolean } {
  const gr = `${r.type.group}/${r.type.resource}`;
  if (gr === '/pods' && r.subresource === '' && r.operation === 'DELETE') return { pod: true };
  if (gr === '/pods' && r.subresource === '' && r.operation === 'CREATE') return { node: true };
  if (gr === '/pods' && r.subresource === 'eviction' && r.operation === 'CREATE') return { pod: true };
  if (gr === '/serviceaccounts' && r.subresource === 'token' && r.operation === 'CREATE') return { pod: true };
  return {};
}

/** Admit: throws kube's refusal when a node may not make this request; a non-node user passes. */
export function nodeRestriction(user: UserInfo | undefined, r: NodeRequest, lookups: NodeLookups): void {
  const node = nodeIdentity(user);
  if (node === undefined) return;
  const a = { ...r.attrs, displayName: r.attrs.displayName ?? (r.name || undefined) };
  const deny = (msg: string) => admissionForbidden(a, msg);
  if (!node) throw deny(`could not determine node from user "${user!.username}"`);
  const gr = `${a.type.group}/${a.type.resource}`;
  switch (gr) {
    case '/pods':
      if (a.subresource === '') return admitPod(node, r, a, lookups, deny);
      if (a.subresource === 'status') return admitPodStatus(node, r, a, deny);
      if (a.subresource === 'eviction') return admitEviction(node, r, a, lookups, deny);
      throw deny(`unexpected pod subresource "${a.subresource}", only 'status' and 'eviction' are allowed`);
    case '/nodes':
      return admitNode(node, r, a, deny);
    case '/persistentvolumeclaims':
      if (a.subresource !== 'status') throw deny('may only update PVC status');
      return admitClaimStatus(node, r, a, deny);
    case '/serviceaccounts':
      if (r.operation !== 'CREATE' || a.subresource !== 'token') return;
      return admitToken(node, a, lookups, deny);
    case 'coordination.k8s.io/leases':
      if (a.namespace !== NODE_LEASE_NAMESPACE) throw deny(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
      if (r.name !== node) throw deny('can only access node lease with the same name as the requesting node');
      return;
    case 'storage.k8s.io/csinodes':
      if (r.name !== node) throw deny('can only access CSINode with the same name as the requesting node');
      return;
    default:
      return;
  }
}

type Deny = (msg: string) => StatusError;

function admitPod(node: string, r: NodeRequest, a: AdmissionAttributes, lookups: NodeLookups, deny: Deny): void {
  if (r.operation === 'DELETE') {
    const pod = lookups.pod as Obj | null | undefined;
    if (!pod) throw new StatusError(notFound({ group: '', resource: 'pods' }, r.name));
    if (pod.spec?.nodeName !== node) throw deny(`node "${node}" can only delete pods with spec.nodeName set to itself`);
    return;
  }
  if (r.operation !== 'CREATE') throw deny(`unexpected operation "${r.operation}", node "${node}" can only create and delete mirror pods`);
  const pod = a.object as Obj;
  const annotations = (pod.metadata?.annotations ?? {}) as Obj;
  if (!(MIRROR_POD_ANNOTATION in annotations)) throw deny(`pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
  if (pod.spec?.nodeName !== node) throw deny(`node "${node}" can only create pods with spec.nodeName set to itself`);
  const owners = Array.isArray(pod.metadata?.ownerReferences) ? pod.metadata.ownerReferences as Obj[] : [];
  if (owners.length > 1) throw deny(`node "${node}" can only create pods with a single owner reference set to itself`);
  if (owners.length === 0) throw deny(`node "${node}" can only create pods with an owner reference set to itself`);
  const owner = owners[0] ?? {};
  if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) throw deny(`node "${node}" can only create pods with an owner reference set to itself`);
  if (owner.controller !== true) throw deny(`node "${node}" can only create pods with a controller owner reference set to itself`);
  if (owner.blockOwnerDeletion === true) throw deny(`node "${node}" must not set blockOwnerDeletion on an owner reference`);
  const nodeObject = lookups.node;
  if (!nodeObject) throw new StatusError(notFound({ group: '', resource: 'nodes' }, node));
  const uid = String(owner.uid ?? '');
  if (uid !== nodeObject.metadata.uid) throw deny(`node ${node} UID mismatch: expected ${uid} got ${nodeObject.metadata.uid ?? ''}`);
  const spec = (pod.spec ?? {}) as Obj;
  if (spec.serviceAccountName) throw deny(`node "${node}" can not create pods that reference a service account`);
  const refs = podReferences(spec);
  if (refs.secrets) throw deny(`node "${node}" can not create pods that reference secrets`);
  if (refs.configMaps) throw deny(`node "${node}" can not create pods that reference configmaps`);
  if (refs.clusterTrustBundles) throw deny(`node "${node}" can not create pods that reference clustertrustbundles`);
  if (refs.claims) throw deny(`node "${node}" can not create pods that reference persistentvolumeclaims`);
}

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x) => x && typeof x === 'object') : []);

// Volume sources whose secretRef / secretName names a Secret (podutil.VisitPodSecretNames).
const SECRET_REF_SOURCES = ['azureFile', 'cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos'];

/** Whether the pod references Secrets, ConfigMaps, ClusterTrustBundles or claims (one pass over it). */
function podReferences(spec: Obj): { secrets: boolean; configMaps: boolean; clusterTrustBundles: boolean; claims: boolean } {
  const out = { secrets: list(spec.imagePullSecrets).some((s) => s.name), configMaps: false, clusterTrustBundles: false, claims: false };
  for (const c of [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)]) {
    for (const e of list(c.envFrom)) {
      if (e.secretRef) out.secrets = true;
      if (e.configMapRef) out.configMaps = true;
    }
    for (const e of list(c.env)) {
      if (e.valueFrom?.secretKeyRef) out.secrets = true;
      if (e.valueFrom?.configMapKeyRef) out.configMaps = true;
    }
  }
  for (const v of list(spec.volumes)) {
    if (v.secret || SECRET_REF_SOURCES.some((k) => v[k]?.secretRef || v[k]?.secretName) || v.csi?.nodePublishSecretRef) out.secrets = true;
    if (v.configMap) out.configMaps = true;
    if (v.persistentVolumeClaim) out.claims = true;
    for (const s of list(v.projected?.sources)) {
      if (s.secret) out.secrets = true;
      if (s.configMap) out.configMaps = true;
      if (s.clusterTrustBundle) out.clusterTrustBundles = true;
    }
  }
  return out;
}

function admitPodStatus(node: string, r: NodeRequest, a: AdmissionAttributes, deny: Deny): void {
  if (r.operation !== 'UPDATE') throw deny(`unexpected operation "${r.operation}"`);
  const old = (a.oldObject ?? {}) as Obj;
  if (old.spec?.nodeName !== node) throw deny(`node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
  const pod = a.object as Obj;
  if (!sameJson(old.metadata?.labels ?? {}, pod.metadata?.labels ?? {})) throw deny(`node "${node}" cannot update labels through pod status`);
  if (!sameClaimStatuses(old.status?.resourceClaimStatuses, pod.status?.resourceClaimStatuses)) throw deny(`node "${node}" cannot update resource claim statues`);
}

function sameClaimStatuses(x: unknown, y: unknown): boolean {
  const a = list(x), b = list(y);
  if (a.length !== b.length) return false;
  return a.every((s, i) => s.name === b[i].name && (s.resourceClaimName ?? null) === (b[i].resourceClaimName ?? null));
}

function admitEviction(node: string, r: NodeRequest, a: AdmissionAttributes, lookups: NodeLookups, deny: Deny): void {
  if (r.operation !== 'CREATE') throw deny(`unexpected operation ${r.operation}`);
  const name = r.name || String((a.object as Obj)?.metadata?.name ?? '');
  if (!name) throw deny('could not determine pod from request data');
  const pod = lookups.pod as Obj | null | undefined;
  if (!pod) throw new StatusError(notFound({ group: '', resource: 'pods' }, name));
  if (pod.spec?.nodeName !== node) throw deny(`node ${node} can only evict pods with spec.nodeName set to itself`);
}

function admitClaimStatus(node: string, r: NodeRequest, a: AdmissionAttributes, deny: Deny): void {
  if (r.operation !== 'UPDATE') throw deny(`unexpected operation "${r.operation}"`);
  const strip = (o: Obj | undefined) => {
    const c = structuredClone(o ?? {}) as Obj;
    if (c.metadata) {
      delete c.metadata.resourceVersion;
      delete c.metadata.managedFields;
    }
    if (c.status) for (const k of ['capacity', 'conditions', 'allocatedResourceStatuses', 'allocatedResources']) delete c.status[k];
    return c;
  };
  if (!sameJson(strip(a.oldObject as Obj), strip(a.object as Obj))) {
    throw deny(`node "${node}" is not allowed to update fields other than status.capacity and status.conditions`);
  }
}

function admitToken(node: string, a: AdmissionAttributes, lookups: NodeLookups, deny: Deny): void {
  const ref = ((a.object as Obj)?.spec?.boundObjectRef ?? undefined) as Obj | undefined;
  if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) throw deny('node requested token not bound to a pod');
  if (!ref.uid) throw deny('node requested token with a pod binding without a uid');
  const pod = lookups.pod;
  if (!pod) throw new StatusError(notFound({ group: '', resource: 'pods' }, String(ref.name)));
  if (ref.uid !== pod.metadata.uid) {
    throw deny(`the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  if ((pod as Obj).spec?.nodeName !== node) throw deny('node requested token bound to a pod scheduled on a different node');
}

function admitNode(node: string, r: NodeRequest, a: AdmissionAttributes, deny: Deny): void {
  if (r.name !== node) throw deny(`node "${node}" is not allowed to modify node "${r.name}"`);
  const obj = (a.object ?? {}) as Obj;
  if (r.operation === 'CREATE') {
    if (obj.spec?.configSource != null) throw deny(`node "${node}" is not allowed to create pods with a non-nil configSource`);
    const forbidden = forbiddenLabels(modifiedLabels(obj.metadata?.labels, undefined));
    if (forbidden.length) throw deny(`node "${node}" is not allowed to set the following labels: ${forbidden.join(', ')}`);
  }
  if (r.operation === 'UPDATE') {
    const old = (a.oldObject ?? {}) as Obj;
    if (obj.spec?.configSource != null && !sameJson(obj.spec.configSource, old.spec?.configSource)) {
      throw deny(`node "${node}" is not allowed to update configSource to a new non-nil configSource`);
    }
    if (!sameTaints(obj.spec?.taints, old.spec?.taints)) throw deny(`node "${node}" is not allowed to modify taints`);
    const forbidden = forbiddenLabels(modifiedLabels(obj.metadata?.labels, old.metadata?.labels));
    if (forbidden.length) throw deny(`is not allowed to modify labels: ${forbidden.join(', ')}`);
  }
}

// apiequality.Semantic.DeepEqual: a nil and an empty list differ; here both mean "no taints" on the wire.
function sameTaints(x: unknown, y: unknown): boolean {
  const a = list(x), b = list(y);
  return sameJson(a, b);
}

/** getModifiedLabels: keys added, removed or changed. */
function modifiedLabels(now: unknown, before: unknown): string[] {
  const a = (now && typeof now === 'object' ? now : {}) as Record<string, unknown>;
  const b = (before && typeof before === 'object' ? before : {}) as Record<string, unknown>;
  const out = new Set<string>();
  for (const k of Object.keys(a)) if (!(k in b) || a[k] !== b[k]) out.add(k);
  for (const k of Object.keys(b)) if (!(k in a) || a[k] !== b[k]) out.add(k);
  return [...out];
}

const labelNamespace = (key: string) => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const underDomain = (ns: string, domain: string) => ns === domain || ns.endsWith(`.${domain}`);

function isKubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.has(key)) return true;
  const ns = labelNamespace(key);
  return KUBELET_LABEL_NAMESPACES.some((d) => underDomain(ns, d));
}

/** getForbiddenLabels, sorted as sets.String.List. */
function forbiddenLabels(modified: string[]): string[] {
  const out: string[] = [];
  for (const key of modified) {
    const ns = labelNamespace(key);
    const kube = underDomain(ns, 'kubernetes.io') || underDomain(ns, 'k8s.io');
    if (underDomain(ns, NODE_RESTRICTION_LABELS) || (kube && !isKubeletLabel(key))) out.push(key);
  }
  return out.sort();
}

/** The plugin in the store's chain: creates and updates (deletes and subresource creates: worker/node-restriction.ts). */
export const nodeRestrictionPlugin: AdmissionPlugin = {
  name: 'NodeRestriction',
  handles: (a) => !a.type.custom,
  admit(a, inputs) {
    if (nodeIdentity(inputs.user) === undefined) return;
    const name = a.operation === 'CREATE' ? String(a.object.metadata?.name ?? '') : String(a.oldObject?.metadata?.name ?? a.object.metadata?.name ?? '');
    nodeRestriction(inputs.user, { operation: a.operation, attrs: a, name }, { node: inputs.node });
  },
};
