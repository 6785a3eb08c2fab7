// Scenario 1: creates of ~1 KiB Pods, one at a time and with 64 concurrent clients, each phase bounded
// in time: creates per second and per-create latency; etcd puts of the same bytes.

import { pool } from '../lib/http';
import { podJson } from '../lib/objects';
import { CpuMeter, type CpuReading } from '../lib/proc';
import { round, summarize, type Summary } from '../lib/stats';

export interface WriteResult {
  system: 'edgeplane' | 'etcd';
  variant: string;
  concurrency: number;
  writes: number;
  seconds: number;
  perSecond: number;
  latencyMs: Summary;
  bytesPerObject: number;
  cpu: CpuReading;
}

export interface Writer {
  system: 'edgeplane' | 'etcd';
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
  const done = await pool(maxWrites, concurrency, maxMs, async (i) => {
    const name = `pod-${tag}-${i}`;
    const body = podJson(namespace, name);
    const t = performance.now();
    await w.create(namespace, name, body);
    latencies.push(performance.now() - t);
  });
  const seconds = (performance.now() - t0) / 1000;
  return {
    system: w.system,
    variant: w.variant,
    concurrency,
    writes: done,
    seconds: round(seconds, 2),
    perSecond: Math.round(done / seconds),
    latencyMs: summarize(latencies),
    bytesPerObject: podJson(namespace, `pod-${tag}-0`).length,
    cpu: meter.stop(),
  };
}

/** Creates `count` Pods named p-<i> (64 at a time), for lists: returns how many were created. */
export async function populate(w: Writer, namespace: string, count: number, maxMs: number): Promise<number> {
  return pool(count, 64, maxMs, async (i) => {
    const name = `p-${String(i).padStart(6, '0')}`;
    await w.create(namespace, name, podJson(namespace, name));
  });
}
