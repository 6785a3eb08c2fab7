// Entry point of `npm run bench` (full: edgeplane as `npm start` runs it, beside etcd 3.4, a bare ws
// broadcast and the runtime's own floors on workerd; 25 min on a busy 2-core machine) and `npm run
// bench:smoke` (--smoke: small sizes, about a minute, exit 1 on any lost event or failed scenario).
// Options: --only=idle,memory,fanout,writes,lists,resume,rollout,apf  --systems=edgeplane,etcd,bare-ws,minimal-workerd
//   --watchers=1000[,5000] (fan-out sizes; with it --http=, --direct= and --multi= add those runs)
//   --apf=defaults,no-bucket,… (the flow-control variants, below); --apf-together runs them side by side

import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { defaultLimits } from '../scripts/dual-listener';
import { DEFAULTS, devVarsSettings, DIRECT, Edgeplane, edgeplaneFanout, PORT, STORE_ONLY, type EdgeplaneConfig, type Path, type Transport } from './targets/edgeplane';
import { Etcd, etcdFanout, etcdVersion, WATCHERS_PER_STREAM } from './targets/etcd';
import { BareWs, bareFanout } from './targets/bare-ws';
import { MinimalWorkerd, minimalFanout, minimalWriter, MINIMAL_SYSTEM } from './targets/minimal';
import { runFanout, describeFanout, type FanoutDriver, type FanoutPlan } from './scenarios/fanout';
import { runWrites, populate, describeWrites, type Writer } from './scenarios/writes';
import { runRollout, describeRollout } from './scenarios/rollout';
import { runList, countItems, describeList } from './scenarios/lists';
import { runResumeMedian, type Resumer } from './scenarios/resume';
import { runMemory, describeMemory } from './scenarios/memory';
import { idleReading, describeIdle } from './scenarios/idle';
import { canonicalRows } from './scenarios/canonical';
import { runApf, describeApf } from './scenarios/apf';
import { renderMarkdown, renderCharts, checkTargets, type BenchResults } from './report';
import { machineInfo, loadAverages, settle } from './lib/proc';
import { eventJson, podJson } from './lib/objects';
import { HttpClient, pool } from './lib/http';
import { InspectorSession } from './lib/inspector';
import { round, sleep } from './lib/stats';

const BENCH = dirname(fileURLToPath(import.meta.url));
const ROOT = join(BENCH, '..');
const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
// Each resume is timed this many times, the median reported (scenarios/resume.ts runResumeMedian).
const RESUME_RUNS = smoke ? 1 : 3;
const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1]?.split(',');
const only = new Set(opt('only') ?? ['idle', 'memory', 'fanout', 'writes', 'lists', 'resume', 'rollout', 'apf']);
// The smoke run leaves out etcd (no apt install in CI) and the bare broadcast.
const systems = new Set(opt('systems') ?? (smoke ? ['edgeplane', MINIMAL_SYSTEM] : ['edgeplane', 'etcd', 'bare-ws', MINIMAL_SYSTEM]));

// Connections the dual listener accepts before it answers 429 (scripts/dual-listener.ts: 2 descriptors each,
// under `ulimit -n`): past it, fan-out runs use workerd's port and say so.
const LISTENER_MAX_CONNECTIONS = defaultLimits().maxConnections;
// 1,000 replicas need ten simulated nodes of 110 pods (controllers/kubelet/node-status.ts); the default three hold 330.
const ROLLOUT_NODES = 10;

