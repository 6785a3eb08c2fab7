// Scheduler: kube-scheduler's scheduling queue (pkg/scheduler/backend/queue/scheduling_queue.go). Every pod
// waiting to be placed is in exactly one of:
//   - activeQ: ready to be tried;
//   - backoffQ: tried and failed, waiting out its backoff (1 s doubling per attempt to 10 s) before activeQ;
//   - the unschedulable pool: rejected by some plugins, and not tried again until a cluster event those plugins
//     say may help (queueing-hints.ts) moves it, or it has waited podMaxInUnschedulablePodsDuration (5 min;
//     checked every 30 s, flushUnschedulablePodsLeftover);
// or in flight (popped, its cycle running). A pod that failed without any plugin rejecting it (an API error)
// goes to backoffQ.
//
// One difference from kube, for many tenants on one small cluster: kube's activeQ is a heap ordered by
// priority, then arrival; here there are no PriorityClasses (every pod has priority 0) and activeQ takes turns
// between namespaces (first in, first out within one), so a namespace that queues 1,500 pods delays another
// namespace's pod by one cycle, not by 1,500.

import type { KubeObject } from '../../client/types';
import type { Clock } from '../clock';
import { FairFifo } from '../fair-fifo';
import type { QueueStats } from '../workqueue';
import { isPodUpdated, worthRequeuing, type ClusterEvent, type RejectorPlugin } from './queueing-hints';

export const INITIAL_BACKOFF_MS = 1_000; // DefaultPodInitialBackoffDuration
export const MAX_BACKOFF_MS = 10_000; // DefaultPodMaxBackoffDuration
export const MAX_IN_UNSCHEDULABLE_MS = 5 * 60_000; // DefaultPodMaxInUnschedulablePodsDuration
export const UNSCHEDULABLE_FLUSH_MS = 30_000; // flushUnschedulablePodsLeftover's period

export interface QueuedPodInfo {
  key: string;
  namespace: string;
  pod: KubeObject; // the newest version seen
  timestamp: number; // when it was added, or last failed
  attempts: number; // scheduling cycles run for it
  unschedulablePlugins: Set<RejectorPlugin>;
}

type Where = 'new' | 'active' | 'backoff' | 'unschedulable' | 'inflight';

interface Entry {
  info: QueuedPodInfo;
  where: Where;
  seq: number; // which activeQ insertion is current (older ones are skipped when popped)
  timer?: unknown; // the backoff timer
  updatedInFlight?: boolean;
  // Cluster events seen while the pod was in flight (kube's inFlightEvents): a pod that comes back unschedulable
  // is parked only if none of them may help it. Bounded: past MAX_IN_FLIGHT_EVENTS it is simply retried.
  eventsInFlight?: ClusterEvent[];
  eventsInFlightOverflow?: boolean;
}

const MAX_IN_FLIGHT_EVENTS = 64;

/** calculateBackoffDuration: 1 s · 2^(attempts − 1), at most 10 s. */
export function backoffDuration(attempts: number): number {
  if (attempts <= 0) return 0;
  return Math.min(MAX_BACKOFF_MS, INITIAL_BACKOFF_MS * 2 ** Math.min(attempts - 1, 30));
}

export class SchedulingQueue {
  private readonly entries = new Map<string, Entry>();
  // activeQ: [key, seq] per namespace, namespaces taking turns (fair-fifo.ts).
  private readonly active = new FairFifo<[string, number]>();
  // Insertion order is the order pods were parked in, so the 5-minute flush stops at the first young one.
  private readonly unschedulable = new Map<string, Entry>();
  private readonly inFlight = new Set<Entry>();
  private readonly waiters: ((info: QueuedPodInfo | undefined) => void)[] = [];
  private leftoverTimer: unknown;
  private closed = false;
  private seq = 0;
  private readonly counts: Record<Where, number> = { new: 0, active: 0, backoff: 0, unschedulable: 0, inflight: 0 };
  private adds = 0;
  private pops = 0;
  private failures = 0;

