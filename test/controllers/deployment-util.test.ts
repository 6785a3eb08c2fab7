import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import {
  calculateStatus, computeHash, deploymentComplete, equalIgnoreHash, findActiveOrLatest, findNewReplicaSet, maxSurge,
  maxUnavailable, newRSNewReplicas, proportionalSizes, replicaSetFraction, resolveFenceposts, setCondition,
  updatedRevisionAnnotations, type DeploymentStatus,
} from '../../controllers/deployment-util';

function deployment(replicas: number, strategy: Record<string, unknown> = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns', uid: 'd-uid', generation: 1 },
    spec: { replicas, strategy, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } }, ...extra },
  };
}

function rs(name: string, replicas: number, opts: { available?: number; created?: string; annotations?: Record<string, string>; image?: string } = {}): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: { name, namespace: 'ns', uid: `${name}-uid`, creationTimestamp: opts.created ?? '2026-01-01T00:00:00Z', annotations: opts.annotations ?? {} },
    spec: { replicas, template: { metadata: { labels: { app: 'web', 'pod-template-hash': name } }, spec: { containers: [{ name: 'nginx', image: opts.image ?? 'nginx' }] } } },
    status: { replicas, readyReplicas: opts.available ?? 0, availableReplicas: opts.available ?? 0 },
  };
}

describe('resolveFenceposts (intstr scaling: surge rounds up, unavailability down)', () => {
  it.each([
    ['25%', '25%', 3, 1, 0],
    ['25%', '25%', 10, 3, 2],
    ['39%', '39%', 10, 4, 3],
    ['0%', '0%', 0, 0, 1],
    [0, 0, 5, 0, 1],
    [1, 0, 5, 1, 0],
    ['50%', 1, 3, 2, 1],
    ['100%', '100%', 7, 7, 7],
  ])('maxSurge %s maxUnavailable %s of %i → surge %i, unavailable %i', (s, u, desired, surge, unavailable) => {
    expect(resolveFenceposts(s, u, desired)).toEqual({ surge, unavailable });
  });

  it('rejects a value that is neither a number nor a percentage', () => {
    expect(() => resolveFenceposts('oops', '25%', 3)).toThrow('invalid value for IntOrString: invalid value "oops"');
  });

  it('clamps maxUnavailable to replicas, and is 0 for Recreate and for 0 replicas', () => {
    expect(maxUnavailable(deployment(2, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 5 } }))).toBe(2);
    expect(maxUnavailable(deployment(0))).toBe(0);
    expect(maxUnavailable(deployment(4, { type: 'Recreate' }))).toBe(0);
    expect(maxSurge(deployment(4, { type: 'Recreate' }))).toBe(0);
  });
});

describe('newRSNewReplicas (kube TestNewRSNewReplicas)', () => {
  const strategy = (surge: number) => ({ type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: 1 } });
  it('cannot scale up beyond what is there when the total already reaches replicas + surge', () => {
    const d = deployment(1, strategy(1));
    const n = rs('new', 5);
    expect(newRSNewReplicas(d, [n, rs('old', 5)], n)).toBe(5);
  });
  it('scales up to the deployment size when surge allows', () => {
    const d = deployment(6, strategy(10));
    const n = rs('new', 2);
    expect(newRSNewReplicas(d, [n, rs('old', 5)], n)).toBe(6);
  });
  it('scales up by the surge room only', () => {
    const d = deployment(3); // surge 1
    const n = rs('new', 0);
    expect(newRSNewReplicas(d, [n, rs('old', 3)], n)).toBe(1);
  });
  it('Recreate: the deployment size', () => {
    const d = deployment(1, { type: 'Recreate' });
    const n = rs('new', 5);
    expect(newRSNewReplicas(d, [n, rs('old', 5)], n)).toBe(1);
  });
});

describe('proportional scaling', () => {
  it('shares a resize by max-replicas, leftovers to the largest ReplicaSet', () => {
    // 10 replicas mid-rollout (max-replicas 13), resized to 20 (surge 5): 15 more to share.
    const d = deployment(20);
    const old = rs('old', 6, { annotations: { 'deployment.kubernetes.io/max-replicas': '13' }, created: '2026-01-01T00:00:00Z' });
    const nu = rs('new', 4, { annotations: { 'deployment.kubernetes.io/max-replicas': '13' }, created: '2026-01-02T00:00:00Z' });
    expect(replicaSetFraction(old, d)).toBe(6); // round(6 · 25 / 13) − 6
    expect(replicaSetFraction(nu, d)).toBe(4);
    expect(Object.fromEntries(proportionalSizes(d, [old, nu]))).toEqual({ old: 17, new: 8 });
  });

  it('shrinks the smallest first, never below zero', () => {
    const d = deployment(2); // surge 1 → 3 allowed
    const old = rs('old', 3, { annotations: { 'deployment.kubernetes.io/max-replicas': '7' } });
    const nu = rs('new', 3, { annotations: { 'deployment.kubernetes.io/max-replicas': '7' }, created: '2026-01-02T00:00:00Z' });
    const sizes = proportionalSizes(d, [old, nu]);
    expect([...sizes.values()].reduce((a, b) => a + b, 0)).toBe(3);
    expect([...sizes.values()].every((v) => v >= 0)).toBe(true);
  });

  it('finds the only active ReplicaSet, or the newest when none is active', () => {
    const a = rs('a', 0, { created: '2026-01-01T00:00:00Z' });
    const b = rs('b', 0, { created: '2026-01-02T00:00:00Z' });
    expect(findActiveOrLatest(undefined, [a, b])?.metadata.name).toBe('b');
    expect(findActiveOrLatest(a, [b])?.metadata.name).toBe('a');
    expect(findActiveOrLatest(rs('n', 2), [rs('o', 1)])).toBeUndefined();
  });
});