/** Sizes: each phase is bounded in count and time. */
const S = smoke
  ? {
    fanout: { watchers: [100], http: [100], direct: [100], multi: [] as number[], rate: 20, events: (_w: number) => 20, idleEvents: 20, drainMs: 10_000 },
    memory: { watchers: 100, settleMs: 500 },
    writes: { concurrency: [1, 8], count: 300, ms: 1500, users: 0, freshGateway: false },
    lists: { sizes: [20], samples: [20, 1000] },
    resume: { total: 100, behind: [50, 100] },
    rollout: { replicas: [3], nodes: 0, maxMs: 60_000 },
    apf: { concurrency: 16, idleMs: 2000, floodMs: 3000, rounds: 1, variants: opt('apf') ?? ['defaults'] },
    idleSettleMs: 1000,
  }
  : {
    // 200 events at W ≤ 1,000 (issue 20's scenario), then ≈ 100,000 deliveries a run.
    fanout: { watchers: [100, 1000, 5000, 10000], http: [1000], direct: [1000], multi: [1000], rate: 100, events: (w: number) => (w <= 1000 ? 200 : Math.max(10, Math.round(100_000 / w))), idleEvents: 100, drainMs: 60_000 },
    memory: { watchers: 5000, settleMs: 2000 },
    // With the defaults, each phase on a fresh gateway: pods past what 3 simulated nodes hold stay Pending (the
    // scheduler retries them), so a phase after another would start with the earlier phases' backlog.
    writes: { concurrency: [1, 8, 64], count: 5000, ms: 10_000, users: 8, freshGateway: true },
    lists: { sizes: [1000, 10000], samples: [100, 4000] },
    resume: { total: 10000, behind: [1000, 10000] },
    rollout: { replicas: [1000], nodes: ROLLOUT_NODES, maxMs: 600_000 },
    // One ServiceAccount's flood beside another user's and system traffic's probes (scenarios/apf.ts), each
    // variant on a fresh gateway with the defaults (control loops on): flow control and the per-user token
    // bucket together, without the bucket, and with kube's 600 seats or 10 per isolate.
    apf: { concurrency: 64, idleMs: 15_000, floodMs: 30_000, rounds: 5, variants: opt('apf') ?? ['defaults', 'delay0-burst400', 'no-bucket', 'c10'] },
    idleSettleMs: 10_000,
  };

// A part of the fan-out curve (does not overwrite RESULTS.md): --watchers=1000 runs W=1,000 WebSocket only;
// --http=1000, --direct=1000 and --multi=1000 (edgeplane's multi-event WebSocket opt-in) add those runs.
const sizeList = (name: string) => opt(name)?.filter((x) => x !== '').map(Number);
if (opt('watchers')) {
  S.fanout.watchers = sizeList('watchers') ?? [];
  S.fanout.http = sizeList('http') ?? [];
  S.fanout.direct = sizeList('direct') ?? [];
  S.fanout.multi = sizeList('multi') ?? [];
}

