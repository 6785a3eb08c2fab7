// Robustness: one run, as etcd's robustness test runs one — start the real gateway (scripts/gateway.ts), record
// the ground truth (a watch of every type at the store from the run's base revision, kept until it has seen the
// run's last write), drive seeded traffic while the enabled failpoints fire on their schedule, end with a write per
// namespace that must succeed, wait for every watcher to reach it, then check the whole history; with the control
// loops on, check their end states too. On failure the history goes to a file and the checker's smallest violating
// sub-histories are printed.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type Gateway } from '../../scripts/gateway';
import { checkHistory, explain, type Violation } from '../check';
import type { History, HistoryEvent, Obj, TypeHistory } from '../check/history';
import { Workloads } from './end-state';
import { failpoint, schedule, workerdPids } from './failpoints';
import { CONFIGMAPS, Recorder, recordWrite, send, targets, WIDGET_CRD, WIDGETS, type TypeSpec } from './recorder';
import { Rng } from './rng';
import { crudClient, KubernetesProfile, watchClient, type TrafficContext } from './traffic';
import { recordList, ResumingWatcher, type Gap } from './watchers';

export interface RunOptions {
  seed: number;
  durationMs: number;
  faults: string[]; // failpoint names (any a run can enable: robustness/run/failpoints.ts ALL)
  controllers?: boolean; // CONTROLLERS on, and the end-state checks (default true)
  crudClients?: number; // default 5
  watchClients?: number; // default 3
  paceMs?: [number, number]; // each client's pause between requests (default 5–30 ms)
  artifactsDir?: string; // where a failing history is written (default test-artifacts/robustness)
  checkBudgetMs?: number;
  wsPing?: boolean; // WebSocket watchers answer each event with a ping (default on; off: never heard from, closed per budget)
  log?: (line: string) => void;
}

export interface RunResult {
  violations: Violation[];
  unknown: string[];
  history: History;
  stats: Record<string, number | string>;
  historyFile?: string;
  explanation?: string;
}

const TOKEN = 'robustness-admin-token';
const SIGNING_KEY = 'robustness-service-account-key!!';
const LOCATIONS = ['enam', 'weur'];
const NAMESPACES = ['rb-a', 'rb-b'];
const NAMES = ['k0', 'k1', 'k2', 'k3', 'k4'];
const WORKLOADS_NS = 'rb-d';
const RECOVERY_MS = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes `h` as JSON (Infinity as a string, which JSON lacks). */
export function saveHistory(path: string, h: History): void {
  writeFileSync(path, JSON.stringify(h, (_k, v) => (v === Infinity ? 'Infinity' : v)));
}

export function loadHistory(path: string): History {
  return JSON.parse(readFileSync(path, 'utf8'), (_k, v) => (v === 'Infinity' ? Infinity : v));
}

