// Tooling: `npm run demo`. A newcomer's first minute: uses the gateway `npm start` runs (or starts one like it),
// creates a small workload in namespace `demo`, opens simulated watchers "around the world" (spread over the
// replica locations with the location override) and writes at a modest rate, then prints the console URL.
//
// Options (environment): DEMO_URL (a running gateway, default http://127.0.0.1:$PORT or 8787), DEMO_WATCHERS (60),
// DEMO_RATE (writes/s, 5), DEMO_SECONDS (0 = until Ctrl-C). The admin token comes from .dev.vars.

import { join, resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import WebSocket from 'ws';
import { ensureLocalSecrets } from './dev-vars';
import { ROOT } from './build';
import { startGateway, writeKubeconfig, type Gateway } from './gateway';

const { ADMIN_TOKEN: token, SERVICE_ACCOUNT_SIGNING_KEY: signingKey } = ensureLocalSecrets(join(ROOT, '.dev.vars'), ['ADMIN_TOKEN', 'SERVICE_ACCOUNT_SIGNING_KEY']);
const port = Number(process.env.PORT ?? 8787);
const watchers = Math.min(2000, Number(process.env.DEMO_WATCHERS ?? 60));
const rate = Math.min(100, Number(process.env.DEMO_RATE ?? 5));
const seconds = Number(process.env.DEMO_SECONDS ?? 0);
const NS = 'demo';

async function reachable(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/readyz`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(1500) });
    return res.ok;
  } catch {
    return false;
  }
}

async function api(base: string, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Response> {
  return fetch(base + path, {
    method, headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

let gateway: Gateway | undefined;
let base = process.env.DEMO_URL ?? `http://127.0.0.1:${port}`;
if (!(await reachable(base))) {
  const persistDir = resolve(process.env.PERSIST_DIR ?? join(ROOT, '.edgeplane', 'state'));
  mkdirSync(persistDir, { recursive: true });
  gateway = await startGateway({ port, persistDir, adminToken: token, serviceAccountSigningKey: signingKey });
  writeKubeconfig(join(ROOT, 'kubeconfig'), gateway, token);
  base = gateway.url;
  console.log(`started the gateway on ${base}`);
}

const who = await (await api(base, 'GET', '/_edgeplane/whoami')).json() as { replicaLocations: string[]; replicasPerLocation: number };
const locations = who.replicaLocations.length ? who.replicaLocations : ['store'];
await api(base, 'POST', '/api/v1/namespaces', { metadata: { name: NS } });
// The workload: a Deployment when the controllers run it, and config maps the demo keeps changing.
const labels = { app: 'web' };
await api(base, 'POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
  metadata: { name: 'web' },
  spec: { replicas: 3, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
});
const KEYS = 20;
for (let i = 0; i < KEYS; i++) await api(base, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: `flag-${i}`, labels: { demo: 'flags' } }, data: { value: '0' } });

// Simulated watchers around the world: each asks for a location (and replica) explicitly.
const sockets: WebSocket[] = [];
let deliveries = 0;
const wsBase = base.replace(/^http/, 'ws');
for (let i = 0; i < watchers; i++) {
  const location = locations[i % locations.length]!;
  const index = Math.floor(i / locations.length) % Math.max(1, who.replicasPerLocation);
  const ws = new WebSocket(`${wsBase}/api/v1/namespaces/${NS}/configmaps?watch=1&allowWatchBookmarks=true&labelSelector=demo%3Dflags`, {
    headers: { authorization: `Bearer ${token}`, 'x-edgeplane-location': location, 'x-edgeplane-replica-index': String(index) },
  });
  ws.on('message', () => deliveries++);
  ws.on('error', () => undefined);
  sockets.push(ws);
}

console.log(`\n${watchers} watchers over ${locations.join(', ')}; writing ${rate}/s to config maps in namespace ${NS}.`);
console.log(`console: ${base}/ui/#token=${encodeURIComponent(token)}`);
console.log('(the token travels in the URL fragment, which the browser never sends to a server)\n');

let n = 0;
const timer = setInterval(() => {
  const name = `flag-${n % KEYS}`;
  n++;
  void api(base, 'PATCH', `/api/v1/namespaces/${NS}/configmaps/${name}`, { data: { value: String(n) } }, 'application/merge-patch+json').catch(() => undefined);
}, 1000 / rate);
const report = setInterval(() => console.log(`${n} writes, ${deliveries} deliveries to ${sockets.filter((s) => s.readyState === WebSocket.OPEN).length} open watchers`), 10_000);

const stop = async () => {
  clearInterval(timer);
  clearInterval(report);
  for (const s of sockets) s.terminate();
  await gateway?.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
if (seconds > 0) setTimeout(() => void stop(), seconds * 1000);