const results: BenchResults = {
  kind: smoke ? 'smoke' : 'full',
  startedAt: new Date().toISOString(),
  durationSeconds: 0,
  machine: { ...machineInfo(), loadAverageAtStart: loadAverages() },
  versions: versions(),
  source: source(),
  settings: { ...S, fanout: { ...S.fanout, events: S.fanout.watchers.map((w) => S.fanout.events(w)) }, listenerMaxConnections: LISTENER_MAX_CONNECTIONS, etcdWatchersPerStream: WATCHERS_PER_STREAM },
  idle: [], writes: [], lists: [], fanout: [], resume: [], memory: [], canonical: [], rollouts: [], apf: [], errors: [], notes: [],
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

function plan(watchers: number, measureHeap = false): FanoutPlan {
  const f = S.fanout;
  return { watchers, mode: 'fixed', ratePerSecond: f.rate, events: f.events(watchers), maxWriteMs: 30_000, drainMs: f.drainMs, measureHeap };
}

async function fanout(d: FanoutDriver, p: FanoutPlan): Promise<void> {
  const r = await step(`fanout ${d.system} ${d.variant} ${d.transport}/${d.path} W=${p.watchers}`, () => runFanout(d, p));
  if (!r) return;
  log(describeFanout(r));
  results.fanout.push(r);
}

async function writes(w: Writer, namespace: string, concurrency: number, settlePid?: number): Promise<void> {
  await step(`writes ${w.system} ${w.variant} ${concurrency}`, async () => {
    // The control loops react to each create for a while: let them finish with the previous phase's pods.
    if (settlePid) log(`settled ${await settle(settlePid, 30_000)} ms before the phase`);
    const r = await runWrites(w, namespace, concurrency, S.writes.count, S.writes.ms);
    log(describeWrites(r));
    results.writes.push(r);
  });
}

// ---- bare ws broadcast ----
async function benchBare(): Promise<void> {
  const bare = await BareWs.start();
  try {
    const d = bareFanout(bare);
    if (only.has('memory')) await step('memory bare', async () => pushMemory(await runMemory(d, S.memory.watchers, undefined, S.memory.settleMs)));
    if (only.has('fanout')) for (const w of S.fanout.watchers) await fanout(d, plan(w));
  } finally {
    await bare.stop();
  }
}

function pushMemory(m: Awaited<ReturnType<typeof runMemory>>): void {
  log(describeMemory(m));
  results.memory.push(m);
}

// ---- the runtime's floors: a minimal Worker + Durable Objects on the same workerd ----
async function benchMinimal(): Promise<void> {
  const m = await MinimalWorkerd.start({ inspector: true });
  const inspector = await InspectorSession.user(m.inspectorPort!);
  try {
    const d = minimalFanout(m);
    d.heap = () => inspector.heapAfterGc();
    // (The smoke run measures memory on edgeplane only: the heap path is the same.)
    if (only.has('memory') && !smoke) await step('memory minimal', async () => pushMemory(await runMemory(d, S.memory.watchers, inspector, S.memory.settleMs)));
    if (only.has('fanout')) for (const w of S.fanout.watchers) await fanout(d, plan(w, true));
    if (only.has('writes')) for (const c of S.writes.concurrency) await writes(minimalWriter(m), 'bench-writes', c);
  } finally {
    inspector.close();
    await m.stop();
  }
}

// ---- etcd ----
async function benchEtcd(): Promise<void> {
  const etcd = await Etcd.start();
  log(`etcd ${etcdVersion()} on ${etcd.endpoint}`);
  try {
    const w: Writer = {
      system: 'etcd', variant: 'v3 gRPC (etcd3 client)', pids: () => ({ server: etcd.pid }),
      create: async (ns, name, body) => {
        await etcd.put(`/registry/pods/${ns}/${name}`, body);
      },
    };
    if (only.has('writes')) for (const c of S.writes.concurrency) await writes(w, 'bench-writes', c);
    if (only.has('fanout')) for (const x of S.fanout.watchers) await fanout(etcdFanout(etcd), plan(x));
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
    if (only.has('resume')) {
      await step('resume etcd', async () => {
        const prefix = '/registry/configmaps/bench-resume/';
        await pool(S.resume.total, 64, 120_000, (i) => etcd.put(`${prefix}e-${i}`, eventJson('bench-resume', i)).then(() => undefined));
        const head = await etcd.headRevision();
        const s: Resumer = { system: 'etcd', variant: 'v3 gRPC (etcd3 client)', transport: 'grpc', open: (after, r) => etcd.openWatcher(0, prefix, after + 1, r) };
        for (const behind of S.resume.behind) {
          const r = await runResumeMedian(s, head, behind, S.resume.total, RESUME_RUNS, () => etcd.closeWatchClients());
          log(`etcd resume ${behind}: ${r.catchUpMs} ms (runs ${r.catchUpRunsMs!.join(', ')}) ${r.complete ? 'complete' : 'INCOMPLETE'}`);
          results.resume.push(r);
        }
      });
    }
  } finally {
    await etcd.stop();
  }
}

// ---- edgeplane, as `npm start` runs it ----
async function withEdgeplane(config: EdgeplaneConfig, fn: (ep: Edgeplane) => Promise<void>): Promise<void> {
  const t = performance.now();
  const ep = await Edgeplane.start(config);
  log(`edgeplane (${ep.label}) started in ${Math.round(performance.now() - t)} ms: npm start port ${ep.url}, workerd port ${ep.directUrl}, workerd pid ${ep.workerdPid}`);
  try {
    await fn(ep);
  } finally {
    await ep.stop();
  }
}

let setupRetries = 0;

/**
 * A create for setting a scenario up (lists, resume): a saturated workerd may close a connection unanswered,
 * so it is tried again, and 409 AlreadyExists means the earlier try was stored.
 */
async function createForSetup(ep: Edgeplane, path: string, body: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const r = await ep.port.send('POST', path, body);
      if (r.status === 201 || (r.status === 409 && attempt > 1)) return;
      throw new Error(`create answered ${r.status}: ${r.body.toString().slice(0, 200)}`);
    } catch (e) {
      if (attempt >= 5 || !/ECONNRESET|socket hang up|EPIPE/.test(String(e))) throw e;
      setupRetries++;
    }
  }
}
/** Creates through the `npm start` port, as the admin (the kubeconfig's user) or round-robin over users. */
function edgeplaneWriter(ep: Edgeplane, users?: HttpClient[]): Writer {
  let next = 0;
  return {
    system: 'edgeplane',
    variant: users ? `${ep.label}, ${users.length} RBAC users (static tokens)` : ep.label,
    pids: () => ({ server: ep.workerdPid, listener: ep.gatewayPid }),
    create: async (ns, name, body) => {
      const client = users ? users[next++ % users.length] : ep.port;
      const r = await client.send('POST', `/api/v1/namespaces/${ns}/pods`, body);
      if (r.status !== 201) throw new Error(`create pod answered ${r.status}: ${r.body.toString().slice(0, 200)}`);
    },
  };
}

