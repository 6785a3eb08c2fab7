// The admission plugins issue 23 still lacked, through the store's write path (core/writes.ts executeWrite with
// env.admission) and as pure checks: DefaultStorageClass, PersistentVolumeClaimResize and the claim update
// validation, NodeRestriction, ResourceQuota on updates, PodSecurity's audit mode and exemptions — kube 1.32's
// behaviour and messages.
import { describe, expect, it } from 'vitest';
import { executeWrite, type WriteRequest, type WriteStore } from '../../../core/writes';
import { lookupGroupResource, type ResourceType } from '../../../core/registry';
import type { KubeObject } from '../../../core/object-meta';
import type { AdmissionInputs } from '../../../core/admission/chain';
import { defaultStorageClass } from '../../../core/admission/plugins/default-storage-class';
import { nodeIdentity, nodeRestriction } from '../../../core/admission/plugins/node-restriction';
import { usageBeyond } from '../../../core/admission/resource-lists';
import { memoryStore } from '../memory-store';
import { statusOf } from '../status-of';

const pvcs = lookupGroupResource('core/persistentvolumeclaims')!;
const pods = lookupGroupResource('core/pods')!;
const nodes = lookupGroupResource('core/nodes')!;
const services = lookupGroupResource('core/services')!;
const leases = lookupGroupResource('coordination.k8s.io/leases')!;

function run(store: WriteStore, req: WriteRequest, inputs: AdmissionInputs, type: ResourceType, extra: { warnings?: string[]; auditAnnotations?: Record<string, string> } = {}) {
  return executeWrite(store, {
    type, now: Date.UTC(2026, 0, 2), newUid: () => 'uid-1', randomSuffix: () => 'x7k2q', admission: { inputs, dryRun: false }, ...extra,
  }, req);
}
const create = (namespace: string, body: unknown): WriteRequest => ({ verb: 'create', namespace, body: JSON.stringify(body) });
const update = (namespace: string, name: string, body: unknown, subresource = ''): WriteRequest => ({ verb: 'update', namespace, name, subresource, body: JSON.stringify(body) });

const sc = (name: string, created: string, extra: Record<string, unknown> = {}, isDefault = true): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', provisioner: 'x',
  metadata: { name, creationTimestamp: created, ...(isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}) }, ...extra,
});
const claim = (name: string, spec: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem', resources: { requests: { storage: '1Gi' } }, ...spec },
});

describe('DefaultStorageClass', () => {
  it('gives a claim without a class the newest default class, and leaves "" and named classes alone', () => {
    const { store } = memoryStore();
    const classes = [sc('old', '2026-01-01T00:00:00Z'), sc('new', '2026-02-01T00:00:00Z'), sc('plain', '2026-03-01T00:00:00Z', {}, false)];
    const inputs = (storageClasses: KubeObject[]): AdmissionInputs => ({ storageClasses, resourceQuotas: [] });
    expect((run(store, create('ns', claim('a')), inputs(classes), pvcs).body as any).spec.storageClassName).toBe('new');
    expect((run(store, create('ns', claim('b', { storageClassName: '' })), inputs(classes), pvcs).body as any).spec.storageClassName).toBe('');
    expect((run(store, create('ns', claim('c', { storageClassName: 'plain' })), inputs(classes), pvcs).body as any).spec.storageClassName).toBe('plain');
    expect((run(store, create('ns', claim('d')), inputs([classes[2]]), pvcs).body as any).spec.storageClassName).toBeUndefined();
    // Same timestamp: the first by name.
    expect(defaultStorageClass([sc('b', '2026-01-01T00:00:00Z'), sc('a', '2026-01-01T00:00:00Z')])!.metadata.name).toBe('a');
  });

  it('fails closed without the class list', () => {
    const { store } = memoryStore();
    expect(statusOf(() => run(store, create('ns', claim('a')), { resourceQuotas: [] }, pvcs)).code).toBe(500);
  });
});

