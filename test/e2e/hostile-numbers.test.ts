// e2e (issue 18, class 3): no control loop or validation does work proportional to a number a user wrote rather than
// to the objects that exist. A limited tenant (`edit` in its own namespace) writes workloads with extreme numbers —
// an Indexed Job of 100,000,000 completions whose status (written by a role allowed jobs/status: the admin here, as
// the point is the cost) claims 16,000,000 completed indexes, a Job status with thousands of uncounted pods,
// a Parallel StatefulSet of 2^31−1 replicas, and seconds values turned into timers — while a victim tenant's reads,
// writes and /readyz must keep succeeding within max(1.5 s, 25× their median). Each case prints the victim's latency
// and workerd's RSS and CPU.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, waitFor, type Running } from './fixtures';
import { as, limitedTenant, Victim, type Tenant } from './hostile';

const NS = 'numbers';
const INT32_MAX = 2147483647;
let r: Running;
let mallory: Tenant;
let victim: Victim;

beforeAll(async () => {
  r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '2' } });
  mallory = await limitedTenant(r, NS);
  victim = await Victim.create(r);
  await victim.baseline();
}, 120_000);
afterAll(() => stopTestGateway(r));

const JOBS = `/apis/batch/v1/namespaces/${NS}/jobs`;
const container = { name: 'main', image: 'busybox' };

function job(name: string, spec: Record<string, unknown>, annotations: Record<string, string> = {}) {
  return {
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name },
    spec: { ...spec, template: { metadata: { annotations }, spec: { restartPolicy: 'Never', containers: [container] } } },
  };
}

async function must(res: Promise<{ status: number; text: string; json: any }>, ...ok: number[]) {
  const out = await res;
  if (!ok.includes(out.status)) throw new Error(`unexpected ${out.status}: ${out.text.slice(0, 300)}`);
  return out.json;
}

/** The victim probes while `attack` runs; what the attack itself hit (a stalled or crashed gateway) is kept, not thrown, so the figures print. */
async function during(label: string, attack: () => Promise<void>, settleMs: number) {
  const errors: string[] = [];
  const { report } = await victim.during(label, () => attack().catch((e) => { errors.push(String((e as { cause?: unknown }).cause ?? e)); }), settleMs);
  return { report, errors };
}

/** Waits until the Job controller has synced the Job (startTime set), then writes `status` over it as the admin. */
async function writeStatus(name: string, change: (status: any) => void): Promise<any> {
  const current = await waitFor(`job/${name} synced`, async () => {
    const j = (await http(r, 'GET', `${JOBS}/${name}`)).json;
    return j?.status?.startTime ? j : undefined;
  });
  change(current.status);
  return must(http(r, 'PUT', `${JOBS}/${name}/status`, current), 200);
}

