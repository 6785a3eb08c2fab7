// Robustness: the failpoint registry — every fault by name, off unless a run enables it, each injection drawn
// from the run's seed. Faults caused from outside the runtime are implemented here; faults inside the Durable
// Objects (a throw or an abort at each step of a write's transaction and of compaction, storage errors, dropped,
// duplicated or reordered replica pushes, watch frames and bookmarks held back) are armed through `PUT /debug/failpoints/<name>` (contract/failpoints.ts)
// for a moment; the informers and the loops' clock take theirs through the controller manager; hibernation is
// workerd's own (objects left idle with WebSockets open).

import { readdirSync, readFileSync } from 'node:fs';
import WebSocket from 'ws';
import type { Gateway } from '../../scripts/gateway';
import type { Violation } from '../check';
import { send, type Recorder } from './recorder';
import type { Rng } from './rng';
import type { Workloads } from './end-state';

export interface FaultContext {
  rec: Recorder;
  gateway: Gateway;
  rng: Rng;
  replicaNames: string[]; // e.g. core/configmaps@enam#0
  storeTypes: string[]; // e.g. core/configmaps
  harness: Violation[]; // what a fault's own probe finds wrong (an authorizer deciding wrongly after its restart)
  workloads?: Workloads; // with the control loops on: the Deployments whose end states are checked
}

export interface Failpoint {
  name: string;
  where: 'outside' | 'inside'; // inside: a hook in the Durable Objects (contract/failpoints.ts)
  what: string;
  // moment: injected once at a scheduled time; window: traffic behaves differently while it is on; setting: the
  // gateway starts with `vars` for the whole run.
  kind: 'moment' | 'window' | 'setting';
  vars?: Record<string, string>;
  inject?(ctx: FaultContext): Promise<string>; // moment faults; returns a detail for the record
}

