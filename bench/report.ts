// Report: turns one run's results into the markdown of bench/RESULTS.md (machine, versions, headline
// table with edgeplane/etcd and edgeplane/bare-broadcast ratios, targets, details) and the p99 chart.

import type { RolloutResult } from './scenarios/rollout';
import type { WriteResult } from './scenarios/writes';
import type { ListResult } from './scenarios/lists';
import type { FanoutResult } from './scenarios/fanout';
import type { ResumeResult } from './scenarios/resume';
import type { MemoryResult } from './scenarios/memory';
import type { CanonicalRow } from './scenarios/canonical';
import { lineChart, type Series } from './svg';

export interface BenchResults {
  kind: 'full' | 'smoke';
  startedAt: string;
  durationSeconds: number;
  machine: Record<string, unknown>;
  versions: Record<string, string>;
  source: Record<string, unknown>;
  settings: Record<string, unknown>;
  writes: WriteResult[];
  lists: ListResult[];
  fanout: FanoutResult[];
  resume: ResumeResult[];
  memory: MemoryResult[];
  canonical: CanonicalRow[];
  rollouts: RolloutResult[];
  errors: string[];
  notes: string[];
}

export const STORE_ONLY = 'store only';

const fmt = (v: number | undefined, digits = 1): string => {
  if (v === undefined || !Number.isFinite(v)) return '–';
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  return String(Math.round(v * 10 ** digits) / 10 ** digits);
};
const ratio = (a: number | undefined, b: number | undefined): string =>
  a !== undefined && b !== undefined && Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `${fmt(a / b, 2)}×` : '–';

function fan(res: BenchResults, system: string, w: number, mode: string, transport: string, variant?: string): FanoutResult | undefined {
  return res.fanout.find((r) => r.system === system && r.watchers === w && r.mode === mode &&
    (system === 'edgeplane' ? r.transport === transport && r.variant === (variant ?? STORE_ONLY) && r.path === 'direct' : true));
}
const write = (res: BenchResults, system: string, c: number) => res.writes.find((r) => r.system === system && r.concurrency === c);
const list = (res: BenchResults, system: string, n: number, read: string, servedBy?: string) =>
  res.lists.find((r) => r.system === system && r.objects === n && r.read === read && (!servedBy || r.servedBy === servedBy));
const resume = (res: BenchResults, system: string, behind: number, transport: string, variant?: string) =>
  res.resume.find((r) => r.system === system && r.behind === behind && (system !== 'edgeplane' || (r.transport === transport && r.variant === (variant ?? STORE_ONLY))));
const mem = (res: BenchResults, system: string, transport: string, variant?: string) =>
  res.memory.find((r) => r.system === system && (system !== 'edgeplane' || (r.transport === transport && r.variant === (variant ?? STORE_ONLY))));

function replicaVariant(res: BenchResults): string | undefined {
  return res.fanout.find((r) => r.system === 'edgeplane' && r.variant.startsWith('replicas'))?.variant;
}

interface Row {
  scenario: string;
  metric: string;
  ep?: number;
  epRep?: number;
  etcd?: number;
  bare?: number;
}

