import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { RESOURCES } from '../../controllers/api-client';
import { CronJobController } from '../../controllers/cronjob';
import { jobsBeyondHistory, mostRecentScheduleTime, parseCronJobSchedule } from '../../controllers/cronjob-plan';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder, uid } from './fakes';

const NS = 'default';

function cronJob(spec: Record<string, unknown>, extra: { created?: string; status?: Record<string, unknown> } = {}): KubeObject {
  return {
    apiVersion: 'batch/v1', kind: 'CronJob',
    metadata: { name: 'tick', namespace: NS, uid: 'cj-uid', resourceVersion: '1', creationTimestamp: extra.created ?? '2025-12-31T23:59:30Z' },
    spec: { schedule: '* * * * *', concurrencyPolicy: 'Allow', jobTemplate: { metadata: { labels: { app: 'tick' } }, spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'OnFailure' } } } }, ...spec },
    ...(extra.status ? { status: extra.status } : {}),
  };
}

function job(name: string, opts: { finished?: 'Complete' | 'Failed'; start?: string; completion?: string; owner?: boolean } = {}): KubeObject {
  const conditions = opts.finished ? [{ type: opts.finished, status: 'True' }] : [];
  return {
    apiVersion: 'batch/v1', kind: 'Job',
    metadata: {
      name, namespace: NS, uid: `uid-${name}`, resourceVersion: '5',
      ...(opts.owner === false ? {} : { ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: 'cj-uid', controller: true }] }),
    },
    status: { ...(opts.start ? { startTime: opts.start } : {}), ...(opts.completion ? { completionTime: opts.completion } : {}), conditions },
  };
}

function setup(cj: KubeObject, jobs: KubeObject[] = []) {
  const clock = new FakeClock();
  const api = new FakeApi();
  const cronJobs = new FakeInformer();
  const jobInformer = new FakeInformer();
  const recorder = new FakeRecorder();
  api.put(RESOURCES.cronjobs, cj);
  cronJobs.add(cj);
  for (const j of jobs) {
    api.put(RESOURCES.jobs, j);
    jobInformer.add(j);
  }
  const c = new CronJobController({ api, cronJobs, jobs: jobInformer, recorder, clock }); // after the adds: an empty queue
  return { clock, api, cronJobs, jobInformer, recorder, c };
}

const statusWrites = (api: FakeApi) => api.writes('update', 'cronjobs').map((w) => (w.body as KubeObject).status as Record<string, any>);