/** The workerd processes this process started (Miniflare's children), as test/e2e/hostile.ts finds them. */
export function workerdPids(): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      if (comm === 'workerd' && Number(stat.slice(close + 2).split(' ')[1]) === process.pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const hook = async (ctx: FaultContext, path: string) => {
  const r = await send(ctx.rec, 'POST', path, undefined, {}, 15_000).catch((e) => ({ status: 0, json: String(e) }));
  return `${path} → ${r.status}`;
};

// The informers' resync period in runs that drop informer events: short enough for the end states to converge.
const RUN_RESYNC_SECONDS = 10;

export const FAILPOINTS: Failpoint[] = [
  {
    name: 'runtime.kill', where: 'outside', kind: 'moment',
    what: 'SIGKILL the workerd process (every object, socket and stream at once), then start it again on the same persisted state',
    async inject(ctx) {
      const pids = workerdPids();
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      await new Promise((r) => setTimeout(r, ctx.rng.int(200, 1200))); // clients meet a dead runtime for a while
      await ctx.gateway.restart();
      return `killed ${pids.join(',') || 'nothing'}`;
    },
  },
  {
    name: 'runtime.restart', where: 'outside', kind: 'moment',
    what: 'restart the runtime as a deploy does: every WebSocket and stream drops at once; every watcher must be back, exact, within 10 s',
    async inject(ctx) {
      await ctx.gateway.restart();
      return 'restarted';
    },
  },
  {
    name: 'store.abort', where: 'outside', kind: 'moment',
    what: "abort a type's store Durable Object (ctx.abort through the ENABLE_TEST_HOOKS route), as a crash or reset does",
    inject: (ctx) => hook(ctx, `/debug/stores/${ctx.rng.pick(ctx.storeTypes)}/abort`),
  },
  {
    name: 'replica.abort', where: 'outside', kind: 'moment',
    what: 'abort one watch-cache replica; its watchers resume, there or elsewhere',
    inject: (ctx) => hook(ctx, `/debug/replicas/${encodeURIComponent(ctx.rng.pick(ctx.replicaNames))}/abort`),
  },
  {
    name: 'authorizer.abort', where: 'outside', kind: 'moment',
    what: "abort the authorizer shard (ctx.abort): it rebuilds its RBAC policy from the stores, and decides every request as before (probed: an allow and a deny right after)",
    async inject(ctx) {
      const detail = await hook(ctx, '/debug/authorizers/0/abort');
      return `${detail}; ${await probeAuthorization(ctx)}`;
    },
  },
  {
    name: 'controller-manager.abort', where: 'outside', kind: 'moment',
    what: 'abort the controller-manager object (ctx.abort: every loop and informer lost); its keep-alive alarm must start them again within 20 s (its work queues back in /metrics), and the end states must still be reached',
    async inject(ctx) {
      const detail = await hook(ctx, '/debug/controller-manager/abort');
      const from = Date.now();
      while (Date.now() - from < CONTROLLERS_BACK_MS) {
        // The manager's work queues are in /metrics while its loops run (a text page, which send does not keep).
        const text = await fetch(`${ctx.rec.url}/metrics`, { headers: { authorization: `Bearer ${ctx.rec.token}` }, signal: AbortSignal.timeout(5000) })
          .then((r) => (r.ok ? r.text() : ''), () => '');
        if (text.includes('edgeplane_workqueue_syncs_total{')) return `${detail}; loops running again after ${Date.now() - from} ms`;
        await new Promise((r) => setTimeout(r, 250));
      }
      ctx.harness.push({ check: 'Recovery', subject: 'controller-manager', message: `the control loops were not running again ${CONTROLLERS_BACK_MS / 1000} s after controller-manager.abort` });
      return `${detail}; loops not back in ${CONTROLLERS_BACK_MS} ms`;
    },
  },
  {
    name: 'replica.push.delay', where: 'outside', kind: 'moment',
    what: "hold one replica's pushes from its store for 0.3–2 s (it lags, then catches up); inside: per-push delays",
    async inject(ctx) {
      const name = encodeURIComponent(ctx.rng.pick(ctx.replicaNames));
      await hook(ctx, `/debug/replicas/${name}/pause`);
      const ms = ctx.rng.int(300, 2000);
      await new Promise((r) => setTimeout(r, ms));
      await hook(ctx, `/debug/replicas/${name}/resume`);
      return `${decodeURIComponent(name)} held ${ms} ms`;
    },
  },
  {
    name: 'watch.stall', where: 'outside', kind: 'window',
    what: 'watchers that stop reading for seconds (TCP backpressure on HTTP, no reads and no pings on WebSocket), then read again',
    vars: { WATCH_BUFFER_BYTES: '16384', WATCH_SOCKET_BUDGET_BYTES: '65536' },
  },
  {
    name: 'client.disconnect', where: 'outside', kind: 'window',
    what: 'clients that hang up mid-request-body (a write must then never happen) and mid-response (lists and watches)',
  },
  {
    name: 'log.compaction', where: 'outside', kind: 'setting',
    what: 'a short log (EVENT_RETENTION_COUNT) and watch window, so compaction races watchers resuming near its horizon (410, never a gap)',
    vars: { EVENT_RETENTION_COUNT: '250', WATCH_WINDOW_EVENTS: '100' },
  },
  // Inside the Durable Objects: armed in the ConfigMaps' store for its next 1–3 hits (throws) or its next one (aborts).
  ...([
    ['store.write.before-transaction', 'throw before a write opens its SQLite transaction (a 500, nothing changed)', 'throw'],
    ['store.write.in-transaction', 'throw inside transactionSync after everything was committed (rolled back: a 500, no event, no revision gap)', 'throw'],
    ['store.write.after-commit', 'abort after the commit, before memory, watchers, replicas and the answer (the output gate holds them: the write is lost unacknowledged)', 'abort'],
    ['store.write.after-broadcast', 'abort after the broadcast, before the answer', 'abort'],
    ['store.storage-error', 'SQLite fails (SQLITE_FULL) inside the write\'s transaction', 'throw'],
    ['store.compact.before-commit', 'abort in the middle of compaction, before it commits (needs log.compaction to be reached)', 'abort'],
    ['store.compact.after-commit', 'abort after compaction commits, before the store\'s memory knows (needs log.compaction)', 'abort'],
    ['replica.push.duplicate', 'deliver a push to a follower twice', 'throw'],
    ['replica.push.reorder', 'hold a push to a follower and deliver it after the next one', 'throw'],
    ['replica.push.drop', 'drop a push to a follower (it must notice the gap by revision and pull)', 'throw'],
    ['watch.before-send', 'hold a ConfigMap watcher\'s next frame 0.2–1.5 s, its later frames queued behind it (etcd SleepBeforeSendWatchResponse), 1–3 times', 'sleep'],
    ['watch.before-bookmark', 'hold a ConfigMap watcher\'s next bookmark 0.2–1.5 s, what follows queued behind it, 1–3 times', 'sleep'],
  ] as const).map(([name, what, action]): Failpoint => ({ name, what, where: 'inside', kind: 'moment', inject: (ctx) => armInside(ctx, name, action) })),
  {
    name: 'informer.drop-event', where: 'inside', kind: 'moment', vars: { CONTROLLER_RESYNC_SECONDS: String(RUN_RESYNC_SECONDS) },
    what: "the deployment controller loses the event of a scale on its way from the informer (whose cache still has it); the informers' resync (CONTROLLER_RESYNC_SECONDS, 10 s in runs) must converge the Deployment anyway",
    async inject(ctx) {
      if (!ctx.workloads) return 'no control loops in this run';
      const armed = await armPoint(ctx, 'informer.drop-event', '1*throw', 'apps/deployments');
      await ctx.workloads.step();
      return `${armed}; scaled app: ${await firedWithin(ctx, 'informer.drop-event', ARMED_FOR_MS)}`;
    },
  },
  {
    name: 'clock.skew', where: 'inside', kind: 'moment',
    what: "the controller manager's clock (every loop, its Leases, the simulated kubelets) jumps 5–90 s ahead or behind for 2–5 s, then back; the loops must keep their Leases and reach the end states",
    async inject(ctx) {
      const ms = ctx.rng.int(5_000, 90_000) * (ctx.rng.next() < 0.5 ? -1 : 1);
      const armed = await armPoint(ctx, 'clock.skew', `skew(${ms})`);
      await new Promise((r) => setTimeout(r, ctx.rng.int(2000, 5000)));
      return `${armed}: ${await firedWithin(ctx, 'clock.skew', 0)}`;
    },
  },
  {
    name: 'hibernation.wake', where: 'inside', kind: 'moment',
    what: "a quiet type's store and replicas, with WebSocket watchers only, left idle until workerd evicts them (hibernation: memory gone, sockets kept); the next write must wake them and reach every watcher once, in order",
    inject: (ctx) => hibernationWake(ctx),
  },
];

// workerd evicts an object that has had no event for 10 s (cloudflare/workerd#1138, the production behaviour); with
// only hibernatable WebSockets open, that is hibernation. Measured here: 12 s idle sufficed, for a store and a replica.
const HIBERNATE_IDLE_MS = 15_000;
// A namespace the run made before recording (robustness/run/run.ts): a new one would get a kube-root-ca.crt ConfigMap
// from the loops, a write the history of ConfigMaps does not know.
const HIBERNATION_NS = 'rb-setup';
const QUIET = `/api/v1/namespaces/${HIBERNATION_NS}/podtemplates`; // no loop watches PodTemplates: their objects stay idle

const podTemplate = (name: string) => ({ metadata: { name }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } } });

