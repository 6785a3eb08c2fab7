// Simulated kubelets' static pods: mirror pods created, replaced, removed and brought back as kube's kubelet does.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { ApiError } from '../../client/types';
import { StaticPods } from '../../controllers/kubelet/static-pods';
import type { StaticPodSource } from '../../controllers/kubelet/static-pod-source';
import { FakeApi, FakeClock, FakeInformer } from './fakes';

const manifest = (image = 'nginx', name = 'web') => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: kube-system}
spec:
  containers: [{name: c, image: ${image}}]
`;

function setup(opts: { nodes?: string[]; registered?: string[]; all?: string[] } = {}) {
  const clock = new FakeClock();
  const api = new FakeApi();
  const pods = new FakeInformer();
  const nodes = new FakeInformer();
  const callers: string[] = [];
  const logs: string[] = [];
  const src = { text: manifest(), fail: undefined as string | undefined, reads: 0 };
  const source: StaticPodSource = {
    kind: 'http', location: 'http://manifests/',
    read: async () => {
      src.reads++;
      if (src.fail) throw new Error(src.fail);
      return src.text;
    },
  };
  for (const n of opts.registered ?? ['node-1', 'node-2']) nodes.add({ apiVersion: 'v1', kind: 'Node', metadata: { name: n, uid: `uid-${n}` } });
  const sp = new StaticPods({
    apiFor: (n) => { callers.push(n); return api; }, pods, nodes, clock, nodeNames: opts.nodes ?? ['node-1', 'node-2'], allNodes: opts.all, source, checkMs: 20_000,
    log: (l) => logs.push(l),
  });
  // What the API created shows up in the informer, with a uid.
  const show = () => {
    for (const [k, o] of api.objects) if (k.startsWith('pods/') && !pods.get(`${o.metadata.namespace}/${o.metadata.name}`)) pods.add(o);
  };
  const drain = async () => {
    for (let i = 0; i < 20 && sp.queue.len() > 0; i++) {
      const key = await sp.queue.get();
      await sp.sync(key!);
      sp.queue.done(key!);
    }
  };
  return { clock, api, pods, nodes, callers, logs, src, sp, show, drain };
}

const creates = (api: FakeApi) => api.writes('create', 'pods').map((c) => c.body as any);
const deletes = (api: FakeApi) => api.writes('delete', 'pods').map((c) => `${c.namespace}/${c.name} grace=${c.options?.gracePeriodSeconds} uid=${c.options?.preconditions?.uid}`);

describe('static pods', () => {
  it('publishes one mirror pod per node, as that node, named <name>-<node>, annotated and owned by the Node', async () => {
    const { api, callers, sp, drain } = setup();
    await sp.poll();
    await drain();
    const made = creates(api);
    expect(made.map((p) => p.metadata.name).sort()).toEqual(['web-node-1', 'web-node-2']);
    expect(callers.sort()).toEqual(['node-1', 'node-2']);
    const one = made.find((p) => p.metadata.name === 'web-node-1');
    expect(one.metadata.namespace).toBe('kube-system');
    expect(one.spec.nodeName).toBe('node-1');
    expect(one.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'uid-node-1', controller: true }]);
    const a = one.metadata.annotations;
    expect(a['kubernetes.io/config.mirror']).toBe(a['kubernetes.io/config.hash']);
    expect(a['kubernetes.io/config.source']).toBe('http');
    expect(a['kubernetes.io/config.seen']).toBe('2026-01-01T00:00:00Z');
  });

  it('runs only on the nodes named, and waits for a Node to register', async () => {
    const { api, nodes, sp, drain } = setup({ nodes: ['node-2'], registered: [] });
    await sp.poll();
    await drain();
    expect(creates(api)).toEqual([]);
    nodes.add({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-2', uid: 'u2' } });
    await drain();
    expect(creates(api).map((p) => p.metadata.name)).toEqual(['web-node-2']);
  });

  it('replaces the mirror pod when the manifest changes: deleted with grace 0 and its UID, then created anew', async () => {
    const { api, pods, src, sp, show, drain } = setup({ nodes: ['node-1'] });
    await sp.poll();
    await drain();
    show();
    await drain();
    expect(api.writes()).toHaveLength(1); // in place and current: nothing more
    const first = pods.get('kube-system/web-node-1')!;
    src.text = manifest('nginx:2');
    await sp.poll();
    await drain();
    expect(deletes(api)).toEqual([`kube-system/web-node-1 grace=0 uid=${first.metadata.uid}`]);
    pods.delete(first);
    await drain();
    const made = creates(api);
    expect(made).toHaveLength(2);
    expect(made[1].spec.containers[0].image).toBe('nginx:2');
    expect(made[1].metadata.annotations['kubernetes.io/config.mirror']).not.toBe(made[0].metadata.annotations['kubernetes.io/config.mirror']);
  });

  it('deletes the mirror pod when its manifest goes, and leaves the others', async () => {
    const { api, src, sp, show, drain } = setup({ nodes: ['node-1'] });
    src.text = `${manifest()}---\n${manifest('redis', 'cache')}`;
    await sp.poll();
    await drain();
    show();
    await drain();
    src.text = manifest('redis', 'cache');
    await sp.poll();
    await drain();
    expect(deletes(api).map((d) => d.split(' ')[0])).toEqual(['kube-system/web-node-1']);
  });

  it('brings back a mirror pod deleted through the API, keeping config.seen', async () => {
    const { api, pods, sp, show, drain, clock } = setup({ nodes: ['node-1'] });
    await sp.poll();
    await drain();
    show();
    const mirror = pods.get('kube-system/web-node-1')!;
    clock.advance(5000);
    // A graceful DELETE through the API: the kubelet does not wait out the grace period.
    pods.add({ ...mirror, metadata: { ...mirror.metadata, deletionTimestamp: '2026-01-01T00:00:35Z', deletionGracePeriodSeconds: 30 } });
    await drain();
    expect(deletes(api)).toEqual([`kube-system/web-node-1 grace=0 uid=${mirror.metadata.uid}`]);
    pods.delete(mirror);
    await drain();
    const made = creates(api);
    expect(made).toHaveLength(2);
    expect(made[1].metadata.annotations).toEqual(made[0].metadata.annotations);
  });

  it('removes orphaned mirror pods on its nodes only once the source was read, and never other pods', async () => {
    const { api, pods, sp, drain } = setup({ nodes: ['node-1'], all: ['node-1', 'node-3'] });
    const pod = (name: string, node: string, mirror: boolean): KubeObject => ({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name, namespace: 'default', uid: `u-${name}`, ...(mirror ? { annotations: { 'kubernetes.io/config.mirror': 'x' } } : {}) },
      spec: { nodeName: node, containers: [] },
    });
    pods.add(pod('orphan-node-1', 'node-1', true));
    pods.add(pod('elsewhere-node-2', 'node-2', true));
    pods.add(pod('plain', 'node-1', false));
    pods.add(pod('orphan-node-3', 'node-3', true)); // a simulated node that runs no static pods still removes it
    await drain();
    expect(deletes(api)).toEqual([]); // sources not ready
    await sp.poll();
    await drain();
    expect(deletes(api).sort()).toEqual(['default/orphan-node-1 grace=0 uid=u-orphan-node-1', 'default/orphan-node-3 grace=0 uid=u-orphan-node-3']);
  });

  it('keeps its pods when the source cannot be read, logging the first failures only', async () => {
    const { api, src, sp, show, drain, logs } = setup({ nodes: ['node-1'] });
    await sp.poll();
    await drain();
    show();
    src.fail = 'connection refused';
    for (let i = 0; i < 6; i++) await sp.poll();
    await drain();
    expect(deletes(api)).toEqual([]);
    expect(logs).toHaveLength(3);
    src.fail = undefined;
    await sp.poll();
    expect(logs.at(-1)).toBe('kubelet static pods: read pods from http://manifests/ again');
  });

  it('logs bad documents and a refused create once, without retrying in a loop, and reads again on a timer', async () => {
    const { api, src, sp, drain, logs, clock } = setup({ nodes: ['node-1'] });
    src.text = `kind: Service\n---\n${manifest()}`;
    api.create = async () => { throw new ApiError(422, { kind: 'Status', code: 422, reason: 'Invalid', message: 'Pod "web-node-1" is invalid' }); };
    await sp.poll();
    await drain();
    await drain();
    expect(logs).toEqual([
      'kubelet static pods: http://manifests/: document 1: not a v1 Pod (, Kind=Service)',
      'kubelet static pods: creating mirror pod kube-system/web-node-1: 422: Pod "web-node-1" is invalid',
    ]);
    sp.start(0);
    await new Promise((r) => setTimeout(r, 0)); // the first read done, the next one scheduled
    const reads = src.reads;
    clock.advance(20_000);
    await new Promise((r) => setTimeout(r, 0));
    expect(src.reads).toBeGreaterThan(reads);
    await drain(); // the refused pod is tried again after a read, but logged once
    expect(logs).toHaveLength(2);
    sp.stop();
  });

  it('does not replace a pod of the same name that is not a mirror pod', async () => {
    const { api, pods, sp, drain, logs } = setup({ nodes: ['node-1'] });
    pods.add({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-node-1', namespace: 'kube-system', uid: 'x' }, spec: { nodeName: 'node-1', containers: [] } });
    await sp.poll();
    await drain();
    expect(api.writes()).toEqual([]);
    expect(logs).toEqual(["kubelet static pods: mirror pod kube-system/web-node-1: a pod of that name exists and is not node-1's mirror pod"]);
  });

  it('does nothing on a stopped node', async () => {
    const { api, nodes, sp, drain } = setup({ nodes: ['node-1'] });
    nodes.add({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'uid-node-1', annotations: { 'edgeplane.dev/simulate': 'stopped' } } });
    await sp.poll();
    await drain();
    expect(api.writes()).toEqual([]);
  });
});
