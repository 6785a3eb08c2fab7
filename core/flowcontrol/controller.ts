// Core: API Priority and Fairness for one front door (kube's apf_controller): the FlowSchemas and priority levels
// digested into matching order and one QueueSet per limited level, the server's concurrency divided among the
// levels by their nominal shares and re-divided every 10 s by their seat demand (borrowing, core/flowcontrol/
// borrowing.ts), and the counters kube exports as apiserver_flowcontrol_*. No I/O: the caller
// (worker/flowcontrol.ts) brings the objects, waits on tickets and keeps time.

import type { UserInfo } from '../rbac/authorize';
import type { RequestAttributes } from '../rbac/rules';
import {
  MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS,
  type FlowSchema, type PriorityLevelConfiguration,
} from './bootstrap';
import { classify, orderFlowSchemas } from './classify';
import { QueueSet, type QueueSetConfig, type RejectReason, type StartResult, type Ticket } from './queueset';
import { maxSeatsFor } from './width';
import { allocateConcurrency, BORROWING_PERIOD_MS, noDemand, SeatDemand, updateDemandStats, type DemandStats } from './borrowing';
import { LagGovernor, type LagGovernorOptions } from './load';

const DEFAULT_SHARES = 30; // kube's default nominalConcurrencyShares
const EARLY_BORROWING_MS = 500;
/** Distinct (priority level, flow schema) pairs counted for /metrics; a pair past this is not counted alone. */
const MAX_SERIES = 1000;

export interface FlowControlOptions {
  /** Seats this front door serves at once, divided among the limited levels (kube's max-requests-inflight + mutating). */
  serverConcurrencyLimit: number;
  /** Requests waiting in all queues together, past which a request that would queue is rejected. */
  maxWaiting: number;
  now: () => number;
  /** The event-loop lag governor's tuning (core/flowcontrol/load.ts); `false`: every seat usable always. */
  lag?: LagGovernorOptions | false;
}

export interface Level {
  name: string;
  uid: string;
  exempt: boolean;
  /** kube's nominalCL: the server's seats × this level's shares / all levels' shares, rounded up. */
  nominalLimit: number;
  /** nominal − lendable (lendablePercent) and nominal + borrowable (borrowingLimitPercent; unset: the server's seats). */
  minLimit: number;
  maxLimit: number;
  /** The limit in force: re-divided from the levels' seat demand every BORROWING_PERIOD_MS. */
  currentLimit: number;
  maxSeats: number;
  queues?: QueueSet;
  queueConfig?: QueueSetConfig;
  demand: SeatDemand;
  demandStats: DemandStats;
  /** Seats of the exempt level's requests now running (they are never limited, but their demand is lent to them). */
  exemptSeats: number;
}

export interface Placement {
  flowSchema: FlowSchema;
  level: Level;
  flow: string;
}

export type Admitted =
  | { kind: 'exempt'; seats: number }
  | { kind: 'executing'; ticket: Ticket; queues: QueueSet }
  | { kind: 'queued'; ticket: Ticket; queues: QueueSet }
  | { kind: 'rejected'; reason: RejectReason };

export interface SeriesCounts {
  inQueue: number;
  executing: number;
  dispatched: number;
  rejected: Partial<Record<RejectReason, number>>;
}

export class FlowController {
  private ordered: FlowSchema[] = [];
  private levels = new Map<string, Level>();
  private nominalSum = 0;
  private borrowedAt: number;
  private readonly governor: LagGovernor | undefined;
  private appliedFactor = 1;
  private readonly reconfigure = new Set<Level>();
  readonly series = new Map<string, SeriesCounts>(); // `${priorityLevel}\u0000${flowSchema}`

  constructor(private readonly o: FlowControlOptions) {
    this.borrowedAt = o.now();
    if (o.lag !== false) this.governor = new LagGovernor(o.serverConcurrencyLimit, o.now, o.lag);
    this.setConfig([...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS], [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS]);
  }

  get priorityLevels(): readonly Level[] {
    return [...this.levels.values()];
  }

