// Report: turns one run's results into the markdown of bench/RESULTS.md: issue 20's rows as edgeplane ÷
// reference from the same run with each target and whether it is met, the curve (fan-out against watchers,
// creates against requests in flight) with its charts, and every run's details.

import type { ApfResult } from './scenarios/apf';
import type { RolloutResult } from './scenarios/rollout';
import type { WriteResult } from './scenarios/writes';
import type { ListResult } from './scenarios/lists';
import type { FanoutResult } from './scenarios/fanout';
import type { ResumeResult } from './scenarios/resume';
import type { MemoryResult } from './scenarios/memory';
import type { CanonicalRow } from './scenarios/canonical';
import type { IdleResult } from './scenarios/idle';
import { lineChart, type Series } from './svg';

export interface BenchResults {
  kind: 'full' | 'smoke';
  startedAt: string;
  durationSeconds: number;
  machine: Record<string, unknown>;
  versions: Record<string, string>;
  source: Record<string, unknown>;
  settings: Record<string, unknown>;
  idle: IdleResult[];
  writes: WriteResult[];
  lists: ListResult[];
  fanout: FanoutResult[];
  resume: ResumeResult[];
  memory: MemoryResult[];
  canonical: CanonicalRow[];
  rollouts: RolloutResult[];
  apf?: ApfResult[];
  errors: string[];
  notes: string[];
}

// What `npm start` held before any client when issue 20 was filed (Node 456 MB, esbuild 93 MB, workerd 101 MB,
// the launchers the rest): the target is half of it.
export const ISSUE_IDLE_MB = 708;

const PORT = 'npm start port';
const DIRECT = 'workerd port';
const MINIMAL = 'minimal-workerd';
const BARE = 'bare-ws';

const fmt = (v: number | undefined, digits = 1): string => {
  if (v === undefined || !Number.isFinite(v)) return '–';
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  return String(Math.round(v * 10 ** digits) / 10 ** digits);
};
const div = (a: number | undefined, b: number | undefined): number | undefined =>
  a !== undefined && b !== undefined && Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : undefined;
const times = (r: number | undefined) => (r === undefined ? '–' : `${fmt(r, 2)}×`);
const w = (n: number) => n.toLocaleString('en-US');

// ---- lookups ----
const isDefaults = (r: { system: string; variant: string }) => r.system === 'edgeplane' && r.variant.startsWith('defaults');

/** edgeplane with the defaults at W watchers: through the `npm start` port when it ran there, else workerd's port. */
export function epFan(res: BenchResults, watchers: number, transport = 'ws', path?: string): FanoutResult | undefined {
  const all = res.fanout.filter((r) => isDefaults(r) && r.watchers === watchers && r.transport === transport);
  return path ? all.find((r) => r.path === path) : all.find((r) => r.path === PORT) ?? all.find((r) => r.path === DIRECT);
}
const refFan = (res: BenchResults, system: string, watchers: number) => res.fanout.find((r) => r.system === system && r.watchers === watchers);
const write = (res: BenchResults, system: string, c: number, variant?: string) =>
  res.writes.find((r) => r.system === system && r.concurrency === c && (variant === undefined || r.variant === variant));
const list = (res: BenchResults, system: string, n: number, read: string, variant?: string) =>
  res.lists.find((r) => r.system === system && r.objects === n && r.read === read && (variant === undefined || r.variant === variant));
const resume = (res: BenchResults, system: string, behind: number, transport: string, variant?: string) =>
  res.resume.find((r) => r.system === system && r.behind === behind && r.transport === transport && (variant === undefined || r.variant === variant));
const mem = (res: BenchResults, system: string) => res.memory.find((r) => r.system === system && (system !== 'edgeplane' || r.transport === 'ws'));

// ---- targets ----
export interface TargetCheck {
  id: string;
  target: string;
  measured: string;
  met: boolean | undefined;
}

const check = (v: number | undefined, ok: (v: number) => boolean): boolean | undefined => (v === undefined || !Number.isFinite(v) ? undefined : ok(v));
const all = (...xs: (boolean | undefined)[]): boolean | undefined => (xs.some((x) => x === undefined) ? undefined : xs.every(Boolean));