/** The defaults: idle memory, memory per watcher, fan-out (the curve) and creates with the control loops on. */
async function benchDefaults(): Promise<void> {
  await withEdgeplane({ ...DEFAULTS, inspector: true }, async (ep) => {
    const inspector = await InspectorSession.user(ep.inspectorPort!);
    try {
      if (only.has('idle')) {
        await sleep(S.idleSettleMs);
        const r = idleReading(ep, S.idleSettleMs);
        log(describeIdle(r));
        results.idle.push(r);
      }
      const heap = (d: FanoutDriver) => Object.assign(d, { heap: () => inspector.heapAfterGc() });
      if (only.has('memory')) await step('memory edgeplane', async () => pushMemory(await runMemory(edgeplaneFanout(ep, 'ws', PORT), S.memory.watchers, inspector, S.memory.settleMs)));
      if (only.has('fanout')) {
        const runs: [Transport, Path, number, boolean][] = [];
        for (const w of S.fanout.watchers) runs.push(w < LISTENER_MAX_CONNECTIONS ? ['ws', PORT, w, false] : ['ws', DIRECT, w, true]);
        for (const w of S.fanout.http) runs.push(['http', PORT, w, false]);
        // The same through workerd's port: what the dual listener costs (direct), and the replica path (smoke).
        for (const w of S.fanout.direct) runs.push(['ws', DIRECT, w, smoke]);
        // edgeplane's own client and console: several events per WebSocket message (a row of its own).
        for (const w of S.fanout.multi) runs.push(['ws multi-event', PORT, w, false]);
        for (const [transport, path, w, spread] of runs) await fanout(heap(edgeplaneFanout(ep, transport, path, spread)), plan(w, true));
        // W = 0: the store's own cost per write, the baseline of the canonical-load table.
        await fanout(edgeplaneFanout(ep, 'ws', PORT), { ...plan(0), events: S.fanout.idleEvents, drainMs: 1000 });
      }
      if (only.has('writes') && !S.writes.freshGateway) await defaultsWrites(ep, S.writes.concurrency);
      // The smoke run has one gateway: lists, resume and a small rollout run here (through the replicas).
      if (smoke) await listsAndResume(ep);
      if (smoke && only.has('rollout')) await rollouts(ep, 3);
    } finally {
      inspector.close();
    }
  });
}

