// The watch quota against a hostile namespace admin (issue 18, class 5), through the real gateway with two
// replicas: ServiceAccounts it mints share its namespace's bound, its replica overrides are ignored, the
// cluster admin, another tenant and system components keep watching throughout, and watches it hangs up
// are freed as soon as anyone wants their slots. Bounds are scaled down a hundredfold from the defaults
// (MAX_WATCHERS 6000, MAX_WATCHES_PER_USER and MAX_WATCHES_PER_NAMESPACE 1000).
import { afterEach, describe, expect, it } from 'vitest';
import { http, metric, SIGNING_KEY, startTestGateway, stopTestGateway, waitFor, watcherCount, type Running } from './fixtures';
import { as, limitedTenant, Victim, type Tenant } from './hostile';
import { httpWatch, wsWatch, type OpenWatch } from './watch-streams';
import { internalToken } from '../../core/auth/internal-identity';
import { keyFromSecret } from '../../core/auth/service-account-token';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let r: Running | undefined;
afterEach(async () => {
  await stopTestGateway(r);
  r = undefined;
});

/** `count` ServiceAccounts minted by the namespace admin `tenant` itself, bound to `edit` there, with tokens. */
async function mintAccounts(r: Running, tenant: Tenant, count: number): Promise<string[]> {
  const ns = tenant.namespace;
  const names = Array.from({ length: count }, (_, i) => `minted-${i}`);
  for (const name of names) expect((await as(r, tenant, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name } })).status).toBe(201);
  const bound = await as(r, tenant, 'POST', `${RBAC}/namespaces/${ns}/rolebindings`, {
    metadata: { name: 'minted-edit' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
    subjects: names.map((name) => ({ kind: 'ServiceAccount', name, namespace: ns })),
  });
  expect(bound.status).toBe(201);
  const tokens: string[] = [];
  for (const name of names) {
    const issued = await as(r, tenant, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, { spec: { expirationSeconds: 3600 } });
    expect(issued.status).toBe(201);
    tokens.push(issued.json.status.token);
  }
  return tokens;
}

/** Replica watchers of configmaps by replica index, and the store's own. */
async function placement(r: Running): Promise<{ store: number; replicas: number[] }> {
  const text = (await http(r, 'GET', '/metrics')).text;
  const at = (i: number) => Number(text.match(new RegExp(`edgeplane_replica_watchers\\{resource="core/configmaps",replica="core/configmaps@enam#${i}"\\} (\\d+)`))?.[1] ?? 0);
  return { store: await metric(r, 'edgeplane_watchers', 'core/configmaps'), replicas: [at(0), at(1)] };
}

