// System under test: edgeplane started as `npm start` does (bundled Worker on Miniflare/workerd, state
// on disk, the dual HTTP/HTTPS listener in front), with API helpers, /metrics and the workerd process.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type Gateway } from '../../scripts/gateway';
import { HttpClient } from '../lib/http';
import { childPid } from '../lib/proc';
import { K8S_MARKERS, openHttpReceiver, openWsReceiver, Receiver } from '../lib/receivers';
import { eventJson } from '../lib/objects';
import { sleep } from '../lib/stats';
import type { FanoutDriver } from '../scenarios/fanout';

export const TOKEN = 'bench-token';
export const AUTH = { authorization: `Bearer ${TOKEN}` };

export interface EdgeplaneConfig {
  replicas: boolean; // off: REPLICA_LOCATIONS "" (the store serves watches); on: 2 locations x 2 replicas
  vars?: Record<string, string>;
}

export const REPLICA_LOCATIONS = ['enam', 'weur'];
export const REPLICAS_PER_LOCATION = 2;

export type Transport = 'ws' | 'http';

export class Edgeplane {
  readonly direct: HttpClient;
  readonly proxied: HttpClient;

  private constructor(readonly gateway: Gateway, readonly config: EdgeplaneConfig, readonly workerdPid: number, private readonly dir: string) {
    this.direct = new HttpClient(gateway.directUrl, AUTH);
    this.proxied = new HttpClient(gateway.url, AUTH);
  }

  static async start(config: EdgeplaneConfig): Promise<Edgeplane> {
    const dir = mkdtempSync(join(tmpdir(), 'edgeplane-bench-'));
    const vars: Record<string, string> = {
      REPLICA_LOCATIONS: config.replicas ? REPLICA_LOCATIONS.join(',') : '',
      REPLICAS_PER_LOCATION: String(REPLICAS_PER_LOCATION),
      MAX_WATCHERS: '20000',
      EVENT_RETENTION_COUNT: '50000',
      // The load generator is one user: per-user rate limits (where the server has them) would measure the limiter.
      RATE_LIMIT_QPS: '1000000',
      RATE_LIMIT_BURST: '1000000',
      // Benchmarks measure the API, not the control loops' own traffic.
      CONTROLLERS: 'off',
      ...config.vars,
    };
    const gateway = await startGateway({ port: 0, persistDir: dir, adminToken: TOKEN, vars });
    const pid = childPid(process.pid, 'workerd');
    if (!pid) throw new Error('workerd process not found');
    return new Edgeplane(gateway, config, pid, dir);
  }

  get label(): string {
    return this.config.replicas ? `replicas ${REPLICA_LOCATIONS.length}x${REPLICAS_PER_LOCATION}` : 'store only';
  }

  client(direct: boolean): HttpClient {
    return direct ? this.direct : this.proxied;
  }

  baseUrl(direct: boolean): string {
    return direct ? this.gateway.directUrl : this.gateway.url;
  }

  async createNamespace(name: string): Promise<void> {
    await this.direct.json('POST', '/api/v1/namespaces', { metadata: { name } }, [201, 409]);
  }

  /** The newest revision of a resource type as a consistent list reports it (limit 1 keeps it cheap). */
  async headRevision(namespace: string, resource: string): Promise<number> {
    const list = await this.direct.json('GET', `/api/v1/namespaces/${namespace}/${resource}?limit=1`);
    return Number(list.metadata.resourceVersion);
  }

  /** Replica routing for watcher j: spread evenly over every location and replica index. */
  replicaHeaders(j: number): Record<string, string> {
    if (!this.config.replicas) return {};
    const location = REPLICA_LOCATIONS[j % REPLICA_LOCATIONS.length];
    const index = Math.floor(j / REPLICA_LOCATIONS.length) % REPLICAS_PER_LOCATION;
    return { 'x-edgeplane-location': location, 'x-edgeplane-replica-index': String(index) };
  }

  openWatcher(transport: Transport, direct: boolean, path: string, j: number, r: Receiver): Promise<Receiver> {
    const headers = { ...AUTH, ...this.replicaHeaders(j) };
    const url = this.baseUrl(direct) + path;
    return transport === 'ws' ? openWsReceiver(url.replace(/^http/, 'ws'), headers, r, K8S_MARKERS) : openHttpReceiver(url, headers, r, K8S_MARKERS);
  }

  /**
   * A closed HTTP watch stream is noticed only when a write to it fails (the second event after the
   * client left): writes a few ConfigMaps nobody watches any more in `namespace`, so the server lets go.
   */
  async flushClosedStreams(namespace: string): Promise<void> {
    for (let k = 0; k < 3; k++) {
      await this.direct.send('POST', `/api/v1/namespaces/${namespace}/configmaps`, JSON.stringify({ metadata: { name: `flush-${Date.now()}-${k}` } }));
      await sleep(100);
    }
  }

  /** /metrics as { "name{labels}": value }. */
  async metrics(): Promise<Map<string, number>> {
    const r = await this.direct.send('GET', '/metrics');
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

  async stop(): Promise<void> {
    this.direct.close();
    this.proxied.close();
    await this.gateway.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Sums a series over every label set whose resource label is `resource` (e.g. "core/configmaps"). */
export function sumMetric(m: Map<string, number>, name: string, resource: string): number {
  let sum = 0;
  for (const [k, v] of m) if (k.startsWith(`${name}{`) && k.includes(`resource="${resource}"`)) sum += v;
  return sum;
}

/** Fan-out through edgeplane: ConfigMaps written to a fresh namespace, watched from its head revision. */
export function edgeplaneFanout(ep: Edgeplane, transport: Transport, direct: boolean): FanoutDriver {
  let namespace = '';
  let path = '';
  let baseline = 0;
  return {
    system: 'edgeplane',
    variant: ep.label,
    transport,
    path: direct ? 'direct' : 'proxied',
    pids: () => ({ server: ep.workerdPid }),
    async prepare(run) {
      namespace = `bench-${run}`;
      await ep.createNamespace(namespace);
      baseline = await ep.watchers('core/configmaps');
      const head = await ep.headRevision(namespace, 'configmaps');
      path = `/api/v1/namespaces/${namespace}/configmaps?watch=true&resourceVersion=${head}`;
    },
    open: (j, r) => ep.openWatcher(transport, direct, path, j, r),
    async write(i) {
      const res = await ep.client(direct).send('POST', `/api/v1/namespaces/${namespace}/configmaps`, eventJson(namespace, i));
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
