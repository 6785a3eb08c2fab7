import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { RESOURCES } from '../../controllers/api-client';
import { BURST_REPLICAS, calculateRsStatus, MAX_BATCH, POD_UPDATE_BATCH_MS, podFromTemplate, podsToDelete, replicaDiff, ReplicaSetController, slowStartBatches } from '../../controllers/replicaset';
import { ApiError } from '../../client/types';
import { CONTROLLER_CLIENT_BURST, CONTROLLER_CLIENT_QPS } from '../../controllers/client-throttle';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder, uid } from './fakes';

function replicaSet(replicas: number): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: { name: 'web-abc', namespace: 'ns', uid: 'rs-uid', generation: 2, resourceVersion: '1' },
    spec: {
      replicas, selector: { matchLabels: { app: 'web', 'pod-template-hash': 'abc' } },
      template: { metadata: { labels: { app: 'web', 'pod-template-hash': 'abc' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } },
    },
  };
}

function pod(name: string, opts: { owner?: string | null; node?: string; phase?: string; ready?: boolean; created?: string; labels?: Record<string, string> } = {}): KubeObject {
  const owner = opts.owner === undefined ? 'rs-uid' : opts.owner;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace: 'ns', uid: `${name}-uid`, creationTimestamp: opts.created ?? '2026-01-01T00:00:00Z',
      labels: opts.labels ?? { app: 'web', 'pod-template-hash': 'abc' },
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: owner, controller: true, blockOwnerDeletion: true }] } : {}),
    },
    spec: { nodeName: opts.node },
    status: { phase: opts.phase ?? 'Pending', conditions: opts.ready ? [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] : [] },
  };
}

describe('replicaset diff logic', () => {
  it('creates or deletes the difference, capped by burstReplicas', () => {
    expect(replicaDiff(1, 3)).toBe(2);
    expect(replicaDiff(5, 2)).toBe(-3);
    expect(replicaDiff(0, 1000)).toBe(BURST_REPLICAS);
    expect(replicaDiff(1000, 0)).toBe(-BURST_REPLICAS);
    expect(replicaDiff(0, 2147483647)).toBe(BURST_REPLICAS);
  });

  it('creates in slow-start batches 1, 2, 4, ...', () => {
    expect(slowStartBatches(3)).toEqual([1, 2]);
    expect(slowStartBatches(10)).toEqual([1, 2, 4, 3]);
    expect(slowStartBatches(0)).toEqual([]);
    expect(slowStartBatches(40, 1, 16)).toEqual([1, 2, 4, 8, 16, 9]);
  });

  it('deletes unassigned, then pending, then not-ready, then newer pods first', () => {
    const pods = [
      pod('running-ready-old', { node: 'n1', phase: 'Running', ready: true, created: '2026-01-01T00:00:00Z' }),
      pod('running-ready-new', { node: 'n1', phase: 'Running', ready: true, created: '2026-01-02T00:00:00Z' }),
      pod('running-notready', { node: 'n1', phase: 'Running' }),
      pod('pending-assigned', { node: 'n1', phase: 'Pending' }),
      pod('unassigned', {}),
    ];
    expect(podsToDelete(pods, 5).map((p) => p.metadata.name)).toEqual([
      'unassigned', 'pending-assigned', 'running-notready', 'running-ready-new', 'running-ready-old',
    ]);
  });

  it('computes status: replicas, fully labeled, ready, available, observed generation', () => {
    const rs = replicaSet(3);
    const pods = [pod('a', { ready: true }), pod('b', { ready: true, labels: { app: 'web' } }), pod('c')];
    expect(calculateRsStatus(rs, pods, Date.parse('2026-01-01T00:01:00Z'))).toEqual({
      replicas: 3, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 2,
    });
    (rs.spec as any).minReadySeconds = 120; // ready for 60 s only
    expect(calculateRsStatus(rs, pods, Date.parse('2026-01-01T00:01:00Z')).availableReplicas).toBeUndefined();
  });

  it('builds pods from the template with a controller reference and generateName', () => {
    const p = podFromTemplate(replicaSet(1));
    expect(p.metadata).toEqual({
      generateName: 'web-abc-', namespace: 'ns', labels: { app: 'web', 'pod-template-hash': 'abc' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: 'rs-uid', controller: true, blockOwnerDeletion: true }],
    });
  });
});

