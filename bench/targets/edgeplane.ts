// System under test: edgeplane as `npm start` runs it, in its own process tree (npm → the gateway's Node
// process, scripts/launch.mjs, with the dual HTTP/HTTPS listener → workerd; gateway-process.ts),
// with wrangler.toml's [vars] unless a variant overrides some, state on disk, and the admin token the
// kubeconfig `npm start` writes carries. Clients use the port `npm start` prints (the dual listener) or,
// where a row says so, workerd's own port. API helpers, /metrics, the processes and the inspector port.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unstable_readConfig } from 'wrangler';
import { HttpClient } from '../lib/http';
import { processTree, type ProcessInfo } from '../lib/proc';
import { K8S_MARKERS, openHttpReceiver, openWsReceiver, Receiver } from '../lib/receivers';
import { eventJson } from '../lib/objects';
import { sleep } from '../lib/stats';
import { MULTI_EVENT_PROTOCOL } from '../../contract/headers';
import type { FanoutDriver } from '../scenarios/fanout';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const CHILD = join(HERE, 'gateway-process.ts');
const LAUNCH = join(ROOT, 'scripts', 'launch.mjs');

/** The NAME=value assignments package.json's start script makes before `node scripts/launch.mjs` (MALLOC_ARENA_MAX). */
function startScriptAssignments(): string[] {
  const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start ?? '';
  const m = /^((?:[A-Z_][A-Z0-9_]*=\S*\s+)*)node scripts\/launch\.mjs scripts\/start\.ts$/.exec(start);
  if (!m) throw new Error(`package.json's start script is not "[NAME=value …] node scripts/launch.mjs scripts/start.ts": ${start}`);
  return m[1]!.split(/\s+/).filter(Boolean);
}

export interface EdgeplaneConfig {
  label: string; // how rows name this gateway: "defaults", "store only", ...
  vars?: Record<string, string>; // changes to wrangler.toml's [vars] (none: the defaults)
  inspector?: boolean; // open workerd's V8 inspector (heap figures)
}

export const DEFAULTS: EdgeplaneConfig = { label: 'defaults' };
// The store alone: no control loops, no watch-cache replicas (the store serves watches itself).
export const STORE_ONLY: EdgeplaneConfig = { label: 'store only', vars: { CONTROLLERS: 'off', REPLICA_LOCATIONS: '' } };

// 'ws multi-event': edgeplane's own client's opt-in (contract/headers.ts MULTI_EVENT_PROTOCOL), several events per message.
export type Transport = 'ws' | 'http' | 'ws multi-event';
/** How clients reach the gateway: the port `npm start` serves (dual listener) or workerd's own port. */
export type Path = 'npm start port' | 'workerd port';
export const PORT: Path = 'npm start port';
export const DIRECT: Path = 'workerd port';

/** wrangler.toml's [vars]: what `npm start` runs with when .dev.vars adds nothing. */
export function wranglerVars(): Record<string, string> {
  const config = unstable_readConfig({ config: join(ROOT, 'wrangler.toml') });
  return Object.fromEntries(Object.entries(config.vars ?? {}).map(([k, v]) => [k, String(v)]));
}

/** Settings in the checkout's .dev.vars other than the secrets: they reach every gateway `npm start` (and this) runs. */
export function devVarsSettings(): string[] {
  const file = join(ROOT, '.dev.vars');
  if (!existsSync(file)) return [];
  const names = readFileSync(file, 'utf8').split('\n').map((l) => /^\s*([A-Z0-9_]+)\s*=/.exec(l)?.[1]).filter((n): n is string => !!n);
  const toml = new Set(Object.keys(wranglerVars()));
  return names.filter((n) => !['ADMIN_TOKEN', 'SERVICE_ACCOUNT_SIGNING_KEY'].includes(n) && !toml.has(n));
}

export class Edgeplane {
  readonly port: HttpClient; // the `npm start` port
  readonly direct: HttpClient; // workerd's port
  private readonly auth: Record<string, string>;

  private constructor(
    readonly config: EdgeplaneConfig,
    readonly vars: Record<string, string>,
    private readonly proc: ChildProcess,
    readonly url: string,
    readonly directUrl: string,
    readonly gatewayPid: number,
    readonly workerdPid: number,
    readonly inspectorPort: number | undefined,
    readonly token: string,
    private readonly dir: string,
  ) {
    this.auth = { authorization: `Bearer ${token}` };
    this.port = new HttpClient(url, this.auth);
    this.direct = new HttpClient(directUrl, this.auth);
  }