/**
 * hibernation.wake: WebSocket watchers of a quiet type at its store and at a replica per location; one write they
 * all get; then nothing for HIBERNATE_IDLE_MS, so workerd evicts those objects with the sockets open; then a second
 * write, which wakes them (constructor, restoreSockets): every watcher must get it, once, after the first. Whether
 * each object did hibernate is read from /metrics (watchers_at_wake) and reported; one that did not is "not reached",
 * a watcher that misses the write, gets it twice or out of order is a Hibernation violation.
 */
async function hibernationWake(ctx: FaultContext): Promise<string> {
  const listed = await send(ctx.rec, 'GET', QUIET, undefined, {}, 15_000);
  if (listed.status !== 200) return `list answered ${listed.status}`;
  const rv = (listed.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const locations = [...new Set(ctx.replicaNames.map((n) => n.split('@')[1]!.split('#')[0]!))];
  const targets = [{ name: 'store', query: 'edgeplaneLocation=store' }, ...locations.map((l) => ({ name: `${l}#0`, query: `edgeplaneLocation=${l}&edgeplaneReplica=0` }))];
  const tag = `w${Date.now().toString(36)}`;
  const watchers = await Promise.all(targets.map((t) => openNames(`${ctx.rec.url.replace(/^http/, 'ws')}${QUIET}?watch=true&resourceVersion=${rv}&${t.query}`, ctx.rec.token).then((w) => ({ ...t, ...w }))));
  try {
    const first = `${tag}-before`;
    const second = `${tag}-after`;
    await send(ctx.rec, 'POST', QUIET, podTemplate(first), {}, 15_000);
    if (!(await until(() => watchers.every((w) => w.names.includes(first)), 10_000))) return `the first write did not reach every watcher: ${watchers.map((w) => `${w.name} ${w.names.join(',') || '-'}`).join('; ')}`;
    await new Promise((r) => setTimeout(r, HIBERNATE_IDLE_MS));
    await send(ctx.rec, 'POST', QUIET, podTemplate(second), {}, 15_000);
    await until(() => watchers.every((w) => w.names.includes(second) || w.closed), 10_000);
    for (const w of watchers) {
      const seen = w.names.filter((n) => n.startsWith(tag));
      if (seen.join(',') !== `${first},${second}`) {
        ctx.harness.push({ check: 'Hibernation', subject: `podtemplates watcher at ${w.name}`, message: `after ${HIBERNATE_IDLE_MS / 1000} s idle, a watcher got ${seen.join(', ') || 'nothing'}${w.closed ? ' (its socket closed)' : ''}; it must get ${first} then ${second}, once each` });
      }
    }
    const metrics = await fetch(`${ctx.rec.url}/metrics`, { headers: { authorization: `Bearer ${ctx.rec.token}` }, signal: AbortSignal.timeout(15_000) }).then((r) => r.text(), () => '');
    const woke = metrics.split('\n').filter((l) => /^edgeplane_(store|replica)_watchers_at_wake\{resource="core\/podtemplates"/.test(l) && !l.endsWith(' 0')).length;
    return `${watchers.length} watchers; ${woke} of ${targets.length} objects ${woke ? 'woke from hibernation with their watchers' : 'hibernated: not reached'}`;
  } finally {
    for (const w of watchers) w.close();
  }
}

/** A WebSocket watch that keeps the names of the objects it is sent. */
function openNames(url: string, token: string): Promise<{ names: string[]; closed: boolean; close: () => void }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    const out = { names: [] as string[], closed: false, close: () => ws.terminate() };
    ws.on('open', () => resolve(out));
    ws.on('message', (data) => {
      for (const line of data.toString().split('\n')) {
        if (!line.trim()) continue;
        const e = JSON.parse(line) as { type: string; object?: { metadata?: { name?: string } } };
        if (e.type !== 'BOOKMARK' && e.object?.metadata?.name) out.names.push(e.object.metadata.name);
      }
    });
    ws.on('close', () => (out.closed = true));
    ws.on('error', (e) => (ws.readyState === WebSocket.CONNECTING ? reject(e) : (out.closed = true)));
  });
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

