// Reference: the runtime's floors on this machine: minimal-worker/index.ts (a front-door Worker, a Durable Object
// broadcasting to hibernatable WebSockets and a SQLite Durable Object inserting each body) on the same
// workerd, started through Miniflare as scripts/gateway.ts starts edgeplane, with wrangler.toml's
// compatibility date and flags and Durable Object state on disk. Clients use workerd's port.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { HttpClient } from '../lib/http';
import { childPid } from '../lib/proc';
import { openWsReceiver, type Receiver } from '../lib/receivers';
import { eventJson } from '../lib/objects';
import { sleep } from '../lib/stats';
import { BARE_MARKERS } from './bare-ws';
import type { FanoutDriver } from '../scenarios/fanout';
import type { Writer } from '../scenarios/writes';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');

export const MINIMAL_SYSTEM = 'minimal-workerd';

export class MinimalWorkerd {
  readonly http: HttpClient;

  private constructor(private readonly mf: Miniflare, readonly url: string, readonly workerdPid: number, readonly inspectorPort: number | undefined, private readonly dir: string) {
    this.http = new HttpClient(url);
  }

  /** `inspector`: open workerd's V8 inspector on a free port (heap figures). */
  static async start(opts: { inspector?: boolean } = {}): Promise<MinimalWorkerd> {
    const dir = mkdtempSync(join(tmpdir(), 'minimal-workerd-bench-'));
    const scriptPath = join(ROOT, 'dist', 'bench-minimal-worker.js'); // beside the gateway's bundle (Miniflare resolves modules under the working folder)
    await build({
      entryPoints: [join(HERE, 'minimal-worker', 'index.ts')], outfile: scriptPath, bundle: true, format: 'esm',
      platform: 'neutral', target: 'es2022', external: ['cloudflare:*'], logLevel: 'warning',
    });
    const { workerOptions } = unstable_getMiniflareWorkerOptions(join(ROOT, 'wrangler.toml'));
    const mf = new Miniflare({
      modules: true,
      scriptPath,
      compatibilityDate: workerOptions.compatibilityDate,
      compatibilityFlags: workerOptions.compatibilityFlags,
      durableObjects: { HUB: { className: 'BroadcastHub', useSQLite: true }, WRITER: { className: 'SqliteWriter', useSQLite: true } },
      durableObjectsPersist: join(dir, 'durable-objects'),
      host: '127.0.0.1',
      port: 0,
      ...(opts.inspector ? { inspectorPort: 0 } : {}),
      // Clients on a socket straight to the Worker, as edgeplane's listener is (scripts/gateway.ts listenerUpstream):
      // Miniflare's entry Worker would pump every WebSocket message through JavaScript, which is no floor of the runtime's.
      unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
    });
    await mf.ready;
    const url = (await mf.unsafeGetDirectURL()).toString().replace(/\/$/, '');
    const inspectorPort = opts.inspector ? Number((await mf.getInspectorURL()).port) : undefined;
    const pid = childPid(process.pid, 'workerd');
    if (!pid) throw new Error('workerd process not found');
    return new MinimalWorkerd(mf, url, pid, inspectorPort, dir);
  }

  async publish(body: string): Promise<void> {
    const r = await this.http.send('POST', '/publish', body);
    if (r.status !== 200) throw new Error(`publish answered ${r.status}`);
  }

  openWatcher(r: Receiver): Promise<Receiver> {
    return openWsReceiver(`${this.url.replace(/^http/, 'ws')}/watch`, {}, r, BARE_MARKERS);
  }

  async stop(): Promise<void> {
    this.http.close();
    await this.mf.dispose();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Fan-out through the minimal broadcast: every socket gets every published frame. */
export function minimalFanout(m: MinimalWorkerd): FanoutDriver {
  let run = '';
  return {
    system: MINIMAL_SYSTEM,
    variant: 'Worker + one Durable Object, hibernatable sockets, one frame to all',
    transport: 'ws',
    path: 'workerd port',
    pids: () => ({ server: m.workerdPid }),
    async prepare(r) {
      run = r;
    },
    open: (_j, r) => m.openWatcher(r),
    write: (i) => m.publish(eventJson(`bench-${run}`, i)),
    cleanup: () => sleep(300),
  };
}

/** Creates through the minimal SQLite writer: one INSERT per body, answered after the write. */
export function minimalWriter(m: MinimalWorkerd): Writer {
  return {
    system: MINIMAL_SYSTEM,
    variant: 'Worker + one SQLite Durable Object, one INSERT per body',
    pids: () => ({ server: m.workerdPid }),
    async create(ns, name, body) {
      const r = await m.http.send('POST', `/write/${ns}/${name}`, body);
      if (r.status !== 201) throw new Error(`minimal write answered ${r.status}`);
    },
  };
}