export function checkTargets(res: BenchResults): TargetCheck[] {
  const out: TargetCheck[] = [];
  const e1 = epFan(res, 1000, 'ws', PORT);
  const b1 = refFan(res, BARE, 1000);
  const m1 = refFan(res, MINIMAL, 1000);
  out.push({
    id: 'fanout-1k',
    target: 'WebSocket fan-out, W=1,000, 100 writes/s, defaults: deliveries/s ≥ 0.5× bare ws and ≥ 0.85× the minimal workerd broadcast; p99 ≤ 2× bare ws; complete and in order',
    measured: `${fmt(e1?.deliveriesPerSecond)}/s (${times(div(e1?.deliveriesPerSecond, b1?.deliveriesPerSecond))} bare, ${times(div(e1?.deliveriesPerSecond, m1?.deliveriesPerSecond))} minimal); p99 ${fmt(e1?.latencyMs.p99)} ms (${times(div(e1?.latencyMs.p99, b1?.latencyMs.p99))} bare); ${e1 ? (e1.complete ? 'complete' : 'INCOMPLETE') : '–'}`,
    met: all(check(div(e1?.deliveriesPerSecond, b1?.deliveriesPerSecond), (r) => r >= 0.5), check(div(e1?.deliveriesPerSecond, m1?.deliveriesPerSecond), (r) => r >= 0.85),
      check(div(e1?.latencyMs.p99, b1?.latencyMs.p99), (r) => r <= 2), e1?.complete),
  });
  for (const [transport, watchers] of [['ws', 5000], ['http', 1000]] as const) {
    const e = epFan(res, watchers, transport);
    const b = refFan(res, BARE, watchers);
    out.push({
      id: `fanout-${transport}-${watchers}`,
      target: `${transport === 'ws' ? 'WebSocket' : 'HTTP streaming'} fan-out, W=${w(watchers)}, defaults: p99 ≤ 3× bare ws; complete`,
      measured: `p99 ${fmt(e?.latencyMs.p99)} ms vs ${fmt(b?.latencyMs.p99)} ms (${times(div(e?.latencyMs.p99, b?.latencyMs.p99))})${e ? `, ${e.path}` : ''}; ${e ? (e.complete ? 'complete' : 'INCOMPLETE') : '–'}`,
      met: all(check(div(e?.latencyMs.p99, b?.latencyMs.p99), (r) => r <= 3), e?.complete),
    });
  }
  const em = mem(res, 'edgeplane');
  const mm = mem(res, MINIMAL);
  out.push({
    id: 'heap',
    target: `Memory per idle WebSocket watcher (${w(em?.watchers ?? 5000)}): JS heap of the objects holding them ≤ 4 KiB per watcher, all of it returned after close`,
    measured: `${fmt(em?.heapBytesPerWatcher)} B per watcher, ${fmt(em?.heapBytesPerWatcherKept)} B kept after close (minimal broadcast: ${fmt(mm?.heapBytesPerWatcher)} B, ${fmt(mm?.heapBytesPerWatcherKept)} B)`,
    // "Returned": what stays is within 5% of the growth (or 64 B) per watcher.
    met: all(check(em?.heapBytesPerWatcher, (v) => v <= 4096), check(em?.heapBytesPerWatcherKept, (v) => v <= Math.max(64, 0.05 * (em?.heapBytesPerWatcher ?? 0)))),
  });
  out.push({
    id: 'rss',
    target: 'Memory per idle WebSocket watcher: process RSS ≤ 1.1× the minimal workerd broadcast\'s',
    measured: `${fmt(em?.kibPerWatcher)} vs ${fmt(mm?.kibPerWatcher)} KiB (${times(div(em?.kibPerWatcher, mm?.kibPerWatcher))})`,
    met: check(div(em?.kibPerWatcher, mm?.kibPerWatcher), (r) => r <= 1.1),
  });
  const s1 = write(res, 'edgeplane', 1, 'store only');
  const s64 = write(res, 'edgeplane', 64, 'store only');
  const k64 = write(res, 'etcd', 64);
  const n1 = write(res, MINIMAL, 1);
  const n64 = write(res, MINIMAL, 64);
  out.push({
    id: 'writes-store',
    target: 'Pod creates/s, store only: sequential ≥ 0.9× the minimal SQLite writer; 64 in flight ≥ 1.0× it and ≥ 0.5× etcd',
    measured: `sequential ${fmt(s1?.perSecond)} vs ${fmt(n1?.perSecond)} (${times(div(s1?.perSecond, n1?.perSecond))}); 64 in flight ${fmt(s64?.perSecond)} vs ${fmt(n64?.perSecond)} (${times(div(s64?.perSecond, n64?.perSecond))}) and etcd ${fmt(k64?.perSecond)} (${times(div(s64?.perSecond, k64?.perSecond))})`,
    met: all(check(div(s1?.perSecond, n1?.perSecond), (r) => r >= 0.9), check(div(s64?.perSecond, n64?.perSecond), (r) => r >= 1), check(div(s64?.perSecond, k64?.perSecond), (r) => r >= 0.5)),
  });
  const storeCpu = res.writes.filter((r) => r.system === 'edgeplane' && r.variant === 'store only');
  out.push({
    id: 'writes-cpu',
    target: 'Server CPU per create, store only: ≤ 1 ms',
    measured: storeCpu.map((r) => `${r.concurrency} in flight ${fmt(r.serverCpuMsPerWrite, 2)} ms`).join(', ') || '–',
    met: storeCpu.length ? storeCpu.every((r) => r.serverCpuMsPerWrite <= 1) : undefined,
  });
  const d1 = write(res, 'edgeplane', 1, 'defaults');
  const d64 = write(res, 'edgeplane', 64, 'defaults');
  out.push({
    id: 'writes-defaults',
    target: 'Pod creates/s with the defaults (loops, 3 simulated nodes, replicas): ≥ 0.5× the store-only rate at 1 and 64 in flight',
    measured: `sequential ${fmt(d1?.perSecond)} vs ${fmt(s1?.perSecond)} (${times(div(d1?.perSecond, s1?.perSecond))}); 64 in flight ${fmt(d64?.perSecond)} vs ${fmt(s64?.perSecond)} (${times(div(d64?.perSecond, s64?.perSecond))})`,
    met: all(check(div(d1?.perSecond, s1?.perSecond), (r) => r >= 0.5), check(div(d64?.perSecond, s64?.perSecond), (r) => r >= 0.5)),
  });
  const ro = res.rollouts.find((r) => r.replicas >= 1000);
  out.push({
    id: 'rollout',
    target: 'A Deployment of 1,000 replicas to Available (defaults): ≤ 5 store writes per pod',
    measured: ro ? `${w(ro.replicas)} replicas on ${ro.nodes} nodes: ${Number.isNaN(ro.availableMs) ? 'not Available within the bound' : `Available in ${fmt(ro.availableMs / 1000, 1)} s`}, ${fmt(ro.writesPerPod, 2)} writes per pod` : '–',
    met: ro ? !Number.isNaN(ro.availableMs) && ro.writesPerPod <= 5 : undefined,
  });
  const er = resume(res, 'edgeplane', 10000, 'ws', 'store only');
  const kr = resume(res, 'etcd', 10000, 'grpc');
  const el = list(res, 'edgeplane', 10000, 'rv=0 (cache)', 'store only');
  const ec = list(res, 'edgeplane', 10000, 'consistent', 'store only');
  const kl = list(res, 'etcd', 10000, 'range');
  out.push({
    id: 'lead',
    target: 'Resume 10,000 behind ≤ 0.1× etcd\'s catch-up time; lists of 10,000 pods at least as fast as etcd (p50 ≤ 1.0× its time)',
    measured: `resume ${fmt(er?.catchUpMs)} vs ${fmt(kr?.catchUpMs)} ms (${times(div(er?.catchUpMs, kr?.catchUpMs))}); list p50 rv=0 ${fmt(el?.latencyMs.p50)}, consistent ${fmt(ec?.latencyMs.p50)} vs etcd ${fmt(kl?.latencyMs.p50)} ms (${times(div(el?.latencyMs.p50, kl?.latencyMs.p50))}, ${times(div(ec?.latencyMs.p50, kl?.latencyMs.p50))})`,
    met: all(check(div(er?.catchUpMs, kr?.catchUpMs), (r) => r <= 0.1), check(div(el?.latencyMs.p50, kl?.latencyMs.p50), (r) => r <= 1), check(div(ec?.latencyMs.p50, kl?.latencyMs.p50), (r) => r <= 1)),
  });
  const idle = res.idle[0];
  out.push({
    id: 'idle',
    target: `\`npm start\` idle, before any client: RSS of the process group halved (≤ ${ISSUE_IDLE_MB / 2} MB, half of the ${ISSUE_IDLE_MB} MB issue 20 measured)`,
    measured: idle ? `${fmt(idle.totalMiB * 1.048576)} MB (${fmt(idle.totalMiB)} MiB)` : '–',
    met: idle ? idle.totalMiB * 1.048576 <= ISSUE_IDLE_MB / 2 : undefined,
  });
  const fanBad = res.fanout.filter((r) => !r.complete);
  const resBad = res.resume.filter((r) => !r.complete);
  const missing = res.fanout.reduce((a, r) => a + r.missing, 0);
  const dups = res.fanout.reduce((a, r) => a + r.duplicates, 0);
  const failedWrites = res.fanout.filter((r) => r.failedWrites > 0);
  out.push({
    id: 'complete',
    target: 'Zero missing, duplicate or out-of-order events (every fan-out run and resume)',
    measured: `${res.fanout.length - fanBad.length}/${res.fanout.length} fan-out runs and ${res.resume.length - resBad.length}/${res.resume.length} resumes complete; ${missing} missing, ${dups} duplicate deliveries` +
      (fanBad.length ? `; incomplete: ${fanBad.map((r) => `${r.system} ${r.variant} ${r.transport}/${r.path} W=${r.watchers}`).join(', ')}` : '') +
      (failedWrites.length ? `; writes failed (not events lost: they were never stored) in ${failedWrites.map((r) => `${r.system} ${r.transport}/${r.path} W=${r.watchers}: ${r.failedWrites} (${r.note})`).join(', ')}` : ''),
    met: fanBad.length === 0 && resBad.length === 0,
  });
  return out;
}