describe('PersistentVolumeClaimResize and claim update validation', () => {
  const bound = (cls: string, storage = '1Gi'): Record<string, any> => ({ ...claim('c', { storageClassName: cls, volumeName: 'pv-1', resources: { requests: { storage } } }), status: { phase: 'Bound', capacity: { storage: '1Gi' } } });
  const seeded = (cls: string) => {
    const m = memoryStore();
    m.objects.set('ns/c', { ...bound(cls), metadata: { name: 'c', namespace: 'ns', resourceVersion: '1', uid: 'u' } } as KubeObject);
    return m;
  };
  const classes = [sc('fixed', '2026-01-01T00:00:00Z', {}, false), sc('grow', '2026-01-01T00:00:00Z', { allowVolumeExpansion: true }, false)];

  it('grows a bound claim whose class allows expansion, refuses otherwise with kube\'s message', () => {
    expect((run(seeded('grow').store, update('ns', 'c', bound('grow', '2Gi')), { storageClasses: classes, resourceQuotas: [] }, pvcs).body as any).spec.resources.requests.storage).toBe('2Gi');
    expect(statusOf(() => run(seeded('fixed').store, update('ns', 'c', bound('fixed', '2Gi')), { storageClasses: classes, resourceQuotas: [] }, pvcs))).toMatchObject({
      code: 403, reason: 'Forbidden',
      message: 'persistentvolumeclaims "c" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    });
  });

  it('refuses growing an unbound claim, and shrinking at or below status.capacity, and other spec changes', () => {
    const m = memoryStore();
    m.objects.set('ns/p', { ...claim('p', { storageClassName: 'grow' }), metadata: { name: 'p', namespace: 'ns', resourceVersion: '1' } } as KubeObject);
    const pending = statusOf(() => run(m.store, update('ns', 'p', claim('p', { storageClassName: 'grow', resources: { requests: { storage: '2Gi' } } })), { storageClasses: classes, resourceQuotas: [] }, pvcs));
    // Validation first: an unbound claim's request is part of the fixed spec.
    expect(pending.message).toBe('PersistentVolumeClaim "p" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims');
    const { store } = seeded('grow');
    expect(statusOf(() => run(store, update('ns', 'c', bound('grow', '512Mi')), { storageClasses: classes, resourceQuotas: [] }, pvcs)).message)
      .toBe('PersistentVolumeClaim "c" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity');
    expect(statusOf(() => run(store, update('ns', 'c', { ...bound('grow'), spec: { ...bound('grow').spec, accessModes: ['ReadWriteMany'] } }), { storageClasses: classes, resourceQuotas: [] }, pvcs)).message)
      .toMatch(/spec: Forbidden: spec is immutable after creation/);
  });
});

describe('NodeRestriction', () => {
  const node1 = { username: 'system:node:node-1', uid: '', groups: ['system:nodes', 'system:authenticated'] };
  const nodeObj: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'n1-uid' } };
  const mirror = (extra: Record<string, unknown> = {}, owner: Record<string, unknown> = { apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'n1-uid', controller: true }) => ({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'static-node-1', annotations: { 'kubernetes.io/config.mirror': 'abc' }, ownerReferences: [owner] },
    spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }], ...extra },
  });
  const inputs = (extra: AdmissionInputs = {}): AdmissionInputs => ({ user: node1, node: nodeObj, serviceAccounts: { default: { metadata: { name: 'default', namespace: 'ns' } } as KubeObject }, priorityClasses: [], limitRanges: [], resourceQuotas: [], namespace: { metadata: { name: 'ns' } }, ...extra });

  it('knows a node by name prefix and group together', () => {
    expect(nodeIdentity(node1)).toBe('node-1');
    expect(nodeIdentity({ ...node1, groups: [] })).toBeUndefined();
    expect(nodeIdentity({ username: 'jane', uid: '', groups: ['system:nodes'] })).toBeUndefined();
  });

  it('lets a node create only mirror pods bound to itself and owned by its Node', () => {
    const { store } = memoryStore();
    expect(run(store, create('ns', mirror()), inputs(), pods).code).toBe(201);
    const refuse = (body: unknown, extra: AdmissionInputs = {}) => statusOf(() => run(memoryStore().store, create('ns', body), inputs(extra), pods)).message;
    const plain = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    expect(refuse(plain)).toBe('pods "p" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node-1" can only create mirror pods');
    expect(refuse(mirror({ nodeName: 'node-2' }))).toBe('pods "static-node-1" is forbidden: node "node-1" can only create pods with spec.nodeName set to itself');
    expect(refuse(mirror({}, { apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'n1-uid' }))).toBe('pods "static-node-1" is forbidden: node "node-1" can only create pods with a controller owner reference set to itself');
    expect(refuse(mirror({}, { apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'other', controller: true }))).toBe('pods "static-node-1" is forbidden: node node-1 UID mismatch: expected other got n1-uid');
    // ServiceAccount admission, before NodeRestriction in kube's order, refuses a mirror pod's secrets first.
    expect(refuse(mirror({ volumes: [{ name: 's', secret: { secretName: 'x' } }] }))).toBe('pods "static-node-1" is forbidden: a mirror pod may not reference secrets');
    expect(refuse(mirror({ volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'x' } }] }))).toBe('pods "static-node-1" is forbidden: node "node-1" can not create pods that reference persistentvolumeclaims');
  });

  it('lets a node update status only of its own pods, and never a pod\'s spec', () => {
    const m = memoryStore();
    const seeded = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', resourceVersion: '1', labels: { a: '1' } }, spec: { nodeName: 'node-2', containers: [{ name: 'c', image: 'nginx' }] } };
    m.objects.set('ns/p', seeded as KubeObject);
    m.objects.set('ns/q', { ...seeded, metadata: { ...seeded.metadata, name: 'q' }, spec: { ...seeded.spec, nodeName: 'node-1' } } as KubeObject);
    expect(statusOf(() => run(m.store, update('ns', 'p', { ...seeded, status: { phase: 'Running' } }, 'status'), inputs(), pods)).message)
      .toBe('pods "p" is forbidden: node "node-1" can only update pod status for pods with spec.nodeName set to itself');
    const q = m.objects.get('ns/q')!;
    expect(run(m.store, update('ns', 'q', { ...q, status: { phase: 'Running' } }, 'status'), inputs(), pods).code).toBe(200);
    expect(statusOf(() => run(m.store, update('ns', 'q', m.objects.get('ns/q')!), inputs(), pods)).message)
      .toBe('pods "q" is forbidden: unexpected operation "UPDATE", node "node-1" can only create and delete mirror pods');
  });

  it('keeps a node to its own Node, its taints and its restricted labels', () => {
    const m = memoryStore();
    const n = (name: string, labels: Record<string, string> = {}, spec: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, spec });
    expect(statusOf(() => run(m.store, create('', n('node-2')), inputs(), nodes)).message).toBe('nodes "node-2" is forbidden: node "node-1" is not allowed to modify node "node-2"');
    expect(statusOf(() => run(m.store, create('', n('node-1', { 'node-restriction.kubernetes.io/pool': 'a', 'kubernetes.io/hostname': 'node-1' })), inputs(), nodes)).message)
      .toBe('nodes "node-1" is forbidden: node "node-1" is not allowed to set the following labels: node-restriction.kubernetes.io/pool');
    expect(run(m.store, create('', n('node-1', { 'kubernetes.io/hostname': 'node-1', 'node.kubernetes.io/exclude-from-external-load-balancers': '' })), inputs(), nodes).code).toBe(201);
    const current = m.objects.get('node-1')!;
    expect(statusOf(() => run(m.store, update('', 'node-1', { ...current, spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } }), inputs(), nodes)).message)
      .toBe('nodes "node-1" is forbidden: node "node-1" is not allowed to modify taints');
    expect(statusOf(() => run(m.store, update('', 'node-1', { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, 'example.k8s.io/x': 'y' } } }), inputs(), nodes)).message)
      .toBe('nodes "node-1" is forbidden: is not allowed to modify labels: example.k8s.io/x');
    expect(run(m.store, update('', 'node-1', { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, team: 'a' } } }), inputs(), nodes).code).toBe(200);
  });

  it('answers deletes, evictions, leases and token requests as kube', () => {
    const attrs = (type: ResourceType, subresource: string, namespace = 'ns', object: Record<string, unknown> = { metadata: {} }) => ({ operation: 'UPDATE' as const, type, namespace, subresource, object: object as KubeObject, dryRun: false });
    const otherPod = { metadata: { name: 'p', uid: 'pu' }, spec: { nodeName: 'node-2' } } as KubeObject;
    const del = () => nodeRestriction(node1, { operation: 'DELETE', name: 'p', attrs: attrs(pods, '') }, { pod: otherPod });
    expect(statusOf(del).message).toBe('pods "p" is forbidden: node "node-1" can only delete pods with spec.nodeName set to itself');
    expect(statusOf(() => nodeRestriction(node1, { operation: 'DELETE', name: 'p', attrs: attrs(pods, '') }, { pod: null })).code).toBe(404);
    expect(statusOf(() => nodeRestriction(node1, { operation: 'CREATE', name: 'p', attrs: attrs(pods, 'eviction') }, { pod: otherPod })).message)
      .toBe('pods "p" is forbidden: node node-1 can only evict pods with spec.nodeName set to itself');
    expect(statusOf(() => nodeRestriction(node1, { operation: 'CREATE', name: 'p', attrs: attrs(pods, 'binding') }, {})).message)
      .toBe('pods "p" is forbidden: unexpected pod subresource "binding", only \'status\' and \'eviction\' are allowed');
    expect(statusOf(() => nodeRestriction(node1, { operation: 'UPDATE', name: 'node-1', attrs: attrs(leases, '', 'default') }, {})).message)
      .toBe('leases.coordination.k8s.io "node-1" is forbidden: can only access leases in the "kube-node-lease" system namespace');
    expect(statusOf(() => nodeRestriction(node1, { operation: 'UPDATE', name: 'node-2', attrs: attrs(leases, '', 'kube-node-lease') }, {})).message)
      .toBe('leases.coordination.k8s.io "node-2" is forbidden: can only access node lease with the same name as the requesting node');
    const sas = lookupGroupResource('core/serviceaccounts')!;
    const token = (ref: Record<string, unknown>) => attrs(sas, 'token', 'ns', { metadata: {}, spec: { boundObjectRef: ref } });
    expect(statusOf(() => nodeRestriction(node1, { operation: 'CREATE', name: 'default', attrs: token({ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'pu' }) }, { pod: otherPod })).message)
      .toBe('serviceaccounts "default" is forbidden: node requested token bound to a pod scheduled on a different node');
    expect(statusOf(() => nodeRestriction(node1, { operation: 'CREATE', name: 'default', attrs: token({ apiVersion: 'v1', kind: 'Pod', name: 'p' }) }, { pod: otherPod })).message)
      .toBe('serviceaccounts "default" is forbidden: node requested token with a pod binding without a uid');
    // Not a node: nothing to check.
    expect(() => nodeRestriction({ username: 'jane', uid: '', groups: [] }, { operation: 'DELETE', name: 'p', attrs: attrs(pods, '') }, { pod: otherPod })).not.toThrow();
  });
});