function headlineRows(res: BenchResults): Row[] {
  const rows: Row[] = [];
  const rv = replicaVariant(res);
  for (const c of [1, 64]) {
    const e = write(res, 'edgeplane', c);
    const k = write(res, 'etcd', c);
    const s = `Writes, ${c === 1 ? 'sequential' : `${c} concurrent`}`;
    rows.push({ scenario: s, metric: 'creates/s ↑', ep: e?.perSecond, etcd: k?.perSecond });
    rows.push({ scenario: s, metric: 'p50 ms ↓', ep: e?.latencyMs.p50, etcd: k?.latencyMs.p50 });
    rows.push({ scenario: s, metric: 'p99 ms ↓', ep: e?.latencyMs.p99, etcd: k?.latencyMs.p99 });
  }
  for (const n of [...new Set(res.lists.map((l) => l.objects))].sort((a, b) => a - b)) {
    const s = `List ${n.toLocaleString('en-US')} pods`;
    const range = list(res, 'etcd', n, 'range');
    for (const read of ['rv=0 (cache)', 'consistent']) {
      const e = list(res, 'edgeplane', n, read, 'store');
      const r = read === 'consistent' ? undefined : list(res, 'edgeplane', n, read, 'replica'); // consistent lists go to the store either way
      rows.push({ scenario: s, metric: `${read} p50 ms ↓ (etcd: range)`, ep: e?.latencyMs.p50, epRep: r?.latencyMs.p50, etcd: range?.latencyMs.p50 });
      rows.push({ scenario: s, metric: `${read} p99 ms ↓ (etcd: range)`, ep: e?.latencyMs.p99, epRep: r?.latencyMs.p99, etcd: range?.latencyMs.p99 });
    }
  }
  const ws = [...new Set(res.fanout.map((f) => f.watchers))].filter((w) => w > 0).sort((a, b) => a - b);
  for (const transport of ['ws', 'http']) {
    for (const w of ws) {
      const s = `Fan-out ${transport === 'ws' ? 'WebSocket' : 'HTTP stream'}, W=${w.toLocaleString('en-US')}`;
      const fx = (sys: string, v?: string) => fan(res, sys, w, 'fixed', transport, v);
      const mx = (sys: string, v?: string) => fan(res, sys, w, 'max', transport, v);
      if (!fx('edgeplane') && !mx('edgeplane')) continue;
      const rate = fx('edgeplane')?.ratePerSecond;
      rows.push({ scenario: s, metric: `p99 ms at ${rate}/s ↓`, ep: fx('edgeplane')?.latencyMs.p99, epRep: rv ? fx('edgeplane', rv)?.latencyMs.p99 : undefined, etcd: fx('etcd')?.latencyMs.p99, bare: fx('bare-ws')?.latencyMs.p99 });
      rows.push({ scenario: s, metric: 'deliveries/s, max rate ↑', ep: mx('edgeplane')?.deliveriesPerSecond, epRep: rv ? mx('edgeplane', rv)?.deliveriesPerSecond : undefined, etcd: mx('etcd')?.deliveriesPerSecond, bare: mx('bare-ws')?.deliveriesPerSecond });
      rows.push({ scenario: s, metric: 'p99 ms, max rate ↓', ep: mx('edgeplane')?.latencyMs.p99, epRep: rv ? mx('edgeplane', rv)?.latencyMs.p99 : undefined, etcd: mx('etcd')?.latencyMs.p99, bare: mx('bare-ws')?.latencyMs.p99 });
    }
  }
  for (const behind of [...new Set(res.resume.map((r) => r.behind))].sort((a, b) => a - b)) {
    rows.push({ scenario: `Resume ${behind.toLocaleString('en-US')} behind`, metric: 'catch-up ms ↓ (WebSocket)', ep: resume(res, 'edgeplane', behind, 'ws')?.catchUpMs, epRep: rv ? resume(res, 'edgeplane', behind, 'ws', rv)?.catchUpMs : undefined, etcd: resume(res, 'etcd', behind, 'grpc')?.catchUpMs });
  }
  if (res.memory.length) {
    rows.push({ scenario: 'Memory', metric: 'KiB per idle watcher ↓ (WebSocket)', ep: mem(res, 'edgeplane', 'ws')?.kibPerWatcher, epRep: rv ? mem(res, 'edgeplane', 'ws', rv)?.kibPerWatcher : undefined, etcd: mem(res, 'etcd', 'grpc')?.kibPerWatcher, bare: mem(res, 'bare-ws', 'ws')?.kibPerWatcher });
  }
  return rows;
}

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean | undefined;
}

