// Entry point: the `npm start` listener's own cost, apart from workerd. `npx tsx bench/listener.ts [<git ref>]
// [--watchers=1000] [--rate=100] [--seconds=10] [--tls] [--profile]`. A bare `ws` broadcast server (targets/bare-ws-server.ts)
// is the upstream; this checkout's listener and, given a ref, that ref's listener (exported with `git archive`) each
// run in their own process in front of it, with W WebSocket watchers through each (plain HTTP, or TLS with --tls),
// and W more straight to the upstream as the reference. Every publish reaches all of them at once, so both
// listeners see the same traffic and the same machine load; per listener it prints CPU µs per delivered message
// (/proc) and the kernel's share of it, deliveries, and publish → arrival latency beside the direct watchers'.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { BareWs } from './targets/bare-ws';
import { cpuMs, loadAverage } from './lib/proc';
import { openMany } from './lib/receivers';
import { round, sleep, summarize } from './lib/stats';
import { eventJson } from './lib/objects';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');
const args = process.argv.slice(2);
const ref = args.find((a) => !a.startsWith('--'));
const opt = (name: string, d: number) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d);
const watchers = opt('watchers', 1000);
const rate = opt('rate', 100);
const seconds = opt('seconds', 10);
const tls = args.includes('--tls');
// --profile: each listener process writes a V8 CPU profile (bench/results/profiles/) when it stops.
const profileArgs = args.includes('--profile') ? ['--cpu-prof', `--cpu-prof-dir=${join(HERE, 'results', 'profiles')}`] : [];

interface Group {
  label: string;
  proc?: ChildProcess;
  url: string;
  sockets: WebSocket[];
  received: number;
  latencies: number[];
}

/** Kernel (system) CPU time of a process, in clock ticks (/proc/<pid>/stat field 15). */
function systemTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[12]);
}
function userTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[11]);
}

const sentAt: number[] = [];
let publishFailed = 0;
const SEQ = Buffer.from('"seq":');

function seqOf(data: Buffer): number {
  const at = data.indexOf(SEQ);
  let n = 0;
  for (let i = at + SEQ.length; i < data.length && data[i] >= 48 && data[i] <= 57; i++) n = n * 10 + data[i] - 48;
  return n;
}

async function startListener(label: string, modulePath: string, upstreamPort: number): Promise<Group> {
  const proc = spawn(process.execPath, [...profileArgs, '--import', 'tsx', join(HERE, 'targets', 'listener-process.ts')], {
    env: { ...process.env, LISTENER_MODULE: modulePath, UPSTREAM_PORT: String(upstreamPort) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /\{"port":(\d+)\}/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.once('exit', (code) => reject(new Error(`listener ${label} exited ${code}`)));
  });
  return { label, proc, url: `${tls ? 'wss' : 'ws'}://127.0.0.1:${port}/watch`, sockets: [], received: 0, latencies: [] };
}

function open(g: Group): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(g.url, { perMessageDeflate: false, skipUTF8Validation: true, rejectUnauthorized: false });
    ws.on('message', (data: Buffer) => {
      const now = performance.now();
      g.received++;
      const t = sentAt[seqOf(data)];
      if (t !== undefined) g.latencies.push(now - t);
    });
    ws.once('open', () => {
      g.sockets.push(ws);
      resolve();
    });
    ws.once('error', reject);
  });
}

const bare = await BareWs.start();
const upstreamPort = Number(new URL(bare.url).port);
let other: string | undefined;
const groups: Group[] = [{ label: 'direct to upstream (no listener)', url: bare.url.replace(/^http/, 'ws') + '/watch', sockets: [], received: 0, latencies: [] }];
try {
  groups.push(await startListener('this checkout', join(ROOT, 'scripts', 'dual-listener.ts'), upstreamPort));
  if (ref) {
    other = mkdtempSync(join(tmpdir(), 'edgeplane-listener-ab-'));
    execFileSync('sh', ['-c', `git -C "${ROOT}" archive "${ref}" scripts | tar -x -C "${other}"`]);
    groups.push(await startListener(ref, join(other, 'scripts', 'dual-listener.ts'), upstreamPort));
  }
  // Interleaved, so no group's sockets are all older than another's.
  await openMany(watchers, 50, (j) => Promise.all(groups.map((g) => open(g))).then(() => j));
  await sleep(1000);
  const cpu0 = groups.map((g) => (g.proc ? cpuMs(g.proc.pid!) : 0));
  const sys0 = groups.map((g) => (g.proc ? [systemTicks(g.proc.pid!), userTicks(g.proc.pid!)] : [0, 0]));
  for (const g of groups) {
    g.received = 0;
    g.latencies = [];
  }
  const start = performance.now();
  const events = Math.round(rate * seconds);
  // The bare server numbers its publishes from 1.
  for (let i = 0; i < events; i++) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    sentAt[i + 1] = performance.now();
    bare.publish(eventJson('listener-bench', i)).catch(() => publishFailed++);
  }
  const expected = events * watchers;
  const end = performance.now() + 30_000;
  while (performance.now() < end && groups.some((g) => g.received < expected)) await sleep(50);
  const cpu1 = groups.map((g) => (g.proc ? cpuMs(g.proc.pid!) : 0));
  const sys1 = groups.map((g) => (g.proc ? [systemTicks(g.proc.pid!), userTicks(g.proc.pid!)] : [0, 0]));
  console.log(`listener bench: ${watchers} WebSocket watchers per path, ${tls ? 'TLS' : 'plain HTTP'}, ${rate} publishes/s for ${seconds} s (~${Math.round(eventJson('x', 0).length / 100) / 10} KiB frames); load average ${loadAverage()}`);
  if (publishFailed) console.log(`${publishFailed} publishes failed (the machine is overloaded: fewer watchers or a lower rate)`);
  console.log('| path | deliveries | listener CPU µs per delivery | of it in the kernel | latency p50 | p99 |');
  console.log('|---|---|---|---|---|---|');
  groups.forEach((g, i) => {
    const s = summarize(g.latencies);
    const us = g.proc ? `${round(((cpu1[i] - cpu0[i]) * 1000) / Math.max(1, g.received), 2)}` : '—';
    const sys = sys1[i][0] - sys0[i][0];
    const kernel = g.proc ? `${Math.round((100 * sys) / Math.max(1, sys + sys1[i][1] - sys0[i][1]))}%` : '—';
    console.log(`| ${g.label} | ${g.received}/${expected} | ${us} | ${kernel} | ${round(s.p50, 1)} ms | ${round(s.p99, 1)} ms |`);
  });
} finally {
  for (const g of groups) for (const s of g.sockets) s.terminate();
  for (const g of groups) g.proc?.kill('SIGTERM');
  await bare.stop();
  if (other) rmSync(other, { recursive: true, force: true });
}
process.exit(0);
