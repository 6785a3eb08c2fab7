import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { RESOURCES } from '../../controllers/api-client';
import { ensureUpdateRevision, revisionData, templateOf, truncateHistory } from '../../controllers/controller-history';
import { MAX_STATEFUL_CREATES_PER_SYNC, planStatefulSet, podForOrdinal, revisionForOrdinal, stsStatusOf } from '../../controllers/statefulset-plan';
import { StatefulSetController } from '../../controllers/statefulset';
import { MAX_BATCH } from '../../controllers/replicaset';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder } from './fakes';

const T0 = '2026-01-01T00:00:00Z';

function set(spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'ns', uid: 'sts-uid', generation: 1, resourceVersion: '1' },
    spec: {
      replicas: 3, serviceName: 'web', podManagementPolicy: 'OrderedReady', selector: { matchLabels: { app: 'web' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } }, revisionHistoryLimit: 10,
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.26' }] } },
      ...spec,
    },
    status: { replicas: 0, availableReplicas: 0, ...status },
  };
}

function pod(ord: number, opts: { ready?: boolean; rev?: string; phase?: string; deleting?: boolean } = {}): KubeObject {
  const ready = opts.ready ?? true;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: `web-${ord}`, namespace: 'ns', uid: `web-${ord}-uid`, creationTimestamp: T0,
      labels: { app: 'web', 'controller-revision-hash': opts.rev ?? 'web-r1' },
      ...(opts.deleting ? { deletionTimestamp: T0 } : {}),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'sts-uid', controller: true }],
    },
    spec: {},
    status: { phase: opts.phase ?? (ready ? 'Running' : 'Pending'), conditions: ready ? [{ type: 'Ready', status: 'True', lastTransitionTime: T0 }] : [] },
  };
}

const names = (ps: KubeObject[]) => ps.map((p) => p.metadata.name);

describe('statefulset plan', () => {
  it('OrderedReady: creates the lowest missing ordinal only after the ones before are Running and Ready', () => {
    expect(planStatefulSet(set(), [], 'web-r1')).toEqual({ create: [0], delete: [] });
    expect(planStatefulSet(set(), [pod(0, { ready: false })], 'web-r1')).toEqual({ create: [], delete: [] });
    expect(planStatefulSet(set(), [pod(0)], 'web-r1')).toEqual({ create: [1], delete: [] });
    expect(planStatefulSet(set(), [pod(0), pod(2)], 'web-r1')).toEqual({ create: [1], delete: [] });
  });

  it('Parallel: creates every missing ordinal at once', () => {
    expect(planStatefulSet(set({ podManagementPolicy: 'Parallel' }), [pod(1, { ready: false })], 'web-r1').create).toEqual([0, 2]);
  });

  it('Parallel with 2^31−1 replicas: plans at most a burst of creates, found between the pods that exist', () => {
    const huge = set({ podManagementPolicy: 'Parallel', replicas: 2147483647, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2147483647 } } });
    const existing = [pod(0), pod(1), pod(3), pod(5, { phase: 'Failed', ready: false })];
    const plan = planStatefulSet(huge, existing, 'web-r1');
    expect(plan.create).toHaveLength(MAX_STATEFUL_CREATES_PER_SYNC);
    expect(plan.create.slice(0, 4)).toEqual([2, 4, 6, 7]);
    expect(plan.create.at(-1)).toBe(MAX_STATEFUL_CREATES_PER_SYNC + 3);
    expect(names(plan.delete)).toEqual(['web-5']);
    // OrderedReady walks no further than the pods: one create past the last Running and Ready one.
    expect(planStatefulSet(set({ replicas: 2147483647 }), [pod(0), pod(1)], 'web-r1')).toEqual({ create: [2], delete: [] });
  });

  it('scales down from the highest ordinal, one at a time, waiting for a terminating pod', () => {
    const s = set({ replicas: 1 });
    expect(names(planStatefulSet(s, [pod(0), pod(1), pod(2)], 'web-r1').delete)).toEqual(['web-2']);
    expect(planStatefulSet(s, [pod(0), pod(1), pod(2, { deleting: true })], 'web-r1')).toEqual({ create: [], delete: [] });
    expect(names(planStatefulSet(set({ replicas: 1, podManagementPolicy: 'Parallel' }), [pod(0), pod(1), pod(2)], 'web-r1').delete)).toEqual(['web-2', 'web-1']);
  });

  it('replaces a failed pod', () => {
    expect(names(planStatefulSet(set(), [pod(0), pod(1, { phase: 'Failed', ready: false })], 'web-r1').delete)).toEqual(['web-1']);
  });

  it('rolls out from the highest ordinal down to the partition, one pod at a time', () => {
    const s = set({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } });
    const old = [pod(0), pod(1), pod(2)];
    expect(names(planStatefulSet(s, old, 'web-r2').delete)).toEqual(['web-2']);
    expect(names(planStatefulSet(s, [pod(0), pod(1), pod(2, { rev: 'web-r2' })], 'web-r2').delete)).toEqual(['web-1']);
    expect(planStatefulSet(s, [pod(0), pod(1), pod(2, { rev: 'web-r2', ready: false })], 'web-r2').delete).toEqual([]);
    expect(planStatefulSet(s, [pod(0), pod(1, { rev: 'web-r2' }), pod(2, { rev: 'web-r2' })], 'web-r2')).toEqual({ create: [], delete: [] });
    expect(planStatefulSet(set({ updateStrategy: { type: 'OnDelete' } }), old, 'web-r2')).toEqual({ create: [], delete: [] });
    expect(revisionForOrdinal(s, 0)).toBe('current');
    expect(revisionForOrdinal(s, 1)).toBe('update');
  });

  it('makes pod <set>-<ordinal> with hostname, subdomain and identity labels', () => {
    const rev = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'web-r1' }, data: revisionData(set()), revision: 1 } as KubeObject;
    const p = podForOrdinal(set(), rev, 2);
    expect(p.metadata).toMatchObject({
      name: 'web-2',
      labels: { app: 'web', 'controller-revision-hash': 'web-r1', 'statefulset.kubernetes.io/pod-name': 'web-2', 'apps.kubernetes.io/pod-index': '2' },
      ownerReferences: [{ kind: 'StatefulSet', name: 'web', uid: 'sts-uid', controller: true }],
    });
    expect(p.spec).toEqual({ containers: [{ name: 'nginx', image: 'nginx:1.26' }], hostname: 'web-2', subdomain: 'web' });
  });

  it('reports status; the current revision follows the update revision once every pod is updated and ready', () => {
    const now = Date.parse(T0);
    expect(stsStatusOf(set(), [pod(0), pod(1, { rev: 'web-r2' }), pod(2, { rev: 'web-r2' })], 'web-r1', 'web-r2', now)).toEqual({
      observedGeneration: 1, replicas: 3, readyReplicas: 3, currentReplicas: 1, updatedReplicas: 2,
      currentRevision: 'web-r1', updateRevision: 'web-r2', collisionCount: 0, availableReplicas: 3,
    });
    expect(stsStatusOf(set(), [pod(0, { rev: 'web-r2' })], 'web-r1', 'web-r2', now)).toMatchObject({ replicas: 1, currentReplicas: 1, updatedReplicas: 1, currentRevision: 'web-r2' });
  });
});

