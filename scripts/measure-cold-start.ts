// Tooling: cold-start cost measured locally (issue 15): the CPU workerd spends loading the deploy bundle (compared
// with a trivial Worker under the same Miniflare setup), and the CPU of a store Durable Object's first request
// (SQLite schema, bootstrap objects, watch cache) compared with the next one. Linux only (/proc).
// Usage: npx tsx scripts/measure-cold-start.ts   (builds the deploy bundle first)

import { Miniflare } from 'miniflare';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childPid, cpuMs } from '../bench/lib/proc';
import { buildDeployBundle, DEPLOY_BUNDLE } from './check-bundle';
import { startGateway } from './gateway';

async function startupCpu(source: { scriptPath: string } | { script: string }, durableObjects: Record<string, { className: string; useSQLite: boolean }>): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'cold-'));
  const mf = new Miniflare({ modules: true, ...source, compatibilityDate: '2026-04-20', durableObjects, durableObjectsPersist: dir, port: 0 });
  await mf.ready;
  const pid = childPid(process.pid, 'workerd')!;
  const ms = cpuMs(pid);
  await mf.dispose();
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const { bytes, gzipBytes } = buildDeployBundle();
const ours: number[] = [];
const base: number[] = [];
for (let i = 0; i < 3; i++) {
  base.push(await startupCpu({ script: 'export default { fetch() { return new Response("ok"); } };' }, {}));
  ours.push(await startupCpu({ scriptPath: DEPLOY_BUNDLE }, {
    STORE: { className: 'ResourceStore', useSQLite: true }, REPLICA: { className: 'WatchReplica', useSQLite: true },
    AUTHORIZER: { className: 'Authorizer', useSQLite: true }, CONTROLLER_MANAGER: { className: 'ControllerManagerObject', useSQLite: true },
  }));
}
console.log(`deploy bundle ${(bytes / 1024).toFixed(0)} KiB (${(gzipBytes / 1024).toFixed(0)} KiB gzip)`);
console.log(`Worker startup: ${(median(ours) - median(base)).toFixed(0)} ms CPU beyond a trivial Worker (workerd at ready: ${median(ours).toFixed(0)} vs ${median(base).toFixed(0)} ms)`);

// A store's first request: a fresh state folder, one type never touched before, then the same request again.
const dir = mkdtempSync(join(tmpdir(), 'cold-gw-'));
const token = 'cold-start-admin-token-0123456789abcdef';
const gw = await startGateway({ port: 0, persistDir: dir, adminToken: token, scriptPath: DEPLOY_BUNDLE, vars: { CONTROLLERS: 'off', REPLICA_LOCATIONS: '' } });
const pid = childPid(process.pid, 'workerd')!;
const get = async (path: string) => {
  const before = cpuMs(pid);
  const res = await fetch(`${gw.directUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  await res.text();
  return cpuMs(pid) - before;
};
await get('/api/v1/namespaces/default/configmaps'); // warms the front door and the authorizer
// /proc counts CPU in 10 ms ticks: average over several stores, each touched for the first time, then again.
const paths = ['/apis/apps/v1/namespaces/default/deployments', '/apis/apps/v1/namespaces/default/replicasets', '/apis/batch/v1/namespaces/default/jobs',
  '/api/v1/namespaces/default/secrets', '/api/v1/namespaces/default/services', '/apis/coordination.k8s.io/v1/namespaces/default/leases',
  '/api/v1/namespaces/default/endpoints', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices'];
let first = 0;
let again = 0;
for (const p of paths) first += await get(p);
for (const p of paths) again += await get(p);
console.log(`store Durable Object, first request: ${(first / paths.length).toFixed(1)} ms CPU on average over ${paths.length} stores (a warm one: ${(again / paths.length).toFixed(1)} ms)`);
await gw.stop();
rmSync(dir, { recursive: true, force: true });