  static async start(config: EdgeplaneConfig): Promise<Edgeplane> {
    const dir = mkdtempSync(join(tmpdir(), 'edgeplane-bench-'));
    // As scripts/dev-vars.ts makes them for `npm start`: 32 random bytes, base64url.
    const adminToken = randomBytes(32).toString('base64url');
    const vars = { ...wranglerVars(), ...config.vars };
    const env = {
      ...process.env,
      BENCH_GATEWAY: JSON.stringify({ persistDir: dir, adminToken, signingKey: randomBytes(32).toString('base64url'), vars, inspector: !!config.inspector }),
    };
    // The launcher chain of `npm start` (npm → node scripts/launch.mjs, the variables its script sets given to node
    // alone, as the script's shell does: env execs node), so the process group is the one a user has.
    const assignments = startScriptAssignments();
    const command = [...(assignments.length ? ['env', ...assignments] : []), 'node', LAUNCH, CHILD];
    const proc = spawn('npm', ['exec', '--offline', '--', ...command], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    const ready = await new Promise<{ pid: number; url: string; directUrl: string; inspectorPort?: number }>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('the gateway did not start within 180 s')), 180_000);
      proc.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        for (const line of out.split('\n')) {
          if (!line.startsWith('{"ready"')) continue;
          clearTimeout(timer);
          resolve(JSON.parse(line));
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the gateway process exited ${code}`));
      });
    });
    proc.stdout!.resume();
    const workerd = processTree(ready.pid).find((p) => p.comm === 'workerd');
    if (!workerd) throw new Error('workerd process not found under the gateway process');
    return new Edgeplane(config, vars, proc, ready.url, ready.directUrl, ready.pid, workerd.pid, ready.inspectorPort, adminToken, dir);
  }

  get label(): string {
    return this.config.label;
  }

  /** The processes `npm start` leaves running: npm, the gateway's Node process, workerd (and any other). */
  processes(): ProcessInfo[] {
    return processTree(this.proc.pid!);
  }

  client(path: Path): HttpClient {
    return path === PORT ? this.port : this.direct;
  }

  baseUrl(path: Path): string {
    return path === PORT ? this.url : this.directUrl;
  }

  replicaLocations(): string[] {
    return (this.vars.REPLICA_LOCATIONS ?? '').split(',').map((l) => l.trim()).filter(Boolean);
  }

  async createNamespace(name: string): Promise<void> {
    await this.port.json('POST', '/api/v1/namespaces', { metadata: { name } }, [201, 409]);
  }

  /** The newest revision of a resource type as a consistent list reports it (limit 1 keeps it cheap). */
  async headRevision(namespace: string, resource: string): Promise<number> {
    const list = await this.port.json('GET', `/api/v1/namespaces/${namespace}/${resource}?limit=1`);
    return Number(list.metadata.resourceVersion);
  }

  /**
   * Replica routing for watcher j. Without `spread`, none: every client of this machine is in one location,
   * so the gateway serves them all from that location's replica, as it would a user's. With it, watchers go
   * round the configured locations and replica indexes (x-edgeplane-location / -replica-index).
   */
  replicaHeaders(j: number, spread: boolean): Record<string, string> {
    const locations = this.replicaLocations();
    if (!spread || locations.length === 0) return {};
    const perLocation = Math.max(1, Number(this.vars.REPLICAS_PER_LOCATION ?? 1) || 1);
    return { 'x-edgeplane-location': locations[j % locations.length], 'x-edgeplane-replica-index': String(Math.floor(j / locations.length) % perLocation) };
  }

  openWatcher(transport: Transport, path: Path, query: string, j: number, r: Receiver, spread = false): Promise<Receiver> {
    const headers = { ...this.auth, ...this.replicaHeaders(j, spread) };
    const url = this.baseUrl(path) + query;
    if (transport === 'http') return openHttpReceiver(url, headers, r, K8S_MARKERS);
    return openWsReceiver(url.replace(/^http/, 'ws'), headers, r, K8S_MARKERS, transport === 'ws' ? undefined : [MULTI_EVENT_PROTOCOL]);
  }

  /**
   * A closed HTTP watch stream is noticed only when a write to it fails (the second event after the
   * client left): writes a few ConfigMaps nobody watches any more in `namespace`, so the server lets go.
   */
  async flushClosedStreams(namespace: string): Promise<void> {
    for (let k = 0; k < 3; k++) {
      await this.port.send('POST', `/api/v1/namespaces/${namespace}/configmaps`, JSON.stringify({ metadata: { name: `flush-${Date.now()}-${k}` } }));
      await sleep(100);
    }
  }

  /** /metrics as { "name{labels}": value }. */
  async metrics(): Promise<Map<string, number>> {
    const r = await this.port.send('GET', '/metrics');
    const out = new Map<string, number>();
    for (const line of r.body.toString().split('\n')) {
      if (!line || line.startsWith('#')) continue;
      const sp = line.lastIndexOf(' ');
      out.set(line.slice(0, sp), Number(line.slice(sp + 1)));
    }
    return out;
  }

  /** Watchers the store and all replicas of a type hold now (e.g. to wait for closed ones to go). */
  async watchers(resource: string): Promise<number> {
    const m = await this.metrics();
    return sumMetric(m, 'edgeplane_watchers', resource) + sumMetric(m, 'edgeplane_replica_watchers', resource);
  }

  /** Store writes of every type so far (edgeplane_store_writes_total). */
  async storeWrites(): Promise<number> {
    let n = 0;
    for (const [k, v] of await this.metrics()) if (k.startsWith('edgeplane_store_writes_total{')) n += v;
    return n;
  }

  async stop(): Promise<void> {
    this.port.close();
    this.direct.close();
    const tree = this.processes();
    // The gateway's Node process stops workerd (Miniflare dispose) and exits; npm follows it.
    try {
      process.kill(this.gatewayPid, 'SIGTERM');
    } catch {
      // gone already
    }
    const end = Date.now() + 15_000;
    while (Date.now() < end && tree.some((p) => alive(p.pid))) await sleep(100);
    for (const p of tree) if (alive(p.pid)) process.kill(p.pid, 'SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sums a series over every label set whose resource label is `resource` (e.g. "core/configmaps"). */
export function sumMetric(m: Map<string, number>, name: string, resource: string): number {
  let sum = 0;
  for (const [k, v] of m) if (k.startsWith(`${name}{`) && k.includes(`resource="${resource}"`)) sum += v;
  return sum;
}

/**
 * Fan-out through edgeplane: ConfigMaps written to a fresh namespace (through `path`), watched from its head
 * revision. `spread`: watchers go round the replicas (see replicaHeaders).
 */
export function edgeplaneFanout(ep: Edgeplane, transport: Transport, path: Path, spread = false): FanoutDriver {
  let namespace = '';
  let query = '';
  let baseline = 0;
  const replicas = ep.replicaLocations().length * Math.max(1, Number(ep.vars.REPLICAS_PER_LOCATION ?? 1) || 1);
  return {
    system: 'edgeplane',
    variant: ep.label + (replicas === 0 ? '' : spread ? `, watchers over ${replicas} replicas` : ', one replica serves')
      + (path === PORT && process.env.LISTENER_UPSTREAM === 'entry' ? ", listener through Miniflare's entry Worker" : ''), // scripts/serve.ts
    transport,
    path,
    pids: () => ({ server: ep.workerdPid, listener: ep.gatewayPid }),
    async prepare(run) {
      namespace = `bench-${run}`;
      await ep.createNamespace(namespace);
      baseline = await ep.watchers('core/configmaps');
      const head = await ep.headRevision(namespace, 'configmaps');
      query = `/api/v1/namespaces/${namespace}/configmaps?watch=true&resourceVersion=${head}`;
    },
    open: (j, r) => ep.openWatcher(transport, path, query, j, r, spread),
    async write(i) {
      const res = await ep.client(path).send('POST', `/api/v1/namespaces/${namespace}/configmaps`, eventJson(namespace, i));
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${res.body.toString().slice(0, 200)}`);
    },
    async counters() {
      const m = await ep.metrics();
      const gr = 'core/configmaps';
      return {
        storeWrites: sumMetric(m, 'edgeplane_store_writes_total', gr),
        storeDeliveries: sumMetric(m, 'edgeplane_watch_deliveries_total', gr),
        replicaMessages: sumMetric(m, 'edgeplane_store_replica_messages_total', gr),
        replicaEventsReceived: sumMetric(m, 'edgeplane_replica_events_received_total', gr),
        replicaDeliveries: sumMetric(m, 'edgeplane_replica_deliveries_total', gr),
        slowClosed: sumMetric(m, 'edgeplane_watch_slow_closed_total', gr) + sumMetric(m, 'edgeplane_replica_slow_closed_total', gr),
      };
    },
    async cleanup() {
      if (transport === 'http') await ep.flushClosedStreams(namespace);
      const end = Date.now() + 20_000;
      while (Date.now() < end && (await ep.watchers('core/configmaps')) > baseline) await sleep(100);
    },
  };
}
