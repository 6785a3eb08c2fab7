// Front door: API Priority and Fairness, kube's WithPriorityAndFairness filter, per isolate. Each request (after
// authentication and impersonation) is placed by the FlowSchemas into a priority level and a flow
// (core/flowcontrol/controller.ts); an exempt level runs it at once, a limited one runs it within its seats, queues
// it fairly, or answers kube's 429. Every response names the FlowSchema and priority level by UID, as kube's.
//
// Where it runs: in the front-door isolate, not in a Durable Object. A request waits in this isolate's memory and
// never holds a Durable Object's input gate or a store's commit path; only what it does once dispatched reaches
// them. Locally (one workerd isolate serves every request) that is one APF for the whole gateway, as one
// kube-apiserver; deployed, each isolate fair-queues its own share of the traffic with APF_CONCURRENCY seats, as
// each of several kube-apiservers does behind a load balancer. Putting the queues in the authorizer shards
// instead would hold requests inside a Durable Object and cost a round trip per release; measured in
// bench/scenarios/apf-flood.ts.
//
// The configuration is the flowcontrol stores' objects, followed by pulling at most once per CONFIG_MAX_AGE_MS
// (as CRDs are, contract/crd-types.ts); until the first read succeeds, and if a read fails, the isolate keeps
// what it had — kube's bootstrap configuration at first.

import type { Context } from 'hono';
import { FlowController, type Admitted, type Placement } from '../core/flowcontrol/controller';
import { estimateSeats, finalSeats } from '../core/flowcontrol/width';
import { DroppedRequests } from '../core/flowcontrol/retry-after';
import { DEFAULT_LAG } from '../core/flowcontrol/load';
import type { UserInfo } from '../core/rbac/authorize';
import type { RequestAttributes } from '../core/rbac/rules';
import { statusResponse, tooManyRequests } from '../core/status';
import type { Settings } from '../core/settings';
import { StoreFollower, type FollowedStore, type FollowerSink } from '../core/follow/store-follower';
import type { ChangeRow, Snapshot } from '../core/follow/change-log';
import { followedStore } from '../contract/store-source';
import { storeStub } from '../contract/names';
import type { AppEnv, Bindings } from './env';

const CONFIG_MAX_AGE_MS = 1000;
// A request whose client went away may never run its release (workerd drops a cancelled request's continuations):
// seats held longer than kube's request timeout (60 s; watches release theirs once started), or a queue place
// held past the wait limit, are taken back at most once a second.
const MAX_HOLD_MS = 60_000;
const REAP_EVERY_MS = 1000;
const COUNT_MAX_AGE_MS = 10_000;
const MAX_COUNTED_TYPES = 1000;
const FLOW_SCHEMAS = 'flowcontrol.apiserver.k8s.io/flowschemas';
const PRIORITY_LEVELS = 'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations';
// kube's apf filter names a Retry-After that grows while a level keeps rejecting (core/flowcontrol/retry-after.ts).
const dropped = new DroppedRequests();
export const FLOW_SCHEMA_UID_HEADER = 'X-Kubernetes-PF-FlowSchema-UID';
export const PRIORITY_LEVEL_UID_HEADER = 'X-Kubernetes-PF-PriorityLevel-UID';

/** One store's objects by key, as the follower brings them. */
class Objects implements FollowerSink {
  readonly byKey = new Map<string, unknown>();
  constructor(private readonly changed: () => void) {}
  load(snapshot: Snapshot): void {
    this.byKey.clear();
    for (const item of snapshot.items) this.byKey.set(item.key, item.object);
    this.changed();
  }
  apply(row: ChangeRow): void {
    if (row.type === 'DELETED') this.byKey.delete(row.key);
    else {
      try {
        this.byKey.set(row.key, JSON.parse(row.value));
      } catch {
        this.byKey.delete(row.key); // a malformed object configures nothing
      }
    }
  }
  reached(): void {
    this.changed();
  }
}

class IsolateFlowControl {
  controller: FlowController | undefined;
  private settingsKey = '';
  private checkedAt = Number.NEGATIVE_INFINITY;
  private sources: Record<string, FollowedStore | undefined> = {};
  private readonly levels = new Objects(() => this.reconfigure());
  private readonly schemas = new Objects(() => this.reconfigure());
  private readonly followers = {
    levels: new StoreFollower(this.via(PRIORITY_LEVELS), this.levels, { shared: false }),
    schemas: new StoreFollower(this.via(FLOW_SCHEMAS), this.schemas, { shared: false }),
  };
  private readonly counts = new Map<string, { count: number; watchers: number; at: number; asking: boolean }>();
  private reapedAt = 0;
  private probingSince = Number.NEGATIVE_INFINITY;