export function checkTargets(res: BenchResults): TargetCheck[] {
  const out: TargetCheck[] = [];
  const e1k = fan(res, 'edgeplane', 1000, 'fixed', 'ws');
  const k1k = fan(res, 'etcd', 1000, 'fixed', 'grpc');
  const h1k = fan(res, 'edgeplane', 1000, 'fixed', 'http');
  out.push({
    target: 'Fan-out p99 at 1,000 watchers ≤ etcd\'s',
    measured: `WebSocket ${fmt(e1k?.latencyMs.p99)} ms, HTTP ${fmt(h1k?.latencyMs.p99)} ms vs etcd ${fmt(k1k?.latencyMs.p99)} ms (${e1k?.ratePerSecond ?? '?'} events/s)`,
    met: e1k && k1k ? e1k.latencyMs.p99 <= k1k.latencyMs.p99 : undefined,
  });
  for (const w of [1000, 5000]) {
    const e = fan(res, 'edgeplane', w, 'max', 'ws');
    const b = fan(res, 'bare-ws', w, 'max', 'ws');
    out.push({
      target: `Deliveries/s ≥ ½ bare broadcast (W=${w.toLocaleString('en-US')}, max rate)`,
      measured: `${fmt(e?.deliveriesPerSecond)} vs ${fmt(b?.deliveriesPerSecond)} (${ratio(e?.deliveriesPerSecond, b?.deliveriesPerSecond)})`,
      met: e && b ? e.deliveriesPerSecond >= b.deliveriesPerSecond / 2 : undefined,
    });
  }
  for (const c of [1, 64]) {
    const e = write(res, 'edgeplane', c);
    const k = write(res, 'etcd', c);
    out.push({
      target: `Creates/s ≥ etcd's (${c === 1 ? 'sequential' : `${c} concurrent`})`,
      measured: `${fmt(e?.perSecond)} vs ${fmt(k?.perSecond)} (${ratio(e?.perSecond, k?.perSecond)})`,
      met: e && k ? e.perSecond >= k.perSecond : undefined,
    });
  }
  const fanBad = res.fanout.filter((r) => !r.complete);
  const resBad = res.resume.filter((r) => !r.complete);
  const missing = res.fanout.reduce((a, r) => a + r.missing, 0);
  const dups = res.fanout.reduce((a, r) => a + r.duplicates, 0);
  out.push({
    target: 'Zero missing or duplicate events',
    measured: `${res.fanout.length - fanBad.length}/${res.fanout.length} fan-out runs and ${res.resume.length - resBad.length}/${res.resume.length} resumes complete; ${missing} missing, ${dups} duplicate deliveries` +
      (fanBad.length ? `; incomplete: ${fanBad.map((r) => `${r.system} ${r.variant} ${r.transport} W=${r.watchers} ${r.mode}`).join(', ')}` : ''),
    met: fanBad.length === 0 && resBad.length === 0,
  });
  return out;
}

