// Benchmark: what the front door costs per request — a GET of one ConfigMap through the real gateway (workerd's own
// port, keep-alive), for the admin (no authorizer call), a user (one authorizer call) and a user impersonating
// another (the impersonate check rides in the same call). Run once with the default audit policy (Metadata for the
// GET) and once with AUDIT_POLICY at level None, so the audit log's own cost shows.
// Reports requests/s, latency and workerd's CPU time per request (the steadier figure on a shared machine).
//   npx tsx bench/front-door.ts [--seconds=8] [--concurrency=16] [--policies=default,none]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from '../scripts/gateway';
import { HttpClient } from './lib/http';
import { percentile, round } from './lib/stats';
import { childPid, cpuMs } from './lib/proc';

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const SECONDS = Number(arg('seconds', '8'));
const CONCURRENCY = Number(arg('concurrency', '16'));
const POLICIES = arg('policies', 'default,none').split(',');
const ADMIN = 'bench-admin-token';
const NONE_POLICY = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: None\n';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const PATH = '/api/v1/namespaces/default/configmaps/bench';

async function run(policy: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-frontdoor-'));
  const vars: Record<string, string> = {
    CONTROLLERS: 'off', RATE_LIMIT_QPS: '1000000', RATE_LIMIT_BURST: '1000000', REPLICA_LOCATIONS: '', AUTHZ_SHARDS: '1',
    STATIC_TOKENS: 'alice-token,alice,uid-a',
  };
  if (policy === 'none') vars.AUDIT_POLICY = NONE_POLICY;
  const gateway = await startGateway({ port: 0, persistDir: dir, adminToken: ADMIN, vars });
  // workerd's CPU time per request: steadier than requests/s on a machine others load too.
  const workerd = childPid(process.pid, 'workerd');
  if (!workerd) throw new Error('workerd process not found');
  try {
    const admin = new HttpClient(gateway.directUrl, { authorization: `Bearer ${ADMIN}` });
    const send = async (method: string, path: string, body: unknown) => {
      const r = await admin.send(method, path, JSON.stringify(body));
      if (r.status >= 300 && r.status !== 409) throw new Error(`${method} ${path}: ${r.status} ${r.body}`);
    };
    await send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'bench' }, data: { k: 'v' } });
    // alice and jane may read configmaps (alice too, so the same run works on a gateway without impersonation);
    // alice may impersonate jane.
    await send('POST', `${RBAC}/clusterroles`, { metadata: { name: 'bench' }, rules: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
      { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['jane'] },
    ] });
    for (const user of ['alice', 'jane']) {
      await send('POST', `${RBAC}/clusterrolebindings`, {
        metadata: { name: `bench-${user}` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'bench' },
        subjects: [{ kind: 'User', name: user, apiGroup: 'rbac.authorization.k8s.io' }],
      });
    }
    const cases: [string, Record<string, string>][] = [
      ['admin', { authorization: `Bearer ${ADMIN}` }],
      ['user', { authorization: 'Bearer alice-token' }],
      ['user as another', { authorization: 'Bearer alice-token', 'impersonate-user': 'jane' }],
    ];
    for (const [name, headers] of cases) {
      const client = new HttpClient(gateway.directUrl, headers, CONCURRENCY);
      for (let i = 0; i < 200; i++) await client.send('GET', PATH); // warm-up: JIT, caches, sockets
      const samples: number[] = [];
      let failures = 0;
      const cpu0 = cpuMs(workerd);
      const end = performance.now() + SECONDS * 1000;
      await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < end) {
          const r = await client.send('GET', PATH);
          if (r.status !== 200) failures++;
          samples.push(r.ms);
        }
      }));
      const cpuPerRequestUs = ((cpuMs(workerd) - cpu0) * 1000) / samples.length;
      samples.sort((a, b) => a - b);
      console.log(`| ${policy} | ${name} | ${round(samples.length / SECONDS, 0)} | ${round(cpuPerRequestUs, 0)} | ${round(percentile(samples, 0.5), 2)} | ${round(percentile(samples, 0.99), 2)} | ${failures} |`);
      client.agent.destroy();
    }
    admin.agent.destroy();
  } finally {
    await gateway.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`GET ${PATH}, ${CONCURRENCY} concurrent clients, ${SECONDS} s per case`);
console.log('| audit policy | client | requests/s | workerd CPU µs/request | p50 ms | p99 ms | non-200 |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const p of POLICIES) await run(p);
