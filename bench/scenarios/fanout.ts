// Scenario 3 (and the raw data of 6): W watchers of one stream of events, written at a fixed rate or as
// fast as possible (one write in flight). Deliveries per second, write-to-delivery latency, a
// completeness check (every watcher got every event once, in order) and the CPU each process spent.

import { CpuMeter, loadAverage, rssBytes, type CpuReading } from '../lib/proc';
import type { HeapUsage } from '../lib/inspector';
import { openMany, Receiver } from '../lib/receivers';
import { round, sleep, summarize, type Summary } from '../lib/stats';

export type System = 'edgeplane' | 'etcd' | 'bare-ws' | 'minimal-workerd';

/** One system's way of serving a fan-out run. */
export interface FanoutDriver {
  system: System;
  variant: string; // e.g. "store only", "replicas 2x2"
  transport: string; // "ws", "http", "grpc"
  path: string; // how the client reaches it: "npm start port" (dual listener), "workerd port", "loopback"
  pids(): Record<string, number | undefined>; // "server" (and "listener", ...) for the CPU meter; the client is added
  heap?(): Promise<HeapUsage>; // the server isolate's live JS heap after a full collection (workerd's inspector)
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
  measureHeap?: boolean; // record the server's JS heap with the watchers connected (a forced collection: not timed)
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
  expected: number; // events that exist × watchers
  failedWrites: number; // writes whose request failed (not counted as missing events unless stored)
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
  serverRssMiB: number; // the server process's RSS with the W watchers connected, before the first write
  rssGrowthMiB: number; // how much it grew while they connected (memory freed by earlier runs may be reused)
  listenerRssGrowthMiB?: number; // the same for the dual listener's Node process, when the path goes through it
  heapMiB?: number; // the server isolate's live JS heap then (after a full collection), when measured
  listenerCpuUsPerDelivery?: number; // the dual listener's Node process, when the path goes through it
  loadAverage: number; // 1-minute load average at the end of the run
  note?: string;
}

let runSeq = 0;

