// Scenario: creates of ~1 KiB Pods with 1, 8 or 64 in flight, each phase bounded in count and time:
// creates per second, per-create latency and the server's CPU per create; etcd puts and the minimal
// SQLite writer's inserts of the same bytes.

import { pool } from '../lib/http';
import { podJson } from '../lib/objects';
import { CpuMeter, loadAverage, type CpuReading } from '../lib/proc';
import { round, summarize, type Summary } from '../lib/stats';

export interface WriteResult {
  system: string; // "edgeplane", "etcd", "minimal-workerd"
  variant: string;
  concurrency: number;
  writes: number; // creates answered with success
  failed: number; // creates that failed (not in `writes`, nor in creates/s)
  firstError?: string;
  seconds: number;
  perSecond: number;
  latencyMs: Summary;
  bytesPerObject: number;
  cpu: CpuReading;
  serverCpuMsPerWrite: number; // the server process's CPU time over the phase ÷ creates
  loadAverage: number; // 1-minute load average at the end of the phase
}

export interface Writer {
  system: string;
  variant: string;
  pids(): Record<string, number | undefined>;
  create(namespace: string, name: string, body: string): Promise<void>;
}

export async function runWrites(w: Writer, namespace: string, concurrency: number, maxWrites: number, maxMs: number): Promise<WriteResult> {
  const latencies: number[] = [];
  const tag = `c${concurrency}-${Date.now() % 100000}`;
  // Warm up the path (connections, the store's first load) outside the measurement.
  for (let i = 0; i < Math.min(concurrency, 16); i++) await w.create(namespace, `warm-${tag}-${i}`, podJson(namespace, `warm-${tag}-${i}`));
  const meter = new CpuMeter(() => ({ ...w.pids(), client: process.pid })).start();
  const t0 = performance.now();
  let failed = 0;
  let firstError: string | undefined;
  const attempted = await pool(maxWrites, concurrency, maxMs, async (i) => {
    const name = `pod-${tag}-${i}`;
    const body = podJson(namespace, name);
    const t = performance.now();
    try {
      await w.create(namespace, name, body);
      latencies.push(performance.now() - t);
    } catch (e) {
      // e.g. a connection the saturated server closed unanswered: counted, and the phase goes on.
      failed++;
      firstError ??= `${String(e)} after ${Math.round(performance.now() - t)} ms`;
    }
  });
  const done = attempted - failed;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = meter.stop();
  return {
    system: w.system,
    variant: w.variant,
    concurrency,
    writes: done,
    failed,
    firstError,
    seconds: round(seconds, 2),
    perSecond: Math.round(done / seconds),
    latencyMs: summarize(latencies),
    bytesPerObject: podJson(namespace, `pod-${tag}-0`).length,
    cpu,
    serverCpuMsPerWrite: round((cpu.processes.server ?? NaN) / done, 3),
    loadAverage: loadAverage(),
  };
}

/** Creates `count` Pods named p-<i> (64 at a time), for lists: returns how many were created. */
export async function populate(w: Writer, namespace: string, count: number, maxMs: number): Promise<number> {
  return pool(count, 64, maxMs, async (i) => {
    const name = `p-${String(i).padStart(6, '0')}`;
    await w.create(namespace, name, podJson(namespace, name));
  });
}

export function describeWrites(r: WriteResult): string {
  return `${r.system} ${r.variant} creates, ${r.concurrency} in flight: ${r.perSecond}/s, p50 ${r.latencyMs.p50} p99 ${r.latencyMs.p99} ms, ` +
    `server CPU ${r.serverCpuMsPerWrite} ms/create (${r.writes} creates${r.failed ? `, ${r.failed} FAILED: ${r.firstError}` : ''}), foreign load ${r.cpu.foreignShare}, load avg ${r.loadAverage}`;
}
