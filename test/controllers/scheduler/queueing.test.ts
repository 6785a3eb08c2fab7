import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../client/types';
import { isPodUpdated, NO_NODES, nodeUpdateMatters, worthRequeuing, type RejectorPlugin } from '../../../controllers/scheduler/queueing-hints';
import { backoffDuration, MAX_IN_UNSCHEDULABLE_MS, SchedulingQueue, UNSCHEDULABLE_FLUSH_MS } from '../../../controllers/scheduler/scheduling-queue';
import { FakeClock } from '../fakes';

const node = (name: string, o: { cpu?: string; pods?: string; labels?: Record<string, string>; taints?: object[]; unschedulable?: boolean; heartbeat?: string } = {}): KubeObject => ({
  apiVersion: 'v1', kind: 'Node', metadata: { name, labels: o.labels ?? {} },
  spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
  status: { allocatable: { cpu: o.cpu ?? '4', memory: '8Gi', pods: o.pods ?? '110' }, conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: o.heartbeat ?? 't0' }] },
});
const pod = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', uid: `${name}-uid`, resourceVersion: '1' },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec }, status: { phase: 'Pending' },
});
const cpu = (n: string) => pod('p', { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: n } } }] });
const plugins = (...p: RejectorPlugin[]) => new Set(p);

describe('queueing hints', () => {
  it('ignores node updates no filter reads: heartbeats, conditions, annotations', () => {
    const old = node('n');
    expect(nodeUpdateMatters(old, node('n', { heartbeat: 't1' }))).toBe(false);
    expect(nodeUpdateMatters(old, { ...node('n'), metadata: { name: 'n', labels: {}, annotations: { a: 'b' } } })).toBe(false);
    expect(nodeUpdateMatters(old, node('n', { labels: { zone: 'a' } }))).toBe(true);
    expect(nodeUpdateMatters(old, node('n', { cpu: '8' }))).toBe(true);
    expect(nodeUpdateMatters(old, node('n', { unschedulable: true }))).toBe(true);
    expect(nodeUpdateMatters(old, node('n', { taints: [{ key: 'k', effect: 'NoSchedule' }] }))).toBe(true);
  });

  it('NodeResourcesFit: a node added that could hold the pod, more allocatable it asks for, a bound pod gone', () => {
    const p = cpu('6');
    expect(worthRequeuing(plugins('NodeResourcesFit'), p, { type: 'NodeAdd', node: node('n') })).toBe(false);
    expect(worthRequeuing(plugins('NodeResourcesFit'), p, { type: 'NodeAdd', node: node('n', { cpu: '8' }) })).toBe(true);
    expect(worthRequeuing(plugins('NodeResourcesFit'), p, { type: 'NodeUpdate', old: node('n'), node: node('n', { cpu: '8' }) })).toBe(true);
    expect(worthRequeuing(plugins('NodeResourcesFit'), p, { type: 'NodeUpdate', old: node('n', { cpu: '8' }), node: node('n', { cpu: '8', labels: { a: 'b' } }) })).toBe(false);
    expect(worthRequeuing(plugins('NodeResourcesFit'), pod('p'), { type: 'NodeUpdate', old: node('n', { pods: '1' }), node: node('n', { pods: '2' }) })).toBe(true);
    expect(worthRequeuing(plugins('NodeResourcesFit'), p, { type: 'AssignedPodDelete', pod: pod('gone') })).toBe(true);
    expect(worthRequeuing(plugins('NodeAffinity'), p, { type: 'AssignedPodDelete', pod: pod('gone') })).toBe(false);
  });

  it('NodeAffinity, TaintToleration, NodeUnschedulable: only a change that makes the node pass', () => {
    const picky = pod('p', { nodeSelector: { pool: 'gpu' } });
    const gpu = node('n', { labels: { pool: 'gpu' } });
    expect(worthRequeuing(plugins('NodeAffinity'), picky, { type: 'NodeAdd', node: gpu })).toBe(true);
    expect(worthRequeuing(plugins('NodeAffinity'), picky, { type: 'NodeUpdate', old: node('n'), node: gpu })).toBe(true);
    expect(worthRequeuing(plugins('NodeAffinity'), picky, { type: 'NodeUpdate', old: gpu, node: node('n', { labels: { pool: 'gpu', x: 'y' } }) })).toBe(false);
    const tainted = node('n', { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }] });
    expect(worthRequeuing(plugins('TaintToleration'), pod('p'), { type: 'NodeUpdate', old: tainted, node: node('n') })).toBe(true);
    expect(worthRequeuing(plugins('TaintToleration'), pod('p'), { type: 'NodeUpdate', old: node('n'), node: tainted })).toBe(false);
    expect(worthRequeuing(plugins('NodeUnschedulable'), pod('p'), { type: 'NodeUpdate', old: node('n', { unschedulable: true }), node: node('n') })).toBe(true);
    expect(worthRequeuing(plugins(NO_NODES), pod('p'), { type: 'NodeAdd', node: node('n') })).toBe(true);
    expect(worthRequeuing(plugins(NO_NODES), pod('p'), { type: 'NodeUpdate', old: node('n'), node: gpu })).toBe(false);
  });

  it('isPodUpdated: status, resourceVersion and managedFields do not count; labels and spec do', () => {
    const p = pod('p');
    expect(isPodUpdated(p, { ...p, metadata: { ...p.metadata, resourceVersion: '2', managedFields: [{}] }, status: { phase: 'Pending', conditions: [] } })).toBe(false);
    expect(isPodUpdated(p, { ...p, metadata: { ...p.metadata, labels: { a: 'b' } } })).toBe(true);
    expect(isPodUpdated(p, { ...p, spec: { ...(p.spec as object), nodeSelector: { a: 'b' } } })).toBe(true);
  });
});

