// Entry point of `npm run bench` (full: edgeplane, etcd 3.4 and a bare ws broadcast, ~20 min) and
// `npm run bench:smoke` (--smoke: edgeplane only, small sizes, < 60 s, exit 1 on any lost event).
// Options: --only=writes,lists,fanout,resume,memory  --systems=edgeplane,etcd,bare-ws  --no-replicas

import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { Edgeplane, edgeplaneFanout, type Transport } from './targets/edgeplane';
import { Etcd, etcdFanout, etcdVersion, WATCHERS_PER_STREAM } from './targets/etcd';
import { BareWs, bareFanout } from './targets/bare-ws';
import { runFanout, describeFanout, type FanoutDriver, type FanoutPlan } from './scenarios/fanout';
import { runWrites, populate, type Writer } from './scenarios/writes';
import { runRollout } from './scenarios/rollout';
import { runList, countItems, describeList } from './scenarios/lists';
import { runResume, type Resumer } from './scenarios/resume';
import { runMemory } from './scenarios/memory';
import { canonicalRows } from './scenarios/canonical';
import { renderMarkdown, renderChart, checkTargets, type BenchResults } from './report';
import { machineInfo, loadAverage } from './lib/proc';
import { eventJson, podJson } from './lib/objects';
import { pool } from './lib/http';
import { Receiver } from './lib/receivers';
import { round } from './lib/stats';

const BENCH = dirname(fileURLToPath(import.meta.url));
const ROOT = join(BENCH, '..');
const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1]?.split(',');
const only = new Set(opt('only') ?? ['writes', 'lists', 'fanout', 'resume', 'memory', 'rollout']);
const systems = new Set(opt('systems') ?? (smoke ? ['edgeplane'] : ['edgeplane', 'etcd', 'bare-ws']));
const replicaModes = args.includes('--no-replicas') ? [false] : [false, true];

/** Sizes: each phase is bounded in count and time. */
const S = smoke
  ? {
    writes: { seq: [300, 1500], conc: [1000, 1500] },
    lists: { sizes: [200], samples: [20, 1000] },
    fanout: { watchers: [100], transports: ['ws', 'http'] as Transport[], rate: 20, fixedEvents: 20, maxEvents: () => 50, maxWriteMs: 3000, drainMs: 10_000 },
    resume: { total: 300, behind: [100, 300] },
    memory: { watchers: 100 },
  }
  : {
    writes: { seq: [5000, 5000], conc: [20000, 5000] },
    lists: { sizes: [1000, 10000], samples: [100, 4000] },
    fanout: {
      watchers: [1, 100, 1000, 5000], transports: ['ws', 'http'] as Transport[], rate: 10, fixedEvents: 100,
      maxEvents: (w: number) => Math.min(2000, Math.max(50, Math.round(200_000 / w))), maxWriteMs: 10_000, drainMs: 30_000,
    },
    resume: { total: 10000, behind: [1000, 10000] },
    memory: { watchers: 2000 },
  };

const results: BenchResults = {
  kind: smoke ? 'smoke' : 'full',
  startedAt: new Date().toISOString(),
  durationSeconds: 0,
  machine: { ...machineInfo(), loadAverageAtStart: loadAverage() },
  versions: versions(),
  source: source(),
  settings: { ...S, fanout: { ...S.fanout, maxEvents: S.fanout.watchers.map((w) => S.fanout.maxEvents(w)) }, etcdWatchersPerStream: WATCHERS_PER_STREAM },
  writes: [], lists: [], fanout: [], resume: [], memory: [], canonical: [], rollouts: [], errors: [], notes: [],
};
const t0 = performance.now();

function log(s: string): void {
  console.log(`[${((performance.now() - t0) / 1000).toFixed(0).padStart(4)}s] ${s}`);
}

async function step<T>(name: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    const msg = `${name}: ${(e as Error)?.stack?.split('\n').slice(0, 3).join(' ') ?? String(e)}`;
    log(`ERROR ${msg}`);
    results.errors.push(msg);
    return undefined;
  }
}

function plans(): FanoutPlan[] {
  const f = S.fanout;
  return f.watchers.flatMap((w) => [
    { watchers: w, mode: 'fixed' as const, ratePerSecond: f.rate, events: f.fixedEvents, maxWriteMs: f.maxWriteMs * 2, drainMs: f.drainMs },
    { watchers: w, mode: 'max' as const, ratePerSecond: 0, events: f.maxEvents(w), maxWriteMs: f.maxWriteMs, drainMs: f.drainMs },
  ]);
}

