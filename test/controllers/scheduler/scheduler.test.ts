import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../client/types';
import { ApiError } from '../../../client/types';
import { RESOURCES } from '../../../controllers/api-client';
import { CYCLE_BUDGET, MAX_IN_FLIGHT_WRITES, Scheduler } from '../../../controllers/scheduler/scheduler';
import { MAX_IN_UNSCHEDULABLE_MS, UNSCHEDULABLE_FLUSH_MS } from '../../../controllers/scheduler/scheduling-queue';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder } from '../fakes';

const node = (name: string, extra: { cpu?: string; labels?: Record<string, string> } = {}): KubeObject => ({
  apiVersion: 'v1', kind: 'Node', metadata: { name, labels: extra.labels ?? {} }, spec: {},
  status: { allocatable: { cpu: extra.cpu ?? '4', memory: '8Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: 't0' }] },
});

function pod(name: string, spec: Record<string, unknown> = {}, ns = 'ns'): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, uid: `${name}-uid` }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec }, status: { phase: 'Pending' } };
}

const big = (name: string) => pod(name, { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '8' } } }] });
const picky = (name: string) => pod(name, { nodeSelector: { pool: 'gpu' } });

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
    expect(await s.scheduleOne()).toBe(true);
    const [bind] = api.writes('create');
    expect(bind.resource).toBe('pods/a/binding');
    expect(bind.body).toMatchObject({ kind: 'Binding', metadata: { name: 'a', namespace: 'ns', uid: 'a-uid' }, target: { kind: 'Node' } });
    const target = (bind.body as any).target.name;
    expect(recorder.events).toEqual([{ name: 'a', type: 'Normal', reason: 'Scheduled', message: `Successfully assigned ns/a to ${target}` }]);
    // Assumed: the second pod goes to the other node before the informer shows the first binding.
    put(pod('b'));
    await s.scheduleOne();
    expect((api.writes('create')[1].body as any).target.name).not.toBe(target);
    expect(s.queue.sizes()).toEqual({ active: 0, backoff: 0, unschedulable: 0, inFlight: 0 });
  });

  it('leaves pods for other schedulers alone', async () => {
    const { api, s, put } = setup();
    put(pod('mine', { schedulerName: 'my-scheduler' }));
    expect(await s.scheduleOne()).toBe(false);
    expect(api.writes()).toEqual([]);
  });

  it('parks a pod that fits nowhere and moves it back when a node that fits is added', async () => {
    const { api, recorder, nodes, s, put, clock } = setup();
    put(big('big'));
    await s.scheduleOne();
    expect(recorder.events[0]).toMatchObject({ reason: 'FailedScheduling', message: '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.' });
    const status = api.writes('patch')[0];
    expect(status.subresource).toBe('status');
    expect((status.body as any).status.conditions[0]).toMatchObject({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' });
    expect(s.pendingUnschedulable()).toBe(1);
    nodes.add(node('node-3', { cpu: '16' }));
    expect(s.queue.sizes()).toMatchObject({ unschedulable: 0, backoff: 1 }); // moved by the event, still backing off (1 s)
    clock.advance(1000);
    expect(s.queue.len()).toBe(1);
    await s.scheduleOne();
    expect((api.writes('create')[0].body as any).target.name).toBe('node-3');
    expect(s.pendingUnschedulable()).toBe(0);
  });

  it('is not retried by time alone, nor by events its rejecting plugins ignore, until 5 minutes pass', async () => {
    const { nodes, pods, s, put, clock, recorder } = setup();
    put(big('big'));
    await s.scheduleOne();
    clock.advance(4 * 60_000);
    // A heartbeat, a label change (NodeResourcesFit does not read labels), an unbound pod going away.
    const hb = node('node-1');
    (hb.status as any).conditions[0].lastHeartbeatTime = 't1';
    nodes.add(hb);
    nodes.add(node('node-2', { labels: { zone: 'b' } }));
    put(pod('other'));
    pods.delete(pod('other'));
    // Its own status write (PodScheduled=False) is an update of status only.
    pods.add({ ...big('big'), status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] } });
    expect(s.queue.sizes()).toMatchObject({ active: 0, backoff: 0, unschedulable: 1 });
    clock.advance(MAX_IN_UNSCHEDULABLE_MS - 4 * 60_000 + UNSCHEDULABLE_FLUSH_MS);
    expect(s.queue.len()).toBe(1);
    await s.scheduleOne();
    expect(recorder.events.filter((e) => e.reason === 'FailedScheduling')).toHaveLength(2);
    expect(s.pendingUnschedulable()).toBe(1);
  });

  it('moves back only the parked pods whose rejecting plugins care about the event', async () => {
    const { nodes, pods, s, put, clock, api } = setup();
    put(pod('small'));
    await s.scheduleOne(); // bound to a node
    const bound = { ...pod('small'), spec: { ...(pod('small').spec as object), nodeName: (api.writes('create')[0].body as any).target.name } };
    pods.add(bound);
    put(big('big'));
    put(picky('picky'));
    await s.scheduleOne();
    await s.scheduleOne();
    expect(s.pendingUnschedulable()).toBe(2);
    clock.advance(60_000); // both are past their backoff
    // A bound pod deleted frees room: NodeResourcesFit's pod goes back, NodeAffinity's stays.
    pods.delete(bound);
    expect(s.queue.sizes()).toMatchObject({ active: 1, unschedulable: 1 });
    expect(s.queue.tryPop()!.key).toBe('ns/big');
    // A node relabelled to match the selector: NodeAffinity's pod goes back.
    nodes.add(node('node-2', { labels: { pool: 'gpu' } }));
    expect(s.queue.sizes()).toMatchObject({ active: 1, unschedulable: 0 });
  });

  it('tries a parked pod again when its spec changes', async () => {
    const { s, put, clock } = setup();
    put(picky('picky'));
    await s.scheduleOne();
    clock.advance(2000);
    put({ ...picky('picky'), spec: { ...(picky('picky').spec as object), nodeSelector: {} } });
    expect(s.queue.len()).toBe(1);
    await s.scheduleOne();
    expect(s.pendingUnschedulable()).toBe(0);
  });

  it('takes turns between namespaces', async () => {
    const { s, pods } = setup();
    for (let i = 0; i < 4; i++) pods.add(pod(`flood-${i}`, {}, 'a'));
    pods.add(pod('one', {}, 'b'));
    pods.add(pod('flood-4', {}, 'a'));
    const order = [];
    for (let info = s.queue.tryPop(); info; info = s.queue.tryPop()) order.push(info.key);
    expect(order).toEqual(['a/flood-0', 'b/one', 'a/flood-1', 'a/flood-2', 'a/flood-3', 'a/flood-4']);
  });

  it('backs a pod off when its binding fails, and keeps its node free', async () => {
    const { api, s, put, clock } = setup();
    const create = api.create.bind(api);
    let fail = true;
    const bindings: boolean[] = [];
    api.create = async (r, ns, obj) => {
      if (r.resource.endsWith('/binding')) bindings.push(fail);
      if (fail && r.resource.endsWith('/binding')) throw new ApiError(500, { kind: 'Status', code: 500, message: 'boom' });
      return create(r, ns, obj);
    };
    put(pod('a'));
    await s.scheduleOne();
    expect(s.cache.nodeOf('ns/a')).toBeUndefined();
    expect(s.queue.sizes()).toMatchObject({ backoff: 1, unschedulable: 0 });
    fail = false;
    clock.advance(1000);
    await s.scheduleOne();
    expect(bindings).toEqual([true, false]);
    expect(s.cache.nodeOf('ns/a')).toBeDefined();
  });

  it('parks pods while there are no nodes and tries them when one registers', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    const [pods, nodes] = [new FakeInformer(), new FakeInformer()];
    const recorder = new FakeRecorder();
    const s = new Scheduler({ api, pods, nodes, clock, recorder });
    pods.add(pod('a'));
    await s.scheduleOne();
    expect(recorder.events[0]).toMatchObject({ reason: 'FailedScheduling', message: 'no nodes available to schedule pods' });
    expect(s.pendingUnschedulable()).toBe(1);
    clock.advance(60_000);
    expect(s.queue.len()).toBe(0);
    nodes.add(node('node-1'));
    expect(s.queue.len()).toBe(1);
  });

  it('yields to the event loop every CYCLE_BUDGET of work, with at most MAX_IN_FLIGHT_WRITES API writes outstanding', async () => {
    const { api, s, pods, nodes } = setup();
    for (let i = 3; i <= 128; i++) nodes.add(node(`node-${i}`));
    const release: (() => void)[] = [];
    const create = api.create.bind(api);
    let started = 0;
    api.create = (r, ns, obj) => {
      started++;
      return new Promise((resolve) => release.push(() => resolve(create(r, ns, obj))));
    };
    for (let i = 0; i < 40; i++) pods.add(pod(`p${i}`, {}, `ns${i % 3}`));
    let yields = 0;
    const ticks: (() => void)[] = [];
    (s as any).d.yieldToEventLoop = () => { yields++; return new Promise<void>((r) => ticks.push(r)); };
    const [loop] = s.run(1);
    const settle = async () => { for (let i = 0; i < 50; i++) { await Promise.resolve(); ticks.splice(0).forEach((t) => t()); } };
    await settle();
    expect(release).toHaveLength(MAX_IN_FLIGHT_WRITES);
    // 128 nodes and the fixed share per cycle: a yield every 2 cycles.
    expect(yields).toBe(Math.floor(MAX_IN_FLIGHT_WRITES / Math.ceil(CYCLE_BUDGET / (128 + 8))));
    expect(yields).toBeGreaterThan(0);
    release.splice(0, 1).forEach((r) => r()); // one finishes: one more cycle, one more write
    await settle();
    expect(release).toHaveLength(MAX_IN_FLIGHT_WRITES);
    expect(started).toBe(MAX_IN_FLIGHT_WRITES + 1);
    s.queue.shutDown();
    release.splice(0).forEach((r) => r());
    await settle();
    await loop;
  });
});