describe('ResourceQuota on updates', () => {
  const quota = (hard: Record<string, string>, used: Record<string, string>): KubeObject => ({
    apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'ns', resourceVersion: '5' }, spec: { hard }, status: { hard, used },
  });
  const svc = (type: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'ns' }, spec: { type, ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] } });

  it('charges a Service turned NodePort for its ports, and a LoadBalancer, with kube\'s message', () => {
    const m = memoryStore();
    const created = run(m.store, create('ns', svc('ClusterIP')), { resourceQuotas: [] }, services).body as KubeObject;
    const q = quota({ 'services.nodeports': '1', 'services.loadbalancers': '0' }, { 'services.nodeports': '0', 'services.loadbalancers': '0' });
    expect(statusOf(() => run(m.store, update('ns', 's', { ...created, spec: { ...(created as any).spec, type: 'NodePort' } }), { resourceQuotas: [q] }, services)).message)
      .toBe('services "s" is forbidden: exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1');
    // An update that uses nothing more is not checked at all.
    expect(run(m.store, update('ns', 's', { ...created, metadata: { ...created.metadata, labels: { a: 'b' } } }), { resourceQuotas: [q] }, services).code).toBe(200);
  });

  it('charges a claim only its growth', () => {
    expect(usageBeyond({ 'requests.storage': '3Gi', persistentvolumeclaims: '1' }, { 'requests.storage': '1Gi', persistentvolumeclaims: '1' })).toEqual({ 'requests.storage': '2Gi' });
    expect(usageBeyond({ 'requests.storage': '1Gi' }, { 'requests.storage': '3Gi' })).toEqual({});
  });
});