// API Priority and Fairness variants (scenarios/apf.ts), named by their parts joined with '-': `defaults`,
// `no-bucket` (the token bucket raised past reach), `c<n>` (APF_CONCURRENCY=n), `lag<n>` (APF_LAG_TARGET_MS=n),
// `delay<n>` (RATE_LIMIT_MAX_DELAY_MS=n; delay0: 429 at once past the bucket), `burst<n>` (RATE_LIMIT_BURST=n);
// e.g. --apf=defaults,delay0-burst400,no-bucket-c10.
const NO_BUCKET = { RATE_LIMIT_QPS: '1000000', RATE_LIMIT_BURST: '10000000' };
const APF_PARTS: Record<string, string> = { c: 'APF_CONCURRENCY', lag: 'APF_LAG_TARGET_MS', delay: 'RATE_LIMIT_MAX_DELAY_MS', burst: 'RATE_LIMIT_BURST' };
function apfVariant(label: string): Record<string, string> {
  const vars: Record<string, string> = {};
  const rest = label === 'defaults' ? '' : label.replace(/^no-bucket-?/, () => (Object.assign(vars, NO_BUCKET), ''));
  for (const part of rest ? rest.split('-') : []) {
    const m = /^([a-z]+)(\d+)$/.exec(part);
    if (!m || !APF_PARTS[m[1]!]) throw new Error(`unknown apf variant part ${part} in ${label}`);
    vars[APF_PARTS[m[1]!]!] = m[2]!;
  }
  return vars;
}

/** One ServiceAccount floods; another user's and system traffic's latency idle and during (issue 23). */
async function benchApf(): Promise<void> {
  if (args.includes('--apf-together')) {
    // Side by side: every variant's gateway at once, flooded and probed in the same seconds, so the machine's other
    // load falls on all of them alike (compare the variants' figures with each other).
    // Started one after another (two builds of one checkout at once would write the same bundle).
    const eps: Edgeplane[] = [];
    try {
      for (const label of S.apf.variants) eps.push(await Edgeplane.start({ label: `apf: ${label}`, vars: apfVariant(label) }));
      log(`apf side by side: ${eps.map((ep) => `${ep.label} on ${ep.url}`).join(', ')}`);
      // Each gateway's start-up (control loops listing and syncing) must be over before the idle probes, or "idle" measures it.
      log(`settled ${(await Promise.all(eps.map((ep) => settle(ep.workerdPid, 60_000)))).join(', ')} ms before the flood`);
      await Promise.all(eps.map((ep) => step(`apf ${ep.label}`, async () => {
        const r = await runApf(ep, S.apf);
        log(describeApf(r));
        results.apf!.push(r);
      })));
    } finally {
      await Promise.all(eps.map((ep) => ep.stop()));
    }
    return;
  }
  for (const label of S.apf.variants) {
    await step(`apf ${label}`, () => withEdgeplane({ label: `apf: ${label}`, vars: apfVariant(label) }, async (ep) => {
      log(`settled ${await settle(ep.workerdPid, 30_000)} ms before the flood`);
      const r = await runApf(ep, S.apf);
      log(describeApf(r));
      results.apf!.push(r);
    }));
  }
}

/** Creates with the defaults; the control loops (scheduler, kubelets, events) react to each pod meanwhile. */
async function defaultsWrites(ep: Edgeplane, concurrency: number[]): Promise<void> {
  await ep.createNamespace('bench-writes');
  for (const c of concurrency) await writes(edgeplaneWriter(ep), 'bench-writes', c, ep.workerdPid);
}

// Users the store-only gateway knows besides the admin (kube's --token-auth-file format), bound to `edit`.
const USERS = Array.from({ length: 8 }, (_, i) => ({ token: `bench-user-${i}-${process.pid}`, name: `bench-user-${i}` }));
const STATIC_TOKENS = USERS.map((u) => `${u.token},${u.name},${u.name},"bench-writers"`).join('\n');

/** The store alone: creates, lists and resume beside etcd and the minimal writer. */
async function benchStoreOnly(): Promise<void> {
  await withEdgeplane({ ...STORE_ONLY, vars: { ...STORE_ONLY.vars, STATIC_TOKENS } }, async (ep) => {
    if (only.has('writes')) {
      await ep.createNamespace('bench-writes');
      for (const c of S.writes.concurrency) await writes(edgeplaneWriter(ep), 'bench-writes', c);
      if (S.writes.users > 0) {
        // Not the admin (system:masters skips RBAC and the rate limit): users the authorizer decides for, each
        // under the default per-user rate limit, so that no limit is raised and none refuses.
        await ep.port.json('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
          metadata: { name: 'bench-writers' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'bench-writers' }],
        }, [201]);
        const clients = USERS.slice(0, S.writes.users).map((u) => new HttpClient(ep.url, { authorization: `Bearer ${u.token}` }, 8));
        try {
          for (const c of [1, 64]) await writes(edgeplaneWriter(ep, clients), 'bench-writes', c);
        } finally {
          for (const c of clients) c.close();
        }
      }
    }
    await listsAndResume(ep);
  });
}