export async function runRobustness(opts: RunOptions): Promise<RunResult> {
  const log = opts.log ?? ((l: string) => console.log(`[robustness] ${l}`));
  const rng = new Rng(opts.seed);
  const enabled = opts.faults.map(failpoint);
  const controllers = opts.controllers ?? true;
  const vars: Record<string, string> = {
    ENABLE_TEST_HOOKS: 'true', CONTROLLERS: controllers ? 'on' : 'off', REPLICA_LOCATIONS: LOCATIONS.join(','), REPLICAS_PER_LOCATION: '1',
    WATCH_BOOKMARK_INTERVAL_SECONDS: '2',
  };
  for (const f of enabled) Object.assign(vars, f.vars);
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-robustness-'));
  const started = Date.now();
  const gateway: Gateway = await startGateway({ port: 0, persistDir: join(dir, 'state'), adminToken: TOKEN, serviceAccountSigningKey: SIGNING_KEY, vars });
  const rec = new Recorder(gateway.url, TOKEN);
  const harness: Violation[] = [];
  const watchers: ResumingWatcher[] = [];
  try {
    const types: TypeSpec[] = [CONFIGMAPS, WIDGETS];
    for (const ns of NAMESPACES) await send(rec, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
    await send(rec, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', WIDGET_CRD);
    for (let i = 0; (await send(rec, 'GET', WIDGETS.path(NAMESPACES[0])).catch(() => ({ status: 0 }))).status !== 200; i++) {
      if (i > 100) throw new Error('the Widget CRD never became served');
      await sleep(100);
    }
    // One object of each type first, so no base revision is 0 (a watch from "0" means "any state, then changes").
    await send(rec, 'POST', '/api/v1/namespaces', { metadata: { name: 'rb-setup' } });
    for (const t of types) await send(rec, 'POST', t.path('rb-setup'), t.body('rb-setup', 'base', 'base'));
    // The control plane's own ConfigMaps (the root CA publisher's kube-root-ca.crt in every namespace) are written
    // before the base, so every change after it is the traffic's.
    if (controllers) {
      await send(rec, 'POST', '/api/v1/namespaces', { metadata: { name: WORKLOADS_NS } }); // Workloads.setup takes its 409
      for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease', ...NAMESPACES, 'rb-setup', WORKLOADS_NS]) {
        for (let i = 0; (await send(rec, 'GET', `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`).catch(() => ({ status: 0 }))).status !== 200; i++) {
          if (i > 300) throw new Error(`kube-root-ca.crt never appeared in ${ns}`);
          await sleep(100);
        }
      }
    }
    const all = targets(LOCATIONS, 1);
    const store = all[0];
    // The base: each type's state and revision, read consistently at the store.
    const bases: Record<string, { base: number; initial: Record<string, Obj> }> = {};
    const wsPing = opts.wsPing ?? true;
    for (const t of types) {
      const l = await recordList(rec, 'setup', t, store, '', '');
      if (l.outcome !== 'ok' || !l.revision) throw new Error(`base list of ${t.name}: ${l.note ?? `revision ${l.revision}`}`);
      bases[t.name] = { base: l.revision!, initial: l.items! };
    }
    rec.ops.length = 0; // the base lists are the history's starting point, not part of it
    // The ground truth and the long-lived watchers: every type at the store and at each replica, all namespaces,
    // from the base; one resuming watcher per target and transport in the first namespace.
    for (const t of types) {
      for (const [i, target] of all.entries()) {
        watchers.push(new ResumingWatcher(rec, { type: t, namespace: '', target, transport: i % 2 ? 'ws' : 'http', start: bases[t.name].base, watcher: `collector ${t.name} ${target.name}`, ping: wsPing }, rng.fork(`c${t.name}${i}`)));
      }
    }
    for (const target of all) {
      for (const transport of ['http', 'ws'] as const) {
        watchers.push(new ResumingWatcher(rec, { type: CONFIGMAPS, namespace: NAMESPACES[0], target, transport, start: bases[CONFIGMAPS.name].base, watcher: `resumer ${target.name} ${transport}`, ping: wsPing }, rng.fork(`r${target.name}${transport}`)));
      }
    }

    let running = true;
    const ctx: TrafficContext = {
      rec, targets: all, namespaces: NAMESPACES, names: NAMES, running: () => running, windows: { stall: false, disconnect: false },
      oldStarts: opts.faults.includes('log.compaction'), wsPing, paceMs: opts.paceMs ?? [5, 30], base: Object.fromEntries(types.map((t) => [t.name, bases[t.name].base])),
    };
    const workloads = controllers ? new Workloads(rec, rng.fork('workloads'), WORKLOADS_NS) : undefined;
    await workloads?.setup();
    const k8s = new KubernetesProfile(ctx, WIDGETS, rng.fork('k8s'));
    await k8s.start();
    const clients = [
      ...Array.from({ length: opts.crudClients ?? 5 }, (_, i) => crudClient(ctx, `c${i}`, types, all[i % all.length], rng.fork(`crud${i}`))),
      ...Array.from({ length: opts.watchClients ?? 3 }, (_, i) => watchClient(ctx, `watch${i}`, types, rng.fork(`watch${i}`))),
    ];
    log(`seed ${opts.seed}: traffic for ${(opts.durationMs / 1000).toFixed(0)} s with ${enabled.map((f) => f.name).join(', ') || 'no faults'}`);

    // Faults on their schedule, and the workload steps.
    const plan = schedule(enabled, opts.durationMs, rng.fork('schedule'));
    const t0 = rec.now();
    const faultCtx = {
      rec, gateway, rng: rng.fork('faults'), storeTypes: [CONFIGMAPS.name], harness, workloads,
      replicaNames: types.flatMap((t) => LOCATIONS.map((l) => `${t.name}@${l}#0`)),
    };
    const restarts: { at: number; until: number }[] = [];
    // The runtime must never die on its own: a crash is a finding (recorded, then the runtime is started again on
    // the same state so the run, and its checks, go on).
    let faultRunning = false;
    const watchdog = (async () => {
      let silent = 0; // consecutive health probes unanswered
      while (running) {
        await sleep(1000);
        if (!running || faultRunning) continue;
        const alive = workerdPids().length > 0;
        if (alive) {
          const ok = await send(rec, 'GET', '/healthz', undefined, {}, 5000).then((r) => r.status === 200, () => false);
          silent = ok || faultRunning ? 0 : silent + 1;
          if (silent < 3) continue;
        }
        silent = 0;
        const at = rec.now();
        harness.push({ check: alive ? 'RuntimeStuck' : 'RuntimeCrash', subject: 'workerd',
          message: alive ? `the gateway stopped answering /healthz (3 probes of 5 s) at ${(at / 1000).toFixed(1)} s with no fault injected`
            : `the workerd process died at ${(at / 1000).toFixed(1)} s with no fault injected (its last words are in the log above)` });
        log(`${(at / 1000).toFixed(1)} s: the runtime ${alive ? 'stopped answering' : 'died'} on its own; starting it again`);
        faultRunning = true;
        await gateway.restart().catch((e) => log(`restart after the crash failed: ${e}`));
        faultRunning = false;
        restarts.push({ at, until: rec.now() });
      }
    })();
    const timeline = (async () => {
      const events = [
        ...plan.moments.map((m) => ({ at: m.at, run: async () => {
          while (faultRunning) await sleep(100);
          faultRunning = true;
          const at = rec.now();
          const detail = await m.f.inject!(faultCtx).catch((e) => `failed: ${e}`);
          const until = rec.now();
          faultRunning = false;
          rec.faults.push({ name: m.f.name, at, until, detail });
          if (m.f.name.startsWith('runtime.')) restarts.push({ at, until });
          log(`${(at / 1000).toFixed(1)} s: ${m.f.name} (${detail}, ${(until - at).toFixed(0)} ms)`);
        } })),
        ...plan.windows.flatMap((w) => [
          { at: w.from, run: async () => {
            ctx.windows[w.f.name === 'watch.stall' ? 'stall' : 'disconnect'] = true;
            rec.faults.push({ name: w.f.name, at: rec.now(), until: t0 + w.to });
          } },
          { at: w.to, run: async () => void (ctx.windows[w.f.name === 'watch.stall' ? 'stall' : 'disconnect'] = false) },
        ]),
        ...(workloads ? [0.3, 0.6].map((p) => ({ at: opts.durationMs * p, run: () => workloads.step() })) : []),
      ].sort((a, b) => a.at - b.at);
      for (const e of events) {
        const wait = t0 + e.at - rec.now();
        if (wait > 0) await sleep(wait);
        await e.run();
      }
    })();
    const progress = setInterval(() => log(`${(rec.now() / 1000).toFixed(0)} s: ${rec.ops.length} operations, ${rec.sessions.length} watch sessions`), 15_000);
    await sleep(opts.durationMs);
    await timeline;
    clearInterval(progress);
    running = false;
    await watchdog;
    await Promise.all([...clients, k8s.stop()]);
    for (const f of opts.faults.filter((n) => failpoint(n).kind === 'setting')) rec.faults.push({ name: f, at: 0, until: rec.now() });

    // The closing writes: one per type and namespace, retried until one succeeds (etcd: "ensure that last operation
    // succeeds"); the last one's revision is where every watcher still open must get to.
    const finals: Record<string, number> = {};
    for (const t of types) {
      for (const ns of NAMESPACES) {
        const giveUp = Date.now() + 60_000;
        for (let attempt = 0; ; attempt++) {
          const w = `final.${ns}.${attempt}`;
          const op = await recordWrite(rec, 'final', t, { op: 'create', key: `${ns}/final-${attempt}`, sets: { w }, finalizers: false }, 'POST', t.path(ns), t.body(ns, `final-${attempt}`, w));
          if (op.outcome === 'ok') {
            finals[t.name] = Math.max(finals[t.name] ?? 0, op.result!.rv!);
            break;
          }
          if (Date.now() > giveUp) throw new Error(`the closing write to ${t.name} in ${ns} never succeeded: ${op.note}`);
          await sleep(200);
        }
      }
    }
    // Every watcher still open gets to the last revision in its scope (bounded), then the run ends with it open.
    const deadline = Date.now() + 20_000;
    const lastInScope = (t: string, ns: string) => {
      let m = 0;
      for (const o of rec.ops) if (o.client === 'final' && o.type === t && o.outcome === 'ok' && (!ns || o.key!.startsWith(`${ns}/`))) m = Math.max(m, o.result!.rv!);
      return m;
    };
    const pending = () => [
      ...watchers.map((w) => ({ w, type: w.spec.type.name, ns: w.spec.namespace })),
      ...k8s.informers.map((w) => ({ w, type: w.type.name, ns: w.namespace })),
    ].filter(({ w, type, ns }) => (w.reached() ?? 0) < lastInScope(type, ns));
    while (pending().length && Date.now() < deadline) await sleep(100);
    for (const w of watchers) await w.stop('open');
    await Promise.all(k8s.informers.map((i) => i.stop()));

    // Recovery: after each runtime restart, every watcher it cut off had a session open again within 10 s of the
    // runtime being back (how long the local runtime takes to start is the machine's, not the product's).
    const gaps: Gap[] = [...watchers.flatMap((w) => w.gaps), ...k8s.informers.flatMap((i) => i.gaps)];
    let worst = 0;
    let outage = 0;
    for (const r of restarts) {
      for (const g of gaps.filter((x) => x.lost >= r.at && x.lost <= r.until + 1000)) {
        const took = (g.back ?? rec.now()) - r.until;
        worst = Math.max(worst, took);
        outage = Math.max(outage, (g.back ?? rec.now()) - r.at);
        if (!g.back || took > RECOVERY_MS) {
          harness.push({ check: 'Recovery', subject: g.watcher, message: `${g.watcher} was not watching again ${(took / 1000).toFixed(1)} s after the runtime came back at ${(r.until / 1000).toFixed(1)} s (limit ${RECOVERY_MS / 1000} s)` });
        }
      }
    }
    if (workloads) harness.push(...(await workloads.verify(30_000)));

    // The history: the store collector's events are the ground truth, as etcd's WAL is.
    const typesHistory: Record<string, TypeHistory> = {};
    for (const t of types) {
      const chain = rec.sessions.filter((s) => s.watcher === `collector ${t.name} store`);
      const events: HistoryEvent[] = chain.flatMap((s) => s.events.filter((e) => e.type !== 'BOOKMARK' && e.type !== 'ERROR')
        .map((e) => ({ rv: e.rv, type: e.type as HistoryEvent['type'], key: e.key!, obj: e.obj!, at: e.at })));
      if (chain.some((s) => s.end === 'expired')) harness.push({ check: 'GroundTruth', subject: t.name, message: `the store collector of ${t.name} fell out of the log (410): the history is incomplete` });
      typesHistory[t.name] = { ...bases[t.name], events, final: finals[t.name] };
    }
    const history: History = { seed: opts.seed, faults: rec.faults, ops: rec.ops, types: typesHistory, sessions: rec.sessions };
    const okWrites = rec.ops.filter((o) => o.outcome === 'ok' && (o.op === 'create' || o.op === 'update' || o.op === 'delete')).length;
    if (okWrites < opts.durationMs / 1000) harness.push({ check: 'Traffic', subject: 'run', message: `only ${okWrites} acknowledged writes in ${opts.durationMs / 1000} s: too little traffic for the result to mean much` });

    const checkStart = Date.now();
    const report = checkHistory(history, { budgetMs: opts.checkBudgetMs ?? 60_000 });
    const violations = [...report.violations, ...harness];
    const stats: RunResult['stats'] = {
      seed: opts.seed, seconds: Math.round((Date.now() - started) / 1000), ops: rec.ops.length, okWrites,
      unknownOutcome: rec.ops.filter((o) => !Number.isFinite(o.ret)).length, lists: rec.ops.filter((o) => o.op === 'list').length,
      historyEvents: report.counts.events, sessions: report.counts.sessions, watchEvents: report.counts.watchEvents,
      faults: rec.faults.map((f) => f.name).join(','), faultCount: rec.faults.length, worstRecoveryMs: Math.round(worst), worstOutageMs: Math.round(outage),
      partitions: report.counts.partitions, searchSteps: report.counts.steps, checkMs: Date.now() - checkStart,
    };
    log(`checked ${stats.ops} operations (${okWrites} acknowledged writes, ${stats.unknownOutcome} of unknown outcome), ${stats.historyEvents} changes, `
      + `${stats.sessions} watch sessions with ${stats.watchEvents} events, ${stats.faultCount} faults; ${violations.length} violations, ${report.unknown.length} unknown (${stats.checkMs} ms)`);
    const result: RunResult = { violations, unknown: report.unknown, history, stats };
    if (violations.length || report.unknown.length) {
      const out = opts.artifactsDir ?? join(process.cwd(), 'test-artifacts', 'robustness');
      mkdirSync(out, { recursive: true });
      result.historyFile = join(out, `history-seed-${opts.seed}-${Date.now()}.json`);
      saveHistory(result.historyFile, history);
      result.explanation = [explain(history, report), ...harness.map((v) => `${v.check}: ${v.message}`)].filter(Boolean).join('\n\n');
      writeFileSync(result.historyFile.replace(/\.json$/, '.txt'), result.explanation);
      log(`history written to ${result.historyFile}\n${result.explanation}`);
    }
    return result;
  } finally {
    for (const w of watchers) w.current?.close('open');
    await gateway.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
