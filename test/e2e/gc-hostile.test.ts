// Issue 18, classes 1 and 6 (garbage collector): a limited tenant's ownerReference cycles deleted in the foreground,
// and 40 MB of its Secrets, must not stall, starve or bloat the gateway for anyone else — also after a restart on the
// same persisted state. Each attack runs against a concurrent victim (test/e2e/hostile.ts) whose figures are printed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, metric, startTestGateway, stopTestGateway, waitFor, type Running } from './fixtures';
import { as, limitedTenant, Victim, workerdStats, type Tenant } from './hostile';

const CONTROLLERS_ON = { CONTROLLERS: 'on', SIMULATED_NODES: '1' };
const FOREGROUND = { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' };
const mb = (b: number) => (b / 1048576).toFixed(0);

const cms = (t: Tenant) => `/api/v1/namespaces/${t.namespace}/configmaps`;

async function must(what: string, res: Promise<{ status: number; text: string; json: any }>, ok = [200, 201]): Promise<any> {
  const r = await res;
  if (!ok.includes(r.status)) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.json;
}

/** A ConfigMap made by `t`; returns its uid. */
async function configMap(r: Running, t: Tenant, name: string): Promise<string> {
  return (await must(`create ${name}`, as(r, t, 'POST', cms(t), { metadata: { name }, data: { k: name } }))).metadata.uid;
}

const ownerRef = (name: string, uid: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid, blockOwnerDeletion: true });

async function setOwners(r: Running, t: Tenant, name: string, owners: { name: string; uid: string }[]): Promise<void> {
  await must(`own ${name}`, as(r, t, 'PATCH', `${cms(t)}/${name}`, { metadata: { ownerReferences: owners.map((o) => ownerRef(o.name, o.uid)) } },
    { 'content-type': 'application/merge-patch+json' }));
}

const get = (r: Running, t: Tenant, name: string) => as(r, t, 'GET', `${cms(t)}/${name}`);

