import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { DaemonSetController } from '../../controllers/daemonset';
import { dsStatusOf, nodeShouldRun, planDaemonSet, podForNode, targetNode, viewNodes } from '../../controllers/daemonset-plan';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder } from './fakes';

const T0 = '2026-01-01T00:00:00Z';
const NOW = Date.parse(T0);

function ds(spec: Record<string, unknown> = {}, podSpec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'ns', uid: 'ds-uid', generation: 2, resourceVersion: '1' },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'a', image: 'busybox' }], ...podSpec } },
      ...spec,
    },
  };
}

function node(name: string, labels: Record<string, string> = {}, taints: object[] = []): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } }, spec: taints.length ? { taints } : {} };
}

function pod(name: string, nodeName: string, hash: string, opts: { ready?: boolean; phase?: string; created?: string } = {}): KubeObject {
  const ready = opts.ready ?? true;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: 'ns', uid: `${name}-uid`, creationTimestamp: opts.created ?? T0, labels: { app: 'agent', 'controller-revision-hash': hash } },
    spec: { nodeName },
    status: { phase: opts.phase ?? 'Running', conditions: ready ? [{ type: 'Ready', status: 'True', lastTransitionTime: T0 }] : [] },
  };
}

const nodes = [node('n1'), node('n2'), node('n3')];
const names = (ps: KubeObject[]) => ps.map((p) => p.metadata.name).sort();

describe('daemonset node eligibility', () => {
  it('follows nodeSelector, required node affinity and nodeName', () => {
    expect(nodeShouldRun(ds({}, { nodeSelector: { disk: 'ssd' } }), node('n1', { disk: 'ssd' })).shouldRun).toBe(true);
    expect(nodeShouldRun(ds({}, { nodeSelector: { disk: 'ssd' } }), node('n1')).shouldRun).toBe(false);
    const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } };
    expect(nodeShouldRun(ds({}, { affinity }), node('n1', { zone: 'a' })).shouldRun).toBe(true);
    expect(nodeShouldRun(ds({}, { affinity }), node('n1', { zone: 'b' })).shouldRun).toBe(false);
    expect(nodeShouldRun(ds({}, { nodeName: 'n2' }), node('n1')).shouldRun).toBe(false);
  });

  it('keeps off untolerated taints; NoSchedule lets a running pod stay, NoExecute does not; default tolerations apply', () => {
    expect(nodeShouldRun(ds(), node('n1', {}, [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }]))).toEqual({ shouldRun: false, shouldContinueRunning: true });
    expect(nodeShouldRun(ds(), node('n1', {}, [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }]))).toEqual({ shouldRun: false, shouldContinueRunning: false });
    expect(nodeShouldRun(ds({}, { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'x', effect: 'NoSchedule' }] }), node('n1', {}, [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }])).shouldRun).toBe(true);
    expect(nodeShouldRun(ds(), node('n1', {}, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }])).shouldRun).toBe(true);
    expect(nodeShouldRun(ds(), node('n1', {}, [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }])).shouldRun).toBe(false);
    expect(nodeShouldRun(ds({}, { hostNetwork: true }), node('n1', {}, [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }])).shouldRun).toBe(true);
  });

  it('makes a pod pinned to its node by metadata.name matchFields, with the default tolerations', () => {
    const p = podForNode(ds(), 'n2', 'h1');
    expect(targetNode(p)).toBe('n2');
    expect((p.spec as any).affinity).toEqual({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }] } } });
    expect((p.spec as any).tolerations).toHaveLength(6);
    expect(p.metadata).toMatchObject({ generateName: 'agent-', labels: { app: 'agent', 'controller-revision-hash': 'h1', 'pod-template-generation': '2' } });
  });
});

