// The CronJob controller end to end: kubectl against the real gateway with the controller manager running.
// Jobs are started on schedule (an @every schedule keeps the test short; a five-field one with a time zone
// waits for the next whole minute), finished Jobs beyond the history limit are deleted, and
// `kubectl create job --from=cronjob/…` makes a manual run the controller reports as kube's does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';

const NS = 'cron';

async function must(r: Running, args: string[], stdin?: string) {
  const res = await kubectl(r, args, stdin);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

const get = async (r: Running, path: string): Promise<any> => (await http(r, 'GET', path)).json;
const jobsOf = async (r: Running, cronJob: string): Promise<any[]> =>
  (await get(r, `/apis/batch/v1/namespaces/${NS}/jobs`)).items.filter((j: any) => j.metadata.ownerReferences?.some((o: any) => o.kind === 'CronJob' && o.name === cronJob));
const eventsOf = async (r: Running, name: string): Promise<any[]> =>
  (await get(r, `/api/v1/namespaces/${NS}/events?fieldSelector=${encodeURIComponent(`involvedObject.kind=CronJob,involvedObject.name=${name}`)}`)).items;

describe('CronJob controller', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '2' } });
    await must(r, ['create', 'namespace', NS]);
  });
  afterAll(() => stopTestGateway(r));

  it('starts Jobs on schedule, keeps successfulJobsHistoryLimit, and records the last success', async () => {
    // Jobs are named <cronjob>-<minute>, so an @every schedule shorter than a minute reuses the name: a second
    // start in the same minute finds its Job still there (AlreadyExists) unless the history limit deleted it.
    await must(r, ['apply', '-f', '-'], `apiVersion: batch/v1
kind: CronJob
metadata: {name: every, namespace: ${NS}}
spec:
  schedule: "@every 2s"
  successfulJobsHistoryLimit: 0
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: main, image: busybox}]
`);
    const count = (events: any[], reason: string) => events.filter((e) => e.reason === reason).reduce((n, e) => n + (e.count ?? 1), 0);
    const events = await waitFor('two Jobs started, finished and deleted', async () => {
      const ev = await eventsOf(r, 'every');
      return count(ev, 'SuccessfulCreate') >= 2 && count(ev, 'SuccessfulDelete') >= 1 ? ev : undefined;
    }, 60_000);
    const created = events.find((e) => e.reason === 'SuccessfulCreate');
    expect(created.source.component).toBe('cronjob-controller');
    expect(created.message).toMatch(/^Created job every-\d+$/);
    expect(events.find((e) => e.reason === 'SuccessfulDelete').message).toMatch(/^Deleted job every-\d+$/);
    const cj = await waitFor('lastSuccessfulTime', async () => {
      const o = await get(r, `/apis/batch/v1/namespaces/${NS}/cronjobs/every`);
      return o.status?.lastSuccessfulTime ? o : undefined;
    });
    expect(cj.status.lastSuccessfulTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(cj.status.lastScheduleTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const table = await must(r, ['-n', NS, 'get', 'cronjob', 'every']);
    expect(table).toMatch(/^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE/);
    await must(r, ['-n', NS, 'patch', 'cronjob', 'every', '-p', '{"spec":{"suspend":true}}']);
  }, 90_000);

  it('makes a manual run with kubectl create job --from=cronjob/…', async () => {
    await must(r, ['apply', '-f', '-'], `apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: ${NS}}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    metadata: {labels: {team: ops}}
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: main, image: busybox}]
`);
    const out = await must(r, ['-n', NS, 'create', 'job', 'by-hand', '--from=cronjob/nightly']);
    expect(out.trim()).toBe('job.batch/by-hand created');
    const job = await get(r, `/apis/batch/v1/namespaces/${NS}/jobs/by-hand`);
    expect(job.metadata.annotations['cronjob.kubernetes.io/instantiate']).toBe('manual');
    expect(job.metadata.labels.team).toBe('ops');
    expect(job.metadata.ownerReferences[0]).toMatchObject({ kind: 'CronJob', name: 'nightly', controller: true });
    await must(r, ['-n', NS, 'wait', '--for=condition=complete', 'job/by-hand', '--timeout=30s']);
    // kube's controller did not start it, so it reports it as unexpected while it runs (or only sees it finish).
    const cj = await waitFor('the CronJob to see its manual Job complete', async () => {
      const o = await get(r, `/apis/batch/v1/namespaces/${NS}/cronjobs/nightly`);
      return o.status?.lastSuccessfulTime ? o : undefined;
    });
    expect(cj.status.lastScheduleTime).toBeUndefined();
    expect(cj.status.active).toBeUndefined();
  }, 60_000);

  it('runs a five-field schedule in spec.timeZone at the next whole minute', async () => {
    await must(r, ['apply', '-f', '-'], `apiVersion: batch/v1
kind: CronJob
metadata: {name: kolkata, namespace: ${NS}}
spec:
  schedule: "* * * * *"
  timeZone: Asia/Kolkata
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: main, image: busybox}]
`);
    const [job] = await waitFor('the first Job of the minute', async () => {
      const jobs = await jobsOf(r, 'kolkata');
      return jobs.length ? jobs : undefined;
    }, 75_000);
    const stamp: string = job.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp'];
    expect(stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\+05:30$/);
    expect(job.metadata.name).toBe(`kolkata-${Date.parse(stamp) / 60_000}`);
    const table = await must(r, ['-n', NS, 'get', 'cronjob', 'kolkata']);
    expect(table).toMatch(/kolkata\s+\* \* \* \* \*\s+Asia\/Kolkata\s+False/);
  }, 120_000);

  it('finds the last of decades of missed minutes in bounded work (lastScheduleTime in 1970, a deadline of 60 years)', async () => {
    await must(r, ['apply', '-f', '-'], `apiVersion: batch/v1
kind: CronJob
metadata: {name: decades, namespace: ${NS}}
spec:
  schedule: "* * * * *"
  startingDeadlineSeconds: 1900000000
  suspend: true
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: main, image: busybox}]
`);
    // Status is the controller's to write, but anyone allowed cronjobs/status can set it: 29 million minutes ago.
    await must(r, ['-n', NS, 'patch', 'cronjob', 'decades', '--subresource=status', '--type=merge', '-p', '{"status":{"lastScheduleTime":"1970-01-01T00:00:00Z"}}']);
    await must(r, ['-n', NS, 'patch', 'cronjob', 'decades', '--type=merge', '-p', '{"spec":{"suspend":false}}']);
    const warned = await waitFor('TooManyMissedTimes', async () => (await eventsOf(r, 'decades')).find((e) => e.reason === 'TooManyMissedTimes'));
    expect(warned.message).toBe('too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
    // It starts the latest missed minute, once.
    const cj = await waitFor('a start recorded', async () => {
      const o = await get(r, `/apis/batch/v1/namespaces/${NS}/cronjobs/decades`);
      return o.status?.lastScheduleTime && o.status.lastScheduleTime !== '1970-01-01T00:00:00Z' ? o : undefined;
    });
    expect(Date.now() - Date.parse(cj.status.lastScheduleTime)).toBeLessThan(120_000);
    expect((await jobsOf(r, 'decades')).length).toBeGreaterThanOrEqual(1); // one a minute from now on, never one per missed minute
    expect((await jobsOf(r, 'decades')).length).toBeLessThanOrEqual(2);
    await must(r, ['-n', NS, 'delete', 'cronjob', 'decades']);
  }, 60_000);
});