  /** kube's lockAndDigestConfigObjects: broken objects are ignored; missing mandatory levels are imagined. */
  setConfig(levels: readonly unknown[], schemas: readonly unknown[]): void {
    const good = new Map<string, PriorityLevelConfiguration>();
    for (const pl of levels) if (wellFormedLevel(pl)) good.set(pl.metadata.name, pl);
    for (const m of MANDATORY_PRIORITY_LEVELS) if (!good.has(m.metadata.name)) good.set(m.metadata.name, m);
    // kube's finishQueueSetReconfigsLocked: the exempt level's shares count too (0 unless an operator set them).
    let shareSum = 0;
    for (const pl of good.values()) shareSum += shares(pl);
    const server = this.o.serverConcurrencyLimit;
    const next = new Map<string, Level>();
    this.nominalSum = 0;
    for (const [name, pl] of good) {
      const old = this.levels.get(name);
      const uid = pl.metadata.uid ?? '';
      const exempt = pl.spec.type === 'Exempt';
      const common = exempt ? pl.spec.exempt : pl.spec.limited;
      const nominalLimit = shareSum > 0 ? Math.ceil((server * shares(pl)) / shareSum) : 0;
      const lendable = Math.round((nominalLimit * percent(common?.lendablePercent)) / 100);
      const borrowLimit = exempt ? undefined : pl.spec.limited?.borrowingLimitPercent;
      const borrowable = typeof borrowLimit === 'number' && Number.isFinite(borrowLimit) && borrowLimit >= 0 ? Math.round((nominalLimit * borrowLimit) / 100) : server;
      const demand = old?.demand ?? new SeatDemand(this.o.now);
      const level: Level = {
        name, uid, exempt, nominalLimit, minLimit: nominalLimit - lendable, maxLimit: nominalLimit + borrowable,
        // kube: a new level starts halfway between its nominal limit and what it cannot lend.
        currentLimit: old ? old.currentLimit : nominalLimit - Math.floor(lendable / 2),
        maxSeats: 1, demand, demandStats: old?.demandStats ?? noDemand(), exemptSeats: old?.exemptSeats ?? 0,
      };
      this.nominalSum += nominalLimit;
      if (!exempt) {
        const q = pl.spec.limited?.limitResponse?.type === 'Queue' ? pl.spec.limited.limitResponse.queuing ?? {} : undefined;
        level.queueConfig = {
          concurrencyLimit: level.currentLimit,
          queues: q ? q.queues ?? 64 : 0,
          handSize: q ? q.handSize ?? 8 : 0,
          queueLengthLimit: q ? q.queueLengthLimit ?? 50 : 0,
        };
        level.queues = old?.queues ?? new QueueSet(level.queueConfig, this.o.now, (seats) => demand.set(seats));
        if (old?.queues) this.reconfigure.add(level); // its queuing values may have changed: applyLimits passes them on
        level.maxSeats = maxSeatsFor(nominalLimit, q ? level.queueConfig.handSize : 0);
      }
      next.set(name, level);
    }
    this.levels = next;
    const wellFormed = schemas.filter(wellFormedSchema);
    this.ordered = orderFlowSchemas(wellFormed, (name) => next.has(name));
    this.updateBorrowing();
  }

  /**
   * Re-divides the seats when BORROWING_PERIOD_MS passed since the last time (kube's periodic updateBorrowing) —
   * or EARLY_BORROWING_MS (0.5 s), when a level has requests waiting below what it may borrow up to while the
   * thread has room (capacity factor 1). kube waits the whole period; here a level lending most of its seats while
   * idle (workload-low lends 90%) would otherwise leave a tenant's requests queued for up to 10 s behind another's
   * stuck on a hanging webhook (measured: the victim of test/e2e/admission-webhooks.test.ts timed out). While the
   * thread is saturated more seats would not help, and re-dividing early measured worse for a flood's victim.
   */
  maybeUpdateBorrowing(): void {
    const since = this.o.now() - this.borrowedAt;
    if (since >= BORROWING_PERIOD_MS) this.updateBorrowing();
    else if (since >= EARLY_BORROWING_MS && (this.governor?.factor ?? 1) === 1 && this.levelWaitsBelowItsMax()) this.updateBorrowing();
  }

  private levelWaitsBelowItsMax(): boolean {
    for (const l of this.levels.values()) if (l.queues && l.queues.stats.waiting > 0 && l.currentLimit < l.maxLimit) return true;
    return false;
  }

  /**
   * kube's updateBorrowingLocked: each level's demand over the period just ended sets its bounds — at least what it
   * cannot lend or, if less, its peak demand (capped at nominal), at most nominal + borrowable — and its target (its
   * smoothed demand); the levels' nominal limits are shared out accordingly. Linear in the levels, plus a sort.
   */
  updateBorrowing(): void {
    this.borrowedAt = this.o.now();
    const levels = [...this.levels.values()];
    const items = levels.map((l) => {
      updateDemandStats(l.demandStats, l.demand.reset());
      const lower = Math.max(l.minLimit, Math.min(l.nominalLimit, l.demandStats.highWatermark));
      return { lower, upper: l.maxLimit, target: Math.max(lower, l.demandStats.smoothed) };
    });
    const allocs = allocateConcurrency(this.nominalSum, items);
    levels.forEach((l, i) => {
      if (allocs) l.currentLimit = Math.round(allocs[i]!);
    });
    this.applyLimits();
  }

