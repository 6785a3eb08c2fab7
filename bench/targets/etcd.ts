// Reference: etcd 3.4 from Debian's etcd-server package (installed with apt when missing), run on
// 127.0.0.1 with a temporary data folder, driven through its v3 gRPC API with the `etcd3` npm client.

import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { Etcd3 } from 'etcd3';
import { sleep } from '../lib/stats';
import type { Receiver } from '../lib/receivers';
import { eventJson } from '../lib/objects';
import type { FanoutDriver } from '../scenarios/fanout';

const ETCD = '/usr/bin/etcd';
// One client (gRPC channel and watch stream) per this many watchers: etcd3's client finds a watcher
// by a linear search per response, so thousands on one stream would measure the client, not etcd.
export const WATCHERS_PER_STREAM = 100;
const GRPC_OPTIONS = { 'grpc.max_receive_message_length': 256 * 1024 * 1024, 'grpc.max_send_message_length': 64 * 1024 * 1024 };

export function ensureEtcdInstalled(): void {
  if (existsSync(ETCD)) return;
  console.log('etcd not found: installing Debian\'s etcd-server with apt');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'etcd-server'], { stdio: 'inherit', env });
}

export function etcdVersion(): string {
  try {
    return /etcd Version: (\S+)/.exec(execFileSync(ETCD, ['--version'], { encoding: 'utf8' }))?.[1] ?? 'unknown';
  } catch {
    return 'missing';
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export class Etcd {
  private readonly clients: Etcd3[] = [];

  private constructor(readonly proc: ChildProcess, readonly endpoint: string, readonly client: Etcd3, private readonly dir: string) {}

  static async start(): Promise<Etcd> {
    ensureEtcdInstalled();
    const dir = mkdtempSync(join(tmpdir(), 'etcd-bench-'));
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    const endpoint = `http://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const proc = spawn(ETCD, [
      '--name', 'bench', '--data-dir', join(dir, 'data'),
      '--listen-client-urls', endpoint, '--advertise-client-urls', endpoint,
      '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `bench=${peer}`,
      '--quota-backend-bytes', String(8 * 2 ** 30), '--logger', 'zap', '--log-level', 'error',
    ], { stdio: ['ignore', 'ignore', 'inherit'] });
    const client = new Etcd3({ hosts: endpoint, grpcOptions: GRPC_OPTIONS });
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await client.get('bench/ping').string();
        break;
      } catch (e) {
        if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`etcd did not start: ${String(e)}`);
        await sleep(200);
      }
    }
    return new Etcd(proc, endpoint, client, dir);
  }

  get pid(): number {
    return this.proc.pid!;
  }

  put(key: string, value: string | Buffer): Promise<unknown> {
    return this.client.put(key).value(value).exec();
  }

  async headRevision(): Promise<number> {
    const r = await this.client.kv.range({ key: Buffer.from('bench/ping') });
    return Number(r.header.revision);
  }

  /** A range read of every key under `prefix`, values included; returns how many came. */
  async range(prefix: string): Promise<number> {
    const key = Buffer.from(prefix);
    const end = Buffer.from(key);
    end[end.length - 1]++;
    const r = await this.client.kv.range({ key, range_end: end });
    return r.kvs.length;
  }

  /** A watcher client for watcher j: WATCHERS_PER_STREAM watchers share one client and stream. */
  watchClient(j: number): Etcd3 {
    const c = Math.floor(j / WATCHERS_PER_STREAM);
    while (this.clients.length <= c) this.clients.push(new Etcd3({ hosts: this.endpoint, grpcOptions: GRPC_OPTIONS }));
    return this.clients[c];
  }

  /** A prefix watcher from `startRevision`; keys end in e-<index>, and mod_revision is the revision. */
  async openWatcher(j: number, prefix: string, startRevision: number, r: Receiver): Promise<Receiver> {
    const w = await this.watchClient(j).watch().prefix(prefix).startRevision(String(startRevision)).create();
    w.on('put', (kv) => {
      const now = performance.now();
      const key = kv.key as Buffer;
      const at = key.lastIndexOf('e-');
      r.event(Number(key.subarray(at + 2).toString()), Number(kv.mod_revision), now);
    });
    r.close = () => void w.cancel().catch(() => undefined);
    return r;
  }

  /** Closes the watcher clients (their streams) between runs. */
  closeWatchClients(): void {
    for (const c of this.clients.splice(0)) c.close();
  }

  async stop(): Promise<void> {
    this.closeWatchClients();
    this.client.close();
    this.proc.kill('SIGTERM');
    await new Promise((resolve) => (this.proc.exitCode !== null ? resolve(null) : this.proc.once('exit', resolve)));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Fan-out through etcd: puts under a fresh prefix, prefix watchers from the revision after the head. */
export function etcdFanout(etcd: Etcd): FanoutDriver {
  let prefix = '';
  let start = 0;
  return {
    system: 'etcd',
    variant: `${WATCHERS_PER_STREAM} watchers per gRPC stream`,
    transport: 'grpc',
    path: 'loopback',
    pids: () => ({ server: etcd.pid }),
    async prepare(run) {
      prefix = `/registry/configmaps/bench-${run}/`;
      start = (await etcd.headRevision()) + 1;
    },
    open: (j, r) => etcd.openWatcher(j, prefix, start, r),
    write: async (i) => {
      await etcd.put(`${prefix}e-${i}`, eventJson(prefix.split('/')[3], i));
    },
    async cleanup() {
      await sleep(200);
      etcd.closeWatchClients();
    },
  };
}