function setup(replicas: number, clientRateLimit?: false) {
  const clock = new FakeClock();
  const api = new FakeApi();
  const rsInformer = new FakeInformer();
  const pods = new FakeInformer();
  const recorder = new FakeRecorder();
  const c = new ReplicaSetController({ api, replicaSets: rsInformer, pods, recorder, clock, clientRateLimit });
  const rs = replicaSet(replicas);
  api.put(RESOURCES.replicasets, rs);
  rsInformer.add(rs);
  return { clock, api, rsInformer, pods, recorder, c, rs };
}

describe('ReplicaSetController.sync', () => {
  it('creates the missing pods once, and not again before the informer has seen them', async () => {
    const { api, c, pods, recorder } = setup(3);
    await c.sync('ns/web-abc');
    const creates = api.writes('create', 'pods');
    expect(creates).toHaveLength(3);
    expect(recorder.events.filter((e) => e.reason === 'SuccessfulCreate').map((e) => e.message)).toEqual(creates.map((x) => `Created pod: ${x.name}`));
    // The informer lags: a second sync must not create more.
    await c.sync('ns/web-abc');
    expect(api.writes('create', 'pods')).toHaveLength(3);
    // Once the pods arrive, expectations are met and the ReplicaSet is in sync: nothing more to create.
    for (const x of creates) pods.add({ ...(x.body as KubeObject), metadata: { ...(x.body as KubeObject).metadata, name: x.name, uid: uid() } });
    expect(c.expectations.satisfied('ns/web-abc')).toBe(true);
    await c.sync('ns/web-abc');
    expect(api.writes('create', 'pods')).toHaveLength(3);
    const status = api.writes('update', 'replicasets').at(-1)!;
    expect(status.subresource).toBe('status');
    expect((status.body as KubeObject).status).toEqual({ replicas: 3, fullyLabeledReplicas: 3, observedGeneration: 2 });
  });

  it('stops at the first failing batch and lowers expectations for the pods never attempted', async () => {
    const { api, c, recorder } = setup(7);
    api.failCreates = 0;
    // The first batch (1) succeeds, the second (2) fails: the remaining 4 are never tried.
    const create = api.create.bind(api);
    let n = 0;
    api.create = async (r, ns, obj) => {
      if (++n === 2) throw Object.assign(new Error('quota exceeded'), { code: 403 });
      return create(r, ns, obj);
    };
    await expect(c.sync('ns/web-abc')).rejects.toThrow('quota exceeded');
    expect(n).toBe(3);
    expect(c.expectations.pending('ns/web-abc')).toEqual({ add: 2, del: 0 }); // the 2 created, not yet observed
    expect(recorder.events.find((e) => e.reason === 'FailedCreate')).toMatchObject({ type: 'Warning', message: 'Error creating: quota exceeded' });
    const status = (api.writes('update', 'replicasets').at(-1)!.body as KubeObject).status as any;
    expect(status.conditions[0]).toMatchObject({ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'quota exceeded' });
  });

  it('keeps a ReplicaFailure condition whose reason is unchanged, message and all (SetCondition), so retries write no status', () => {
    const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'ns', generation: 1 }, spec: { replicas: 3, template: {} } } as KubeObject;
    const first = calculateRsStatus(rs, [], Date.UTC(2026, 0, 1), { reason: 'FailedCreate', message: 'pods "web-a" is forbidden' });
    const again = calculateRsStatus({ ...rs, status: first }, [], Date.UTC(2026, 0, 2), { reason: 'FailedCreate', message: 'pods "web-b" is forbidden' });
    expect(again).toEqual(first);
  });

  it('deletes the surplus with the victim order and waits for the deletions', async () => {
    const { api, c, pods, recorder } = setup(1);
    const keep = pod('keep', { node: 'n1', phase: 'Running', ready: true });
    const p1 = pod('p1', {});
    const p2 = pod('p2', { node: 'n1', phase: 'Running' });
    for (const p of [keep, p1, p2]) {
      api.put(RESOURCES.pods, p);
      pods.add(p);
    }
    await c.sync('ns/web-abc');
    expect(api.writes('delete', 'pods').map((x) => x.name).sort()).toEqual(['p1', 'p2']);
    expect(recorder.events.map((e) => e.message).sort()).toEqual(['Deleted pod: p1', 'Deleted pod: p2']);
    expect(c.expectations.satisfied('ns/web-abc')).toBe(false);
    pods.delete(p1);
    pods.delete(p2);
    expect(c.expectations.satisfied('ns/web-abc')).toBe(true);
  });

  it('adopts a matching orphan and releases an owned pod that stopped matching', async () => {
    const { api, c, pods } = setup(1);
    const orphan = pod('orphan', { owner: null });
    const strayed = pod('strayed', { labels: { app: 'other' } });
    const foreign = pod('foreign', { owner: 'another-uid' });
    for (const p of [orphan, strayed, foreign]) {
      api.put(RESOURCES.pods, p);
      pods.add(p);
    }
    await c.sync('ns/web-abc');
    const patches = api.writes('patch', 'pods');
    expect(patches).toEqual([
      expect.objectContaining({ name: 'orphan', body: { metadata: { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: 'rs-uid', controller: true, blockOwnerDeletion: true }], uid: 'orphan-uid' } } }),
      expect.objectContaining({ name: 'strayed', body: { metadata: { ownerReferences: [{ $patch: 'delete', uid: 'rs-uid' }], uid: 'strayed-uid' } } }),
    ]);
    // The adopted orphan is its one replica: nothing created, nothing deleted.
    expect(api.writes('create', 'pods')).toHaveLength(0);
    expect(api.writes('delete', 'pods')).toHaveLength(0);
  });

  it('creates a big ReplicaSet BURST_REPLICAS per sync, at most MAX_BATCH requests at a time', async () => {
    const { api, c } = setup(1500, false);
    const create = api.create.bind(api);
    let inFlight = 0;
    let peak = 0;
    api.create = async (r, ns, obj) => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((res) => setTimeout(res, 0));
      inFlight--;
      return create(r, ns, obj);
    };
    await c.sync('ns/web-abc');
    expect(api.writes('create', 'pods')).toHaveLength(BURST_REPLICAS);
    expect(peak).toBe(MAX_BATCH);
    await c.sync('ns/web-abc'); // the informer has not shown them: no second burst yet
    expect(api.writes('create', 'pods')).toHaveLength(BURST_REPLICAS);
  });

  it('spends its client\'s tokens: 30 requests at once, then 20 a second', async () => {
    const { api, c, clock } = setup(100);
    const created: number[] = [];
    const create = api.create.bind(api);
    api.create = async (r, ns, obj) => {
      created.push(clock.now());
      return create(r, ns, obj);
    };
    let done = false;
    const sync = c.sync('ns/web-abc').finally(() => { done = true; });
    for (let i = 0; i < 1000 && !done; i++) {
      await new Promise((res) => setTimeout(res, 0));
      clock.advance(10);
    }
    await sync;
    expect(created).toHaveLength(BURST_REPLICAS);
    const t0 = created[0]!;
    expect(created.filter((t) => t === t0)).toHaveLength(CONTROLLER_CLIENT_BURST);
    // The rest at 20 a second: the last of 100 about 70 / 20 s after the first.
    expect(created.at(-1)! - t0).toBeGreaterThanOrEqual(((BURST_REPLICAS - CONTROLLER_CLIENT_BURST) / CONTROLLER_CLIENT_QPS) * 1000 - 10);
    expect(created.at(-1)! - t0).toBeLessThanOrEqual(((BURST_REPLICAS - CONTROLLER_CLIENT_BURST) / CONTROLLER_CLIENT_QPS) * 1000 + 100);
  });

  it('backs off a ReplicaSet whose creates are refused: one attempt per retry, exponentially spaced', async () => {
    const { api, c, clock } = setup(1500);
    const attempts: number[] = [];
    api.create = async () => {
      attempts.push(clock.now());
      throw new ApiError(403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'pods "web-abc-x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=10, limited: pods=10' });
    };
    const workers = c.run(1);
    const settle = async () => { for (let i = 0; i < 10; i++) await new Promise((res) => setTimeout(res, 0)); }; // the queue yields a macrotask per key
    await settle(); // the key was queued when the informer showed the ReplicaSet
    for (let i = 0; i < 6; i++) {
      clock.advance(5 * 2 ** i);
      await settle();
    }
    const t0 = attempts[0]!;
    // The work queue's per-key backoff (5 ms doubling), and slow start: each sync tries a single create.
    expect(attempts.map((t) => t - t0)).toEqual([0, 5, 15, 35, 75, 155, 315]);
    c.queue.shutDown();
    await Promise.all(workers);
  });

  it('adopts a namespace full of orphans BURST_REPLICAS per sync, rechecking the ReplicaSet once, and manages nothing meanwhile', async () => {
    const { api, c, pods } = setup(10, false);
    for (let i = 0; i < BURST_REPLICAS + 50; i++) {
      const p = pod(`orphan-${i}`, { owner: null });
      api.put(RESOURCES.pods, p);
      pods.add(p);
    }
    c.queue.get().then((k) => c.queue.done(k!)); // take the key the informer queued
    await c.sync('ns/web-abc');
    expect(api.writes('patch', 'pods')).toHaveLength(BURST_REPLICAS);
    expect(api.calls.filter((x) => x.verb === 'get')).toHaveLength(1);
    expect(api.writes('create', 'pods')).toHaveLength(0);
    expect(api.writes('delete', 'pods')).toHaveLength(0);
    expect(c.queue.len()).toBe(1); // back for the rest, behind the other keys
  });

  it('batches pod changes that only move status into one sync per window (a quiet ReplicaSet\'s first ready pod at once), and wakes at once for a burst\'s last create, a deletion or a label change', async () => {
    const { clock, api, c, pods } = setup(3);
    const take = async () => { const k = await c.queue.get(); c.queue.done(k!); return k; };
    await take(); // the key the informer queued for the ReplicaSet
    await c.sync('ns/web-abc');
    const created = api.writes('create', 'pods').map((x, i) => pod(`p${i}`, {}));
    // The burst's first two creates observed: status only, batched.
    pods.add(created[0]);
    pods.add(created[1]);
    expect(c.queue.len()).toBe(0);
    pods.add(created[2]); // the last one: the expectations are met, the next burst may start now
    expect(c.queue.len()).toBe(1);
    await take();
    clock.advance(POD_UPDATE_BATCH_MS); // the window the first adds opened ends (a delaying queue's timer stays set)
    expect(c.queue.len()).toBe(1);
    await take();
    // Bound, nothing that moves status yet: a window later.
    for (let i = 0; i < 3; i++) pods.add(pod(`p${i}`, { node: 'n1' }));
    expect(c.queue.len()).toBe(0);
    clock.advance(POD_UPDATE_BATCH_MS);
    expect(c.queue.len()).toBe(1);
    await take();
    // Ready: the first wakes the quiet ReplicaSet at once; the next two share one wake when its window ends.
    pods.add(pod('p0', { node: 'n1', phase: 'Running', ready: true }));
    expect(c.queue.len()).toBe(1);
    await take();
    clock.advance(100);
    pods.add(pod('p1', { node: 'n1', phase: 'Running', ready: true }));
    pods.add(pod('p2', { node: 'n1', phase: 'Running', ready: true }));
    expect(c.queue.len()).toBe(0);
    clock.advance(POD_UPDATE_BATCH_MS - 101);
    expect(c.queue.len()).toBe(0);
    clock.advance(1);
    expect(c.queue.len()).toBe(1);
    await take();
    // A pod being deleted (its replacement) and a pod whose labels changed wake it at once.
    pods.add({ ...pod('p0', { node: 'n1', phase: 'Running', ready: true }), metadata: { ...pod('p0').metadata, deletionTimestamp: '2026-01-01T00:00:30Z' } });
    expect(c.queue.len()).toBe(1);
    await take();
    pods.add(pod('p1', { node: 'n1', phase: 'Running', ready: true, labels: { app: 'web', 'pod-template-hash': 'abc', extra: 'x' } }));
    expect(c.queue.len()).toBe(1);
  });

  it('never loses a readiness wake that the queue folded into an earlier timer', async () => {
    const { clock, c, pods } = setup(3);
    const take = async () => { const k = await c.queue.get(); c.queue.done(k!); return k; };
    for (let i = 0; i < 3; i++) pods.add(pod(`p${i}`, {}));
    await take();
    pods.add(pod('p0', { node: 'n1' })); // bound: a wake a window later (t = 1000)
    clock.advance(900);
    pods.add(pod('p1', { node: 'n1', phase: 'Running', ready: true })); // quiet: at once
    expect(c.queue.len()).toBe(1);
    await take();
    clock.advance(50);
    pods.add(pod('p2', { node: 'n1', phase: 'Running', ready: true })); // planned for t = 1900, folded into t = 1000
    clock.advance(50);
    expect(c.queue.len()).toBe(1);
    await take();
    clock.advance(100);
    pods.add(pod('p0', { node: 'n1', phase: 'Running', ready: true })); // t = 1100: must still get its wake
    clock.advance(800);
    expect(c.queue.len()).toBe(1);
  });

  it('forgets the expectations of a deleted ReplicaSet', async () => {
    const { c, rsInformer, rs } = setup(2);
    await c.sync('ns/web-abc');
    expect(c.expectations.pending('ns/web-abc')).toEqual({ add: 2, del: 0 });
    rsInformer.delete(rs);
    expect(c.expectations.pending('ns/web-abc')).toBeUndefined();
  });
});