async function fanoutAll(d: FanoutDriver, list = plans()): Promise<void> {
  for (const p of list) {
    const r = await step(`fanout ${d.system} ${d.variant} ${d.transport} W=${p.watchers} ${p.mode}`, () => runFanout(d, p));
    if (!r) continue;
    log(describeFanout(r));
    results.fanout.push(r);
  }
}

// ---- bare ws broadcast ----
async function benchBare(): Promise<void> {
  const bare = await BareWs.start();
  try {
    const d = bareFanout(bare);
    if (only.has('memory')) await step('memory bare', async () => results.memory.push(...(await runMemory([d], S.memory.watchers))));
    if (only.has('fanout')) await fanoutAll(d);
  } finally {
    await bare.stop();
  }
}

// ---- etcd ----
async function benchEtcd(): Promise<void> {
  const etcd = await Etcd.start();
  log(`etcd ${etcdVersion()} on ${etcd.endpoint}`);
  try {
    if (only.has('memory')) await step('memory etcd', async () => results.memory.push(...(await runMemory([etcdFanout(etcd)], S.memory.watchers))));
    const w: Writer = {
      system: 'etcd', variant: 'v3 gRPC (etcd3 client)', pids: () => ({ server: etcd.pid }),
      create: async (ns, name, body) => {
        await etcd.put(`/registry/pods/${ns}/${name}`, body);
      },
    };
    if (only.has('writes')) {
      for (const [c, [n, ms]] of [[1, S.writes.seq], [64, S.writes.conc]] as const) {
        await step(`writes etcd ${c}`, async () => {
          const r = await runWrites(w, 'bench-writes', c, n, ms);
          log(`etcd writes c=${c}: ${r.perSecond}/s p50 ${r.latencyMs.p50} p99 ${r.latencyMs.p99}`);
          results.writes.push(r);
        });
      }
    }
    if (only.has('lists')) {
      for (const n of S.lists.sizes) {
        await step(`lists etcd ${n}`, async () => {
          await populate(w, `bench-l${n}`, n, 120_000);
          const r = await runList({
            system: 'etcd', variant: 'v3 gRPC (etcd3 client)', objects: n, read: 'range', servedBy: 'etcd',
            once: async () => ({ items: await etcd.range(`/registry/pods/bench-l${n}/`), bytes: n * podJson(`bench-l${n}`, 'p-000000').length }),
          }, S.lists.samples[0], S.lists.samples[1] * (n >= 10000 ? 2 : 1));
          log(describeList(r));
          results.lists.push(r);
        });
      }
    }
    if (only.has('fanout')) await fanoutAll(etcdFanout(etcd));
    if (only.has('resume')) {
      await step('resume etcd', async () => {
        const prefix = '/registry/configmaps/bench-resume/';
        await pool(S.resume.total, 64, 120_000, (i) => etcd.put(`${prefix}e-${i}`, eventJson('bench-resume', i)).then(() => undefined));
        const head = await etcd.headRevision();
        const s: Resumer = { system: 'etcd', variant: 'v3 gRPC (etcd3 client)', transport: 'grpc', open: (after, r) => etcd.openWatcher(0, prefix, after + 1, r) };
        for (const behind of S.resume.behind) {
          const r = await runResume(s, head, behind, S.resume.total);
          log(`etcd resume ${behind}: ${r.catchUpMs} ms ${r.complete ? 'complete' : 'INCOMPLETE'}`);
          results.resume.push(r);
          etcd.closeWatchClients();
        }
      });
    }
  } finally {
    await etcd.stop();
  }
}

// ---- edgeplane ----
async function withEdgeplane(replicas: boolean, fn: (ep: Edgeplane) => Promise<void>): Promise<void> {
  const ep = await Edgeplane.start({ replicas });
  log(`edgeplane (${ep.label}) on ${ep.gateway.directUrl} (direct) / ${ep.gateway.url} (dual listener), workerd pid ${ep.workerdPid}`);
  try {
    await fn(ep);
  } finally {
    await ep.stop();
  }
}

/** The control loops: Deployments of 3 and 1,000 replicas to Available on a gateway running them (store only). */
async function benchRollouts(): Promise<void> {
  const nodes = smoke ? 3 : 12; // 110 pods a node: 1,000 replicas need at least 10
  const ep = await Edgeplane.start({ replicas: false, vars: { CONTROLLERS: 'on', SIMULATED_NODES: String(nodes) } });
  try {
    for (const n of smoke ? [3] : [3, 1000]) {
      await step(`rollout ${n}`, async () => {
        const r = await runRollout(ep, n, nodes, n >= 1000 ? 600_000 : 60_000);
        log(`rollout of ${n} replicas on ${nodes} nodes: Available after ${r.availableMs} ms, ${r.writes} store writes (${r.writesPerSecond}/s)`);
        results.rollouts.push(r);
      });
    }
  } finally {
    await ep.stop();
  }
}

