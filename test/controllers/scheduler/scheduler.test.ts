import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../client/types';
import { RESOURCES } from '../../../controllers/api-client';
import { Scheduler } from '../../../controllers/scheduler/scheduler';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder } from '../fakes';

const node = (name: string): KubeObject => ({
  apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {}, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } },
});

function pod(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', uid: `${name}-uid` }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec }, status: { phase: 'Pending' } };
}

function setup() {
  const clock = new FakeClock();
  const api = new FakeApi();
  const [pods, nodes] = [new FakeInformer(), new FakeInformer()];
  const recorder = new FakeRecorder();
  const s = new Scheduler({ api, pods, nodes, clock, recorder, random: () => 0.5 });
  for (const n of ['node-1', 'node-2']) nodes.add(node(n));
  const put = (p: KubeObject) => {
    pods.add(p);
    api.put(RESOURCES.pods, p);
  };
  return { clock, api, pods, nodes, recorder, s, put };
}

describe('scheduler loop', () => {
  it('binds a pending pod through the binding subresource and records Scheduled', async () => {
    const { api, recorder, s, put } = setup();
    put(pod('a'));
    await s.sync('ns/a');
    const [bind] = api.writes('create');
    expect(bind.resource).toBe('pods/a/binding');
    expect(bind.body).toMatchObject({ kind: 'Binding', metadata: { name: 'a', namespace: 'ns', uid: 'a-uid' }, target: { kind: 'Node' } });
    const target = (bind.body as any).target.name;
    expect(recorder.events).toEqual([{ name: 'a', type: 'Normal', reason: 'Scheduled', message: `Successfully assigned ns/a to ${target}` }]);
    // Assumed: the second pod goes to the other node before the informer shows the first binding.
    put(pod('b'));
    await s.sync('ns/b');
    expect((api.writes('create')[1].body as any).target.name).not.toBe(target);
  });

  it('leaves pods for other schedulers alone', async () => {
    const { api, s, put } = setup();
    put(pod('mine', { schedulerName: 'my-scheduler' }));
    await s.sync('ns/mine');
    expect(api.writes()).toEqual([]);
  });

  it('reports a pod that fits nowhere and retries it when a node is added', async () => {
    const { api, recorder, nodes, s, put, clock } = setup();
    put(pod('big', { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '8' } } }] }));
    await s.sync('ns/big');
    expect(recorder.events[0]).toMatchObject({ reason: 'FailedScheduling', message: '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.' });
    const status = api.writes('patch')[0];
    expect(status.subresource).toBe('status');
    expect((status.body as any).status.conditions[0]).toMatchObject({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' });
    expect(s.pendingUnschedulable()).toBe(1);
    const big = node('node-3');
    (big.status as any).allocatable.cpu = '16';
    nodes.add(big);
    expect(s.queue.len()).toBe(1); // flushed by the node event, before the backoff
    clock.advance(0);
    await s.sync('ns/big');
    expect((api.writes('create')[0].body as any).target.name).toBe('node-3');
    expect(s.pendingUnschedulable()).toBe(0);
  });
});