export async function runFanout(d: FanoutDriver, plan: FanoutPlan): Promise<FanoutResult> {
  const run = `f${process.pid % 1000}-${runSeq++}`;
  await d.prepare(run);
  const rss0 = rssBytes(d.pids().server ?? 0);
  const listenerRss0 = rssBytes(d.pids().listener ?? 0);
  const t0 = performance.now();
  const receivers = await openMany(plan.watchers, 100, (j) => d.open(j, new Receiver(plan.events)));
  const connectSeconds = (performance.now() - t0) / 1000;
  await sleep(plan.watchers >= 1000 ? 1000 : 200); // let every watcher go live before the first write
  const serverRss = rssBytes(d.pids().server ?? 0);
  const listenerRss = rssBytes(d.pids().listener ?? 0);
  const heap = plan.measureHeap && d.heap ? await d.heap() : undefined;
  const meter = new CpuMeter(() => ({ ...d.pids(), client: process.pid })).start();
  const before = d.counters ? await d.counters() : undefined;

  const sentAt = new Float64Array(plan.events).fill(NaN);
  const start = performance.now();
  const interval = plan.mode === 'fixed' ? 1000 / plan.ratePerSecond : 0;
  const inflight: Promise<void>[] = [];
  let written = 0;
  let failed: unknown;
  // Writes whose request failed (e.g. the server closed the connection unanswered): their events are expected
  // only if some watcher received them (then the write did happen).
  const writeFailed = new Uint8Array(plan.events);
  let failedWrites = 0;
  for (let i = 0; i < plan.events && performance.now() - start < plan.maxWriteMs; i++) {
    if (interval) {
      const wait = start + i * interval - performance.now();
      if (wait > 0) await sleep(wait);
    }
    sentAt[i] = performance.now();
    written++;
    const p = d.write(i).catch((e) => {
      failed ??= new Error(`${String(e)} after ${Math.round(performance.now() - sentAt[i])} ms`);
      writeFailed[i] = 1;
      failedWrites++;
    });
    if (interval) inflight.push(p);
    else await p;
  }
  await Promise.all(inflight);
  const writeSeconds = (performance.now() - start) / 1000;
  if (failed) console.warn(`  ${failedWrites} write(s) failed, the first: ${String(failed)}`);

  // Drain: until every watcher has every event, or nothing arrives for a while, or the bound.
  const drainEnd = performance.now() + plan.drainMs;
  let last = -1;
  let lastChange = performance.now();
  for (;;) {
    let got = 0;
    for (const r of receivers) got += Math.min(r.count, written - failedWrites);
    if (got >= (written - failedWrites) * receivers.length || performance.now() > drainEnd) break;
    if (got !== last) {
      last = got;
      lastChange = performance.now();
    } else if (performance.now() - lastChange > 10_000) break;
    await sleep(20);
  }
  await sleep(100); // anything extra (a duplicate) shows up too
  const cpu = meter.stop();
  const after = d.counters ? await d.counters() : undefined;

  const stored = new Uint8Array(written); // 1: the event exists (its write answered, or someone received it)
  for (let i = 0; i < written; i++) stored[i] = writeFailed[i] ? 0 : 1;
  for (const r of receivers) for (let i = 0; i < written; i++) if (!Number.isNaN(r.arrivals[i])) stored[i] = 1;
  let events = 0;
  for (let i = 0; i < written; i++) events += stored[i];
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
        if (stored[i]) missing++;
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
    expected: events * receivers.length,
    failedWrites,
    deliveries,
    deliveriesPerSecond: deliveries && seconds > 0 ? Math.round(deliveries / seconds) : 0,
    latencyMs: summarize(latencies.subarray(0, n)),
    complete: missing === 0 && duplicates === 0 && outOfOrder === 0 && errors === 0,
    missing,
    duplicates,
    outOfOrder,
    errors,
    cpu,
    serverCpuUsPerDelivery: deliveries ? round((serverMs * 1000) / deliveries, 2) : NaN,
    clientCpuUsPerDelivery: deliveries ? round(((cpu.processes.client ?? NaN) * 1000) / deliveries, 2) : NaN,
    listenerCpuUsPerDelivery: deliveries && cpu.processes.listener !== undefined ? round((cpu.processes.listener * 1000) / deliveries, 2) : undefined,
    serverRssMiB: round(serverRss / 2 ** 20),
    rssGrowthMiB: round((serverRss - rss0) / 2 ** 20),
    listenerRssGrowthMiB: d.pids().listener ? round((listenerRss - listenerRss0) / 2 ** 20) : undefined,
    heapMiB: heap ? round(heap.usedSize / 2 ** 20, 2) : undefined,
    loadAverage: loadAverage(),
    counters,
    note: failed ? `${failedWrites} write(s) failed, the first: ${String(failed)}` : undefined,
  };
}

export function describeFanout(r: FanoutResult): string {
  const l = r.latencyMs;
  return `${r.system} ${r.variant} ${r.transport}/${r.path} W=${r.watchers} ${r.mode}${r.mode === 'fixed' ? `@${r.ratePerSecond}/s` : ''}: ` +
    `${r.eventsWritten} events, ${r.deliveriesPerSecond}/s, p50 ${l.p50} p99 ${l.p99} max ${l.max} ms, ` +
    `${r.complete ? 'complete' : `INCOMPLETE (missing ${r.missing}, dup ${r.duplicates}, order ${r.outOfOrder}, errors ${r.errors})`}` +
    `${r.failedWrites ? `, ${r.failedWrites} WRITES FAILED (${r.note})` : ''}, ` +
    `server ${r.serverCpuUsPerDelivery} us/delivery, client ${r.clientCpuUsPerDelivery} us/delivery` +
    `${r.listenerCpuUsPerDelivery !== undefined ? `, listener ${r.listenerCpuUsPerDelivery} us/delivery` : ''}, server RSS ${r.serverRssMiB} MiB (+${r.rssGrowthMiB} connecting)` +
    `${r.heapMiB !== undefined ? `, heap ${r.heapMiB} MiB` : ''}, foreign load ${r.cpu.foreignShare}, load avg ${r.loadAverage}`;
}