describe('numbers a user wrote (issue 18, class 3)', () => {
  it('an Indexed Job of 10^8 completions with 16,000,000 completed indexes costs what its intervals cost', async () => {
    await must(as(r, mallory, 'POST', JOBS, job('big', { completionMode: 'Indexed', completions: 100_000_000, parallelism: 1 },
      { 'edgeplane.dev/simulate-run-seconds': '3600' })), 201);
    const { report, errors } = await during('Indexed Job, completedIndexes 0-15999999 of 10^8', async () => {
      await writeStatus('big', (s) => { s.completedIndexes = '0-15999999'; });
      // Each later update of the Job makes the controller read the status again.
      for (let i = 0; i < 3; i++) {
        await must(as(r, mallory, 'PATCH', `${JOBS}/big`, { metadata: { labels: { round: String(i) } } }, { 'content-type': 'application/merge-patch+json' }), 200);
      }
    }, 8000);
    expect(report.failures).toEqual([]);
    expect(errors).toEqual([]);
    const big = (await http(r, 'GET', `${JOBS}/big`)).json;
    expect(big.status.completedIndexes).toBe('0-15999999');
    // Status validation reads the list against spec.completions, in kube's words.
    big.status.completedIndexes = '0-100000000';
    const refused = await http(r, 'PUT', `${JOBS}/big/status`, big);
    expect(refused.status).toBe(422);
    expect(refused.json.message).toBe('Job.batch "big" is invalid: status.completedIndexes: Invalid value: "0-100000000": error parsing completedIndexes: too large index: "100000000"');
  }, 180_000);

  it('a Job status with 6,000 uncounted pods is read in linear time', async () => {
    await must(as(r, mallory, 'POST', JOBS, job('uncounted', { parallelism: 1, backoffLimit: INT32_MAX },
      { 'edgeplane.dev/simulate-run-seconds': '3600' })), 201);
    const uids = Array.from({ length: 6_000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const { report, errors } = await during('Job status, 6,000 uncountedTerminatedPods.failed', async () => {
      await writeStatus('uncounted', (s) => { s.uncountedTerminatedPods = { failed: uids }; });
    }, 8000);
    expect(report.failures).toEqual([]);
    expect(errors).toEqual([]);
  }, 180_000);

  it('a Parallel StatefulSet of 2^31−1 replicas plans per sync from the pods that exist, not per replica', async () => {
    // Its pods are refused (no containers: kube validates no StatefulSet pod spec), so no pod is made and what is
    // measured is the controller's planning, sync after sync, not the cost of pods (ResourceQuota's business).
    const sets = `/apis/apps/v1/namespaces/${NS}/statefulsets`;
    const { report, errors } = await during('StatefulSet, Parallel, replicas 2^31-1', async () => {
      await must(as(r, mallory, 'POST', sets, {
        apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'huge' },
        spec: {
          replicas: INT32_MAX, podManagementPolicy: 'Parallel', serviceName: 'huge', selector: { matchLabels: { app: 'huge' } },
          template: { metadata: { labels: { app: 'huge' } }, spec: { containers: [] } },
        },
      }), 201);
      await waitFor('the StatefulSet controller to try a pod', async () => {
        const events = (await http(r, 'GET', `/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name%3Dhuge`)).json?.items ?? [];
        return events.some((e: any) => e.reason === 'FailedCreate') ? true : undefined;
      }, 30_000);
    }, 8000);
    expect(report.failures).toEqual([]);
    expect(errors).toEqual([]);
    await must(as(r, mallory, 'DELETE', `${sets}/huge`), 200);
  }, 180_000);

  it('seconds a user wrote become timers that wait, not loops that spin', async () => {
    const apps = `/apis/apps/v1/namespaces/${NS}`;
    const template = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [container] } });
    const { report, errors } = await during('extreme seconds (deadlines, TTL, minReadySeconds, simulated run time)', async () => {
      await must(as(r, mallory, 'POST', JOBS, job('deadline', { activeDeadlineSeconds: Number.MAX_SAFE_INTEGER, ttlSecondsAfterFinished: INT32_MAX },
        { 'edgeplane.dev/simulate-run-seconds': '1e300' })), 201);
      await must(as(r, mallory, 'POST', JOBS, job('ttl', { ttlSecondsAfterFinished: INT32_MAX }, { 'edgeplane.dev/simulate-run-seconds': '0' })), 201);
      await must(as(r, mallory, 'POST', `${apps}/deployments`, {
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'slow' },
        spec: {
          replicas: 1, minReadySeconds: INT32_MAX - 1, progressDeadlineSeconds: INT32_MAX, revisionHistoryLimit: INT32_MAX,
          strategy: { rollingUpdate: { maxSurge: '100%', maxUnavailable: '100%' } },
          selector: { matchLabels: { app: 'slow' } }, template: template('slow'),
        },
      }), 201);
      await must(as(r, mallory, 'POST', `${apps}/daemonsets`, {
        apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'slow' },
        spec: { minReadySeconds: INT32_MAX, revisionHistoryLimit: INT32_MAX, selector: { matchLabels: { app: 'slow-ds' } }, template: template('slow-ds') },
      }), 201);
      await must(as(r, mallory, 'POST', `${apps}/statefulsets`, {
        apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'slow' },
        spec: {
          replicas: 1, minReadySeconds: INT32_MAX, serviceName: 'slow', updateStrategy: { rollingUpdate: { partition: INT32_MAX } },
          selector: { matchLabels: { app: 'slow-sts' } }, template: template('slow-sts'),
        },
      }), 201);
      await must(as(r, mallory, 'POST', `/api/v1/namespaces/${NS}/pods`, {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'lingering', annotations: { 'edgeplane.dev/simulate-termination-seconds': '1e300' } },
        spec: { terminationGracePeriodSeconds: Number.MAX_SAFE_INTEGER, activeDeadlineSeconds: INT32_MAX, containers: [container] },
      }), 201);
      await waitFor('job/ttl to complete', async () =>
        (await http(r, 'GET', `${JOBS}/ttl`)).json?.status?.conditions?.some((c: any) => c.type === 'Complete') ? true : undefined, 30_000);
      await waitFor('pod/lingering to run', async () =>
        (await http(r, 'GET', `/api/v1/namespaces/${NS}/pods/lingering`)).json?.status?.phase === 'Running' ? true : undefined, 30_000);
      await must(as(r, mallory, 'DELETE', `/api/v1/namespaces/${NS}/pods/lingering`), 200);
    }, 8000);
    expect(report.failures).toEqual([]);
    expect(errors).toEqual([]);
    // Nothing fired early: the Job with a finished TTL of 68 years is still there, and so is the pod given 2^53 s to
    // stop, its deletion due at the last second metav1.Time can write (the DELETE answered 500 before).
    expect((await http(r, 'GET', `${JOBS}/ttl`)).status).toBe(200);
    expect((await http(r, 'GET', `/api/v1/namespaces/${NS}/pods/lingering`)).json?.metadata?.deletionTimestamp).toBe('9999-12-31T23:59:59Z');
  }, 180_000);
});
