import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { RESOURCES } from '../../controllers/api-client';
import { desiredTaints, evictionTime, NodeLifecycleController } from '../../controllers/node-lifecycle';
import { addDefaultTolerations } from '../../core/pods/default-tolerations';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder } from './fakes';

const T = '2026-01-01T00:00:00Z';

function node(ready: string, o: { taints?: object[]; unschedulable?: boolean } = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'n1', resourceVersion: '3' },
    spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
    status: { conditions: [{ type: 'Ready', status: ready, lastHeartbeatTime: T, lastTransitionTime: T, reason: 'KubeletReady' }, { type: 'MemoryPressure', status: 'False' }] },
  };
}

describe('node taints from conditions', () => {
  it('taints an Unknown node unreachable, a cordoned one unschedulable, and keeps other taints', () => {
    expect(desiredTaints(node('Unknown'), T)).toEqual([
      { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: T },
    ]);
    expect(desiredTaints(node('False'), T).map((t) => t.key)).toEqual(['node.kubernetes.io/not-ready', 'node.kubernetes.io/not-ready']);
    expect(desiredTaints(node('True', { unschedulable: true, taints: [{ key: 'gpu', effect: 'NoSchedule' }] }), T)).toEqual([
      { key: 'gpu', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' },
    ]);
    // Ready again: the managed taints go; an existing NoExecute taint keeps its timeAdded.
    expect(desiredTaints(node('True', { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }] }), T)).toEqual([]);
    const old = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2025-01-01T00:00:00Z' };
    expect(desiredTaints(node('Unknown', { taints: [old] }), T)[1]).toEqual(old);
  });
});

describe('taint eviction time', () => {
  const taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: T };
  const now = Date.parse(T) + 5000;
  it('waits the shortest tolerationSeconds of the tolerations in use, from the taint', () => {
    const p: KubeObject = { metadata: { name: 'p' }, spec: {} };
    addDefaultTolerations(p, 300);
    expect(evictionTime([taint], (p.spec as any).tolerations, now)).toBe(Date.parse(T) + 300_000);
    expect(evictionTime([taint], [{ operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }, { key: taint.key, operator: 'Exists', tolerationSeconds: 60 }], now)).toBe(Date.parse(T) + 10_000);
  });
  it('evicts at once without a toleration, never with one that has no limit, and ignores NoSchedule taints', () => {
    expect(evictionTime([taint], [], now)).toBe(0);
    expect(evictionTime([taint], [{ operator: 'Exists' }], now)).toBeUndefined();
    expect(evictionTime([{ key: 'x', effect: 'NoSchedule' }], [], now)).toBeUndefined();
  });
});

describe('node lifecycle controller', () => {
  function setup() {
    const clock = new FakeClock();
    const api = new FakeApi();
    const [nodes, leases, pods] = [new FakeInformer(), new FakeInformer(), new FakeInformer()];
    const recorder = new FakeRecorder();
    const c = new NodeLifecycleController({ api, evictionApi: api, nodes, leases, pods, clock, recorder, evictionRecorder: recorder, graceMs: 40_000 });
    const n = node('True');
    nodes.add(n);
    api.put(RESOURCES.nodes, n);
    const p: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'ns', uid: 'p1' }, spec: { nodeName: 'node-1' }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } };
    pods.add(p);
    api.put(RESOURCES.pods, p);
    const lease = (renewTime: string): KubeObject => ({ metadata: { name: 'node-1', namespace: 'kube-node-lease' }, spec: { renewTime } });
    leases.add(lease('2026-01-01T00:00:00.000000Z'));
    return { clock, api, c, leases, lease, recorder };
  }

  it('marks a node whose Lease is not renewed for the grace period Unknown, and its pods not ready', async () => {
    const { clock, api, c, recorder } = setup();
    clock.advance(40_000);
    await c.syncNode('node-1');
    expect(api.writes()).toEqual([]); // exactly the grace: not yet
    clock.advance(1);
    await c.syncNode('node-1');
    const status = api.writes('patch', 'nodes').find((w) => w.subresource === 'status')!;
    expect((status.body as any).metadata).toEqual({ resourceVersion: '3' });
    expect((status.body as any).status.conditions.find((x: any) => x.type === 'Ready')).toMatchObject({
      status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastHeartbeatTime: T,
    });
    expect((status.body as any).status.conditions.map((x: any) => x.type)).toEqual(['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']);
    expect(recorder.events).toContainEqual({ name: 'node-1', type: 'Normal', reason: 'NodeNotReady', message: 'Node node-1 status is now: NodeNotReady' });
    expect(recorder.events).toContainEqual({ name: 'web', type: 'Warning', reason: 'NodeNotReady', message: 'Node is not ready' });
    const podPatch = api.writes('patch', 'pods')[0];
    expect((podPatch.body as any).status.conditions).toEqual([expect.objectContaining({ type: 'Ready', status: 'False' })]);
  });

  it('keeps a node whose Lease is renewed', async () => {
    const { clock, api, c, leases, lease } = setup();
    clock.advance(30_000);
    leases.add(lease('2026-01-01T00:00:30.000000Z'));
    clock.advance(30_000);
    await c.syncNode('node-1');
    expect(api.writes()).toEqual([]);
  });
});
