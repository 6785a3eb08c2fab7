import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { RESOURCES } from '../../controllers/api-client';
import { JobController } from '../../controllers/job';
import {
  COMPLETION_INDEX, finishedCondition, indexesToCreate, JOB_TRACKING_FINALIZER, jobStatus as jobStatusOf, podBackoffMs, podForJob, untilDeadline, viewJob, wantActive,
} from '../../controllers/job-status';
import { formatIndexes } from '../../core/job-indexes';
import { validateTypedStatus } from '../../core/validation/typed';
import { timeLeft, TtlAfterFinishedController } from '../../controllers/ttl-after-finished';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder } from './fakes';

const T0 = '2026-01-01T00:00:00Z';

function job(spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'batch/v1', kind: 'Job',
    metadata: { name: 'pi', namespace: 'ns', uid: 'job-uid', generation: 1, resourceVersion: '1' },
    spec: {
      completions: 3, parallelism: 2, backoffLimit: 6, completionMode: 'NonIndexed', podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'job-uid' } },
      template: { metadata: { labels: { 'batch.kubernetes.io/controller-uid': 'job-uid' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
      ...spec,
    },
    status,
  };
}

function pod(name: string, phase: string, opts: { finalizer?: boolean; deleting?: boolean; index?: number; ready?: boolean } = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace: 'ns', uid: `${name}-uid`, creationTimestamp: T0,
      labels: { 'batch.kubernetes.io/controller-uid': 'job-uid' },
      ...(opts.index !== undefined ? { annotations: { [COMPLETION_INDEX]: String(opts.index) } } : {}),
      ...(opts.finalizer === false ? {} : { finalizers: [JOB_TRACKING_FINALIZER] }),
      ...(opts.deleting ? { deletionTimestamp: T0 } : {}),
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid: 'job-uid', controller: true, blockOwnerDeletion: true }],
    },
    spec: {},
    status: { phase, conditions: opts.ready ? [{ type: 'Ready', status: 'True' }] : [] },
  };
}