async function listsAndResume(ep: Edgeplane): Promise<void> {
  const replicas = ep.replicaLocations().length > 0;
  const w: Writer = { ...edgeplaneWriter(ep), create: (ns, _name, body) => createForSetup(ep, `/api/v1/namespaces/${ns}/pods`, body) };
  if (only.has('lists')) {
    for (const n of S.lists.sizes) {
      await step(`lists edgeplane ${ep.label} ${n}`, async () => {
        const ns = `bench-l${n}`;
        await ep.createNamespace(ns);
        const created = await populate(w, ns, n, 600_000);
        if (created !== n) throw new Error(`created only ${created} of ${n} pods in time`);
        for (const [read, query] of [['rv=0 (cache)', '?resourceVersion=0'], ['consistent', '']] as const) {
          const r = await runList({
            system: 'edgeplane', variant: ep.label, objects: n, read, servedBy: replicas && read !== 'consistent' ? 'replica' : 'store',
            once: async (count) => {
              const res = await ep.port.send('GET', `/api/v1/namespaces/${ns}/pods${query}`);
              if (res.status !== 200) throw new Error(`list answered ${res.status}`);
              return { items: count ? countItems(res.body) : -1, bytes: res.body.length };
            },
          }, S.lists.samples[0], S.lists.samples[1] * (n >= 10000 ? 2 : 1));
          log(describeList(r));
          results.lists.push(r);
        }
      });
    }
  }
  if (!only.has('resume')) return;
  await step(`resume edgeplane ${ep.label}`, async () => {
    const ns = 'bench-resume';
    await ep.createNamespace(ns);
    // One write first, so that even "all of them behind" is a revision > 0 (RV 0 means "any", not "from the start").
    await ep.port.send('POST', `/api/v1/namespaces/${ns}/configmaps`, JSON.stringify({ metadata: { name: 'resume-start' } }));
    await pool(S.resume.total, 64, 300_000, (i) => createForSetup(ep, `/api/v1/namespaces/${ns}/configmaps`, eventJson(ns, i)));
    // The revision to resume from so that exactly `behind` of the bench's creates follow it in this namespace. Not the
    // head minus `behind`: the configmaps' revisions are shared by every namespace, and with the control loops on
    // other ConfigMaps (kube-root-ca.crt here, kube-system's) take some of them — a smoke run waited 60 s for a 100th.
    const listed = JSON.parse((await ep.port.send('GET', `/api/v1/namespaces/${ns}/configmaps`)).body.toString()) as { items: { metadata: { name: string; resourceVersion: string } }[] };
    const start = Number(listed.items.find((o) => o.metadata.name === 'resume-start')!.metadata.resourceVersion);
    const created = listed.items.filter((o) => o.metadata.name.startsWith('e-')).map((o) => Number(o.metadata.resourceVersion)).sort((a, b) => a - b);
    const afterFor = (behind: number) => (behind >= created.length ? start : created[created.length - behind - 1]!);
    for (const transport of ['ws', 'http'] as Transport[]) {
      const s: Resumer = {
        system: 'edgeplane', variant: ep.label, transport,
        open: (after, r) => ep.openWatcher(transport, PORT, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${after}`, 0, r),
      };
      for (const behind of S.resume.behind) {
        const r = await runResumeMedian(s, afterFor(behind) + behind, behind, S.resume.total, RESUME_RUNS);
        log(`edgeplane ${ep.label} resume ${transport} ${behind}: ${r.catchUpMs} ms (runs ${r.catchUpRunsMs!.join(', ')}) ${r.complete ? 'complete' : `INCOMPLETE (${r.received})`}`);
        results.resume.push(r);
      }
    }
    await ep.flushClosedStreams(ns);
  });
}

async function rollouts(ep: Edgeplane, nodes: number): Promise<void> {
  for (const n of S.rollout.replicas) {
    await step(`rollout ${n}`, async () => {
      const r = await runRollout(ep, n, nodes, S.rollout.maxMs);
      log(describeRollout(r));
      results.rollouts.push(r);
    });
  }
}

/** A Deployment of 1,000 replicas to Available: the defaults, with enough simulated nodes to hold it. */
async function benchRollout(): Promise<void> {
  const nodes = S.rollout.nodes;
  await withEdgeplane({ label: `defaults, SIMULATED_NODES=${nodes}`, vars: { SIMULATED_NODES: String(nodes) } }, (ep) => rollouts(ep, nodes));
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
  log(`${results.kind} bench: systems ${[...systems].join(', ')}; scenarios ${[...only].join(', ')}; load average ${loadAverages().join(' ')}`);
  const extra = devVarsSettings();
  if (extra.length) results.notes.push(`.dev.vars sets ${extra.join(', ')}: every edgeplane gateway here (as \`npm start\`) ran with them.`);
  if (systems.has('bare-ws') && ['memory', 'fanout'].some((x) => only.has(x))) await step('bare-ws', benchBare);
  if (systems.has(MINIMAL_SYSTEM) && ['memory', 'fanout', 'writes'].some((x) => only.has(x))) await step(MINIMAL_SYSTEM, benchMinimal);
  if (systems.has('etcd') && ['writes', 'fanout', 'lists', 'resume'].some((x) => only.has(x))) await step('etcd', benchEtcd);
  if (systems.has('edgeplane')) {
    if (['idle', 'memory', 'fanout'].some((x) => only.has(x)) || (only.has('writes') && !S.writes.freshGateway) || smoke) await step('edgeplane defaults', benchDefaults);
    if (only.has('writes') && S.writes.freshGateway) {
      for (const c of S.writes.concurrency) await step(`edgeplane defaults writes ${c}`, () => withEdgeplane(DEFAULTS, (ep) => defaultsWrites(ep, [c])));
    }
    if (!smoke && ['writes', 'lists', 'resume'].some((x) => only.has(x))) await step('edgeplane store only', benchStoreOnly);
    if (!smoke && only.has('rollout')) await step('edgeplane rollout', benchRollout);
    if (only.has('apf')) await step('edgeplane apf', benchApf);
  }
  results.canonical = canonicalRows(results.fanout);
  results.durationSeconds = round((performance.now() - t0) / 1000);
  results.machine.loadAverageAtEnd = loadAverages();
  if (setupRetries) results.notes.push(`${setupRetries} create(s) setting up lists or resume were tried again: workerd closed the connection unanswered.`);
  const disturbed = results.fanout.filter((r) => r.cpu.foreignShare > 0.15);
  if (disturbed.length) {
    results.notes.push(`Other work on the machine took over 15% of it during ${disturbed.length} fan-out run(s): ${disturbed.map((r) => `${r.system} ${r.variant} ${r.transport}/${r.path} W=${r.watchers} (${Math.round(r.cpu.foreignShare * 100)}%)`).join('; ')}.`);
  }
  const dir = join(BENCH, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${results.startedAt.replace(/[:.]/g, '-')}-${results.kind}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  const md = renderMarkdown(results);
  console.log(`\n${md}`);
  if (!smoke && !opt('only') && !opt('systems')) {
    writeFileSync(join(BENCH, 'RESULTS.md'), md);
    mkdirSync(join(BENCH, 'charts'), { recursive: true });
    for (const [name, svg] of Object.entries(renderCharts(results))) writeFileSync(join(BENCH, 'charts', name), svg);
    log('wrote bench/RESULTS.md and bench/charts/*.svg');
  }
  log(`wrote ${file}`);
  const lost = checkTargets(results).find((t) => t.id === 'complete');
  if (smoke && (!lost?.met || results.errors.length || results.fanout.length === 0)) {
    console.error('bench:smoke failed: events lost, duplicated or out of order, or a scenario failed');
    process.exit(1);
  }
  process.exit(0);
}

await main();