/** "yes"/"no", and the writes that failed (events that never existed are not counted missing). */
const completeText = (r: FanoutResult) => `${r.complete ? 'yes' : 'no'}${r.failedWrites ? ` (${r.failedWrites} of ${r.eventsWritten} writes failed)` : ''}`;

// ---- the headline: each row edgeplane ÷ one reference ----
interface Row {
  scenario: string;
  metric: string;
  ep: number | string | undefined;
  refName: string;
  ref: number | undefined;
  ratio?: number;
  target?: string;
  met?: boolean;
}

function headlineRows(res: BenchResults): Row[] {
  const rows: Row[] = [];
  const vs = (scenario: string, metric: string, ep: number | undefined, refName: string, ref: number | undefined, target?: string, ok?: (ratio: number) => boolean) => {
    const ratio = div(ep, ref);
    rows.push({ scenario, metric, ep, refName, ref, ratio, target, met: target && ok ? check(ratio, ok) : undefined });
  };
  const e1 = epFan(res, 1000, 'ws', PORT);
  if (e1) {
    const s = 'WebSocket fan-out, W=1,000, 100 writes/s';
    const b = refFan(res, BARE, 1000);
    const m = refFan(res, MINIMAL, 1000);
    vs(s, 'deliveries/s ↑', e1.deliveriesPerSecond, 'bare ws', b?.deliveriesPerSecond, '≥ 0.5×', (r) => r >= 0.5);
    vs(s, 'deliveries/s ↑', e1.deliveriesPerSecond, 'minimal workerd broadcast', m?.deliveriesPerSecond, '≥ 0.85×', (r) => r >= 0.85);
    vs(s, 'p50 ms ↓', e1.latencyMs.p50, 'bare ws', b?.latencyMs.p50);
    vs(s, 'p50 ms ↓', e1.latencyMs.p50, 'minimal workerd broadcast', m?.latencyMs.p50);
    vs(s, 'p99 ms ↓', e1.latencyMs.p99, 'bare ws', b?.latencyMs.p99, '≤ 2×', (r) => r <= 2);
    vs(s, 'p99 ms ↓', e1.latencyMs.p99, 'minimal workerd broadcast', m?.latencyMs.p99);
    rows.push({ scenario: s, metric: 'complete, in order', ep: completeText(e1), refName: '', ref: undefined, target: 'yes', met: e1.complete });
  }
  for (const [transport, watchers] of [['ws', 5000], ['http', 1000]] as const) {
    const e = epFan(res, watchers, transport);
    if (!e) continue;
    const s = `${transport === 'ws' ? 'WebSocket' : 'HTTP streaming'} fan-out, W=${w(watchers)}, 100 writes/s${e.path === PORT ? '' : ` (${e.path})`}`;
    const b = refFan(res, BARE, watchers);
    const m = transport === 'ws' ? refFan(res, MINIMAL, watchers) : undefined;
    vs(s, 'p99 ms ↓', e.latencyMs.p99, 'bare ws', b?.latencyMs.p99, '≤ 3×', (r) => r <= 3);
    if (m) vs(s, 'p99 ms ↓', e.latencyMs.p99, 'minimal workerd broadcast', m.latencyMs.p99);
    vs(s, 'deliveries/s ↑', e.deliveriesPerSecond, 'bare ws', b?.deliveriesPerSecond);
    if (m) vs(s, 'deliveries/s ↑', e.deliveriesPerSecond, 'minimal workerd broadcast', m.deliveriesPerSecond);
    rows.push({ scenario: s, metric: 'complete, in order', ep: completeText(e), refName: '', ref: undefined, target: 'yes', met: e.complete });
  }
  const em = mem(res, 'edgeplane');
  if (em) {
    const s = `Memory, ${w(em.watchers)} idle WebSocket watchers`;
    const mm = mem(res, MINIMAL);
    const bm = mem(res, BARE);
    rows.push({ scenario: s, metric: 'JS heap B/watcher ↓', ep: em.heapBytesPerWatcher, refName: 'minimal workerd broadcast', ref: mm?.heapBytesPerWatcher, ratio: div(em.heapBytesPerWatcher, mm?.heapBytesPerWatcher), target: '≤ 4,096 B', met: check(em.heapBytesPerWatcher, (v) => v <= 4096) });
    rows.push({ scenario: s, metric: 'JS heap B/watcher kept after close ↓', ep: em.heapBytesPerWatcherKept, refName: 'minimal workerd broadcast', ref: mm?.heapBytesPerWatcherKept, ratio: div(em.heapBytesPerWatcherKept, mm?.heapBytesPerWatcherKept), target: '≈ 0 (all returned)', met: check(em.heapBytesPerWatcherKept, (v) => v <= Math.max(64, 0.05 * (em.heapBytesPerWatcher ?? 0))) });
    vs(s, 'RSS KiB/watcher ↓', em.kibPerWatcher, 'minimal workerd broadcast', mm?.kibPerWatcher, '≤ 1.1×', (r) => r <= 1.1);
    vs(s, 'RSS KiB/watcher ↓', em.kibPerWatcher, 'bare ws', bm?.kibPerWatcher);
    vs(s, 'RSS KiB/watcher kept after close ↓', em.kibPerWatcherKept, 'minimal workerd broadcast', mm?.kibPerWatcherKept);
    if (em.listenerKibPerWatcher !== undefined) rows.push({ scenario: s, metric: 'and the dual listener\'s RSS KiB/watcher ↓', ep: em.listenerKibPerWatcher, refName: '', ref: undefined });
  }
  for (const c of [1, 8, 64]) {
    const e = write(res, 'edgeplane', c, 'store only');
    if (!e) continue;
    const s = `Pod creates, store only, ${c === 1 ? 'sequential' : `${c} in flight`}`;
    const n = write(res, MINIMAL, c);
    const k = write(res, 'etcd', c);
    vs(s, 'creates/s ↑', e.perSecond, 'minimal SQLite writer', n?.perSecond, c === 1 ? '≥ 0.9×' : c === 64 ? '≥ 1.0×' : undefined, c === 1 ? (r) => r >= 0.9 : (r) => r >= 1);
    vs(s, 'creates/s ↑', e.perSecond, 'etcd 3.4', k?.perSecond, c === 64 ? '≥ 0.5×' : undefined, (r) => r >= 0.5);
    rows.push({ scenario: s, metric: 'server CPU ms/create ↓', ep: e.serverCpuMsPerWrite, refName: 'etcd 3.4', ref: k?.serverCpuMsPerWrite, ratio: div(e.serverCpuMsPerWrite, k?.serverCpuMsPerWrite), target: '≤ 1 ms', met: check(e.serverCpuMsPerWrite, (v) => v <= 1) });
    vs(s, 'server CPU ms/create ↓', e.serverCpuMsPerWrite, 'minimal SQLite writer', n?.serverCpuMsPerWrite);
  }
  for (const c of [1, 8, 64]) {
    const e = write(res, 'edgeplane', c, 'defaults');
    if (!e) continue;
    const s = `Pod creates, defaults, ${c === 1 ? 'sequential' : `${c} in flight`}`;
    const st = write(res, 'edgeplane', c, 'store only');
    vs(s, 'creates/s ↑', e.perSecond, 'edgeplane store only', st?.perSecond, c === 8 ? undefined : '≥ 0.5×', (r) => r >= 0.5);
    vs(s, 'creates/s ↑', e.perSecond, 'minimal SQLite writer', write(res, MINIMAL, c)?.perSecond);
    vs(s, 'server CPU ms/create ↓', e.serverCpuMsPerWrite, 'edgeplane store only', st?.serverCpuMsPerWrite);
  }
  for (const r of res.writes.filter((x) => x.system === 'edgeplane' && x.variant.includes('RBAC users'))) {
    const admin = write(res, 'edgeplane', r.concurrency, 'store only');
    vs(`Pod creates, store only, ${r.concurrency === 1 ? 'sequential' : `${r.concurrency} in flight`}, as ${r.variant.split(', ')[1]}`, 'creates/s ↑', r.perSecond, 'the admin (system:masters: no RBAC, no rate limit)', admin?.perSecond);
  }
  for (const ro of res.rollouts) {
    const s = `Deployment of ${w(ro.replicas)} replicas to Available (${ro.variant})`;
    rows.push({ scenario: s, metric: 'create → Available s ↓', ep: Number.isNaN(ro.availableMs) ? 'not within the bound' : ro.availableMs / 1000, refName: '', ref: undefined });
    rows.push({ scenario: s, metric: 'store writes per pod ↓', ep: ro.writesPerPod, refName: '', ref: undefined, target: ro.replicas >= 1000 ? '≤ 5' : undefined, met: ro.replicas >= 1000 ? ro.writesPerPod <= 5 && !Number.isNaN(ro.availableMs) : undefined });
  }
  for (const behind of [1000, 10000]) {
    const e = resume(res, 'edgeplane', behind, 'ws', 'store only');
    if (!e) continue;
    vs(`Resume ${w(behind)} behind (WebSocket), store only`, 'catch-up ms ↓', e.catchUpMs, 'etcd 3.4', resume(res, 'etcd', behind, 'grpc')?.catchUpMs, behind === 10000 ? '≤ 0.1×' : undefined, (r) => r <= 0.1);
  }
  for (const read of ['rv=0 (cache)', 'consistent']) {
    const e = list(res, 'edgeplane', 10000, read, 'store only');
    if (!e) continue;
    vs(`List 10,000 pods, ${read}, store only`, 'p50 ms ↓', e.latencyMs.p50, 'etcd 3.4 range', list(res, 'etcd', 10000, 'range')?.latencyMs.p50, '≤ 1.0×', (r) => r <= 1);
  }
  const idle = res.idle[0];
  if (idle) {
    const mb = idle.totalMiB * 1.048576;
    rows.push({ scenario: '`npm start` idle, before any client', metric: 'RSS of the process group, MB ↓', ep: mb, refName: `issue 20's figure`, ref: ISSUE_IDLE_MB, ratio: mb / ISSUE_IDLE_MB, target: '≤ 0.5×', met: mb / ISSUE_IDLE_MB <= 0.5 });
  }
  return rows;
}