describe('controller history', () => {
  it('creates the first revision, reuses it while the template is unchanged, renumbers an older one on a rollback', async () => {
    const api = new FakeApi();
    const s = set();
    const first = await ensureUpdateRevision(api, s, [], 0);
    expect(first.update.metadata.name).toMatch(/^web-[a-z0-9]+$/);
    expect((first.update as any).revision).toBe(1);
    expect(templateOf(first.update)).toEqual((s.spec as any).template);
    expect((first.update as any).data.spec.template.$patch).toBe('replace');
    const again = await ensureUpdateRevision(api, s, first.revisions, 0);
    expect(again.update.metadata.name).toBe(first.update.metadata.name);
    expect(api.writes()).toHaveLength(1);
    const s2 = set({ template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } });
    const second = await ensureUpdateRevision(api, s2, again.revisions, 0);
    expect((second.update as any).revision).toBe(2);
    expect(second.update.metadata.name).not.toBe(first.update.metadata.name);
    const back = await ensureUpdateRevision(api, s, second.revisions, 0);
    expect(back.update.metadata.name).toBe(first.update.metadata.name);
    expect((back.update as any).revision).toBe(3);
    await truncateHistory(api, set({ revisionHistoryLimit: 0 }), back.revisions, new Set([back.update.metadata.name!]));
    expect(api.writes('delete').map((d) => d.name)).toEqual([second.update.metadata.name]);
  });
});

describe('StatefulSetController', () => {
  it('creates web-0 first, records the event, and writes status with both revisions', async () => {
    const api = new FakeApi();
    const sets = new FakeInformer();
    const pods = new FakeInformer();
    const revisions = new FakeInformer();
    const recorder = new FakeRecorder();
    const c = new StatefulSetController({ api, sets, pods, revisions, recorder, clock: new FakeClock() });
    const s = set();
    sets.add(s);
    await c.sync('ns/web');
    expect(api.writes('create', 'pods').map((w) => w.name)).toEqual(['web-0']);
    expect(recorder.events).toEqual([{ name: 'web', type: 'Normal', reason: 'SuccessfulCreate', message: 'create Pod web-0 in StatefulSet web successful' }]);
    const rev = api.writes('create', 'controllerrevisions')[0].name;
    const status = (api.writes('update', 'statefulsets')[0].body as any).status;
    expect(status).toEqual({ observedGeneration: 1, replicas: 1, currentReplicas: 1, updatedReplicas: 1, currentRevision: rev, updateRevision: rev, collisionCount: 0, availableReplicas: 0 });
    expect(api.objects.has(`${RESOURCES.pods.resource}/ns/web-0`)).toBe(true);
  });

  it('Parallel: creates a bounded slow-start burst per sync; a refused create still writes status, then fails the sync', async () => {
    const api = new FakeApi();
    const [sets, pods, revisions] = [new FakeInformer(), new FakeInformer(), new FakeInformer()];
    const recorder = new FakeRecorder();
    const c = new StatefulSetController({ api, sets, pods, revisions, recorder, clock: new FakeClock() });
    sets.add(set({ podManagementPolicy: 'Parallel', replicas: 2147483647 }));
    const create = api.create.bind(api);
    let n = 0;
    api.create = async (r, ns, obj) => {
      if (r.resource === 'pods' && ++n > 7) throw Object.assign(new Error('exceeded quota'), { code: 403 });
      return create(r, ns, obj);
    };
    await expect(c.sync('ns/web')).rejects.toThrow('exceeded quota');
    // Batches 1, 2 and 4 are created; the next (MAX_BATCH, 4) is refused and is the last tried.
    expect(n).toBe(7 + MAX_BATCH);
    expect(api.writes('create', 'pods')).toHaveLength(7);
    expect(recorder.events.filter((e) => e.reason === 'FailedCreate')).toHaveLength(MAX_BATCH);
    expect((api.writes('update', 'statefulsets').at(-1)!.body as any).status).toMatchObject({ replicas: 7 });
  });
});