describe('daemonset plan', () => {
  const plan = (d: KubeObject, pods: KubeObject[], hash = 'h1', ns = nodes) => {
    const { views, orphans } = viewNodes(d, ns, pods);
    return planDaemonSet(d, views, orphans, hash, NOW);
  };

  it('creates a pod on each node without one, removes duplicates (oldest stays) and failed pods', () => {
    const p = plan(ds(), [pod('a', 'n1', 'h1', { created: '2025-12-31T00:00:00Z' }), pod('b', 'n1', 'h1'), pod('c', 'n2', 'h1', { phase: 'Failed', ready: false })]);
    expect(p.create.sort()).toEqual(['n2', 'n3']);
    expect(names(p.delete)).toEqual(['b', 'c']);
  });

  it('deletes pods from nodes they may not run on, and pods of nodes that are gone', () => {
    const d = ds({}, { nodeSelector: { disk: 'ssd' } });
    const p = plan(d, [pod('a', 'n1', 'h1'), pod('z', 'gone', 'h1')], 'h1', [node('n1'), node('n2', { disk: 'ssd' })]);
    expect(p.create).toEqual(['n2']);
    expect(names(p.delete)).toEqual(['a', 'z']);
  });

  it('RollingUpdate maxUnavailable 1: replaces one old ready pod at a time, unavailable old pods at once', () => {
    expect(names(plan(ds(), [pod('a', 'n1', 'h0'), pod('b', 'n2', 'h0'), pod('c', 'n3', 'h0')]).delete)).toHaveLength(1);
    expect(plan(ds(), [pod('a', 'n1', 'h1', { ready: false }), pod('b', 'n2', 'h0'), pod('c', 'n3', 'h0')]).delete).toEqual([]);
    expect(names(plan(ds(), [pod('a', 'n1', 'h0', { ready: false }), pod('b', 'n2', 'h0'), pod('c', 'n3', 'h0')]).delete)).toEqual(['a']);
    expect(plan(ds({ updateStrategy: { type: 'OnDelete' } }), [pod('a', 'n1', 'h0'), pod('b', 'n2', 'h0'), pod('c', 'n3', 'h0')]).delete).toEqual([]);
  });

  it('RollingUpdate maxSurge: a new pod next to the old one first, the old one deleted once the new is available', () => {
    const surge = ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } });
    const first = plan(surge, [pod('a', 'n1', 'h0'), pod('b', 'n2', 'h0'), pod('c', 'n3', 'h0')]);
    expect(first).toEqual({ create: ['n1'], delete: [] });
    expect(plan(surge, [pod('a', 'n1', 'h0'), pod('a2', 'n1', 'h1', { ready: false }), pod('b', 'n2', 'h0'), pod('c', 'n3', 'h0')])).toEqual({ create: [], delete: [] });
    expect(names(plan(surge, [pod('a', 'n1', 'h0'), pod('a2', 'n1', 'h1'), pod('b', 'n2', 'h0'), pod('c', 'n3', 'h0')]).delete)).toEqual(['a']);
  });

  it('reports status over the nodes', () => {
    const d = ds({}, { nodeSelector: { role: 'x' } });
    const ns = [node('n1', { role: 'x' }), node('n2', { role: 'x' }), node('n3')];
    const { views } = viewNodes(d, ns, [pod('a', 'n1', 'h1'), pod('b', 'n2', 'h0', { ready: false }), pod('c', 'n3', 'h1')]);
    expect(dsStatusOf(d, views, 'h1', NOW)).toEqual({
      currentNumberScheduled: 2, numberMisscheduled: 1, desiredNumberScheduled: 2, numberReady: 1, observedGeneration: 2,
      updatedNumberScheduled: 1, numberAvailable: 1, numberUnavailable: 1,
    });
  });
});

describe('DaemonSetController', () => {
  it('creates one pod per node once, with events, a ControllerRevision and status', async () => {
    const api = new FakeApi();
    const [daemonSets, pods, nodeInf, revisions] = [new FakeInformer(), new FakeInformer(), new FakeInformer(), new FakeInformer()];
    const recorder = new FakeRecorder();
    const c = new DaemonSetController({ api, daemonSets, pods, nodes: nodeInf, revisions, recorder, clock: new FakeClock() });
    for (const n of nodes) nodeInf.add(n);
    daemonSets.add(ds());
    await c.sync('ns/agent');
    const created = api.writes('create', 'pods').map((w) => targetNode(w.body as KubeObject)).sort();
    expect(created).toEqual(['n1', 'n2', 'n3']);
    expect(recorder.events.map((e) => e.reason)).toEqual(['SuccessfulCreate', 'SuccessfulCreate', 'SuccessfulCreate']);
    const rev = api.writes('create', 'controllerrevisions')[0].body as KubeObject;
    expect(rev.metadata.labels).toMatchObject({ app: 'agent', 'controller-revision-hash': expect.any(String), 'controller.kubernetes.io/hash': expect.any(String) });
    expect((api.writes('update', 'daemonsets')[0].body as any).status).toEqual({
      currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 3, numberReady: 0, observedGeneration: 2, numberUnavailable: 3,
    });
    // Expectations: the informer has not shown the pods, so a second sync creates nothing.
    await c.sync('ns/agent');
    expect(api.writes('create', 'pods')).toHaveLength(3);
  });

  it('stops at the first refused create, still writes status, and fails the sync so the key backs off', async () => {
    const api = new FakeApi();
    const [daemonSets, pods, nodeInf, revisions] = [new FakeInformer(), new FakeInformer(), new FakeInformer(), new FakeInformer()];
    const c = new DaemonSetController({ api, daemonSets, pods, nodes: nodeInf, revisions, recorder: new FakeRecorder(), clock: new FakeClock() });
    for (const n of nodes) nodeInf.add(n);
    daemonSets.add(ds());
    const create = api.create.bind(api);
    let tried = 0;
    api.create = async (r, ns, obj) => {
      if (r.resource === 'pods') {
        tried++;
        throw Object.assign(new Error('exceeded quota'), { code: 403 });
      }
      return create(r, ns, obj);
    };
    await expect(c.sync('ns/agent')).rejects.toThrow('exceeded quota');
    expect(tried).toBe(1); // slow start: the first batch is one pod
    expect(api.writes('update', 'daemonsets')).toHaveLength(1);
    expect(c.expectations.satisfied('ns/agent')).toBe(true); // nothing left to wait for: the retry may try again
  });
});