  /** An event-loop lag sample (worker/flowcontrol.ts measures one as requests end); see core/flowcontrol/load.ts. */
  noteLag(ms: number): void {
    if (this.governor?.sample(ms)) this.refreshCapacity();
  }

  /** Whether the lag governor wants a sample now. */
  wantsLagSample(): boolean {
    return !!this.governor && this.governor.wantsSample();
  }

  /** The share of every limited level's current limit in force (1 when the isolate is not saturated). */
  get capacityFactor(): number {
    return this.appliedFactor;
  }

  /** Applies the governor's factor when it moved by more than 5% (or back to 1). O(levels). */
  refreshCapacity(): void {
    const f = this.governor?.factor ?? 1;
    if (f === this.appliedFactor || (f !== 1 && Math.abs(f - this.appliedFactor) <= 0.05 * this.appliedFactor)) return;
    this.applyLimits();
  }

  /**
   * Each limited level's queues get its current limit, and as their active limit (requests started in the last
   * quarter second, queueset PARKED_AFTER_MS) that limit scaled by the capacity factor (at least one seat).
   */
  private applyLimits(): void {
    const f = this.governor?.factor ?? 1;
    this.appliedFactor = f;
    for (const l of this.levels.values()) {
      if (!l.queues || !l.queueConfig) continue;
      if (l.currentLimit !== l.queues.limit || this.reconfigure.has(l)) {
        l.queueConfig = { ...l.queueConfig, concurrencyLimit: l.currentLimit };
        for (const t of l.queues.configure(l.queueConfig)) t.onDispatch?.();
      }
      const active = f < 1 ? Math.max(1, Math.round(l.currentLimit * f)) : Infinity;
      for (const t of l.queues.setActiveLimit(active)) t.onDispatch?.();
    }
    this.reconfigure.clear();
  }

  place(user: UserInfo, attrs: RequestAttributes): Placement {
    const { flowSchema, flow } = classify(this.ordered, user, attrs);
    const level = this.levels.get(flowSchema.spec.priorityLevelConfiguration.name) ?? this.levels.get('catch-all')!;
    return { flowSchema, level, flow };
  }

  /** `final`: a mutating request's seats held after it finishes, for the watchers it notifies (core/flowcontrol/width.ts). */
  start(p: Placement, seats: number, final?: { seats: number; ms: number }): Admitted {
    if (p.level.exempt || !p.level.queues) {
      p.level.exemptSeats += 1;
      p.level.demand.set(p.level.exemptSeats);
      return { kind: 'exempt', seats: 1 };
    }
    this.refreshCapacity();
    const queues = p.level.queues;
    const canWait = this.totalWaiting() < this.o.maxWaiting;
    const max = p.level.maxSeats;
    const finalSeats = final ? { seats: Math.min(final.seats, max), ms: final.ms } : undefined;
    const r: StartResult = queues.start(Math.min(seats, max), p.flow, flowHash(p.flowSchema.metadata.name, p.flow), canWait, finalSeats);
    const s = this.counts(p);
    if (r.kind !== 'rejected') r.ticket.meta = s;
    if (r.kind === 'rejected') {
      if (s) s.rejected[r.reason] = (s.rejected[r.reason] ?? 0) + 1;
      return r;
    }
    if (s) {
      if (r.kind === 'executing') {
        s.executing++;
        s.dispatched++;
      } else s.inQueue++;
    }
    if (r.kind === 'queued') {
      const ticket = r.ticket;
      // The waiting request sees its ticket 'executing' on its own timers (worker/flowcontrol.ts waitForSeats).
      ticket.onDispatch = () => this.dispatched(p);
    }
    return { ...r, queues };
  }

  private dispatched(p: Placement): void {
    const s = this.counts(p);
    if (!s) return;
    s.inQueue--;
    s.executing++;
    s.dispatched++;
  }

  /** Ends what start admitted; call once. */
  finish(p: Placement, a: Admitted): void {
    if (a.kind === 'exempt') {
      p.level.exemptSeats = Math.max(0, p.level.exemptSeats - a.seats);
      p.level.demand.set(p.level.exemptSeats);
      return;
    }
    if (a.kind !== 'executing' && a.kind !== 'queued') return;
    if (a.ticket.state !== 'executing') return;
    a.queues.finish(a.ticket);
    const s = this.counts(p);
    if (s) s.executing--;
  }