describe('template hash, new ReplicaSet, revisions', () => {
  it('hashes stably, independent of key order, and changes with the collision count', () => {
    const t1 = { metadata: { labels: { app: 'web', tier: 'x' } }, spec: { containers: [{ name: 'n', image: 'nginx' }] } };
    const t2 = { spec: { containers: [{ image: 'nginx', name: 'n' }] }, metadata: { labels: { tier: 'x', app: 'web' } } };
    expect(computeHash(t1)).toBe(computeHash(t2));
    expect(computeHash(t1)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    expect(computeHash(t1, 1)).not.toBe(computeHash(t1));
  });

  it('compares templates ignoring pod-template-hash and finds the oldest matching ReplicaSet', () => {
    const d = deployment(3);
    const match1 = rs('m1', 1, { created: '2026-01-02T00:00:00Z' });
    const match0 = rs('m0', 1, { created: '2026-01-01T00:00:00Z' });
    const other = rs('o', 1, { image: 'nginx:1.27' });
    expect(equalIgnoreHash(match1.spec && (match1.spec as any).template, (d.spec as any).template)).toBe(true);
    expect(findNewReplicaSet(d, [other, match1, match0])?.metadata.name).toBe('m0');
    expect(findNewReplicaSet(d, [other])).toBeUndefined();
  });

  it('moves an old ReplicaSet to a new revision on rollback, recording its history', () => {
    const back = rs('a', 0, { annotations: { 'deployment.kubernetes.io/revision': '1' } });
    expect(updatedRevisionAnnotations(back, 3)).toEqual({ 'deployment.kubernetes.io/revision': '3', 'deployment.kubernetes.io/revision-history': '1' });
    expect(updatedRevisionAnnotations(rs('b', 0, { annotations: { 'deployment.kubernetes.io/revision': '3' } }), 3)).toBeUndefined();
  });
});

describe('status and conditions', () => {
  it('sums ReplicaSet counts and sets Available by minimum availability', () => {
    const d = deployment(3);
    const nu = rs('new', 1, { available: 0 });
    const old = rs('old', 3, { available: 3 });
    const s = calculateStatus(d, [old, nu], nu, '2026-01-01T00:00:05Z');
    expect(s).toMatchObject({ observedGeneration: 1, replicas: 4, updatedReplicas: 1, readyReplicas: 3, availableReplicas: 3, unavailableReplicas: 1 });
    expect(s.conditions).toEqual([{
      type: 'Available', status: 'True', lastUpdateTime: '2026-01-01T00:00:05Z', lastTransitionTime: '2026-01-01T00:00:05Z',
      reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.',
    }]);
    const none = calculateStatus(d, [rs('new', 3)], undefined, 'now');
    expect(none.conditions?.[0]).toMatchObject({ status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' });
  });

  it('keeps a condition untouched when status and reason are unchanged, and the transition time on a same-status change', () => {
    const status: DeploymentStatus = { conditions: [{ type: 'Progressing', status: 'True', reason: 'NewReplicaSetCreated', lastUpdateTime: 't1', lastTransitionTime: 't1' }] };
    setCondition(status, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetCreated', lastUpdateTime: 't2', lastTransitionTime: 't2' });
    expect(status.conditions![0].lastUpdateTime).toBe('t1');
    setCondition(status, { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', lastUpdateTime: 't3', lastTransitionTime: 't3' });
    expect(status.conditions![0]).toMatchObject({ reason: 'ReplicaSetUpdated', lastUpdateTime: 't3', lastTransitionTime: 't1' });
  });

  it('is complete only with every replica updated and available and the generation observed', () => {
    const d = deployment(3);
    expect(deploymentComplete(d, { updatedReplicas: 3, replicas: 3, availableReplicas: 3, observedGeneration: 1 })).toBe(true);
    expect(deploymentComplete(d, { updatedReplicas: 3, replicas: 4, availableReplicas: 3, observedGeneration: 1 })).toBe(false);
    expect(deploymentComplete({ ...d, metadata: { ...d.metadata, generation: 2 } }, { updatedReplicas: 3, replicas: 3, availableReplicas: 3, observedGeneration: 1 })).toBe(false);
  });
});