/** Each group on a freshly started gateway: memory, then fan-out, then writes, lists and resume. */
async function benchEdgeplane(replicas: boolean): Promise<void> {
  const transports = replicas && smoke ? (['ws'] as Transport[]) : S.fanout.transports;
  if (only.has('memory') && !(smoke && replicas)) {
    await step(`memory edgeplane replicas=${replicas}`, () => withEdgeplane(replicas, async (ep) => {
      results.memory.push(...(await runMemory(transports.map((t) => edgeplaneFanout(ep, t, true)), S.memory.watchers)));
    }));
  }
  if (only.has('fanout')) {
    await step(`fanout edgeplane replicas=${replicas}`, () => withEdgeplane(replicas, async (ep) => {
      // The smoke run keeps the replica path from rotting with one WebSocket run.
      for (const t of transports) await fanoutAll(edgeplaneFanout(ep, t, true), smoke && replicas ? plans().filter((p) => p.mode === 'max') : plans());
      // W = 0: the store's own cost per write, the baseline of the canonical-load table.
      await fanoutAll(edgeplaneFanout(ep, 'ws', true), [{ watchers: 0, mode: 'fixed', ratePerSecond: S.fanout.rate, events: S.fanout.fixedEvents, maxWriteMs: 20_000, drainMs: 1000 }]);
      // The same through the dual HTTP/HTTPS listener (in this Node process), for the path comparison.
      if (!smoke && !replicas) {
        for (const t of S.fanout.transports) await fanoutAll(edgeplaneFanout(ep, t, false), plans().filter((p) => p.watchers === 1000 && p.mode === 'max'));
      }
    }));
  }
  if (!['writes', 'lists', 'resume'].some((x) => only.has(x))) return;
  await step(`writes/lists/resume edgeplane replicas=${replicas}`, () => withEdgeplane(replicas, async (ep) => {
    const w: Writer = {
      system: 'edgeplane', variant: ep.label, pids: () => ({ server: ep.workerdPid }),
      create: async (ns, name, body) => {
        const r = await ep.direct.send('POST', `/api/v1/namespaces/${ns}/pods`, body);
        if (r.status !== 201) throw new Error(`create pod answered ${r.status}: ${r.body.toString().slice(0, 200)}`);
      },
    };
    if (only.has('writes') && !replicas) {
      await ep.createNamespace('bench-writes');
      for (const [c, [n, ms]] of [[1, S.writes.seq], [64, S.writes.conc]] as const) {
        await step(`writes edgeplane ${c}`, async () => {
          const r = await runWrites(w, 'bench-writes', c, n, ms);
          log(`edgeplane writes c=${c}: ${r.perSecond}/s p50 ${r.latencyMs.p50} p99 ${r.latencyMs.p99}`);
          results.writes.push(r);
        });
      }
    }
    if (only.has('lists')) {
      for (const n of S.lists.sizes) {
        await step(`lists edgeplane ${n}`, async () => {
          const ns = `bench-l${n}`;
          await ep.createNamespace(ns);
          const created = await populate(w, ns, n, 120_000);
          if (created !== n) throw new Error(`created only ${created} of ${n} pods in time`);
          for (const [read, query, servedBy] of [
            ['rv=0 (cache)', '?resourceVersion=0', replicas ? 'replica' : 'store'],
            ['consistent', '', 'store'],
          ] as const) {
            if (replicas && servedBy === 'store') continue; // the store-only run measures the store
            const r = await runList({
              system: 'edgeplane', variant: ep.label, objects: n, read, servedBy,
              once: async () => {
                const res = await ep.direct.send('GET', `/api/v1/namespaces/${ns}/pods${query}`, undefined, ep.replicaHeaders(0));
                if (res.status !== 200) throw new Error(`list answered ${res.status}`);
                return { items: countItems(res.body), bytes: res.body.length };
              },
            }, S.lists.samples[0], S.lists.samples[1] * (n >= 10000 ? 2 : 1));
            log(describeList(r));
            results.lists.push(r);
          }
        });
      }
    }
    if (only.has('resume')) {
      await step(`resume edgeplane ${ep.label}`, async () => {
        const ns = 'bench-resume';
        await ep.createNamespace(ns);
        // Replicas in steady state: each holds a subscription (one idle watcher each) while the events are written.
        // One write first, so that even "all of them behind" is a revision > 0 (RV 0 means "any", not "from the start").
        await ep.direct.send('POST', `/api/v1/namespaces/${ns}/configmaps`, JSON.stringify({ metadata: { name: 'resume-start' } }));
        const head0 = await ep.headRevision(ns, 'configmaps');
        const idle = replicas ? await Promise.all(Array.from({ length: 4 }, (_, j) => ep.openWatcher('ws', true, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${head0}`, j, new Receiver(1)))) : [];
        await pool(S.resume.total, 64, 120_000, async (i) => {
          const r = await ep.direct.send('POST', `/api/v1/namespaces/${ns}/configmaps`, eventJson(ns, i));
          if (r.status !== 201) throw new Error(`create answered ${r.status}`);
        });
        const head = await ep.headRevision(ns, 'configmaps');
        for (const transport of ['ws', 'http'] as Transport[]) {
          const s: Resumer = {
            system: 'edgeplane', variant: ep.label, transport,
            open: (after, r) => ep.openWatcher(transport, true, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${after}`, 0, r),
          };
          for (const behind of S.resume.behind) {
            const r = await runResume(s, head, behind, S.resume.total);
            log(`edgeplane ${ep.label} resume ${transport} ${behind}: ${r.catchUpMs} ms ${r.complete ? 'complete' : `INCOMPLETE (${r.received})`}`);
            results.resume.push(r);
          }
        }
        for (const r of idle) r.close();
        await ep.flushClosedStreams(ns);
      });
    }
    // Fan-out again with the Pods of the scenarios above held in the same isolate (a bigger V8 heap).
    if (only.has('fanout') && only.has('lists') && !smoke && !replicas) {
      const d = edgeplaneFanout(ep, 'ws', true);
      d.variant = `${ep.label}, ${S.lists.sizes.reduce((a, b) => a + b, 0).toLocaleString('en-US')}+ pods loaded`;
      await fanoutAll(d, plans().filter((p) => p.watchers === 1000 && p.mode === 'fixed'));
    }
  }));
}