/** A work queue's series from /metrics (worker/routes/metrics.ts), e.g. edgeplane_workqueue_syncs_total. */
async function queueMetric(r: Running, name: string, queue: string): Promise<number> {
  const text = (await http(r, 'GET', '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name}{name="${queue}"}`));
  if (!line) throw new Error(`no ${name} for ${queue} in /metrics`);
  return Number(line.split(' ').at(-1));
}

/** The collector's syncs over `ms` with nobody writing: a handful at most, never a hot loop. */
async function idleSyncs(r: Running, ms: number): Promise<number> {
  const before = await queueMetric(r, 'edgeplane_workqueue_syncs_total', 'garbage_collector_attempt_to_delete');
  await new Promise((res) => setTimeout(res, ms));
  const after = await queueMetric(r, 'edgeplane_workqueue_syncs_total', 'garbage_collector_attempt_to_delete');
  console.log(`[hostile] garbage collector: ${after - before} syncs in ${ms} ms idle (${after} in all)`);
  return after - before;
}

/** Polls the controller manager's loops (the ServiceAccount controller) until they run: a new namespace gets `default`. */
async function loopsRunning(r: Running, tenantNs: string): Promise<void> {
  const admin = await limitedTenant(r, `${tenantNs}-probe`, 'admin');
  await waitFor('the controllers to run (default ServiceAccount)', async () => {
    const res = await as(r, admin, 'GET', `/api/v1/namespaces/${admin.namespace}/serviceaccounts/default`);
    return res.status === 200 ? true : undefined;
  }, 60_000, 200);
}

describe('garbage collector against a hostile tenant', () => {
  let r: Running | undefined;
  let victim: Victim;
  let tenant: Tenant;
  beforeAll(async () => {
    r = await startTestGateway({ vars: CONTROLLERS_ON });
    await loopsRunning(r, 'warmup');
    tenant = await limitedTenant(r, 'gc-attacker');
    victim = await Victim.create(r);
    await victim.baseline();
  }, 120_000);
  afterAll(() => stopTestGateway(r));

  it('a self-owning ConfigMap deleted in the foreground stays with its finalizer and stalls no one', async () => {
    const { report } = await victim.during('self-owner, foreground delete', async () => {
      const uid = await configMap(r!, tenant, 'loop');
      await setOwners(r!, tenant, 'loop', [{ name: 'loop', uid }]);
      await must('delete loop', as(r!, tenant, 'DELETE', `${cms(tenant)}/loop`, FOREGROUND), [200, 202]);
    }, 4000);
    expect(report.failures).toEqual([]);
    // kube: the object waits for itself, so it keeps the foregroundDeletion finalizer (the owner may remove it).
    const loop = await get(r!, tenant, 'loop');
    expect(loop.status).toBe(200);
    expect(loop.json.metadata.deletionTimestamp).toBeTruthy();
    expect(loop.json.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(await idleSyncs(r!, 2000)).toBeLessThan(20);
  }, 120_000);

  it('an A↔B ownership cycle deleted in the foreground is collected (kube unblocks the cycle) and stalls no one', async () => {
    const { report } = await victim.during('A↔B cycle, foreground delete', async () => {
      const a = await configMap(r!, tenant, 'cycle-a');
      const b = await configMap(r!, tenant, 'cycle-b');
      await setOwners(r!, tenant, 'cycle-a', [{ name: 'cycle-b', uid: b }]);
      await setOwners(r!, tenant, 'cycle-b', [{ name: 'cycle-a', uid: a }]);
      await must('delete cycle-a', as(r!, tenant, 'DELETE', `${cms(tenant)}/cycle-a`, FOREGROUND), [200, 202]);
      await waitFor('the cycle to be collected', async () => {
        const [ga, gb] = await Promise.all([get(r!, tenant, 'cycle-a'), get(r!, tenant, 'cycle-b')]);
        return ga.status === 404 && gb.status === 404 ? true : undefined;
      }, 30_000, 200);
    }, 2000);
    expect(report.failures).toEqual([]);
  }, 120_000);

  it('a three-object cycle and a self-owner with a dependent, deleted in the foreground, stall no one', async () => {
    const { report } = await victim.during('3-cycle + self-owner with dependent', async () => {
      const uids: Record<string, string> = {};
      for (const n of ['tri-a', 'tri-b', 'tri-c', 'me', 'mine']) uids[n] = await configMap(r!, tenant, n);
      await setOwners(r!, tenant, 'tri-a', [{ name: 'tri-c', uid: uids['tri-c']! }]);
      await setOwners(r!, tenant, 'tri-b', [{ name: 'tri-a', uid: uids['tri-a']! }]);
      await setOwners(r!, tenant, 'tri-c', [{ name: 'tri-b', uid: uids['tri-b']! }]);
      await setOwners(r!, tenant, 'me', [{ name: 'me', uid: uids.me! }]);
      await setOwners(r!, tenant, 'mine', [{ name: 'me', uid: uids.me! }]);
      await must('delete tri-a', as(r!, tenant, 'DELETE', `${cms(tenant)}/tri-a`, FOREGROUND), [200, 202]);
      await must('delete me', as(r!, tenant, 'DELETE', `${cms(tenant)}/me`, FOREGROUND), [200, 202]);
      await waitFor('the 3-cycle to be collected and the self-owner\'s dependent deleted', async () => {
        const gone = await Promise.all(['tri-a', 'tri-b', 'tri-c', 'mine'].map(async (n) => (await get(r!, tenant, n)).status === 404));
        return gone.every(Boolean) ? true : undefined;
      }, 30_000, 200);
    }, 2000);
    expect(report.failures).toEqual([]);
    expect((await get(r!, tenant, 'me')).json.metadata.finalizers).toEqual(['foregroundDeletion']);
  }, 120_000);

  it('restarting on the same state (objects stuck with their finalizers) stays responsive', async () => {
    // Another self-owner and a fresh cycle that is deleted just before the gateway stops, so the restarted loops find
    // both mid-way.
    const uid = await configMap(r!, tenant, 'loop-2');
    await setOwners(r!, tenant, 'loop-2', [{ name: 'loop-2', uid }]);
    await must('delete loop-2', as(r!, tenant, 'DELETE', `${cms(tenant)}/loop-2`, FOREGROUND), [200, 202]);
    await stopTestGateway(r, true);
    r = await startTestGateway({ persistDir: r!.persistDir, vars: CONTROLLERS_ON });
    await loopsRunning(r, 'after-restart');
    victim = await Victim.create(r);
    const { report } = await victim.during('restart on a stuck self-owner', async () => {
      // The GC has listed the stuck objects; give it time to (not) spin on them.
      await new Promise((res) => setTimeout(res, 3000));
    }, 1000);
    expect(report.failures).toEqual([]);
    expect(await idleSyncs(r, 2000)).toBeLessThan(20);
    expect((await get(r, tenant, 'loop')).json.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect((await get(r, tenant, 'loop-2')).json.metadata.finalizers).toEqual(['foregroundDeletion']);
  }, 180_000);

  it('40 MB of Secrets from one tenant: the garbage collector keeps metadata only', async () => {
    const before = workerdStats();
    const value = Buffer.alloc(512 * 1024, 'x').toString('base64'); // 512 KiB each, ~683 KiB encoded
    const count = 80; // 40 MiB of data
    const { report } = await victim.during('40 MB of Secrets', async () => {
      for (let i = 0; i < count; i++) {
        await must(`secret ${i}`, as(r!, tenant, 'POST', `/api/v1/namespaces/${tenant.namespace}/secrets`, { metadata: { name: `blob-${i}` }, data: { v: value } }));
      }
    }, 3000);
    const after = workerdStats();
    console.log(`[hostile] 40 MB of Secrets: workerd RSS ${mb(before.rssBytes)} → ${mb(after.rssBytes)} MB (+${mb(after.rssBytes - before.rssBytes)} MB)`);
    expect(report.failures).toEqual([]);
    // The collector watches Secrets at the canonical store (which holds them anyway), keeping metadata only: no
    // watch-cache replica is woken to hold a second copy of every Secret for it.
    expect(await metric(r!, 'edgeplane_watchers', 'core/secrets')).toBeGreaterThanOrEqual(1);
    expect(await metric(r!, 'edgeplane_replica_watchers', 'core/secrets').catch(() => 0)).toBe(0);
  }, 180_000);
});