  constructor(private readonly clock: Clock) {}

  /** A new pod to place (Add), or one seen again that is not queued (Update of a pod in no queue). */
  add(key: string, pod: KubeObject): void {
    if (this.closed) return;
    const e = this.entries.get(key);
    if (e) return this.update(key, e.info.pod, pod);
    const info: QueuedPodInfo = { key, namespace: pod.metadata.namespace ?? '', pod, timestamp: this.clock.now(), attempts: 0, unschedulablePlugins: new Set() };
    const entry: Entry = { info, where: 'new', seq: 0 };
    this.entries.set(key, entry);
    this.adds++;
    this.toActive(entry);
  }

  /** Update: the newest pod object; a parked pod whose spec or metadata changed is tried again. */
  update(key: string, old: KubeObject, pod: KubeObject): void {
    const e = this.entries.get(key);
    if (!e) return this.add(key, pod);
    e.info.pod = pod;
    if (e.where === 'inflight') e.updatedInFlight ||= isPodUpdated(old, pod);
    else if (e.where === 'unschedulable' && isPodUpdated(old, pod)) this.requeue(e);
  }

  /** Delete: the pod is gone, bound, or finished. */
  delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.unschedulable.delete(key);
    this.inFlight.delete(e);
    if (e.timer !== undefined) this.clock.clearTimeout(e.timer);
    this.counts[e.where]--; // an activeQ slot it held is skipped when reached
  }

  /** The next pod to schedule, namespaces taking turns; undefined once shut down. Call done(key) after its cycle. */
  pop(): Promise<QueuedPodInfo | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const info = this.tryPop();
    if (info) return Promise.resolve(info);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** pop() without waiting: undefined when activeQ is empty. */
  tryPop(): QueuedPodInfo | undefined {
    while (this.counts.active > 0) {
      const [key, seq] = this.active.shift()!;
      const e = this.entries.get(key);
      if (!e || e.where !== 'active' || e.seq !== seq) continue; // deleted or moved since
      return this.handOut(e);
    }
    return undefined;
  }

  /** The cycle of a popped pod ended and it was not put back (scheduled, or gone): forget it. */
  done(key: string): void {
    const e = this.entries.get(key);
    if (e?.where === 'inflight') {
      this.entries.delete(key);
      this.inFlight.delete(e);
      this.counts.inflight--;
    }
  }

  /**
   * AddUnschedulableIfNotPresent: the popped pod found no node. Rejected by plugins, it is parked — unless it
   * changed while being tried, which may be what helps (then it backs off); rejected by none (an error), it
   * backs off.
   */
  addUnschedulable(key: string, plugins: Set<RejectorPlugin>): void {
    const e = this.entries.get(key);
    if (!e || e.where !== 'inflight') return;
    e.info.timestamp = this.clock.now();
    e.info.unschedulablePlugins = plugins;
    this.failures++;
    const missed = e.eventsInFlightOverflow || (e.eventsInFlight ?? []).some((ev) => worthRequeuing(plugins, e.info.pod, ev));
    e.eventsInFlight = undefined;
    e.eventsInFlightOverflow = false;
    // An event that may help it came while it was being tried: it would never be moved again, so back off.
    if (plugins.size === 0 || e.updatedInFlight || missed) return this.toBackoff(e);
    this.place(e, 'unschedulable');
    this.unschedulable.set(key, e);
    this.scheduleLeftoverFlush();
  }

  /** MoveAllToActiveOrBackoffQueue: the parked pods whose rejecting plugins say `event` may help go back. */
  moveAll(event: ClusterEvent): number {
    for (const e of this.inFlight) {
      if (e.eventsInFlightOverflow) continue;
      if ((e.eventsInFlight ??= []).length >= MAX_IN_FLIGHT_EVENTS) {
        e.eventsInFlight = undefined;
        e.eventsInFlightOverflow = true;
      } else e.eventsInFlight.push(event);
    }
    let moved = 0;
    for (const e of this.unschedulable.values()) { // requeue() deletes the current entry only: safe while iterating
      if (worthRequeuing(e.info.unschedulablePlugins, e.info.pod, event)) {
        this.requeue(e);
        moved++;
      }
    }
    return moved;
  }

  /** Pods per queue (tests, status). */
  sizes(): { active: number; backoff: number; unschedulable: number; inFlight: number } {
    return { active: this.counts.active, backoff: this.counts.backoff, unschedulable: this.counts.unschedulable, inFlight: this.counts.inflight };
  }

  /** The work-queue figures the controller manager reports per loop (activeQ is the depth; parked and backing off are delayed). */
  stats(): QueueStats {
    return {
      depth: this.counts.active, delayed: this.counts.backoff + this.counts.unschedulable, processing: this.counts.inflight,
      adds: this.adds, syncs: this.pops, failures: this.failures, hotDelays: 0, hotKeys: 0, budgetWaits: 0, syncMs: 0, maxSyncMs: 0,
    };
  }

  len(): number {
    return this.counts.active;
  }

  shutDown(): void {
    this.closed = true;
    for (const e of this.entries.values()) if (e.timer !== undefined) this.clock.clearTimeout(e.timer);
    this.clock.clearTimeout(this.leftoverTimer);
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  /** requeuePodWithQueueingStrategy (queueAfterBackoff): backoffQ while backing off, else activeQ. */
  private requeue(e: Entry): void {
    this.unschedulable.delete(e.info.key);
    if (e.info.timestamp + backoffDuration(e.info.attempts) > this.clock.now()) this.toBackoff(e);
    else this.toActive(e);
  }

  private toBackoff(e: Entry): void {
    this.unschedulable.delete(e.info.key);
    this.place(e, 'backoff');
    const wait = Math.max(0, e.info.timestamp + backoffDuration(e.info.attempts) - this.clock.now());
    e.timer = this.clock.setTimeout(() => {
      e.timer = undefined;
      if (this.entries.get(e.info.key) === e && e.where === 'backoff') this.toActive(e); // flushBackoffQCompleted
    }, wait);
  }

  private toActive(e: Entry): void {
    if (e.timer !== undefined) {
      this.clock.clearTimeout(e.timer);
      e.timer = undefined;
    }
    this.unschedulable.delete(e.info.key);
    this.place(e, 'active');
    e.seq = ++this.seq;
    const waiter = this.waiters.shift();
    if (waiter) return waiter(this.handOut(e));
    this.active.push(e.info.namespace, [e.info.key, e.seq]);
  }

  private place(e: Entry, where: Where): void {
    if (where === 'inflight') this.inFlight.add(e);
    else this.inFlight.delete(e);
    this.counts[e.where]--;
    this.counts[where]++;
    e.where = where;
  }

  /** Pop: the pod goes in flight for one more attempt. */
  private handOut(e: Entry): QueuedPodInfo {
    this.place(e, 'inflight');
    this.pops++;
    e.updatedInFlight = false;
    e.eventsInFlight = undefined;
    e.eventsInFlightOverflow = false;
    e.info.attempts++;
    return e.info;
  }

  // flushUnschedulablePodsLeftover: every 30 s while anything is parked, pods parked for over 5 minutes go back.
  private scheduleLeftoverFlush(): void {
    if (this.leftoverTimer !== undefined || this.closed) return;
    this.leftoverTimer = this.clock.setTimeout(() => {
      this.leftoverTimer = undefined;
      const now = this.clock.now();
      for (const e of this.unschedulable.values()) {
        if (now - e.info.timestamp <= MAX_IN_UNSCHEDULABLE_MS) break; // parked in order: the rest are younger
        this.requeue(e);
      }
      if (this.unschedulable.size) this.scheduleLeftoverFlush();
    }, UNSCHEDULABLE_FLUSH_MS);
  }
}