function versions(): Record<string, string> {
  const pkg = (name: string) => {
    try {
      return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version as string;
    } catch {
      return '?';
    }
  };
  return {
    node: process.version, miniflare: pkg('miniflare'), workerd: pkg('workerd'), ws: pkg('ws'), etcd3: pkg('etcd3'),
    etcd: systems.has('etcd') ? etcdVersion() : 'not run',
  };
}

function source(): Record<string, unknown> {
  const git = (...a: string[]) => {
    try {
      return execFileSync('git', a, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return '';
    }
  };
  const commit = git('rev-parse', '--short', 'HEAD') || process.env.BENCH_COMMIT || 'unknown';
  const changed = git('status', '--porcelain', '--untracked-files=no').split('\n').filter(Boolean).length;
  // BENCH_SOURCE: how the tree was made, when the bench runs on a copy (e.g. a snapshot of HEAD).
  return process.env.BENCH_SOURCE ? { commit, tree: process.env.BENCH_SOURCE } : { commit, 'changed files': changed };
}

async function main(): Promise<void> {
  log(`${results.kind} bench: systems ${[...systems].join(', ')}; scenarios ${[...only].join(', ')}`);
  if (systems.has('bare-ws')) await step('bare-ws', benchBare);
  if (systems.has('etcd')) await step('etcd', benchEtcd);
  if (systems.has('edgeplane')) for (const r of replicaModes) await step(`edgeplane replicas=${r}`, () => benchEdgeplane(r));
  if (systems.has('edgeplane') && only.has('rollout')) await step('edgeplane control loops', () => benchRollouts());
  results.canonical = canonicalRows(results.fanout);
  results.durationSeconds = round((performance.now() - t0) / 1000);
  const disturbed = results.fanout.filter((r) => r.cpu.foreignShare > 0.15);
  if (disturbed.length) {
    results.notes.push(`Other work on the machine took over 15% of it during ${disturbed.length} fan-out run(s): ${disturbed.map((r) => `${r.system} ${r.variant} ${r.transport}/${r.path} W=${r.watchers} ${r.mode} (${Math.round(r.cpu.foreignShare * 100)}%)`).join('; ')}.`);
  }
  const dir = join(BENCH, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${results.startedAt.replace(/[:.]/g, '-')}-${results.kind}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  const md = renderMarkdown(results);
  console.log(`\n${md}`);
  if (!smoke && !opt('only') && !opt('systems')) {
    writeFileSync(join(BENCH, 'RESULTS.md'), md);
    writeFileSync(join(BENCH, 'p99-vs-watchers.svg'), renderChart(results));
    log('wrote bench/RESULTS.md and bench/p99-vs-watchers.svg');
  }
  log(`wrote ${file}`);
  const lost = checkTargets(results).find((t) => t.target.startsWith('Zero missing'));
  if (smoke && (!lost?.met || results.errors.length || results.fanout.length === 0)) {
    console.error('bench:smoke failed: events lost, duplicated or out of order, or a scenario failed');
    process.exit(1);
  }
  process.exit(0);
}

await main();