// The keep-alive alarm fires every 5 s (durable-objects/controller-manager.ts); this allows for a loaded machine.
const CONTROLLERS_BACK_MS = 20_000;

/**
 * Right after an authorizer restart, two requests decided by it (the admin impersonates non-privileged users, so
 * the shard, not the privileged-group shortcut, decides): the controller manager's own Lease, which bootstrap RBAC
 * grants it, must be allowed; a user with no bindings must be refused. Each gets a few tries while the shard reloads
 * (a 5xx or a transport error is a retry; an answer that decides wrongly is a violation).
 */
async function probeAuthorization(ctx: FaultContext): Promise<string> {
  const probes = [
    { user: 'system:kube-controller-manager', path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager', allowed: true },
    { user: 'robustness:nobody', path: '/api/v1/namespaces/rb-a/configmaps', allowed: false },
  ];
  const out: string[] = [];
  for (const p of probes) {
    let status = 0;
    for (let i = 0; i < 20; i++) {
      status = (await send(ctx.rec, 'GET', p.path, undefined, { 'impersonate-user': p.user }, 5000).catch(() => ({ status: 0 }))).status;
      if (status !== 0 && status < 500 && status !== 429) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const ok = p.allowed ? status === 200 || status === 404 : status === 403;
    out.push(`${p.user} → ${status}`);
    if (!ok) ctx.harness.push({ check: 'Authorization', subject: p.user, message: `after authorizer.abort, GET ${p.path} as ${p.user} answered ${status}; it must be ${p.allowed ? 'allowed' : 'refused (403)'}` });
  }
  return out.join(', ');
}

// How long an armed inside failpoint waits for its point to be reached before the run disarms it.
const ARMED_FOR_MS = 4000;

const failpointHits = async (ctx: FaultContext, name: string): Promise<number> =>
  ((await send(ctx.rec, 'GET', '/debug/failpoints', undefined, {}, 15_000)).json as { hits?: Record<string, number> } | undefined)?.hits?.[name] ?? 0;

/** Arms `name` with `term` (in `store`'s objects when given); answers what the gateway said. */
async function armPoint(ctx: FaultContext, name: string, term: string, store?: string): Promise<string> {
  const before = await failpointHits(ctx, name);
  const q = store ? `?store=${encodeURIComponent(store)}` : '';
  const armed = await send(ctx.rec, 'PUT', `/debug/failpoints/${name}${q}`, term, { 'content-type': 'text/plain' }, 15_000);
  hitsBefore.set(name, before);
  return `${term}${store ? ` in ${store}` : ''} → ${armed.status}`;
}
const hitsBefore = new Map<string, number>();

/** Waits up to `ms` for `name` to fire since armPoint, then disarms it; says whether it fired. */
async function firedWithin(ctx: FaultContext, name: string, ms: number): Promise<string> {
  const before = hitsBefore.get(name) ?? 0;
  const deadline = Date.now() + ms;
  let fired = (await failpointHits(ctx, name)) - before;
  while (fired === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    fired = (await failpointHits(ctx, name)) - before;
  }
  await send(ctx.rec, 'PUT', `/debug/failpoints/${name}`, 'off', { 'content-type': 'text/plain' }, 15_000);
  return fired ? `fired ${fired}×` : `not reached in ${ms} ms`;
}

/** Arms `name` in one store for a moment: until it fires (polled), or ARMED_FOR_MS, then disarms what is left. */
async function armInside(ctx: FaultContext, name: string, action: 'throw' | 'abort' | 'sleep'): Promise<string> {
  const store = ctx.rng.pick(ctx.storeTypes);
  const hits = () => failpointHits(ctx, name);
  const before = await hits();
  const term = action === 'abort' ? 'abort' : action === 'sleep' ? `${ctx.rng.int(1, 3)}*sleep(${ctx.rng.int(200, 1500)})` : `${ctx.rng.int(1, 3)}*throw`;
  const armed = await send(ctx.rec, 'PUT', `/debug/failpoints/${name}?store=${encodeURIComponent(store)}`, term, { 'content-type': 'text/plain' }, 5000);
  if (armed.status !== 200) return `arming ${term} → ${armed.status}`;
  const from = ctx.rec.now();
  const deadline = Date.now() + ARMED_FOR_MS;
  let fired = 0;
  while (Date.now() < deadline && (fired = (await hits()) - before) === 0) await new Promise((r) => setTimeout(r, 100));
  await send(ctx.rec, 'PUT', `/debug/failpoints/${name}`, 'off', { 'content-type': 'text/plain' }, 5000);
  if (fired) return `${term} in ${store}: fired ${fired}×`;
  const writes = ctx.rec.ops.filter((o) => o.type === store && o.call >= from && o.op !== 'get' && o.op !== 'list').length;
  return `${term} in ${store}: not reached in ${ARMED_FOR_MS} ms (${writes} writes sent to it meanwhile)`;
}

export function failpoint(name: string): Failpoint {
  const f = FAILPOINTS.find((x) => x.name === name);
  if (!f) throw new Error(`unknown failpoint ${JSON.stringify(name)}; known: ${FAILPOINTS.map((x) => x.name).join(', ')}`);
  return f;
}

export const OUTSIDE = FAILPOINTS.filter((f) => f.where === 'outside').map((f) => f.name);
export const INSIDE = FAILPOINTS.filter((f) => f.where === 'inside').map((f) => f.name);
/** Every failpoint a run can enable. */
export const ALL = [...OUTSIDE, ...INSIDE];

/**
 * When each enabled fault acts, from the seed: moment faults each at least once (in a long run one every ~20 s,
 * cycling through them in shuffled rounds), one per slot between a warm-up and a cool-down; window faults on for
 * about a third of each minute, in pieces of up to 20 s. Setting faults need no schedule (their vars apply to the
 * whole run).
 */
export function schedule(faults: Failpoint[], durationMs: number, rng: Rng): { moments: { at: number; f: Failpoint }[]; windows: { from: number; to: number; f: Failpoint }[] } {
  const warm = Math.min(4000, durationMs * 0.1);
  const cool = Math.min(4000, durationMs * 0.1);
  const span = durationMs - warm - cool;
  const moment = faults.filter((f) => f.kind === 'moment');
  const count = moment.length ? Math.max(moment.length, Math.floor(span / 20_000)) : 0;
  const order: Failpoint[] = [];
  while (order.length < count) {
    const round = [...moment];
    for (let i = round.length - 1; i > 0; i--) {
      const j = Math.floor(rng.next() * (i + 1));
      [round[i], round[j]] = [round[j], round[i]];
    }
    order.push(...round.slice(0, count - order.length));
  }
  const slot = span / Math.max(1, count);
  const moments = order.map((f, i) => ({ at: warm + slot * i + slot * (0.1 + 0.5 * rng.next()), f }));
  const windows: { from: number; to: number; f: Failpoint }[] = [];
  for (const f of faults.filter((x) => x.kind === 'window')) {
    for (let t = warm; t < durationMs - cool; t += 60_000) {
      const len = Math.min(20_000, span / 3);
      const from = t + rng.next() * Math.max(0, Math.min(60_000, durationMs - cool - t) - len);
      windows.push({ from, to: from + len, f });
    }
  }
  return { moments, windows };
}