describe('watch quota against a namespace admin', () => {
  it('bounds minted ServiceAccounts by their namespace, never refuses the admin, a victim or system components, and frees hung-up watches', async () => {
    r = await startTestGateway({
      vars: {
        REPLICA_LOCATIONS: 'enam', REPLICAS_PER_LOCATION: '2',
        MAX_WATCHERS: '60', MAX_WATCHES_PER_USER: '10', MAX_WATCHES_PER_NAMESPACE: '10',
      },
    });
    const attacker = await limitedTenant(r, 'attacker', 'admin');
    const tokens = await mintAccounts(r, attacker, 6);
    const victim = await Victim.create(r);
    await victim.baseline();
    // The garbage collector's identity (kube-system ServiceAccount) may watch configmaps everywhere.
    const system = await internalToken(keyFromSecret(SIGNING_KEY), 'system:serviceaccount:kube-system:generic-garbage-collector');
    const path = (ns: string) => `/api/v1/namespaces/${ns}/configmaps?watch=true`;

    const { result, report } = await victim.during('six minted ServiceAccounts × 6 watches, aimed at every replica and the store, then hung up', async () => {
      // Before the fix each account had its own 10 per replica and could pick the replica (or the store), so six
      // accounts filled a replica's MAX_WATCHERS (60) and everyone, system components included, got 429.
      const aims: Record<string, string>[] = [{ 'x-edgeplane-location': 'enam', 'x-edgeplane-replica-index': '0' }, { 'x-edgeplane-location': 'enam', 'x-edgeplane-replica-index': '1' }, { 'x-edgeplane-location': 'store' }];
      const held: OpenWatch[] = [];
      const statuses: number[] = [];
      for (const [i, token] of tokens.entries()) {
        for (let j = 0; j < 6; j++) {
          const w = await httpWatch(r!, path('attacker'), { ...bearer(token), ...aims[(i + j) % aims.length] });
          statuses.push(w.log.status);
          if (w.log.status === 200) held.push(w);
          else w.close();
        }
      }
      const refused = (await http(r!, 'GET', `${path('attacker')}&timeoutSeconds=1`, undefined, bearer(tokens[0]))).json;
      const where = await placement(r!);

      // Everyone else watches, over both transports, and sees what happens.
      const admin = await httpWatch(r!, '/api/v1/configmaps?watch=true');
      const victimWatch = await wsWatch(r!, path('victim'), { headers: bearer(victim.tenant.token) });
      const systemWatches: OpenWatch[] = [];
      for (let i = 0; i < 15; i++) systemWatches.push(await httpWatch(r!, '/api/v1/configmaps?watch=true', bearer(system)));
      expect((await as(r!, victim.tenant, 'POST', '/api/v1/namespaces/victim/configmaps', { metadata: { name: 'seen' } })).status).toBe(201);
      const seen = (w: OpenWatch) => w.log.until((evs) => evs.some((e) => e.object?.metadata?.name === 'seen'), 'the victim\'s configmap', 10_000);
      await Promise.all([admin, victimWatch, ...systemWatches].map(seen));
      const others = [admin.log.status, victimWatch.log.status, ...systemWatches.map((w) => w.log.status)];

      // Hang up every watch at once, then measure how long the attacker's own namespace stays unwatchable.
      const live = await watcherCount(r!, 'core/configmaps') - held.length;
      const hungUp = performance.now();
      for (const w of held) w.close();
      await waitFor('the attacker watching again', async () => ((await http(r!, 'GET', `${path('attacker')}&timeoutSeconds=1`, undefined, bearer(tokens[5]))).status === 200 ? true : undefined), 15_000);
      const unwatchableMs = performance.now() - hungUp;
      // The freed slots show in /metrics (edgeplane_watchers and edgeplane_replica_watchers) within a bounded wait.
      await waitFor('the hung-up watches gone from /metrics', async () => ((await watcherCount(r!, 'core/configmaps')) <= live ? true : undefined), 15_000);
      const freedMs = performance.now() - hungUp;
      for (const w of [admin, victimWatch, ...systemWatches]) w.close();
      return { statuses, refused, where, others, unwatchableMs, freedMs };
    });
    console.log(`[watch-quota] attacker held ${result.statuses.filter((s) => s === 200).length} of ${result.statuses.length}; after hanging up, its namespace could watch again in ${result.unwatchableMs.toFixed(0)} ms, /metrics showed the slots freed in ${result.freedMs.toFixed(0)} ms; nobody else was refused`);
    // Six accounts, one namespace: one bound of 10, whatever replica they asked for.
    expect(result.statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(result.statuses.filter((s) => s !== 200).every((s) => s === 429)).toBe(true);
    expect(result.refused).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429, details: { retryAfterSeconds: 1 } });
    // All on the one replica its namespace hashes to: none at the store, none spread by the overrides.
    expect(result.where.store).toBe(0);
    expect([...result.where.replicas].sort()).toEqual([0, 10]);
    // The admin (HTTP), the victim (WebSocket) and 15 system watches, more than any tenant's bound: all admitted.
    expect(result.others).toEqual([200, 101, ...Array(15).fill(200)]);
    expect(report.failures).toEqual([]);
  });

  it('keeps a type watchable for everyone else while a tenant churns watches it hangs up at once', async () => {
    r = await startTestGateway({ vars: { REPLICA_LOCATIONS: '', MAX_WATCHERS: '60', MAX_WATCHES_PER_USER: '10', MAX_WATCHES_PER_NAMESPACE: '10' } });
    const attacker = await limitedTenant(r, 'attacker', 'admin');
    const tokens = await mintAccounts(r, attacker, 3);
    const other = await limitedTenant(r, 'other');
    const victim = await Victim.create(r);
    await victim.baseline();
    const { result, report } = await victim.during('6 rounds of 30 watches opened and hung up at once', async () => {
      // Before the fix each of them held its slot until a heartbeat found it gone (30–60 s): ~130 a second kept
      // MAX_WATCHERS full with no socket held.
      const opened: number[] = [];
      for (let round = 0; round < 6; round++) {
        opened.push(...await Promise.all(Array.from({ length: 30 }, (_, i) => httpWatch(r!, '/api/v1/namespaces/attacker/configmaps?watch=true', bearer(tokens[i % 3])).then((w) => {
          w.close();
          return w.log.status;
        }))));
      }
      const statuses: number[] = [];
      for (const t of [other.token, undefined]) {
        const w = await httpWatch(r!, `/api/v1/namespaces/${t ? 'other' : 'default'}/configmaps?watch=true`, t ? bearer(t) : {});
        statuses.push(w.log.status);
        w.close();
      }
      return { opened, statuses };
    });
    expect(result.opened.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect(result.opened.every((s) => s === 200 || s === 429)).toBe(true);
    expect(result.statuses).toEqual([200, 200]);
    expect(report.failures).toEqual([]);
  });
});