const table = (head: string[], rows: (string | number | undefined)[][]): string =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map((c) => (c === undefined ? '–' : typeof c === 'number' ? fmt(c) : c)).join(' | ')} |`)].join('\n');

const yesNo = (b: boolean | undefined) => (b === undefined ? 'not measured' : b ? '**met**' : '**not met**');

// ---- the curve ----
const WATCHER_POINTS = (res: BenchResults) => [...new Set(res.fanout.map((r) => r.watchers))].filter((x) => x > 0).sort((a, b) => a - b);

function curveRows(res: BenchResults): (string | number | undefined)[][] {
  const rows: (string | number | undefined)[][] = [];
  for (const watchers of WATCHER_POINTS(res)) {
    const e = epFan(res, watchers);
    const m = refFan(res, MINIMAL, watchers);
    const b = refFan(res, BARE, watchers);
    const k = refFan(res, 'etcd', watchers);
    rows.push([w(watchers), e ? `${e.path}${e.variant.includes('over') ? ', spread' : ''}` : '–', e?.eventsWritten, e?.deliveriesPerSecond, m?.deliveriesPerSecond, b?.deliveriesPerSecond, k?.deliveriesPerSecond,
      e?.latencyMs.p99, m?.latencyMs.p99, b?.latencyMs.p99, k?.latencyMs.p99, e?.rssGrowthMiB, e?.listenerRssGrowthMiB, m?.rssGrowthMiB, b?.rssGrowthMiB, e?.heapMiB, m?.heapMiB]);
  }
  return rows;
}

export function renderMarkdown(res: BenchResults): string {
  const out: string[] = [];
  const load = (x: unknown) => (Array.isArray(x) ? x.join(' / ') : String(x));
  out.push(`# edgeplane benchmark results (${res.kind})`, '');
  out.push(`Run ${res.startedAt}, ${Math.round(res.durationSeconds)} s. Load average (1/5/15 min, as \`uptime\` prints it) at the start ${load(res.machine.loadAverageAtStart)}, at the end ${load(res.machine.loadAverageAtEnd)}. ` +
    `Machine: ${res.machine.cpu}, ${res.machine.cores} cores, ${res.machine.memoryGiB} GiB, ${res.machine.os}, Linux ${res.machine.kernel}.`);
  out.push(`Versions: ${Object.entries(res.versions).map(([k, v]) => `${k} ${v}`).join(', ')}.`);
  out.push(`Source: ${Object.entries(res.source).map(([k, v]) => `${k} ${v}`).join(', ')}.`, '');
  out.push('Everything (servers and the Node load generator) shares this machine over loopback; see bench/README.md for what each figure means. ' +
    'edgeplane runs as `npm start` runs it (its own process tree, wrangler.toml\'s settings: control loops on, 3 simulated nodes, 3 watch-cache replicas) and clients use the port it prints, ' +
    'as the admin user of the kubeconfig it writes, unless a row says otherwise ("store only": CONTROLLERS=off, REPLICA_LOCATIONS=""). ' +
    'References from the same run: a bare `ws` broadcast (Node), a minimal Worker + Durable Object broadcasting one frame to hibernatable sockets and a minimal SQLite Durable Object inserting each body (both on the same workerd, bench/targets/minimal-worker), and etcd 3.4. ' +
    'Ratios are edgeplane ÷ reference; ↑ higher is better, ↓ lower is better.', '');
  out.push('## Issue 20: edgeplane ÷ reference, same run', '');
  out.push(table(['Scenario', 'Metric', 'edgeplane', 'Reference', 'Reference value', 'edgeplane ÷ reference', 'Target', 'Result'],
    headlineRows(res).map((r) => [r.scenario, r.metric, r.ep, r.refName || '–', r.ref, r.ratio === undefined ? '–' : times(r.ratio), r.target ?? '–', r.target ? yesNo(r.met) : '–'])));
  out.push('', '## Targets', '');
  out.push(table(['Target', 'Measured', 'Result'], checkTargets(res).map((t) => [t.target, t.measured, yesNo(t.met)])));
  if (res.fanout.some((r) => r.watchers > 0)) {
    out.push('', '## The curve', '');
    out.push(`Fan-out at ${res.fanout.find((r) => r.watchers > 0)?.ratePerSecond ?? '?'} writes/s (200 events up to W=1,000, then ≈ 100,000 deliveries a run), edgeplane with the defaults. ` +
      `Past the dual listener's ${fmt(Number(res.settings.listenerMaxConnections))} connections (2 descriptors each, under \`ulimit -n\`), runs use workerd's port, with watchers spread over the 3 replicas (x-edgeplane-location); below it, every watcher of this one machine is served by one replica, as a user's would be. ` +
      'RSS growth: how much the server process grew while the W watchers connected (a process may reuse what earlier runs freed, so this can be less than their cost; the memory section has the per-watcher figure on a fresh server); "its listener": the gateway\'s Node process, which holds two sockets per connection through the `npm start` port. ' +
      'JS heap: the isolate\'s live heap with the W watchers connected, after a full collection (workerd\'s inspector).', '');
    out.push(table(['W', 'edgeplane path', 'Events', 'Deliveries/s edgeplane', 'minimal', 'bare ws', 'etcd', 'p99 ms edgeplane', 'minimal', 'bare ws', 'etcd', 'RSS growth MiB edgeplane (workerd)', '(its listener)', 'minimal', 'bare ws', 'JS heap MiB edgeplane', 'minimal'], curveRows(res)));
    out.push('', '![deliveries/s against watchers](charts/fanout-deliveries.svg)', '', '![p99 against watchers](charts/fanout-p99.svg)', '', '![server RSS growth against watchers](charts/fanout-memory.svg)');
  }
  if (res.writes.length) {
    const cs = [...new Set(res.writes.map((r) => r.concurrency))].sort((a, b) => a - b);
    const series = [['edgeplane', 'store only'], ['edgeplane', 'defaults'], [MINIMAL, undefined], ['etcd', undefined]] as const;
    out.push('', 'Pod creates (~1 KiB) against requests in flight, creates/s (server CPU ms per create):', '');
    out.push(table(['In flight', 'edgeplane store only', 'edgeplane defaults', 'minimal SQLite writer', 'etcd 3.4'],
      cs.map((c) => [c, ...series.map(([sys, v]) => {
        const r = write(res, sys, c, v);
        return r ? `${fmt(r.perSecond)} (${fmt(r.serverCpuMsPerWrite, 2)})` : '–';
      })])));
    out.push('', '![creates/s against requests in flight](charts/creates.svg)');
  }
  out.push('', '## Fan-out, every run', '');
  out.push('Latency: from sending the write to the watcher receiving the event. Deliveries/s: deliveries ÷ (last arrival − first write). ' +
    'CPU per delivery: process CPU time (/proc) over the run ÷ deliveries; "listener" is the gateway\'s Node process (the dual HTTP/HTTPS listener `npm start` serves on), "client" the Node load generator. ' +
    '"Other load": share of the machine used by processes outside the benchmark during the run; "load": the 1-minute load average after it.', '');
  out.push(table(['System', 'Variant', 'Transport', 'Path', 'W', 'Events/s', 'Events', 'Deliveries/s', 'p50 ms', 'p99 ms', 'max ms', 'Complete', 'Writes failed', 'Server µs/del.', 'Listener µs/del.', 'Client µs/del.', 'Server RSS MiB', 'grown connecting', 'JS heap MiB', 'Other load', 'Load'],
    res.fanout.filter((r) => r.watchers > 0).map((r) => [r.system, r.variant, r.transport, r.path, r.watchers, r.ratePerSecond, r.eventsWritten, r.deliveriesPerSecond,
      r.latencyMs.p50, r.latencyMs.p99, r.latencyMs.max, r.complete ? 'yes' : `**no** (−${r.missing} +${r.duplicates} ↕${r.outOfOrder} err ${r.errors})`, r.failedWrites,
      r.serverCpuUsPerDelivery, r.listenerCpuUsPerDelivery, r.clientCpuUsPerDelivery, r.serverRssMiB, r.rssGrowthMiB, r.heapMiB, `${Math.round(r.cpu.foreignShare * 100)}%`, r.loadAverage])));
  const direct = res.fanout.filter((r) => isDefaults(r) && r.path === DIRECT && !r.variant.includes('over'));
  if (direct.length) {
    out.push('', '## Path: the `npm start` port vs workerd\'s port', '');
    out.push('The dual listener pipes bytes in the gateway\'s Node process; workerd\'s port skips it. Same gateway, same W.', '');
    const rows: (string | number | undefined)[][] = [];
    for (const d of direct) {
      const p = res.fanout.find((r) => isDefaults(r) && r.path === PORT && r.transport === d.transport && r.watchers === d.watchers);
      for (const r of [p, d]) if (r) rows.push([r.transport, r.watchers, r.path, r.deliveriesPerSecond, r.latencyMs.p50, r.latencyMs.p99, r.serverCpuUsPerDelivery, r.listenerCpuUsPerDelivery, r.clientCpuUsPerDelivery]);
    }
    out.push(table(['Transport', 'W', 'Path', 'Deliveries/s', 'p50 ms', 'p99 ms', 'workerd µs/del.', 'listener µs/del.', 'client µs/del.'], rows));
  }
  if (res.canonical.length) {
    out.push('', '## Canonical load per write', '');
    out.push('From the edgeplane fan-out runs: messages the canonical store sent per write (frames to its own watchers + pushes to replicas, from /metrics), and workerd CPU per write (/proc; every Durable Object and the control loops share the one local workerd process, so this includes the replicas\' fan-out and the loops).', '');
    out.push(table(['Variant', 'Transport', 'W', 'Writes', 'Store messages/write', 'Replica pushes/write', 'Replica deliveries/write', 'workerd CPU ms/write', 'Other load'],
      res.canonical.map((c) => [c.variant, c.transport, c.watchers, c.writes, c.storeMessagesPerWrite, c.replicaPushesPerWrite, c.replicaDeliveriesPerWrite, c.workerdCpuMsPerWrite, `${Math.round(c.foreignShare * 100)}%`])));
  }
  out.push('', '## Writes', '');
  out.push('Creates of ~1 KiB Pods (etcd: puts of the same bytes; minimal: INSERTs of them), each phase bounded in count and time. Server CPU: the server process\'s CPU time over the phase ÷ creates (with the defaults this includes the control loops\' reactions, in the same workerd).', '');
  out.push(table(['System', 'Variant', 'In flight', 'Creates', 'Failed', 'Creates/s', 'p50 ms', 'p99 ms', 'max ms', 'Bytes/object', 'Server CPU ms/create', 'Other load', 'Load'],
    res.writes.map((x) => [x.system, x.variant, x.concurrency, x.writes, x.failed ? `${x.failed} (${x.firstError})` : 0, x.perSecond, x.latencyMs.p50, x.latencyMs.p99, x.latencyMs.max, x.bytesPerObject, fmt(x.serverCpuMsPerWrite, 3), `${Math.round(x.cpu.foreignShare * 100)}%`, x.loadAverage])));
  out.push('', '## Lists', '');
  out.push(table(['System', 'Variant', 'Objects', 'Read', 'Served by', 'Samples', 'p50 ms', 'p99 ms', 'MB'],
    res.lists.map((l) => [l.system, l.variant, l.objects, l.read, l.servedBy, l.latencyMs.n, l.latencyMs.p50, l.latencyMs.p99, fmt(l.bytes / 1e6, 2)])));
  if (res.apf?.length) {
    out.push('', '## API Priority and Fairness under a flood (issue 23)', '');
    out.push('One ServiceAccount runs 64 concurrent lists; another ServiceAccount in the same priority level (workload-low) and system traffic (a simulated kubelet) each read one at a time. Idle and flood windows alternate; p99 during ÷ p99 idle (acceptance: the other user within 2×). Variants: `defaults` (100 seats per isolate; past the per-user bucket of 100 a request waits for its token up to 1.5 s, and a refusal is held as long), `delay0-burst400`: the bucket as before (400 at once, then 429 at once), `cN`: `APF_CONCURRENCY=N`, `no-bucket`: the per-user token bucket out of reach.', '');
    const p = (f: { idle: { p50: number; p99: number }; during: { p50: number; p99: number }; p99Ratio: number }) => [`${fmt(f.idle.p50)} → ${fmt(f.during.p50)}`, `${fmt(f.idle.p99)} → ${fmt(f.during.p99)}`, `×${fmt(f.p99Ratio)}`];
    out.push(table(['Variant', 'Flood lists/s', '429 flow control', '429 token bucket', 'Other user p50 ms', 'p99 ms', 'p99 ratio', 'System p50 ms', 'p99 ms', 'p99 ratio'],
      res.apf.map((a) => [a.variant.replace(/^apf: /, ''), a.flood.perSecond, a.flood.apfRejected, a.flood.bucketRejected, ...p(a.otherUser), ...p(a.system)])));
  }
  out.push('', '## Resume', '');
  out.push('Each resume timed three times in a row on the same data (once in the smoke run); the median run is reported, every run\'s catch-up time beside it (the first is the cold one).', '');
  out.push(table(['System', 'Variant', 'Transport', 'Behind', 'First event ms', 'Caught up ms', 'Events/s', 'Complete', 'Caught up ms, each run'],
    res.resume.map((r) => [r.system, r.variant, r.transport, r.behind, r.firstEventMs, r.catchUpMs, r.eventsPerSecond, r.complete ? 'yes' : `**no** (${r.received})`, r.catchUpRunsMs?.join(', ') ?? '–'])));
  out.push('', '## Memory per idle watcher', '');
  out.push('RSS (/proc) of the server process before and after opening the watchers (after a warm-up of 20), and after they all closed. JS heap: the live heap of the isolate holding them after a full collection (workerd\'s inspector; a Worker\'s Durable Objects share its isolate, so this is the front door and every object of the gateway); "runtime objects": workerd\'s C++ objects on V8\'s heap (socket wrappers).', '');
  out.push(table(['System', 'Variant', 'Path', 'Watchers', 'RSS before MiB', 'after', 'after close', 'RSS KiB/watcher', 'kept after close', 'Listener KiB/watcher', 'JS heap before MiB', 'after', 'after close', 'JS heap B/watcher', 'kept after close', 'Runtime objects B/watcher'],
    res.memory.map((m) => [m.system, m.variant, m.path, m.watchers, m.rssBeforeMiB, m.rssAfterMiB, m.rssClosedMiB, m.kibPerWatcher, m.kibPerWatcherKept, m.listenerKibPerWatcher,
      mib(m.heapBefore?.usedSize), mib(m.heapAfter?.usedSize), mib(m.heapClosed?.usedSize), m.heapBytesPerWatcher, m.heapBytesPerWatcherKept, m.embedderBytesPerWatcher])));
  for (const m of res.memory.filter((x) => x.heapGrowth?.length)) {
    out.push('', `What grew in the JS heap with ${w(m.watchers)} watchers, ${m.system} (${m.variant}), from two heap snapshots:`, '');
    out.push(table(['Group (constructor or kind)', 'Count', 'Bytes', 'Bytes/watcher'], m.heapGrowth!.map((g) => [g.name, g.count, g.bytes, g.bytes / m.watchers])));
  }
  if (res.rollouts.length) {
    out.push('', '## Control loops: a Deployment to Available', '');
    out.push('Controller manager, scheduler and simulated kubelets on (one local workerd process, the default replicas). Store writes: changes every store committed during the rollout (new revisions: each object created, updated or deleted; events and node leases included).', '');
    out.push(table(['Variant', 'Replicas', 'Nodes', 'Create → Available ms', 'Store writes', 'Writes/pod', 'Writes/s', 'Writes by type'],
      res.rollouts.map((r) => [r.variant, r.replicas, r.nodes, Number.isNaN(r.availableMs) ? '**not within the bound**' : r.availableMs, r.writes, r.writesPerPod, r.writesPerSecond,
        Object.entries(r.writesByType).sort((a, b) => b[1] - a[1]).map(([t, n]) => `${t} ${n}`).join(', ')])));
  }
  if (res.idle.length) {
    out.push('', '## `npm start` before any client', '');
    for (const i of res.idle) {
      out.push(`${i.variant}, ${i.secondsAfterStart} s after it started serving: ${fmt(i.totalMiB)} MiB in all.`, '');
      out.push(table(['Process', 'PID', 'RSS MiB'], i.processes.map((p) => [p.role, String(p.pid), p.rssMiB])));
    }
  }
  if (res.notes.length) out.push('', '## Notes', '', ...res.notes.map((n) => `- ${n}`));
  if (res.errors.length) out.push('', '## Errors', '', ...res.errors.map((e) => `- ${e}`));
  return `${out.join('\n')}\n`;
}

