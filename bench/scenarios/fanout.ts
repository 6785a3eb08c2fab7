// Scenario 3 (and the raw data of 6): W watchers of one stream of events, written at a fixed rate or as
// fast as possible (one write in flight). Deliveries per second, write-to-delivery latency, a
// completeness check (every watcher got every event once, in order) and the CPU each process spent.

import { CpuMeter, type CpuReading } from '../lib/proc';
import { openMany, Receiver } from '../lib/receivers';
import { round, sleep, summarize, type Summary } from '../lib/stats';

export type System = 'edgeplane' | 'etcd' | 'bare-ws';

/** One system's way of serving a fan-out run. */
export interface FanoutDriver {
  system: System;
  variant: string; // e.g. "store only", "replicas 2x2"
  transport: string; // "ws", "http", "grpc"
  path: string; // how the client reaches it: "direct" (workerd's port), "proxied" (dual listener), "loopback"
  pids(): Record<string, number | undefined>; // "server" (and others) for the CPU meter; the client is added
  prepare(run: string): Promise<void>; // a fresh namespace/prefix; remembers where watches start
  open(j: number, r: Receiver): Promise<Receiver>;
  write(i: number): Promise<void>; // writes event i (its index is in the object's name)
  counters?(): Promise<Record<string, number>>; // server-side counters (edgeplane /metrics)
  cleanup(): Promise<void>; // after receivers are closed: wait until the server has let go of them
}

export interface FanoutPlan {
  watchers: number;
  mode: 'fixed' | 'max';
  ratePerSecond: number; // fixed mode
  events: number; // at most
  maxWriteMs: number; // stop writing after this long
  drainMs: number; // wait at most this long for deliveries after the last write
}

export interface FanoutResult {
  system: System;
  variant: string;
  transport: string;
  path: string;
  watchers: number;
  mode: 'fixed' | 'max';
  ratePerSecond: number;
  eventsWritten: number;
  writeSeconds: number;
  connectSeconds: number;
  expected: number;
  deliveries: number;
  deliveriesPerSecond: number;
  latencyMs: Summary;
  complete: boolean;
  missing: number;
  duplicates: number;
  outOfOrder: number;
  errors: number;
  cpu: CpuReading;
  serverCpuUsPerDelivery: number;
  clientCpuUsPerDelivery: number;
  counters?: Record<string, number>; // deltas over the run
  note?: string;
}

let runSeq = 0;

export async function runFanout(d: FanoutDriver, plan: FanoutPlan): Promise<FanoutResult> {
  const run = `f${process.pid % 1000}-${runSeq++}`;
  await d.prepare(run);
  const t0 = performance.now();
  const receivers = await openMany(plan.watchers, 100, (j) => d.open(j, new Receiver(plan.events)));
  const connectSeconds = (performance.now() - t0) / 1000;
  await sleep(plan.watchers >= 1000 ? 1000 : 200); // let every watcher go live before the first write
  const meter = new CpuMeter(() => ({ ...d.pids(), client: process.pid })).start();
  const before = d.counters ? await d.counters() : undefined;

  const sentAt = new Float64Array(plan.events).fill(NaN);
  const start = performance.now();
  const interval = plan.mode === 'fixed' ? 1000 / plan.ratePerSecond : 0;
  const inflight: Promise<void>[] = [];
  let written = 0;
  let failed: unknown;
  for (let i = 0; i < plan.events && performance.now() - start < plan.maxWriteMs; i++) {
    if (interval) {
      const wait = start + i * interval - performance.now();
      if (wait > 0) await sleep(wait);
    }
    sentAt[i] = performance.now();
    written++;
    const p = d.write(i).catch((e) => {
      failed ??= e;
    });
    if (interval) inflight.push(p);
    else await p;
  }
  await Promise.all(inflight);
  const writeSeconds = (performance.now() - start) / 1000;
  if (failed) console.warn(`  write failed: ${String(failed)}`);

  // Drain: until every watcher has every event, or nothing arrives for a while, or the bound.
  const drainEnd = performance.now() + plan.drainMs;
  let last = -1;
  let lastChange = performance.now();
  for (;;) {
    let got = 0;
    for (const r of receivers) got += Math.min(r.count, written);
    if (got >= written * receivers.length || performance.now() > drainEnd) break;
    if (got !== last) {
      last = got;
      lastChange = performance.now();
    } else if (performance.now() - lastChange > 10_000) break;
    await sleep(20);
  }
  await sleep(100); // anything extra (a duplicate) shows up too
  const cpu = meter.stop();
  const after = d.counters ? await d.counters() : undefined;

  const latencies = new Float64Array(written * receivers.length);
  let n = 0;
  let end = start;
  let missing = 0;
  let duplicates = 0;
  let outOfOrder = 0;
  let errors = 0;
  for (const r of receivers) {
    for (let i = 0; i < written; i++) {
      const t = r.arrivals[i];
      if (Number.isNaN(t)) {
        missing++;
        continue;
      }
      latencies[n++] = t - sentAt[i];
      if (t > end) end = t;
    }
    duplicates += r.duplicates;
    outOfOrder += r.outOfOrder;
    errors += r.errors;
    r.close();
  }
  await d.cleanup();
  const deliveries = n;
  const seconds = (end - start) / 1000;
  const serverMs = cpu.processes.server ?? NaN;
  const counters = before && after ? Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - (before[k] ?? 0)])) : undefined;
  return {
    system: d.system,
    variant: d.variant,
    transport: d.transport,
    path: d.path,
    watchers: plan.watchers,
    mode: plan.mode,
    ratePerSecond: plan.mode === 'fixed' ? plan.ratePerSecond : round(written / writeSeconds),
    eventsWritten: written,
    writeSeconds: round(writeSeconds, 2),
    connectSeconds: round(connectSeconds, 2),
    expected: written * receivers.length,
    deliveries,
    deliveriesPerSecond: deliveries && seconds > 0 ? Math.round(deliveries / seconds) : 0,
    latencyMs: summarize(latencies.subarray(0, n)),
    complete: !failed && missing === 0 && duplicates === 0 && outOfOrder === 0 && errors === 0,
    missing,
    duplicates,
    outOfOrder,
    errors,
    cpu,
    serverCpuUsPerDelivery: deliveries ? round((serverMs * 1000) / deliveries, 2) : NaN,
    clientCpuUsPerDelivery: deliveries ? round(((cpu.processes.client ?? NaN) * 1000) / deliveries, 2) : NaN,
    counters,
    note: failed ? `write failed: ${String(failed)}` : undefined,
  };
}

export function describeFanout(r: FanoutResult): string {
  const l = r.latencyMs;
  return `${r.system} ${r.variant} ${r.transport}/${r.path} W=${r.watchers} ${r.mode}${r.mode === 'fixed' ? `@${r.ratePerSecond}/s` : ''}: ` +
    `${r.eventsWritten} events, ${r.deliveriesPerSecond}/s, p50 ${l.p50} p99 ${l.p99} max ${l.max} ms, ` +
    `${r.complete ? 'complete' : `INCOMPLETE (missing ${r.missing}, dup ${r.duplicates}, order ${r.outOfOrder}, errors ${r.errors})`}, ` +
    `server ${r.serverCpuUsPerDelivery} us/delivery, client ${r.clientCpuUsPerDelivery} us/delivery, foreign load ${r.cpu.foreignShare}`;
}
