// Robustness: the failpoint registry — every fault by name, off unless a run enables it, each injection drawn
// from the run's seed. Faults caused from outside the runtime are implemented here; faults inside the Durable
// Objects (a throw at each step of a write's transaction, storage errors, duplicated or reordered replica pushes,
// clock skew, …) have their names reserved now, so that when the objects grow hooks the same name switches the
// same fault on (see robustness/README.md for the planned mechanism), and runs, docs and CI flags keep their names.

import { readdirSync, readFileSync } from 'node:fs';
import type { Gateway } from '../../scripts/gateway';
import { send, type Recorder } from './recorder';
import type { Rng } from './rng';

export interface FaultContext {
  rec: Recorder;
  gateway: Gateway;
  rng: Rng;
  replicaNames: string[]; // e.g. core/configmaps@enam#0
  storeTypes: string[]; // e.g. core/configmaps
}

export interface Failpoint {
  name: string;
  where: 'outside' | 'inside'; // inside: reserved, needs hooks in the Durable Objects
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
    vars: { EVENT_RETENTION_COUNT: '400', WATCH_WINDOW_EVENTS: '100' },
  },
  // Reserved: inside the Durable Objects, behind `PUT /debug/failpoints/<name>` (see the README).
  ...([
    ['store.write.before-transaction', 'throw before a write opens its SQLite transaction'],
    ['store.write.in-transaction', 'throw inside transactionSync (rolls back): a Status, no event, no revision gap'],
    ['store.write.after-commit', 'abort after the commit, before the answer and the broadcast'],
    ['store.write.after-broadcast', 'abort after the broadcast, before the answer'],
    ['store.storage-error', 'SQLite errors (row over 2 MB, too many bound parameters) on the write path'],
    ['store.compact.before-commit', 'abort in the middle of compaction, before it commits'],
    ['store.compact.after-commit', 'abort after compaction commits'],
    ['replica.push.duplicate', 'deliver a push to a replica twice'],
    ['replica.push.reorder', 'deliver two pushes to a replica swapped'],
    ['replica.push.drop', 'drop a push to a replica (it must notice the gap by revision and pull)'],
    ['authorizer.abort', 'abort an authorizer shard'],
    ['controller-manager.abort', 'abort the controller-manager object'],
    ['hibernation.wake', 'evict in-memory state as hibernation does; the constructor runs again on the next event'],
    ['watch.before-send', 'sleep before a watch event is sent (etcd SleepBeforeSendWatchResponse)'],
    ['watch.before-bookmark', 'sleep before a bookmark is sent'],
    ['clock.skew', 'skew the clock leases and token expiry read'],
    ['informer.drop-event', 'drop one event on its way to a controller (resync must converge anyway)'],
  ] as const).map(([name, what]): Failpoint => ({ name, what, where: 'inside', kind: 'moment' })),
];

export function failpoint(name: string): Failpoint {
  const f = FAILPOINTS.find((x) => x.name === name);
  if (!f) throw new Error(`unknown failpoint ${JSON.stringify(name)}; known: ${FAILPOINTS.map((x) => x.name).join(', ')}`);
  if (f.where === 'inside') throw new Error(`failpoint ${name} is reserved: it needs hooks inside the Durable Objects`);
  return f;
}

export const OUTSIDE = FAILPOINTS.filter((f) => f.where === 'outside').map((f) => f.name);

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