  /**
   * Measures the event loop's lag for the capacity governor (core/flowcontrol/load.ts): how late a zero-delay timer
   * fires, set by a request as it ends (its response is made; waitUntil keeps the timer), at most one at a time.
   */
  probeLag(fc: FlowController, waitUntil: (p: Promise<unknown>) => void): void {
    const t0 = Date.now();
    if (!fc.wantsLagSample() || t0 - this.probingSince < 1000) return;
    this.probingSince = t0;
    waitUntil(new Promise((resolve) => setTimeout(resolve, 0)).then(() => {
      fc.noteLag(Date.now() - t0);
    }).finally(() => {
      this.probingSince = Number.NEGATIVE_INFINITY;
    }));
  }

  reap(fc: FlowController, now: number, waitLimitMs: number): void {
    if (now - this.reapedAt < REAP_EVERY_MS) return;
    this.reapedAt = now;
    const n = fc.reap(MAX_HOLD_MS, waitLimitMs + REAP_EVERY_MS);
    if (n) console.warn(`flow control took back ${n} seat(s) or queue place(s) of requests that never released them`);
  }

  of(settings: Settings): FlowController {
    const key = `${settings.apfConcurrency}/${settings.apfMaxWaiting}/${settings.apfLagTargetMs}`;
    if (!this.controller || key !== this.settingsKey) {
      this.settingsKey = key;
      this.controller = new FlowController({
        serverConcurrencyLimit: settings.apfConcurrency, maxWaiting: settings.apfMaxWaiting, now: () => Date.now(),
        lag: settings.apfLagTargetMs > 0 ? { ...DEFAULT_LAG, targetMs: settings.apfLagTargetMs } : false,
      });
      this.reconfigure();
    }
    return this.controller;
  }

  /** Brings the configuration up to date when older than CONFIG_MAX_AGE_MS; a failure keeps what is held. */
  async sync(env: Bindings, now: number): Promise<void> {
    if (now - this.checkedAt < CONFIG_MAX_AGE_MS) return;
    this.checkedAt = now; // one caller at a time reads; the others go on with what is held
    this.sources[PRIORITY_LEVELS] = followedStore(env, PRIORITY_LEVELS);
    this.sources[FLOW_SCHEMAS] = followedStore(env, FLOW_SCHEMAS);
    try {
      await Promise.all([this.followers.levels.refresh(), this.followers.schemas.refresh()]);
      this.reconfigure();
    } catch (e) {
      console.error('flow control configuration read failed', (e as Error)?.message);
    }
  }

  /**
   * The stored object count and watcher count of a type as last heard (refreshed in the background), for a list's
   * seats and a write's final seats. Watchers are the store's own (its replicas' are not counted).
   */
  storeCounts(env: Bindings, groupResource: string, now: number, waitUntil: (p: Promise<unknown>) => void): { count?: number; watchers?: number } {
    let entry = this.counts.get(groupResource);
    if (!entry) {
      if (this.counts.size >= MAX_COUNTED_TYPES) return {};
      this.counts.set(groupResource, (entry = { count: -1, watchers: -1, at: Number.NEGATIVE_INFINITY, asking: false }));
    }
    if (now - entry.at >= COUNT_MAX_AGE_MS && !entry.asking) {
      entry.asking = true;
      const e = entry;
      waitUntil(storeStub(env, groupResource).stats(groupResource).then((s) => {
        e.count = s.objects;
        e.watchers = s.watchers;
        e.at = Date.now();
      }, () => {
        e.at = Date.now(); // try again later
      }).finally(() => {
        e.asking = false;
      }));
    }
    return entry.count >= 0 ? { count: entry.count, watchers: entry.watchers } : {};
  }

  private via(groupResource: string): FollowedStore {
    return {
      listPage: (token) => this.sources[groupResource]!.listPage(token),
      readLog: (after) => this.sources[groupResource]!.readLog(after),
    };
  }

  /** Once both stores are held (until then, kube's bootstrap configuration stands). */
  private reconfigure(): void {
    if (!this.followers.levels.following || !this.followers.schemas.following) return;
    this.controller?.setConfig([...this.levels.byKey.values()], [...this.schemas.byKey.values()]);
  }
}

const isolate = new IsolateFlowControl();

/** The isolate's controller, for /metrics. */
export function flowController(settings: Settings): FlowController {
  return isolate.of(settings);
}

export interface FlowRequest {
  user: UserInfo;
  attrs: RequestAttributes;
  /** group/resource of a resource request, for a list's stored count. */
  groupResource?: string;
  query: URLSearchParams;
}