describe('CronJob controller', () => {
  it('starts a Job at the scheduled minute and records it in status.active', async () => {
    const { clock, api, c, recorder } = setup(cronJob({}));
    await c.sync(`${NS}/tick`); // 00:00:00, created 23:59:30: the 00:00 start is due
    const created = api.writes('create', 'jobs');
    expect(created).toHaveLength(1);
    const body = created[0]!.body as KubeObject;
    expect(body.metadata.name).toBe(`tick-${Date.parse('2026-01-01T00:00:00Z') / 60_000}`);
    expect(body.metadata.labels).toEqual({ app: 'tick' });
    expect(body.metadata.annotations).toEqual({ 'batch.kubernetes.io/cronjob-scheduled-timestamp': '2026-01-01T00:00:00Z' });
    expect(body.metadata.ownerReferences).toEqual([{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: 'cj-uid', controller: true, blockOwnerDeletion: true }]);
    expect(body.spec).toEqual((cronJob({}).spec as any).jobTemplate.spec);
    const [status] = statusWrites(api);
    expect(status!.lastScheduleTime).toBe('2026-01-01T00:00:00Z');
    expect(status!.active).toEqual([{ kind: 'Job', namespace: NS, name: body.metadata.name, uid: expect.any(String), apiVersion: 'batch/v1', resourceVersion: expect.any(String) }]);
    expect(recorder.events).toEqual([{ name: 'tick', type: 'Normal', reason: 'SuccessfulCreate', message: `Created job ${body.metadata.name}` }]);
    // Requeued for a little after the next minute.
    expect(c.queue.len()).toBe(0);
    clock.advance(60_100);
    expect(c.queue.len()).toBe(1);
  });

  it('does not start the same scheduled time twice', async () => {
    const { api, c } = setup(cronJob({}, { status: { lastScheduleTime: '2026-01-01T00:00:00Z' } }));
    await c.sync(`${NS}/tick`);
    expect(api.writes('create', 'jobs')).toHaveLength(0);
  });

  it('computes the most recent of a decade of missed minutes in bounded work, and warns', async () => {
    const decade = 10 * 365 * 86_400;
    const cj = cronJob({ startingDeadlineSeconds: decade }, { created: '2016-01-01T00:00:00Z' });
    const { api, c, recorder } = setup(cj);
    const started = performance.now();
    await c.sync(`${NS}/tick`);
    expect(performance.now() - started).toBeLessThan(5_000); // generous: a per-minute walk would be 5 million steps
    expect(recorder.events.map((e) => e.reason)).toEqual(['TooManyMissedTimes', 'SuccessfulCreate']);
    expect(recorder.events[0]!.message).toBe('too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
    expect(statusWrites(api)[0]!.lastScheduleTime).toBe('2026-01-01T00:00:00Z');
    const r = mostRecentScheduleTime(cj, Date.parse('2026-01-01T00:00:00Z'), parseCronJobSchedule(cj), true);
    expect(r.missed).toBe('many');
    expect(r.missedCount).toBeGreaterThan(5_000_000);
  });

  it('misses a start past startingDeadlineSeconds', async () => {
    const { clock, api, c, recorder } = setup(cronJob({ schedule: '0 * * * *', startingDeadlineSeconds: 10 }, { created: '2025-12-31T23:00:30Z' }));
    clock.advance(30_000); // 00:00:30: the 00:00 start is 30 s late
    await c.sync(`${NS}/tick`);
    expect(api.writes('create', 'jobs')).toHaveLength(0);
    // Kube looks no further back than the deadline, so it finds nothing to start and waits for 01:00.
    expect(recorder.events).toEqual([]);
    const r = mostRecentScheduleTime(cronJob({ schedule: '0 * * * *', startingDeadlineSeconds: 10 }, { created: '2025-12-31T23:00:30Z' }), clock.now(), parseCronJobSchedule(cronJob({ schedule: '0 * * * *' })), false);
    expect(new Date(r.mostRecent!).toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('Forbid skips a start while a Job runs', async () => {
    const running = job('tick-1');
    const { api, c, recorder } = setup(cronJob({ concurrencyPolicy: 'Forbid' }, { status: { active: [{ kind: 'Job', namespace: NS, name: 'tick-1', uid: 'uid-tick-1' }] } }), [running]);
    await c.sync(`${NS}/tick`);
    expect(api.writes('create', 'jobs')).toHaveLength(0);
    expect(recorder.events.map((e) => [e.reason, e.message])).toEqual([['JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid']]);
  });

  it('Replace deletes the running Job, then starts the new one', async () => {
    const running = job('tick-1');
    const { api, c, recorder } = setup(cronJob({ concurrencyPolicy: 'Replace' }, { status: { active: [{ kind: 'Job', namespace: NS, name: 'tick-1', uid: 'uid-tick-1' }] } }), [running]);
    await c.sync(`${NS}/tick`);
    expect(api.writes('delete', 'jobs').map((w) => [w.name, w.options?.propagationPolicy])).toEqual([['tick-1', 'Background']]);
    expect(api.writes('create', 'jobs')).toHaveLength(1);
    expect(recorder.events.map((e) => e.reason)).toEqual(['SuccessfulDelete', 'SuccessfulCreate']);
    expect(statusWrites(api).at(-1)!.active.map((a: any) => a.name)).toEqual([expect.stringMatching(/^tick-\d+$/)]);
  });

  it('does nothing but bookkeeping while suspended', async () => {
    const { api, c } = setup(cronJob({ suspend: true }));
    await c.sync(`${NS}/tick`);
    expect(api.writes()).toHaveLength(0);
  });

  it('moves finished Jobs out of active and records the last success', async () => {
    const done = job('tick-1', { finished: 'Complete', start: '2025-12-31T23:58:00Z', completion: '2025-12-31T23:58:05Z' });
    const { api, c, recorder } = setup(cronJob({ suspend: true }, { status: { active: [{ kind: 'Job', namespace: NS, name: 'tick-1', uid: 'uid-tick-1' }] } }), [done]);
    await c.sync(`${NS}/tick`);
    const [status] = statusWrites(api);
    expect(status!.active).toBeUndefined();
    expect(status!.lastSuccessfulTime).toBe('2025-12-31T23:58:05Z');
    expect(recorder.events.map((e) => [e.reason, e.message])).toEqual([['SawCompletedJob', 'Saw completed job: tick-1, condition: Complete']]);
  });

  it('drops an active entry whose Job is gone, and warns of an unfinished Job it did not record', async () => {
    const stray = job('tick-9');
    const { api, c, recorder } = setup(cronJob({ suspend: true }, { status: { active: [{ kind: 'Job', namespace: NS, name: 'tick-1', uid: 'uid-tick-1' }] } }), [stray]);
    await c.sync(`${NS}/tick`);
    expect(recorder.events.map((e) => [e.reason, e.message])).toEqual([
      ['UnexpectedJob', 'Saw a job that the controller did not create or forgot: tick-9'],
      ['MissingJob', 'Active job went missing: tick-1'],
    ]);
    expect(statusWrites(api)[0]!.active).toBeUndefined();
  });

  it('keeps the history limits, deleting the oldest finished Jobs', async () => {
    const jobs = [
      job('ok-1', { finished: 'Complete', start: '2025-12-31T20:00:00Z' }), job('ok-2', { finished: 'Complete', start: '2025-12-31T21:00:00Z' }),
      job('ok-3', { finished: 'Complete', start: '2025-12-31T22:00:00Z' }), job('bad-1', { finished: 'Failed', start: '2025-12-31T20:30:00Z' }),
      job('bad-2', { finished: 'Failed', start: '2025-12-31T21:30:00Z' }), job('running'),
    ];
    const cj = cronJob({ suspend: true, successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 1 });
    expect(jobsBeyondHistory(cj, jobs).map((j) => j.metadata.name)).toEqual(['ok-1', 'ok-2', 'bad-1']);
    const { api, c } = setup(cj, jobs);
    await c.sync(`${NS}/tick`);
    expect(api.writes('delete', 'jobs').map((w) => w.name).sort()).toEqual(['bad-1', 'ok-1', 'ok-2']);
  });

  it('schedules in spec.timeZone and stamps the start in that zone', async () => {
    const { clock, api, c } = setup(cronJob({ schedule: '0 9 * * *', timeZone: 'Asia/Tokyo' }, { created: '2025-12-31T23:00:00Z' }));
    await c.sync(`${NS}/tick`); // 00:00Z = 09:00 JST
    const body = api.writes('create', 'jobs')[0]!.body as KubeObject;
    expect(body.metadata.annotations).toEqual({ 'batch.kubernetes.io/cronjob-scheduled-timestamp': '2026-01-01T09:00:00+09:00' });
    clock.advance(86_400_000 - 1);
    expect(c.queue.len()).toBe(0);
    clock.advance(200);
    expect(c.queue.len()).toBe(1);
  });

  it('refuses an unknown time zone or a bad schedule with kube\'s events', async () => {
    let t = setup(cronJob({ timeZone: 'Mars/Olympus' }));
    await t.c.sync(`${NS}/tick`);
    expect(t.recorder.events.map((e) => [e.reason, e.message])).toEqual([['UnknownTimeZone', 'invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus']]);
    t = setup(cronJob({ schedule: '61 * * * *' }));
    await t.c.sync(`${NS}/tick`);
    expect(t.recorder.events.map((e) => [e.reason, e.message])).toEqual([['UnparseableSchedule', 'unparseable schedule: "61 * * * *" : end of range (61) above maximum (59): 61']]);
    t = setup(cronJob({ schedule: 'CRON_TZ=UTC * * * * *' }, { created: '2025-12-31T23:59:30Z' }));
    await t.c.sync(`${NS}/tick`);
    expect(t.recorder.events[0]!.reason).toBe('UnsupportedSchedule');
    expect(t.api.writes('create', 'jobs')).toHaveLength(1);
    expect(uid()).toMatch(/^uid-/);
  });
});