const table = (head: string[], rows: (string | number | undefined)[][]): string =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map((c) => (c === undefined ? '–' : typeof c === 'number' ? fmt(c) : c)).join(' | ')} |`)].join('\n');

const yesNo = (b: boolean | undefined) => (b === undefined ? 'not measured' : b ? '**met**' : '**not met**');

export function renderMarkdown(res: BenchResults): string {
  const rv = replicaVariant(res);
  const out: string[] = [];
  out.push(`# edgeplane benchmark results (${res.kind})`, '');
  out.push(`Run ${res.startedAt}, ${Math.round(res.durationSeconds)} s. Machine: ${res.machine.cpu}, ${res.machine.cores} cores, ${res.machine.memoryGiB} GiB, ${res.machine.os}, Linux ${res.machine.kernel}.`);
  out.push(`Versions: ${Object.entries(res.versions).map(([k, v]) => `${k} ${v}`).join(', ')}.`);
  out.push(`Source: ${Object.entries(res.source).map(([k, v]) => `${k} ${v}`).join(', ')}.`, '');
  out.push('Everything (servers and the Node load generator) shares this machine over loopback; see bench/README.md for what each figure means. ' +
    'edgeplane figures use workerd\'s own port ("direct"), not the dual HTTP/HTTPS listener, unless marked "proxied". ' +
    `"edgeplane" is the canonical store serving watches itself (REPLICA_LOCATIONS=""); "${rv ?? 'replicas'}" routes watches and RV=0 lists to watch-cache replicas (all in the same local workerd process). ` +
    'Ratios are edgeplane (store only) ÷ reference; ↑ higher is better, ↓ lower is better.', '');
  out.push('## Headline', '');
  out.push(table(['Scenario', 'Metric', 'edgeplane', `edgeplane ${rv ?? 'replicas'}`, 'etcd 3.4', 'bare ws', 'edgeplane/etcd', 'edgeplane/bare'],
    headlineRows(res).map((r) => [r.scenario, r.metric, r.ep, r.epRep, r.etcd, r.bare, ratio(r.ep, r.etcd), ratio(r.ep, r.bare)])));
  out.push('', '## Targets', '');
  out.push(table(['Target', 'Measured', 'Result'], checkTargets(res).map((t) => [t.target, t.measured, yesNo(t.met)])));
  out.push('', '![p99 latency against watchers](p99-vs-watchers.svg)', '');
  out.push('## Fan-out, every run', '');
  out.push('Latency: from sending the write to the watcher receiving the event. Deliveries/s: deliveries ÷ (last arrival − first write). ' +
    'CPU per delivery: process CPU time (/proc) over the run ÷ deliveries; "client" is the Node load generator (plus the dual listener when proxied). ' +
    '"Other load": share of the machine used by processes outside the benchmark during the run.', '');
  out.push(table(['System', 'Variant', 'Transport', 'Path', 'W', 'Mode', 'Events/s', 'Events', 'Deliveries/s', 'p50 ms', 'p99 ms', 'max ms', 'Complete', 'Server µs/del.', 'Client µs/del.', 'Other load'],
    res.fanout.filter((r) => r.watchers > 0).map((r) => [r.system, r.variant, r.transport, r.path, r.watchers, r.mode, r.ratePerSecond, r.eventsWritten, r.deliveriesPerSecond,
      r.latencyMs.p50, r.latencyMs.p99, r.latencyMs.max, r.complete ? 'yes' : `**no** (−${r.missing} +${r.duplicates} ↕${r.outOfOrder} err ${r.errors})`,
      r.serverCpuUsPerDelivery, r.clientCpuUsPerDelivery, `${Math.round(r.cpu.foreignShare * 100)}%`])));
  const proxied = res.fanout.filter((r) => r.path === 'proxied');
  if (proxied.length) {
    out.push('', '## Path: direct vs through the dual listener', '');
    out.push('The dual HTTP/HTTPS listener (what `npm start` serves on its port) pipes bytes in the load generator\'s own Node process; "direct" is workerd\'s port.', '');
    const rows: (string | number | undefined)[][] = [];
    for (const p of proxied) {
      const d = res.fanout.find((r) => r.path === 'direct' && r.system === p.system && r.variant === p.variant && r.transport === p.transport && r.watchers === p.watchers && r.mode === p.mode);
      for (const r of [d, p]) if (r) rows.push([r.transport, r.watchers, r.mode, r.path, r.deliveriesPerSecond, r.latencyMs.p50, r.latencyMs.p99, r.serverCpuUsPerDelivery, r.clientCpuUsPerDelivery]);
    }
    out.push(table(['Transport', 'W', 'Mode', 'Path', 'Deliveries/s', 'p50 ms', 'p99 ms', 'workerd µs/del.', 'Node (client+listener) µs/del.'], rows));
  }
  if (res.canonical.length) {
    out.push('', '## Canonical load per write', '');
    out.push('From the fixed-rate WebSocket/HTTP runs: messages the canonical store sent per write (frames to its own watchers + pushes to replicas, from /metrics), and workerd CPU per write (/proc; store and replicas share the one local workerd process, so with replicas this includes their fan-out).', '');
    out.push(table(['Variant', 'Transport', 'W', 'Writes', 'Store messages/write', 'Replica pushes/write', 'Replica deliveries/write', 'workerd CPU ms/write', 'Other load'],
      res.canonical.map((c) => [c.variant, c.transport, c.watchers, c.writes, c.storeMessagesPerWrite, c.replicaPushesPerWrite, c.replicaDeliveriesPerWrite, c.workerdCpuMsPerWrite, `${Math.round(c.foreignShare * 100)}%`])));
  }
  out.push('', '## Writes', '');
  out.push(table(['System', 'Variant', 'Concurrency', 'Writes', 'Creates/s', 'p50 ms', 'p99 ms', 'max ms', 'Bytes/object (request)', 'Server CPU ms/write', 'Other load'],
    res.writes.map((w) => [w.system, w.variant, w.concurrency, w.writes, w.perSecond, w.latencyMs.p50, w.latencyMs.p99, w.latencyMs.max, w.bytesPerObject, fmt((w.cpu.processes.server ?? NaN) / w.writes, 3), `${Math.round(w.cpu.foreignShare * 100)}%`])));
  out.push('', '## Lists', '');
  out.push(table(['System', 'Variant', 'Objects', 'Read', 'Served by', 'Samples', 'p50 ms', 'p99 ms', 'MB'],
    res.lists.map((l) => [l.system, l.variant, l.objects, l.read, l.servedBy, l.latencyMs.n, l.latencyMs.p50, l.latencyMs.p99, fmt(l.bytes / 1e6, 2)])));
  out.push('', '## Resume', '');
  out.push(table(['System', 'Variant', 'Transport', 'Behind', 'First event ms', 'Caught up ms', 'Events/s', 'Complete'],
    res.resume.map((r) => [r.system, r.variant, r.transport, r.behind, r.firstEventMs, r.catchUpMs, r.eventsPerSecond, r.complete ? 'yes' : `**no** (${r.received})`])));
  out.push('', '## Memory per idle watcher', '');
  out.push(table(['System', 'Variant', 'Transport', 'Watchers', 'RSS before MiB', 'RSS after MiB', 'KiB/watcher'],
    res.memory.map((m) => [m.system, m.variant, m.transport, m.watchers, m.rssBeforeMiB, m.rssAfterMiB, m.kibPerWatcher])));
  if (res.rollouts.length) {
    out.push('', '## Control loops: a Deployment to Available', '');
    out.push('Controller manager, scheduler and simulated kubelets on (one local workerd process, store only); writes are every store\'s, events included.', '');
    out.push(table(['Replicas', 'Nodes', 'Create → Available ms', 'Store writes', 'Writes/s'],
      res.rollouts.map((r) => [r.replicas, r.nodes, Number.isNaN(r.availableMs) ? '**not within the bound**' : r.availableMs, r.writes, r.writesPerSecond])));
  }
  if (res.notes.length) out.push('', '## Notes', '', ...res.notes.map((n) => `- ${n}`));
  if (res.errors.length) out.push('', '## Errors', '', ...res.errors.map((e) => `- ${e}`));
  return `${out.join('\n')}\n`;
}

