// Protobuf answers: objects as the server stores them encode to bytes the (independently tested) decoder
// reads back to the same JSON, including lists, Status errors and the special types (Time, MicroTime,
// IntOrString, Quantity, bytes, FieldsV1); kinds without a schema are left to JSON.
import { describe, expect, it } from 'vitest';
import { jsonToProtobuf, messageKeyFor } from '../../../core/protobuf/encode';
import { protobufToJson } from '../../../core/protobuf/decode';
import { applyDefaults } from '../../../core/admission/defaults';
import type { KubeObject } from '../../../core/object-meta';

const meta = { name: 'web', namespace: 'shop', uid: '0c6c2a3e-1111-2222-3333-444455556666', resourceVersion: '42', creationTimestamp: '2026-01-02T03:04:05Z', labels: { app: 'web' } };

function roundTrip(obj: Record<string, unknown>): unknown {
  const bytes = jsonToProtobuf(obj);
  expect(bytes).toBeDefined();
  expect([...bytes!.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
  return protobufToJson(bytes!);
}

/**
 * What a Go client holds after decoding: nulls (nil pointers, zero Times) and empty lists are simply absent
 * on the wire, which the decoder renders as absent too.
 */
function onTheWire(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(onTheWire);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v)
    .filter(([, x]) => x !== null && !(Array.isArray(x) && x.length === 0))
    .map(([k, x]) => [k, onTheWire(x)]));
}

function defaulted(obj: Record<string, unknown>): Record<string, unknown> {
  const o = structuredClone(obj) as KubeObject;
  applyDefaults(o);
  return o;
}

describe('jsonToProtobuf', () => {
  it.each([
    ['ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { a: '1', b: '' }, binaryData: { bin: 'AAEC/w==' }, immutable: false }],
    ['Secret', defaulted({ apiVersion: 'v1', kind: 'Secret', metadata: meta, stringData: { p: 'x' } })],
    ['Namespace', defaulted({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', uid: 'u', creationTimestamp: '2026-01-02T03:04:05Z' }, status: { phase: 'Active' } })],
    ['Deployment', defaulted({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { ...meta, generation: 3, annotations: { 'deployment.kubernetes.io/revision': '2' } },
      spec: {
        replicas: 0, selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '500m', memory: '128Mi' } }, livenessProbe: { httpGet: { port: 'http' } } }] } },
      },
      status: { observedGeneration: 3, replicas: 2, conditions: [{ type: 'Available', status: 'True', lastUpdateTime: '2026-01-02T03:04:05Z', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'MinimumReplicasAvailable', message: 'ok' }] },
    })],
    ['Service', defaulted({ apiVersion: 'v1', kind: 'Service', metadata: meta, spec: { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ports: [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'named', port: 81, targetPort: 'web' }] } })],
    ['Job', defaulted({ apiVersion: 'batch/v1', kind: 'Job', metadata: { ...meta }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } })],
    ['Pod with status', defaulted({
      apiVersion: 'v1', kind: 'Pod', metadata: { ...meta, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'u-rs', controller: true, blockOwnerDeletion: true }], deletionTimestamp: '2026-01-02T03:05:00Z', deletionGracePeriodSeconds: 30 },
      spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'a', env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }], tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }] },
      status: { phase: 'Running', podIP: '10.244.1.5', podIPs: [{ ip: '10.244.1.5' }], conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-02T03:04:06Z' }], containerStatuses: [{ name: 'c', image: 'a', imageID: '', ready: true, restartCount: 0, started: true, state: { running: { startedAt: '2026-01-02T03:04:06Z' } } }] },
    })],
    ['Lease with MicroTime', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta, spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2026-01-02T03:04:05.123456Z', leaseTransitions: 0 } }],
    ['Event', defaulted({ reportingComponent: 'kubelet', reportingInstance: 'node-1', apiVersion: 'v1', kind: 'Event', metadata: meta, involvedObject: { kind: 'Pod', name: 'p', namespace: 'shop', uid: 'u' }, reason: 'Started', message: 'started', type: 'Normal', count: 1, firstTimestamp: '2026-01-02T03:04:05Z', lastTimestamp: '2026-01-02T03:04:05Z', source: { component: 'kubelet' } })],
    ['ClusterRoleBinding', defaulted({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'b' }, roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'jane' }] })],
    ['EndpointSlice', defaulted({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: meta, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'n' }], ports: [{ port: 80 }] })],
    ['Scale', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: meta, spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=web' } }],
  ])('%s reads back unchanged', (_name, obj) => {
    expect(roundTrip(obj as Record<string, unknown>)).toEqual(onTheWire(obj));
  });

  it('a list and its ListMeta', () => {
    const list = {
      kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '7', continue: 'abc', remainingItemCount: 0 },
      items: [{ metadata: { name: 'a', namespace: 'shop' }, data: { x: '1' } }, { metadata: { name: 'b', namespace: 'shop' } }],
    };
    expect(messageKeyFor('v1', 'ConfigMapList')).toBe('core/v1.ConfigMapList');
    expect(roundTrip(list)).toEqual(list);
    expect(roundTrip({ kind: 'DeploymentList', apiVersion: 'apps/v1', metadata: { resourceVersion: '1' }, items: [] })).toEqual({ kind: 'DeploymentList', apiVersion: 'apps/v1', metadata: { resourceVersion: '1' } });
    expect(roundTrip({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [{ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } }] })).toMatchObject({ items: [{ spec: { containers: [{ name: 'c', image: 'i' }] } }] });
  });

  it('a Status error with causes and retryAfterSeconds', () => {
    const status = {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'ConfigMap "x" is invalid: data: Invalid value', reason: 'Invalid',
      details: { name: 'x', kind: 'ConfigMap', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value', field: 'data' }], retryAfterSeconds: 1 }, code: 422,
    };
    expect(roundTrip(status)).toEqual(status);
  });

  it('leaves kinds without a schema, and values that do not fit it, to JSON', () => {
    expect(jsonToProtobuf({ apiVersion: 'meta.k8s.io/v1', kind: 'Table', rows: [] })).toBeUndefined();
    expect(jsonToProtobuf({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: {} })).toBeUndefined();
    expect(jsonToProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 7 } })).toBeUndefined();
    expect(jsonToProtobuf({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: {}, spec: { replicas: 1.5 } })).toBeUndefined();
  });

  it('negative and large integers survive', () => {
    const obj = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', generation: 2 ** 40 }, spec: { containers: [], terminationGracePeriodSeconds: -1 } };
    expect(roundTrip(obj)).toEqual(onTheWire(obj));
  });
});