/** A request admitted to run: `done` releases its seats; `stamp` adds the UID headers to a response. */
export interface Running {
  done(): void;
  stamp(res: Response): Response;
}

/**
 * Classifies, then waits for seats. Answers a 429 Response (kube's body and headers) when the request is
 * rejected or waited longer than APF_WAIT_LIMIT_SECONDS, else a Running whose done() must be called.
 */
export async function enterFlowControl(c: Context<AppEnv>, r: FlowRequest): Promise<Response | Running> {
  const settings = c.get('settings');
  const fc = isolate.of(settings);
  const now = Date.now();
  await isolate.sync(c.env, now);
  isolate.reap(fc, now, settings.apfWaitLimitSeconds * 1000);
  fc.maybeUpdateBorrowing();
  const placement = fc.place(r.user, r.attrs);
  const headers = {
    [FLOW_SCHEMA_UID_HEADER]: placement.flowSchema.metadata.uid ?? '',
    [PRIORITY_LEVEL_UID_HEADER]: placement.level.uid,
  };
  const stamp = (res: Response) => withHeaders(res, headers);
  const verb = r.attrs.verb;
  const counted = r.groupResource && !placement.level.exempt
    && (verb === 'list' || (verb === 'watch' && r.query.get('sendInitialEvents') === 'true') || finalSeats(verb, Infinity))
    ? isolate.storeCounts(c.env, r.groupResource, now, (p) => waitUntil(c, p))
    : {};
  const seats = estimateSeats({ verb, name: r.attrs.name, query: r.query }, counted.count, placement.level.maxSeats);
  const admitted = fc.start(placement, seats, finalSeats(verb, counted.watchers));
  if (admitted.kind === 'rejected') return rejected(placement.level.name, headers);
  if (admitted.kind === 'queued' && !(await waitForSeats(fc, placement, admitted, settings.apfWaitLimitSeconds * 1000, c.req.raw.signal))) {
    return rejected(placement.level.name, headers);
  }
  let released = false;
  const signal = c.req.raw.signal;
  const done = () => {
    if (released) return;
    released = true;
    signal?.removeEventListener('abort', done);
    fc.finish(placement, admitted);
    isolate.probeLag(fc, (p) => waitUntil(c, p));
  };
  // The client going away ends the request: its seats go then, even if its own code never resumes.
  signal?.addEventListener('abort', done);
  return { done, stamp };
}

// How often a waiting request looks whether it was dispatched: 1 ms at first, doubling to a cap that grows with the
// requests ahead of it in its queue — 4 ms at the head, 16 ms with up to 3 ahead, else 64 ms — so the request due
// next starts at most 4 ms late while dozens of a flood's waiting requests do not keep the thread busy looking
// (measured: 60 waiting at a flat 8 ms is 7,500 wake-ups a second).
function pollCapMs(ahead: number): number {
  return ahead === 0 ? 4 : ahead <= 3 ? 16 : 64;
}

/**
 * Waits until the ticket is dispatched (true), or gives up at the wait limit or when the client goes (false).
 * The dispatch comes from another request finishing, but this request must go on in its own context: workerd runs
 * a promise's continuation in the context of whoever resolved it, so a request resumed by another's resolve did its
 * I/O "on behalf of a different request" and failed (measured: ~1,000 such errors in test/e2e/memory-bounds.test.ts
 * with 50 requests queued). So the dispatch only marks the ticket (it is 'executing') and this request's own timers
 * notice it (pollCapMs). How late each timer fires is also a sample of the event loop's lag (core/flowcontrol/load.ts).
 */
async function waitForSeats(fc: FlowController, p: Placement, a: Admitted & { kind: 'queued' }, limitMs: number, signal: AbortSignal | undefined): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  let poll: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const outcome = await new Promise<'dispatched' | 'reaped' | 'time-out' | 'cancelled'>((resolve) => {
    let every = 1;
    let due = 0;
    const look = () => {
      if (due) fc.noteLag(Math.max(0, Date.now() - due));
      fc.tick(); // final seats due back and a recovered capacity are handed on here: nothing else may run meanwhile
      if (a.ticket.state === 'executing') return resolve('dispatched');
      if (a.ticket.state !== 'waiting') return resolve('reaped'); // taken back by the sweep: it waited too long
      const left = deadline - Date.now();
      if (left <= 0) return resolve('time-out');
      const wait = Math.min(every, left);
      due = Date.now() + wait;
      poll = setTimeout(look, wait);
      every = Math.min(every * 2, pollCapMs(a.queues.ahead(a.ticket)));
    };
    look();
    if (signal) {
      onAbort = () => resolve('cancelled'); // the request's own signal: its own context
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort);
    }
  });
  clearTimeout(poll);
  if (signal && onAbort) signal.removeEventListener('abort', onAbort);
  if (outcome === 'dispatched') return true;
  if (outcome === 'reaped') return false;
  // Dispatched in the meantime (abandon finds it no longer waiting): it runs after all.
  return !fc.abandon(p, a, outcome);
}