describe('PodSecurity audit and exemptions', () => {
  const ns = (labels: Record<string, string>): KubeObject => ({ metadata: { name: 'ns', labels } });
  const privileged = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] } };
  const base: AdmissionInputs = { serviceAccounts: { default: { metadata: { name: 'default', namespace: 'ns' } } as KubeObject }, priorityClasses: [], limitRanges: [], resourceQuotas: [] };

  it('records audit-violations and enforce-policy on the audit event, without refusing', () => {
    const auditAnnotations: Record<string, string> = {};
    const res = run(memoryStore().store, create('ns', privileged), { ...base, namespace: ns({ 'pod-security.kubernetes.io/audit': 'baseline' }) }, pods, { auditAnnotations });
    expect(res.code).toBe(201);
    expect(auditAnnotations).toEqual({
      'pod-security.kubernetes.io/enforce-policy': 'privileged:latest',
      'pod-security.kubernetes.io/audit-violations': 'would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)',
    });
    const quiet: Record<string, string> = {};
    run(memoryStore().store, create('ns', privileged), { ...base, namespace: ns({}) }, pods, { auditAnnotations: quiet });
    expect(quiet).toEqual({ 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest' });
  });

  it('does not evaluate exempt users, namespaces or runtimeClasses, and says which', () => {
    const restricted = ns({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    const a1: Record<string, string> = {};
    expect(run(memoryStore().store, create('ns', privileged), { ...base, podSecurityExempt: 'user' }, pods, { auditAnnotations: a1 }).code).toBe(201);
    expect(a1).toEqual({ 'pod-security.kubernetes.io/exempt': 'user' });
    const a2: Record<string, string> = {};
    const sandboxed = { ...privileged, spec: { ...privileged.spec, runtimeClassName: 'gvisor' } };
    expect(run(memoryStore().store, create('ns', sandboxed), { ...base, namespace: restricted, podSecurityExemptRuntimeClasses: ['gvisor'] }, pods, { auditAnnotations: a2 }).code).toBe(201);
    expect(a2).toEqual({ 'pod-security.kubernetes.io/exempt': 'runtimeClass' });
    expect(statusOf(() => run(memoryStore().store, create('ns', privileged), { ...base, namespace: restricted, podSecurityExemptRuntimeClasses: ['gvisor'] }, pods)).code).toBe(403);
  });

  it('keeps the annotations on the refusal, for the refused request\'s audit event', () => {
    const both = ns({ 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/audit': 'baseline' });
    let thrown: unknown;
    try {
      run(memoryStore().store, create('ns', privileged), { ...base, namespace: both }, pods, { auditAnnotations: {} });
    } catch (e) {
      thrown = e;
    }
    expect((thrown as { auditAnnotations?: Record<string, string> }).auditAnnotations).toEqual({
      'pod-security.kubernetes.io/enforce-policy': 'restricted:latest',
      'pod-security.kubernetes.io/audit-violations': 'would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)',
    });
  });
});