const mib = (b: number | undefined) => (b === undefined ? undefined : Math.round((b / 2 ** 20) * 100) / 100);

export function renderCharts(res: BenchResults): Record<string, string> {
  const rate = res.fanout.find((r) => r.watchers > 0)?.ratePerSecond ?? '?';
  const fanSeries = (y: (r: FanoutResult) => number | undefined): Series[] => {
    const pts = (pick: (watchers: number) => FanoutResult | undefined) =>
      WATCHER_POINTS(res).map((x) => ({ x, y: y(pick(x)!) ?? NaN })).filter((p) => Number.isFinite(p.y) && pick(p.x));
    return [
      { name: 'edgeplane (defaults)', color: '#d9480f', points: pts((x) => epFan(res, x)) },
      { name: 'minimal workerd broadcast', color: '#9c36b5', dashed: true, points: pts((x) => refFan(res, MINIMAL, x)) },
      { name: 'bare ws broadcast', color: '#2f9e44', points: pts((x) => refFan(res, BARE, x)) },
      { name: 'etcd 3.4 (gRPC watch)', color: '#1971c2', dashed: true, points: pts((x) => refFan(res, 'etcd', x)) },
    ].filter((s) => s.points.length > 0);
  };
  const cs = [...new Set(res.writes.map((r) => r.concurrency))].sort((a, b) => a - b);
  const writeSeries: Series[] = ([
    ['edgeplane store only', '#d9480f', 'edgeplane', 'store only', false],
    ['edgeplane defaults', '#f08c00', 'edgeplane', 'defaults', true],
    ['minimal SQLite writer', '#9c36b5', MINIMAL, undefined, true],
    ['etcd 3.4', '#1971c2', 'etcd', undefined, false],
  ] as const).map(([name, color, sys, v, dashed]) => ({
    name, color, dashed, points: cs.map((c) => ({ x: c, y: write(res, sys, c, v)?.perSecond ?? NaN })).filter((p) => Number.isFinite(p.y)),
  })).filter((s) => s.points.length > 0);
  return {
    'fanout-deliveries.svg': lineChart(`Deliveries/s at ${rate} writes/s against watchers`, 'watchers (log)', 'deliveries/s (log)', fanSeries((r) => r.deliveriesPerSecond), (x, y) => `${x} watchers, ${y} deliveries/s`),
    'fanout-p99.svg': lineChart(`p99 write-to-delivery latency at ${rate} writes/s`, 'watchers (log)', 'p99 latency, ms (log)', fanSeries((r) => r.latencyMs.p99), (x, y) => `${x} watchers, p99 ${y} ms`),
    'fanout-memory.svg': lineChart('Server RSS growth while the watchers connected', 'watchers (log)', 'RSS growth, MiB (log)', fanSeries((r) => r.rssGrowthMiB), (x, y) => `${x} watchers, +${y} MiB`),
    'creates.svg': lineChart('Pod creates/s against requests in flight', 'requests in flight (log)', 'creates/s (log)', writeSeries, (x, y) => `${x} in flight, ${y} creates/s`),
  };
}