  /** A waiting request gave up; true if it was still waiting (then it counts as rejected for `reason`). */
  abandon(p: Placement, a: Admitted, reason: RejectReason): boolean {
    if (a.kind !== 'queued' || !a.queues.remove(a.ticket)) return false;
    const s = this.counts(p);
    if (s) {
      s.inQueue--;
      s.rejected[reason] = (s.rejected[reason] ?? 0) + 1;
    }
    return true;
  }

  /**
   * Frees what cancelled requests left behind (QueueSet.reap): seats held past `maxRunMs`, places in a queue
   * past `maxWaitMs`. Returns how many.
   */
  reap(maxRunMs: number, maxWaitMs: number): number {
    let n = 0;
    for (const l of this.levels.values()) {
      if (!l.queues) continue;
      const { ran, waited } = l.queues.reap(maxRunMs, maxWaitMs);
      for (const t of ran) if (t.meta) (t.meta as SeriesCounts).executing--;
      for (const t of waited) {
        if (!t.meta) continue;
        const s = t.meta as SeriesCounts;
        s.inQueue--;
        s.rejected['time-out'] = (s.rejected['time-out'] ?? 0) + 1;
      }
      n += ran.length + waited.length;
    }
    return n;
  }

  /** Hands back final seats that are due and applies the capacity factor (a waiting request calls this as it waits). */
  tick(): void {
    this.maybeUpdateBorrowing();
    this.refreshCapacity();
    for (const l of this.levels.values()) {
      l.queues?.expireFinals();
      l.queues?.poke();
    }
  }

  totalWaiting(): number {
    let n = 0;
    for (const l of this.levels.values()) n += l.queues?.stats.waiting ?? 0;
    return n;
  }

  private counts(p: Placement): SeriesCounts | undefined {
    const key = `${p.level.name}\u0000${p.flowSchema.metadata.name}`;
    let s = this.series.get(key);
    if (!s && this.series.size < MAX_SERIES) this.series.set(key, (s = { inQueue: 0, executing: 0, dispatched: 0, rejected: {} }));
    return s;
  }
}

const shares = (pl: PriorityLevelConfiguration) => {
  const n = pl.spec.type === 'Exempt' ? pl.spec.exempt?.nominalConcurrencyShares ?? 0 : pl.spec.limited?.nominalConcurrencyShares;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : DEFAULT_SHARES;
};
/** A lendablePercent (0–100; kube's default 0). */
const percent = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.min(100, v)) : 0);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const positiveInt = (v: unknown) => v === undefined || (typeof v === 'number' && Number.isInteger(v) && v > 0);

/** kube's queueSetCompleterForPL checks: the union is consistent, exempt only by name, queuing values sane. */
function wellFormedLevel(v: unknown): v is PriorityLevelConfiguration {
  if (!isRecord(v) || !isRecord(v.metadata) || typeof v.metadata.name !== 'string' || !isRecord(v.spec)) return false;
  const spec = v.spec as Record<string, unknown>;
  const exempt = spec.type === 'Exempt';
  if (exempt !== (v.metadata.name === 'exempt')) return false;
  if (exempt) return true;
  if (spec.type !== 'Limited' || !isRecord(spec.limited)) return false;
  const lr = spec.limited.limitResponse;
  if (lr === undefined) return true;
  if (!isRecord(lr)) return false;
  if (lr.type === 'Reject') return lr.queuing === undefined;
  if (lr.type !== 'Queue' || !isRecord(lr.queuing)) return false;
  const q = lr.queuing;
  return positiveInt(q.queues) && positiveInt(q.handSize) && positiveInt(q.queueLengthLimit)
    && (q.handSize === undefined || q.queues === undefined || (q.handSize as number) <= (q.queues as number));
}

function wellFormedSchema(v: unknown): v is FlowSchema {
  if (!isRecord(v) || !isRecord(v.metadata) || typeof v.metadata.name !== 'string' || !isRecord(v.spec)) return false;
  const pl = v.spec.priorityLevelConfiguration;
  if (!isRecord(pl) || typeof pl.name !== 'string') return false;
  if (v.spec.rules !== undefined && !Array.isArray(v.spec.rules)) return false;
  return (v.spec.rules as unknown[] | undefined ?? []).every((r) => isRecord(r) && Array.isArray(r.subjects)
    && (r.resourceRules === undefined || Array.isArray(r.resourceRules)) && (r.nonResourceRules === undefined || Array.isArray(r.nonResourceRules)));
}

/** A 53-bit hash of the flow (kube hashes the schema name and distinguisher with SHA-256 and takes 64 bits). */
export function flowHash(schema: string, flow: string): number {
  const s = `${schema}\u0000${flow}`;
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