describe('scheduling queue', () => {
  it('backs off 1 s doubling per attempt up to 10 s', () => {
    expect([0, 1, 2, 3, 4, 5, 60, 1e9].map(backoffDuration)).toEqual([0, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
  });

  it('flushes pods parked over 5 minutes, oldest first, at the next 30-second check', () => {
    const clock = new FakeClock();
    const q = new SchedulingQueue(clock);
    for (const name of ['a', 'b']) {
      q.add(`ns/${name}`, pod(name));
      q.tryPop();
      q.addUnschedulable(`ns/${name}`, plugins('NodeAffinity'));
      clock.advance(60_000);
    }
    expect(q.sizes()).toMatchObject({ unschedulable: 2, active: 0 });
    clock.advance(MAX_IN_UNSCHEDULABLE_MS - 2 * 60_000 + UNSCHEDULABLE_FLUSH_MS);
    expect(q.sizes()).toMatchObject({ unschedulable: 1, active: 1 });
    expect(q.tryPop()!.key).toBe('ns/a');
    clock.advance(60_000);
    expect(q.tryPop()!.key).toBe('ns/b');
  });

  it('sends a pod that changed while being tried to backoff rather than the pool, and forgets deleted pods', () => {
    const clock = new FakeClock();
    const q = new SchedulingQueue(clock);
    q.add('ns/a', pod('a'));
    const info = q.tryPop()!;
    q.update('ns/a', info.pod, pod('a', { nodeSelector: {} }));
    q.addUnschedulable('ns/a', plugins('NodeAffinity'));
    expect(q.sizes()).toMatchObject({ backoff: 1, unschedulable: 0 });
    q.delete('ns/a');
    clock.advance(10_000);
    expect(q.sizes()).toEqual({ active: 0, backoff: 0, unschedulable: 0, inFlight: 0 });
    expect(q.tryPop()).toBeUndefined();
  });

  it('does not park a pod when an event that may help it came while it was being tried (kube inFlightEvents)', () => {
    const clock = new FakeClock();
    const q = new SchedulingQueue(clock);
    q.add('ns/a', cpu('6'));
    q.add('ns/b', pod('b', { nodeSelector: { pool: 'gpu' } }));
    q.tryPop();
    q.tryPop();
    // While both are in flight, a bound pod goes (room for a): a's cycle will not see it.
    expect(q.moveAll({ type: 'AssignedPodDelete', pod: pod('gone') })).toBe(0);
    q.addUnschedulable('ns/a', plugins('NodeResourcesFit'));
    q.addUnschedulable('ns/b', plugins('NodeAffinity'));
    // a backs off and is tried again; b, whom the event cannot help, is parked.
    expect(q.sizes()).toMatchObject({ backoff: 1, unschedulable: 1, inFlight: 0 });
    clock.advance(10_000);
    expect(q.tryPop()!.key).toBe('ns/a');
    // The events are per flight: tried again and rejected with nothing new, a is parked.
    q.addUnschedulable('ns/a', plugins('NodeResourcesFit'));
    expect(q.sizes()).toMatchObject({ backoff: 0, unschedulable: 2 });
  });

  it('resolves a waiting pop when a pod arrives, and undefined once shut down', async () => {
    const q = new SchedulingQueue(new FakeClock());
    const waiting = q.pop();
    q.add('ns/a', pod('a'));
    expect((await waiting)!.key).toBe('ns/a');
    const next = q.pop();
    q.shutDown();
    expect(await next).toBeUndefined();
  });
});
