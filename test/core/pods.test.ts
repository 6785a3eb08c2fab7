import { describe, expect, it } from 'vitest';
import { bindPod } from '../../core/pods/binding';
import { gracefulPodDelete } from '../../core/pods/graceful-delete';
import { StatusError } from '../../core/status';
import type { KubeObject } from '../../core/object-meta';

const NOW = Date.parse('2026-01-01T00:00:00Z');

function pod(spec: Record<string, unknown> = {}, status: Record<string, unknown> = { phase: 'Pending' }): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u1', resourceVersion: '5' }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec }, status };
}

const binding = (o: object = {}) => JSON.stringify({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'node-1' }, ...o });

function statusOf(f: () => unknown) {
  try {
    f();
  } catch (e) {
    return (e as StatusError).status;
  }
  throw new Error('no error');
}

describe('pods/binding', () => {
  it('sets nodeName, merges annotations and adds PodScheduled=True', () => {
    const bound = bindPod(pod(), 'p', binding({ metadata: { name: 'p', uid: 'u1', annotations: { a: 'b' } } }), NOW);
    expect(bound.spec).toMatchObject({ nodeName: 'node-1' });
    expect(bound.metadata.annotations).toEqual({ a: 'b' });
    expect((bound.status as any).conditions).toEqual([{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z' }]);
  });

  it('refuses a bound, deleting or gated pod with kube\'s conflicts', () => {
    expect(statusOf(() => bindPod(pod({ nodeName: 'node-2' }), 'p', binding(), NOW))).toMatchObject({
      code: 409, reason: 'Conflict', message: 'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-2"',
    });
    const deleting = pod();
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    expect(statusOf(() => bindPod(deleting, 'p', binding(), NOW))).toMatchObject({ code: 409, message: 'Operation cannot be fulfilled on pods/binding "p": pod p is being deleted, cannot be assigned to a host' });
    expect(statusOf(() => bindPod(pod({ schedulingGates: [{ name: 'g' }] }), 'p', binding(), NOW))).toMatchObject({ code: 409 });
    expect(statusOf(() => bindPod(pod(), 'p', binding({ metadata: { name: 'p', uid: 'other' } }), NOW))).toMatchObject({ code: 409 });
  });

  it('validates the Binding', () => {
    expect(statusOf(() => bindPod(pod(), 'p', binding({ metadata: { name: 'q' } }), NOW))).toMatchObject({ code: 400, message: 'name in URL does not match name in Binding object' });
    expect(statusOf(() => bindPod(pod(), 'p', binding({ target: { kind: 'Node' } }), NOW))).toMatchObject({ code: 422, message: 'Binding "p" is invalid: target.name: Required value' });
    expect(statusOf(() => bindPod(undefined, 'p', binding(), NOW))).toMatchObject({ code: 404, message: 'pods "p" not found' });
  });
});

describe('graceful pod deletion', () => {
  it('marks a bound pod with its grace period, and deletes unbound or finished pods at once', () => {
    const out = gracefulPodDelete(pod({ nodeName: 'n' }), undefined, NOW);
    expect(out.kind).toBe('mark');
    const marked = (out as { object: KubeObject }).object;
    expect(marked.metadata).toMatchObject({ deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 });
    expect(gracefulPodDelete(pod({ nodeName: 'n', terminationGracePeriodSeconds: 5 }), undefined, NOW)).toMatchObject({ object: { metadata: { deletionGracePeriodSeconds: 5 } } });
    expect(gracefulPodDelete(pod(), undefined, NOW)).toEqual({ kind: 'now' });
    expect(gracefulPodDelete(pod({ nodeName: 'n' }, { phase: 'Succeeded' }), undefined, NOW)).toEqual({ kind: 'now' });
    expect(gracefulPodDelete(pod({ nodeName: 'n' }), 0, NOW)).toEqual({ kind: 'now' });
  });

  it('lets a repeated delete only shorten the grace period', () => {
    const marked = (gracefulPodDelete(pod({ nodeName: 'n' }), undefined, NOW) as { object: KubeObject }).object;
    expect(gracefulPodDelete(marked, undefined, NOW + 1000)).toEqual({ kind: 'unchanged' });
    expect(gracefulPodDelete(marked, 60, NOW + 1000)).toEqual({ kind: 'unchanged' });
    expect(gracefulPodDelete(marked, 10, NOW + 1000)).toMatchObject({ kind: 'mark', object: { metadata: { deletionTimestamp: '2026-01-01T00:00:10Z', deletionGracePeriodSeconds: 10 } } });
    expect(gracefulPodDelete(marked, 0, NOW + 1000)).toEqual({ kind: 'now' });
  });

  it('writes the last date metav1.Time can hold for a grace period no clock reaches (a 500 before)', () => {
    const forever = gracefulPodDelete(pod({ nodeName: 'n', terminationGracePeriodSeconds: Number.MAX_SAFE_INTEGER }), undefined, NOW);
    expect(forever).toMatchObject({ kind: 'mark', object: { metadata: { deletionTimestamp: '9999-12-31T23:59:59Z', deletionGracePeriodSeconds: Number.MAX_SAFE_INTEGER } } });
    const marked = (forever as { object: KubeObject }).object;
    expect(gracefulPodDelete(marked, 1e300, NOW)).toEqual({ kind: 'unchanged' });
    // Shortening a deadline that was cut counts from now.
    expect(gracefulPodDelete(marked, 10, NOW)).toMatchObject({ kind: 'mark', object: { metadata: { deletionTimestamp: '2026-01-01T00:00:10Z', deletionGracePeriodSeconds: 10 } } });
    expect(gracefulPodDelete(pod({ nodeName: 'n' }), 1e300, NOW)).toMatchObject({ object: { metadata: { deletionTimestamp: '9999-12-31T23:59:59Z' } } });
  });
});