function rejected(level: string, headers: Record<string, string>): Response {
  dropped.record(level, Math.floor(Date.now() / 1000));
  return statusResponse(tooManyRequests('Too many requests, please try again later.', dropped.retryAfter(level)), headers);
}

function waitUntil(c: Context<AppEnv>, p: Promise<unknown>): void {
  try {
    c.executionCtx.waitUntil(p);
  } catch {
    void p; // no execution context (unit tests): the promise runs on its own
  }
}

/** The response with the UID headers; a response whose headers cannot change (a Durable Object's) is copied. */
function withHeaders(res: Response, headers: Record<string, string>): Response {
  if (res.status === 101) return res; // a WebSocket upgrade is passed through as it is
  try {
    for (const [k, v] of Object.entries(headers)) res.headers.set(k, v);
    return res;
  } catch {
    const copy = new Response(res.body, res);
    for (const [k, v] of Object.entries(headers)) copy.headers.set(k, v);
    return copy;
  }
}

const label = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** kube's apiserver_flowcontrol_* series that matter, for this isolate (Prometheus text lines). */
export function flowControlMetrics(settings: Settings): string[] {
  const fc = isolate.of(settings);
  const lines: string[] = [];
  const series = [...fc.series.entries()].map(([key, s]) => {
    const [pl, fs] = key.split('\u0000') as [string, string];
    return { labels: `flow_schema="${label(fs)}",priority_level="${label(pl)}"`, s };
  });
  const family = (name: string, help: string, type: string, rows: string[]) => lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...rows);
  family('apiserver_flowcontrol_current_inqueue_requests', 'Number of requests currently pending in queues of the API Priority and Fairness subsystem', 'gauge',
    series.map(({ labels, s }) => `apiserver_flowcontrol_current_inqueue_requests{${labels}} ${s.inQueue}`));
  family('apiserver_flowcontrol_current_executing_requests', 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem', 'gauge',
    series.map(({ labels, s }) => `apiserver_flowcontrol_current_executing_requests{${labels}} ${s.executing}`));
  family('apiserver_flowcontrol_dispatched_requests_total', 'Number of requests executed by API Priority and Fairness subsystem', 'counter',
    series.map(({ labels, s }) => `apiserver_flowcontrol_dispatched_requests_total{${labels}} ${s.dispatched}`));
  family('apiserver_flowcontrol_rejected_requests_total', 'Number of requests rejected by API Priority and Fairness subsystem', 'counter',
    series.flatMap(({ labels, s }) => Object.entries(s.rejected).map(([reason, n]) => `apiserver_flowcontrol_rejected_requests_total{${labels},reason="${reason}"} ${n}`)));
  const levels = fc.priorityLevels.filter((l) => !l.exempt);
  family('apiserver_flowcontrol_current_executing_seats', 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem', 'gauge',
    levels.map((l) => `apiserver_flowcontrol_current_executing_seats{priority_level="${label(l.name)}"} ${l.queues?.stats.seatsInUse ?? 0}`));
  family('apiserver_flowcontrol_nominal_limit_seats', 'Nominal number of execution seats configured for each priority level', 'gauge',
    levels.map((l) => `apiserver_flowcontrol_nominal_limit_seats{priority_level="${label(l.name)}"} ${l.nominalLimit}`));
  family('apiserver_flowcontrol_current_limit_seats', 'current derived number of execution seats available to each priority level', 'gauge',
    levels.map((l) => `apiserver_flowcontrol_current_limit_seats{priority_level="${label(l.name)}"} ${l.currentLimit}`));
  family('apiserver_flowcontrol_lower_limit_seats', 'Configured lower bound on number of execution seats available to each priority level', 'gauge',
    levels.map((l) => `apiserver_flowcontrol_lower_limit_seats{priority_level="${label(l.name)}"} ${l.minLimit}`));
  family('apiserver_flowcontrol_upper_limit_seats', 'Configured upper bound on number of execution seats available to each priority level', 'gauge',
    levels.map((l) => `apiserver_flowcontrol_upper_limit_seats{priority_level="${label(l.name)}"} ${l.maxLimit}`));
  family('edgeplane_flowcontrol_capacity_factor', "Share of each priority level's current limit usable now: below 1 while this isolate's event loop runs late (APF_LAG_TARGET_MS)", 'gauge',
    [`edgeplane_flowcontrol_capacity_factor ${fc.capacityFactor}`]);
  return lines;
}