describe('job status logic', () => {
  it('records finished pods still holding the tracking finalizer as uncounted, once', () => {
    const v = viewJob(job({}, { succeeded: 1, uncountedTerminatedPods: { failed: ['f0-uid'] } }), [
      pod('s1', 'Succeeded'), pod('s0', 'Succeeded', { finalizer: false }), pod('f0', 'Failed'), pod('r', 'Running', { ready: true }),
      pod('gone', 'Running', { deleting: true }),
    ], undefined);
    expect([...v.uncountedSucceeded]).toEqual(['s1-uid']);
    expect([...v.uncountedFailed]).toEqual(['f0-uid', 'gone-uid']); // a deleted unfinished pod counts as failed (TerminatingOrFailed)
    expect(v.newlyUncounted).toBe(true);
    expect(v.finalizersToRemove.map((p) => p.metadata.name)).toEqual(['s1', 'f0', 'gone']);
    expect({ succeeded: v.succeeded, failed: v.failed, active: v.active.length, ready: v.ready, terminating: v.terminating }).toEqual({ succeeded: 2, failed: 2, active: 1, ready: 1, terminating: 1 });
  });

  it('with podReplacementPolicy Failed, a terminating pod is not a failure until it fails', () => {
    const v = viewJob(job({ podReplacementPolicy: 'Failed' }), [pod('gone', 'Running', { deleting: true })], undefined);
    expect(v.uncountedFailed.size).toBe(0);
    expect(v.finalizersToRemove).toEqual([]);
  });

  it('decides FailureTarget on the backoff limit or the deadline, SuccessCriteriaMet on completions', () => {
    const now = Date.parse(T0);
    const view = (j: KubeObject, pods: KubeObject[]) => viewJob(j, pods, undefined);
    const failing = job({ backoffLimit: 1 }, { failed: 1, uncountedTerminatedPods: { failed: ['x'] } });
    expect(finishedCondition(failing, view(failing, []), now)).toEqual({ type: 'FailureTarget', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' });
    const atLimit = job({ backoffLimit: 1 }, { failed: 1 });
    expect(finishedCondition(atLimit, view(atLimit, []), now)).toBeUndefined();
    const late = job({ activeDeadlineSeconds: 10 }, { startTime: '2025-12-31T23:59:50Z' });
    expect(finishedCondition(late, view(late, []), now)).toEqual({ type: 'FailureTarget', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' });
    const early = job({ activeDeadlineSeconds: 11 }, { startTime: '2025-12-31T23:59:50Z' });
    expect(finishedCondition(early, view(early, []), now)).toBeUndefined();
    const done = job({}, { succeeded: 2 });
    expect(finishedCondition(done, view(done, [pod('a', 'Succeeded')]), now)).toEqual({ type: 'SuccessCriteriaMet', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' });
    const indexed = job({ completionMode: 'Indexed', completions: 2 }, { completedIndexes: '0' });
    expect(finishedCondition(indexed, view(indexed, [pod('a', 'Succeeded', { index: 0 })]), now)).toBeUndefined();
    expect(finishedCondition(indexed, view(indexed, [pod('b', 'Succeeded', { index: 1 })]), now)?.type).toBe('SuccessCriteriaMet');
  });

  it('counts container restarts of OnFailure pods against the backoff limit', () => {
    const j = job({ backoffLimit: 2, template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } });
    const restarted = (n: number) => ({ ...pod('r', 'Running'), status: { phase: 'Running', containerStatuses: [{ restartCount: n }] } });
    expect(finishedCondition(j, viewJob(j, [restarted(1)], undefined), Date.parse(T0))).toBeUndefined();
    expect(finishedCondition(j, viewJob(j, [restarted(2)], undefined), Date.parse(T0))?.reason).toBe('BackoffLimitExceeded');
  });

  it('wants min(completions − succeeded, parallelism) pods, parallelism without completions, none when suspended', () => {
    const w = (j: KubeObject, pods: KubeObject[] = []) => wantActive(j, viewJob(j, pods, undefined));
    expect(w(job())).toBe(2);
    expect(w(job({}, { succeeded: 2 }))).toBe(1);
    expect(w(job({}, { succeeded: 3 }))).toBe(0);
    expect(w(job({ completions: null, parallelism: 4 }))).toBe(4);
    expect(w(job({ completions: null, parallelism: 4 }, { succeeded: 1 }), [pod('r', 'Running')])).toBe(1);
    expect(w(job({ suspend: true }))).toBe(0);
  });

  it('keeps completed indexes as intervals: 16,000,000 of 10^8 cost one interval, not sixteen million entries', () => {
    const big = job({ completionMode: 'Indexed', completions: 100_000_000, parallelism: 3 }, { completedIndexes: '0-15999999' });
    const running = pod('r', 'Running', { index: 16_000_001 });
    const v = viewJob(big, [pod('a', 'Succeeded', { index: 16_000_000 }), pod('late', 'Succeeded', { index: 100_000_000 }), running], undefined);
    expect(v.completedIndexes).toEqual([{ first: 0, last: 16_000_000 }]); // an index ≥ completions is not one
    expect(v.completedCount).toBe(16_000_001);
    expect(formatIndexes(v.completedIndexes)).toBe('0-16000000');
    expect(wantActive(big, v)).toBe(3);
    expect(indexesToCreate(big, v, 2)).toEqual([16_000_002, 16_000_003]); // past the completed ones and the running one
    expect(finishedCondition(big, v, Date.parse(T0))).toBeUndefined();
    const all = job({ completionMode: 'Indexed', completions: 100_000_000 }, { completedIndexes: '0-99999998' });
    expect(finishedCondition(all, viewJob(all, [pod('z', 'Succeeded', { index: 99_999_999 })], undefined), Date.parse(T0))?.type).toBe('SuccessCriteriaMet');
  });

  it('reads a completedIndexes list validation would refuse without trusting its order', () => {
    const j = job({ completionMode: 'Indexed', completions: 10 }, { completedIndexes: '7-8,x,1-3,2,9-12' });
    const v = viewJob(j, [], undefined);
    expect(v.completedIndexes).toEqual([{ first: 1, last: 3 }, { first: 7, last: 9 }]);
    expect(indexesToCreate(j, v, 5)).toEqual([0, 4, 5, 6]);
  });

  it('has no deadline to wait for when startTime does not parse (a NaN delay would fire at once, forever)', () => {
    expect(untilDeadline(job({ activeDeadlineSeconds: 5 }, { startTime: 'soon' }), Date.parse(T0))).toBeUndefined();
    expect(untilDeadline(job({ activeDeadlineSeconds: 5 }, { startTime: T0 }), Date.parse(T0))).toBe(5000);
  });

  it('makes Indexed pods with the index annotation, label, hostname and env', () => {
    const p = podForJob(job({ completionMode: 'Indexed' }), 2);
    expect(p.metadata).toMatchObject({
      generateName: 'pi-2-', finalizers: [JOB_TRACKING_FINALIZER],
      annotations: { [COMPLETION_INDEX]: '2' }, labels: { [COMPLETION_INDEX]: '2', 'batch.kubernetes.io/controller-uid': 'job-uid' },
    });
    expect((p.spec as any).hostname).toBe('pi-2');
    expect((p.spec as any).containers[0].env).toEqual([{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.labels['${COMPLETION_INDEX}']` } } }]);
    expect(podForJob(job()).metadata.generateName).toBe('pi-');
  });

  it('backs pod re-creation off 10 s · 2^(n−1), at most 10 minutes', () => {
    expect([0, 1, 2, 3, 10].map(podBackoffMs)).toEqual([0, 10_000, 20_000, 40_000, 600_000]);
  });
});

function setup(j: KubeObject) {
  const api = new FakeApi();
  const jobs = new FakeInformer();
  const pods = new FakeInformer();
  const clock = new FakeClock();
  const recorder = new FakeRecorder();
  const c = new JobController({ api, jobs, pods, clock, recorder });
  api.put(RESOURCES.jobs, j);
  jobs.add(j);
  return { api, jobs, pods, clock, recorder, c };
}

describe('JobController', () => {
  it('creates pods up to parallelism with the tracking finalizer and sets startTime', async () => {
    const { api, c, recorder } = setup(job());
    await c.sync('ns/pi');
    const creates = api.writes('create', 'pods');
    expect(creates).toHaveLength(2);
    expect((creates[0].body as KubeObject).metadata.finalizers).toEqual([JOB_TRACKING_FINALIZER]);
    const status = (api.writes('update', 'jobs').at(-1)!.body as KubeObject).status as any;
    expect(status).toEqual({ startTime: T0, active: 2, ready: 0, terminating: 0, uncountedTerminatedPods: {} });
    expect(recorder.events.map((e) => e.reason)).toEqual(['SuccessfulCreate', 'SuccessfulCreate']);
    // The informer has not shown the pods yet: no second round of creates.
    await c.sync('ns/pi');
    expect(api.writes('create', 'pods')).toHaveLength(2);
  });

  it('counts a finished pod through uncountedTerminatedPods before and after removing its finalizer', async () => {
    const { api, c, pods } = setup(job({}, { startTime: T0, succeeded: 2 }));
    const p = pod('c', 'Succeeded');
    api.put(RESOURCES.pods, p);
    pods.add(p);
    await c.sync('ns/pi');
    const updates = api.writes('update', 'jobs').map((u) => (u.body as any).status);
    expect(updates[0].uncountedTerminatedPods).toEqual({ succeeded: ['c-uid'] });
    expect(updates[0].succeeded).toBe(2);
    expect(updates[0].conditions.map((x: any) => x.type)).toEqual(['SuccessCriteriaMet']);
    const patch = api.writes('patch', 'pods')[0];
    expect(patch.body).toEqual({ metadata: { '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER] } });
    // Patch and update order: status with the uid first, then the finalizer, then the counter.
    const order = api.writes().map((w) => `${w.verb} ${w.resource}`);
    expect(order).toEqual(['update jobs', 'patch pods', 'update jobs']);
    expect(updates[1]).toMatchObject({ succeeded: 3, uncountedTerminatedPods: {}, completionTime: T0 });
    expect(updates[1].conditions.map((x: any) => [x.type, x.status, x.reason])).toEqual([
      ['SuccessCriteriaMet', 'True', 'CompletionsReached'], ['Complete', 'True', 'CompletionsReached'],
    ]);
  });

  it('fails the Job past the backoff limit: FailureTarget, active pods deleted, Failed once none is left', async () => {
    const { api, c, pods, jobs, recorder } = setup(job({ backoffLimit: 0, parallelism: 2 }, { startTime: T0 }));
    for (const p of [pod('bad', 'Failed'), pod('run', 'Running')]) {
      api.put(RESOURCES.pods, p);
      pods.add(p);
    }
    await c.sync('ns/pi');
    expect(api.writes('delete', 'pods').map((d) => d.name)).toEqual(['run']);
    let status = (api.writes('update', 'jobs').at(-1)!.body as any).status;
    expect(status.conditions.map((x: any) => x.type)).toEqual(['FailureTarget']);
    expect(status.failed).toBe(2); // the running pod, deleted while the Job fails, counts as failed
    expect(recorder.events.map((e) => e.reason)).toEqual(['SuccessfulDelete']);
    // Next round: no pods left.
    pods.delete(pod('bad', 'Failed'));
    pods.delete(pod('run', 'Running'));
    const current = api.objects.get('jobs/ns/pi')!;
    jobs.add(current);
    await c.sync('ns/pi');
    status = (api.writes('update', 'jobs').at(-1)!.body as any).status;
    expect(status.conditions.map((x: any) => [x.type, x.reason])).toEqual([['FailureTarget', 'BackoffLimitExceeded'], ['Failed', 'BackoffLimitExceeded']]);
    expect(status.completionTime).toBeUndefined();
    expect(recorder.events.at(-1)).toMatchObject({ type: 'Warning', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' });
  });

  it('waits out the pod backoff before replacing a failed pod', async () => {
    const { api, c, pods, clock, jobs } = setup(job({ completions: 1, parallelism: 1 }, { startTime: T0 }));
    const p = pod('bad', 'Failed');
    api.put(RESOURCES.pods, p);
    pods.add(p);
    await c.sync('ns/pi');
    expect(api.writes('create', 'pods')).toHaveLength(0);
    pods.delete(p);
    jobs.add(api.objects.get('jobs/ns/pi')!);
    clock.advance(9_000);
    await c.sync('ns/pi');
    expect(api.writes('create', 'pods')).toHaveLength(0);
    clock.advance(1_000);
    await c.sync('ns/pi');
    expect(api.writes('create', 'pods')).toHaveLength(1);
  });

  it('suspends: deletes the pods and sets Suspended', async () => {
    const { api, c, pods, recorder } = setup(job({ suspend: true }));
    const p = pod('r', 'Running');
    api.put(RESOURCES.pods, p);
    pods.add(p);
    await c.sync('ns/pi');
    expect(api.writes('delete', 'pods').map((d) => d.name)).toEqual(['r']);
    const status = (api.writes('update', 'jobs').at(-1)!.body as any).status;
    expect(status.startTime).toBeUndefined();
    expect(status.conditions.map((x: any) => [x.type, x.status, x.reason, x.message])).toEqual([['Suspended', 'True', 'JobSuspended', 'Job suspended']]);
    expect(recorder.events.map((e) => e.reason)).toContain('Suspended');
  });

  it('resets startTime on suspend, so the resumed Job\'s new one passes status validation', async () => {
    const running = job({}, { startTime: T0, active: 0 });
    const suspended = { ...running, spec: { ...(running.spec as Record<string, unknown>), suspend: true } } as KubeObject;
    const first = setup(suspended);
    await first.c.sync('ns/pi');
    const afterSuspend = { ...suspended, status: (first.api.writes('update', 'jobs').at(-1)!.body as any).status } as KubeObject;
    expect(jobStatusOf(afterSuspend).startTime).toBeUndefined();
    expect(validateTypedStatus('batch', 'Job', afterSuspend, suspended)).toEqual([]);
    const resumed = { ...afterSuspend, spec: running.spec } as KubeObject;
    const second = setup(resumed);
    await second.c.sync('ns/pi');
    const afterResume = { ...resumed, status: (second.api.writes('update', 'jobs').at(-1)!.body as any).status } as KubeObject;
    expect(jobStatusOf(afterResume).startTime).toBeDefined();
    expect(validateTypedStatus('batch', 'Job', afterResume, resumed)).toEqual([]);
  });
});

describe('TTL-after-finished', () => {
  const finished = (ttl: number | undefined, at = T0) => job({ ttlSecondsAfterFinished: ttl }, {
    conditions: [{ type: 'Complete', status: 'True', lastProbeTime: at, lastTransitionTime: at }], completionTime: at,
  });

  it('computes the time left from the terminal condition', () => {
    const now = Date.parse(T0) + 4_000;
    expect(timeLeft(finished(10), now)).toBe(6_000);
    expect(timeLeft(finished(undefined), now)).toBeUndefined();
    expect(timeLeft(job({ ttlSecondsAfterFinished: 1 }), now)).toBeUndefined(); // not finished
  });

  it('deletes an expired Job in the foreground with uid and resourceVersion preconditions, not before', async () => {
    const api = new FakeApi();
    const jobs = new FakeInformer();
    const clock = new FakeClock();
    const ttl = new TtlAfterFinishedController(api, jobs, clock);
    const j = finished(5);
    api.put(RESOURCES.jobs, j);
    jobs.add(j);
    await ttl.sync('ns/pi');
    expect(api.writes('delete')).toHaveLength(0);
    clock.advance(5_000);
    await ttl.sync('ns/pi');
    expect(api.writes('delete')).toEqual([{ verb: 'delete', resource: 'jobs', namespace: 'ns', name: 'pi', options: { propagationPolicy: 'Foreground', preconditions: { uid: 'job-uid', resourceVersion: '1' } } }]);
  });
});

describe('JobController orphans', () => {
  it('removes the tracking finalizer from the pods of a deleted Job', async () => {
    const { api, c, pods, jobs, clock } = setup(job());
    const p = pod('left', 'Running');
    api.put(RESOURCES.pods, p);
    pods.add(p);
    jobs.delete(api.objects.get('jobs/ns/pi')!);
    for (let i = 0; i < 5 && c.queue.len() > 0; i++) {
      const key = await c.queue.get();
      if (key === undefined) break;
      await c.sync(key);
      c.queue.done(key);
    }
    clock.advance(0);
    expect(api.writes('patch', 'pods').map((w) => [w.name, w.body])).toEqual([['left', { metadata: { '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER] } }]]);
  });
});