export function renderChart(res: BenchResults): string {
  const rv = replicaVariant(res);
  const pts = (pred: (r: FanoutResult) => boolean) =>
    res.fanout.filter((r) => r.watchers > 0 && r.mode === 'fixed' && pred(r)).map((r) => ({ x: r.watchers, y: r.latencyMs.p99 }));
  const rate = res.fanout.find((r) => r.mode === 'fixed')?.ratePerSecond;
  const series: Series[] = [
    { name: 'edgeplane WebSocket', color: '#d9480f', points: pts((r) => r.system === 'edgeplane' && r.variant === STORE_ONLY && r.transport === 'ws' && r.path === 'direct') },
    { name: 'edgeplane HTTP stream', color: '#f08c00', dashed: true, points: pts((r) => r.system === 'edgeplane' && r.variant === STORE_ONLY && r.transport === 'http' && r.path === 'direct') },
    { name: `edgeplane WS, ${rv ?? 'replicas'}`, color: '#9c36b5', dashed: true, points: pts((r) => r.system === 'edgeplane' && r.variant === rv && r.transport === 'ws' && r.path === 'direct') },
    { name: 'etcd 3.4 (gRPC watch)', color: '#1971c2', points: pts((r) => r.system === 'etcd') },
    { name: 'bare ws broadcast', color: '#2f9e44', points: pts((r) => r.system === 'bare-ws') },
  ].filter((s) => s.points.length > 0);
  return lineChart(`p99 write-to-delivery latency at ${rate ?? '?'} events/s`, 'watchers (log)', 'p99 latency, ms (log)', series);
}
