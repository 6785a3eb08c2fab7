import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { DisruptionController } from '../../controllers/disruption';
import { computePdbStatus, type ScaleLookup } from '../../controllers/disruption-plan';
import { evictionVerdict, type PdbView } from '../../core/pods/eviction';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder } from './fakes';

const NS = 'default';
const NOW = Date.parse('2026-01-01T00:00:00Z');

function pod(name: string, opts: { ready?: boolean; phase?: string; owner?: { kind: string; name: string; uid: string }; deleting?: boolean } = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace: NS, uid: `uid-${name}`, labels: { app: 'web' },
      ...(opts.owner ? { ownerReferences: [{ apiVersion: 'apps/v1', ...opts.owner, controller: true }] } : {}),
      ...(opts.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    status: { phase: opts.phase ?? 'Running', conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }] },
  };
}

function pdb(spec: Record<string, unknown>, status?: Record<string, unknown>, generation = 1): KubeObject {
  return { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: NS, generation, resourceVersion: '1' }, spec: { selector: { matchLabels: { app: 'web' } }, ...spec }, ...(status ? { status } : {}) };
}

const rsOwner = { kind: 'ReplicaSet', name: 'web-1', uid: 'rs' };
const lookup: ScaleLookup = { replicas: (kind, _ns, _name, uid) => (kind === 'ReplicaSet' && uid === 'rs' ? { key: 'Deployment/d', replicas: 4 } : undefined) };

describe('disruption controller status', () => {
  it('counts minAvailable against the pods, and maxUnavailable or a percentage against the controllers\' replicas', () => {
    const pods = [pod('a', { owner: rsOwner }), pod('b', { owner: rsOwner }), pod('c', { owner: rsOwner, ready: false })];
    const min = computePdbStatus(pdb({ minAvailable: 2 }), pods, lookup, NOW);
    expect('status' in min && min.status).toMatchObject({ observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2, expectedPods: 3 });
    const max = computePdbStatus(pdb({ maxUnavailable: 1 }), pods, lookup, NOW);
    expect('status' in max && max.status).toMatchObject({ disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 3, expectedPods: 4 });
    const pct = computePdbStatus(pdb({ minAvailable: '25%' }), pods, lookup, NOW);
    expect('status' in pct && pct.status).toMatchObject({ disruptionsAllowed: 1, desiredHealthy: 1, expectedPods: 4 });
    expect('status' in pct && pct.status.conditions).toEqual([{ type: 'DisruptionAllowed', status: 'True', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'SufficientPods', message: '' }]);
    expect(computePdbStatus(pdb({ maxUnavailable: 1 }), [pod('x')], lookup, NOW)).toEqual({ error: 'found no controller ref for pod "x"' });
  });

  it('keeps recent evictions in disruptedPods, not counting those pods as healthy, and forgets them after 2 minutes', () => {
    const pods = [pod('a'), pod('b')];
    const recent = computePdbStatus(pdb({ minAvailable: 1 }, { disruptedPods: { a: '2025-12-31T23:59:30Z', gone: '2025-12-31T23:59:30Z' } }), pods, lookup, NOW);
    expect('status' in recent && recent.status).toMatchObject({ disruptedPods: { a: '2025-12-31T23:59:30Z' }, currentHealthy: 1, disruptionsAllowed: 0 });
    expect('recheckMs' in recent && recent.recheckMs).toBe(90_000);
    const old = computePdbStatus(pdb({ minAvailable: 1 }, { disruptedPods: { a: '2025-12-31T23:57:00Z' } }), pods, lookup, NOW);
    expect('status' in old && old.status.disruptedPods).toBeUndefined();
  });

  it('writes the status through pdbs/status, and a SyncFailed condition when the expected count cannot be found', async () => {
    const api = new FakeApi();
    const pdbs = new FakeInformer(), pods = new FakeInformer();
    const none = () => new FakeInformer();
    pdbs.add(pdb({ maxUnavailable: '50%' }));
    pods.add(pod('orphan'));
    const c = new DisruptionController({ api, pdbs, pods, replicaSets: none(), deployments: none(), replicationControllers: none(), statefulSets: none(), recorder: new FakeRecorder(), clock: new FakeClock() });
    await c.sync(`${NS}/web`);
    const [w] = api.writes('update', 'poddisruptionbudgets');
    expect(w!.subresource).toBe('status');
    expect((w!.body as any).status.disruptionsAllowed).toBe(0);
    expect((w!.body as any).status.conditions[0]).toMatchObject({ status: 'False', reason: 'SyncFailed', message: 'found no controller ref for pod "orphan"' });
  });
});

describe('eviction verdict', () => {
  const budget = (status: Record<string, unknown>, spec: Record<string, unknown> = {}, generation = 1) => pdb({ minAvailable: 1, ...spec }, { observedGeneration: 1, ...status }, generation) as unknown as PdbView;

  it('takes one disruption, recording the pod', () => {
    const v = evictionVerdict(pod('a'), [budget({ disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1 })], NOW, false);
    expect(v.kind).toBe('decrement');
    const next = (v as { pdb: PdbView }).pdb;
    expect(next.status).toMatchObject({ disruptionsAllowed: 0, disruptedPods: { a: '2026-01-01T00:00:00Z' } });
    expect(next.status!.conditions).toEqual([expect.objectContaining({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' })]);
    expect(evictionVerdict(pod('a'), [budget({ disruptionsAllowed: 1 })], NOW, true)).toEqual({ kind: 'delete' }); // dry run: no write
  });

  it('refuses with kube\'s 429 when no disruption is allowed or the budget is not processed yet', () => {
    const v = evictionVerdict(pod('a'), [budget({ disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1 })], NOW, false);
    expect(v).toEqual({ kind: 'refuse', status: {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: "Cannot evict pod as it would violate the pod's disruption budget.", reason: 'TooManyRequests',
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 1 healthy pods and has 1 currently' }] }, code: 429,
    } });
    const stale = evictionVerdict(pod('a'), [budget({ disruptionsAllowed: 3 }, {}, 2)], NOW, false);
    expect(stale.kind === 'refuse' && stale.status.details?.causes?.[0]?.message).toBe('The disruption budget web is still being processed by the server.');
  });

  it('lets pending, finished, deleting and (with a healthy budget) unready pods go; two budgets are an error', () => {
    const closed = budget({ disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 });
    expect(evictionVerdict(pod('a', { phase: 'Pending' }), [closed], NOW, false).kind).toBe('delete');
    expect(evictionVerdict(pod('a', { phase: 'Succeeded' }), [closed], NOW, false).kind).toBe('delete');
    expect(evictionVerdict(pod('a', { deleting: true }), [closed], NOW, false).kind).toBe('delete');
    expect(evictionVerdict(pod('a', { ready: false }), [closed], NOW, false).kind).toBe('delete');
    expect(evictionVerdict(pod('a', { ready: false }), [budget({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 2 })], NOW, false).kind).toBe('refuse');
    expect(evictionVerdict(pod('a', { ready: false }), [budget({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 2 }, { unhealthyPodEvictionPolicy: 'AlwaysAllow' })], NOW, false).kind).toBe('delete');
    const two = evictionVerdict(pod('a'), [closed, { ...closed, metadata: { ...closed.metadata, name: 'other' } }], NOW, false);
    expect(two.kind === 'refuse' && two.status.code).toBe(500);
    expect(two.kind === 'refuse' && two.status.message).toBe('Internal error occurred: This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    // An empty selector selects nothing for eviction.
    expect(evictionVerdict(pod('a'), [{ ...closed, spec: { selector: {} } }], NOW, false).kind).toBe('delete');
  });
});
