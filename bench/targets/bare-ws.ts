// Reference: starts the bare `ws` broadcast server (bare-ws-server.ts) as its own process, so that like
// workerd and etcd it does not share the load generator's thread, and drives it.

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { HttpClient } from '../lib/http';
import { openWsReceiver, type FrameMarkers, type Receiver } from '../lib/receivers';
import { eventJson } from '../lib/objects';
import { sleep } from '../lib/stats';
import type { FanoutDriver } from '../scenarios/fanout';

const SERVER = join(dirname(fileURLToPath(import.meta.url)), 'bare-ws-server.ts');

export const BARE_MARKERS: FrameMarkers = { index: Buffer.from('"name":"e-'), revision: Buffer.from('"seq":') };

export class BareWs {
  readonly http: HttpClient;

  private constructor(readonly proc: ChildProcess, readonly url: string) {
    this.http = new HttpClient(url);
  }

  static async start(): Promise<BareWs> {
    const proc = spawn(process.execPath, ['--import', 'tsx', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      proc.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /listening (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      proc.once('exit', (code) => reject(new Error(`bare ws server exited ${code}`)));
    });
    return new BareWs(proc, `http://127.0.0.1:${port}`);
  }

  get pid(): number {
    return this.proc.pid!;
  }

  async publish(body: string): Promise<void> {
    const r = await this.http.send('POST', '/publish', body);
    if (r.status !== 200) throw new Error(`publish answered ${r.status}`);
  }

  openWatcher(r: Receiver): Promise<Receiver> {
    return openWsReceiver(this.url.replace(/^http/, 'ws') + '/watch', {}, r, BARE_MARKERS);
  }

  async stop(): Promise<void> {
    this.http.close();
    this.proc.kill('SIGTERM');
    await new Promise((resolve) => (this.proc.exitCode !== null ? resolve(null) : this.proc.once('exit', resolve)));
  }
}

/** Fan-out through the bare broadcast: every socket gets every published frame. */
export function bareFanout(bare: BareWs): FanoutDriver {
  let run = '';
  return {
    system: 'bare-ws',
    variant: 'ws package, one frame to all',
    transport: 'ws',
    path: 'loopback',
    pids: () => ({ server: bare.pid }),
    async prepare(r) {
      run = r;
    },
    open: (_j, r) => bare.openWatcher(r),
    write: (i) => bare.publish(eventJson(`bench-${run}`, i)),
    cleanup: () => sleep(300),
  };
}
