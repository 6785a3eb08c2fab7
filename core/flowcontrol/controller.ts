// Core: API Priority and Fairness for one front door (kube's apf_controller): the FlowSchemas and priority levels
// digested into matching order and one QueueSet per limited level, the server's concurrency divided among the
// levels by their nominal shares, and the counters kube exports as apiserver_flowcontrol_*. No I/O: the caller
// (worker/flowcontrol.ts) brings the objects, waits on tickets and keeps time.

import type { UserInfo } from '../rbac/authorize';
import type { RequestAttributes } from '../rbac/rules';
import {
  MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS,
  type FlowSchema, type PriorityLevelConfiguration,
} from './bootstrap';
import { classify, orderFlowSchemas } from './classify';
import { QueueSet, type RejectReason, type StartResult, type Ticket } from './queueset';
import { maxSeatsFor } from './width';

const DEFAULT_SHARES = 30; // kube's default nominalConcurrencyShares
/** Distinct (priority level, flow schema) pairs counted for /metrics; a pair past this is not counted alone. */
const MAX_SERIES = 1000;

export interface FlowControlOptions {
  /** Seats this front door serves at once, divided among the limited levels (kube's max-requests-inflight + mutating). */
  serverConcurrencyLimit: number;
  /** Requests waiting in all queues together, past which a request that would queue is rejected. */
  maxWaiting: number;
  now: () => number;
}

export interface Level {
  name: string;
  uid: string;
  exempt: boolean;
  nominalLimit: number;
  maxSeats: number;
  queues?: QueueSet;
}

export interface Placement {
  flowSchema: FlowSchema;
  level: Level;
  flow: string;
}

export type Admitted =
  | { kind: 'exempt' }
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
  readonly series = new Map<string, SeriesCounts>(); // `${priorityLevel}\u0000${flowSchema}`

  constructor(private readonly o: FlowControlOptions) {
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
    let shareSum = 0;
    for (const pl of good.values()) if (pl.spec.type === 'Limited') shareSum += shares(pl);
    const next = new Map<string, Level>();
    for (const [name, pl] of good) {
      const old = this.levels.get(name);
      const uid = pl.metadata.uid ?? '';
      if (pl.spec.type === 'Exempt') {
        next.set(name, { name, uid, exempt: true, nominalLimit: 0, maxSeats: 1 });
        continue;
      }
      const nominalLimit = Math.max(1, Math.ceil((this.o.serverConcurrencyLimit * shares(pl)) / Math.max(1, shareSum)));
      const q = pl.spec.limited?.limitResponse?.type === 'Queue' ? pl.spec.limited.limitResponse.queuing ?? {} : undefined;
      const config = {
        concurrencyLimit: nominalLimit,
        queues: q ? q.queues ?? 64 : 0,
        handSize: q ? q.handSize ?? 8 : 0,
        queueLengthLimit: q ? q.queueLengthLimit ?? 50 : 0,
      };
      let queues = old?.queues;
      if (queues) {
        for (const t of queues.configure(config)) t.onDispatch?.();
      } else queues = new QueueSet(config, this.o.now);
      next.set(name, { name, uid, exempt: false, nominalLimit, maxSeats: maxSeatsFor(nominalLimit), queues });
    }
    this.levels = next;
    const wellFormed = schemas.filter(wellFormedSchema);
    this.ordered = orderFlowSchemas(wellFormed, (name) => next.has(name));
  }

  place(user: UserInfo, attrs: RequestAttributes): Placement {
    const { flowSchema, flow } = classify(this.ordered, user, attrs);
    const level = this.levels.get(flowSchema.spec.priorityLevelConfiguration.name) ?? this.levels.get('catch-all')!;
    return { flowSchema, level, flow };
  }

  start(p: Placement, seats: number): Admitted {
    if (p.level.exempt || !p.level.queues) return { kind: 'exempt' };
    const queues = p.level.queues;
    const canWait = this.totalWaiting() < this.o.maxWaiting;
    const r: StartResult = queues.start(Math.min(seats, p.level.maxSeats), p.flow, flowHash(p.flowSchema.metadata.name, p.flow), canWait);
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

  finish(p: Placement, a: Admitted): void {
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
  const n = pl.spec.limited?.nominalConcurrencyShares;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : DEFAULT_SHARES;
};

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
