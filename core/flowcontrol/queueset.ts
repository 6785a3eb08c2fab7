// Core: one priority level's fair queuing — kube's queueset (apiserver/pkg/util/flowcontrol/fairqueuing/queueset) —
// with the clock injected. A request asks for `seats`; it runs at once while the level's seats in use plus its own
// fit the concurrency limit, else it waits in one of the queues of its flow's shuffle-sharded hand (the shortest),
// or is rejected when that queue is full ('queue-full') or the level rejects instead of queuing
// ('concurrency-limit'). Seats freed go to the queue whose head would finish first in virtual time (fair queuing
// by virtual finish time), so one flow flooding its queues cannot delay another's by more than its share. Queues
// exist only while they hold or run requests, and the waiting requests of every level together are bounded by the
// caller (`maxWaiting`), so a configuration naming millions of queues or an unbounded queue length costs nothing.

/**
 * Virtual time counts seat-seconds. A request is charged its seats times the level's estimated service time at
 * dispatch (so the work in flight counts against its flow at once) and corrected to what it used at its end; the
 * estimate follows the level's actual service times (a moving average, starting here).
 */
export const ESTIMATED_SERVICE_SECONDS = 0.01;
const ESTIMATE_WEIGHT = 0.1;
/** Hand sizes past this add no spread worth the work of dealing (kube's validation bounds it by entropy, ≤ 60 bits). */
const MAX_HAND = 32;

export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

export interface QueueSetConfig {
  /** Seats this level may use at once (≥ 1). */
  concurrencyLimit: number;
  /** 0 for a level that rejects instead of queuing. */
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

export interface Ticket {
  readonly seats: number;
  /**
   * kube's work estimate for a mutating request: after it finishes it keeps `finalSeats` for `finalMs` (the work
   * of notifying its watchers); 0 for none. As kube's, it holds max(seats, finalSeats) from its start to then.
   */
  readonly finalSeats: number;
  readonly finalMs: number;
  readonly flow: string;
  state: 'waiting' | 'executing' | 'final' | 'done';
  queue: number;
  enqueuedAt: number;
  startedAt: number;
  charged: number; // virtual work charged at dispatch
  finalUntil: number;
  seq: number; // its place among those its queue ever held
  parked: boolean; // running longer than PARKED_AFTER_MS (and 20× the level's service time): outside the active limit
  /** Called (once) when a waiting request is dispatched. */
  onDispatch?: () => void;
  /** The caller's own bookkeeping (the controller's counters). */
  meta?: unknown;
}

interface Queue {
  index: number;
  waiting: Ticket[];
  head: number; // index of the first live entry in `waiting` (entries before it were dispatched or removed)
  waitingCount: number;
  waitingSeats: number;
  executing: number;
  seatsInUse: number;
  nextDispatchR: number; // virtual time (seat-seconds) at which this queue's next request starts
  enqueued: number; // requests it ever held
  left: number; // of those, dispatched or removed
}

export interface QueueSetStats {
  waiting: number;
  waitingSeats: number;
  executing: number;
  seatsInUse: number;
  activeQueues: number;
}

export type StartResult = { kind: 'executing'; ticket: Ticket } | { kind: 'queued'; ticket: Ticket } | { kind: 'rejected'; reason: RejectReason };

export class QueueSet {
  private readonly active = new Map<number, Queue>();
  private currentR = 0;
  private lastRealMs: number;
  private seatsInUse = 0;
  private executing = 0;
  private estimate = ESTIMATED_SERVICE_SECONDS;
  private readonly running = new Set<Ticket>();
  private waiting = 0;
  private waitingSeats = 0;
  // Finished requests holding their final seats, in the order they expire (finalMs is the same for all).
  private finals: Ticket[] = [];
  private finalsHead = 0;
  private activeLimit = Infinity;
  private order: Ticket[] = []; // running requests in the order they started (finished ones skipped lazily)
  private orderHead = 0;
  private parkedSeats = 0;

  /** `onDemand` hears the level's seat demand (seats in use plus seats waiting) after every change. */
  constructor(private config: QueueSetConfig, private readonly now: () => number, private readonly onDemand?: (seats: number) => void) {
    this.lastRealMs = now();
  }

  /** A new configuration (the level's object changed or the shares were recomputed); queued requests stay. */
  configure(config: QueueSetConfig): Ticket[] {
    this.sync();
    this.config = config;
    return this.dispatch();
  }

  get stats(): QueueSetStats {
    return { waiting: this.waiting, waitingSeats: this.waitingSeats, executing: this.executing, seatsInUse: this.seatsInUse, activeQueues: this.active.size };
  }

  get limit(): number {
    return this.config.concurrencyLimit;
  }

  /**
   * Starts a request of `seats` for `flow` (`hash`: its flow's hash, a non-negative integer below 2^53). `canWait`
   * false (the isolate's bound on waiting requests is reached) rejects where it would queue.
   */
  start(seats: number, flow: string, hash: number, canWait = true, final: { seats: number; ms: number } = NO_FINAL): StartResult {
    this.expireFinals();
    this.sync();
    const now = this.now();
    const finalSeats = final.ms > 0 ? Math.max(0, final.seats) : 0;
    const ticket: Ticket = { seats, finalSeats, finalMs: finalSeats ? final.ms : 0, flow, state: 'waiting', queue: -1, enqueuedAt: now, startedAt: 0, charged: 0, finalUntil: 0, seq: 0, parked: false };
    const { queues } = this.config;
    if (queues < 1) {
      if (!this.fits(widest(ticket))) return { kind: 'rejected', reason: 'concurrency-limit' };
      this.run(ticket, undefined);
      this.noteDemand();
      return { kind: 'executing', ticket };
    }
    const q = this.chooseQueue(hash);
    if (q.waitingCount >= this.config.queueLengthLimit || !canWait) {
      this.dropIfIdle(q);
      return { kind: 'rejected', reason: 'queue-full' };
    }
    if (q.waitingCount === 0 && q.executing === 0) q.nextDispatchR = this.currentR; // an idle queue starts now
    ticket.seq = q.enqueued++;
    q.waiting.push(ticket);
    q.waitingCount++;
    q.waitingSeats += seats;
    this.waiting++;
    this.waitingSeats += seats;
    ticket.queue = q.index;
    const dispatched = this.dispatch();
    for (const t of dispatched) if (t !== ticket) t.onDispatch?.();
    return ticket.state === 'executing' ? { kind: 'executing', ticket } : { kind: 'queued', ticket };
  }

  /**
   * The request finished: its seats go to the waiting requests due next (their onDispatch is called) — or, when it
   * has final seats, it holds those until its final phase ends (expireFinals).
   */
  finish(ticket: Ticket): void {
    if (ticket.state !== 'executing') return;
    this.expireFinals();
    this.sync();
    this.running.delete(ticket);
    this.executing--;
    const q = this.active.get(ticket.queue);
    if (q) {
      q.executing--;
      // kube: the queue was charged the estimated work at dispatch; now it is charged the work actually done, so a
      // flow whose requests run long falls behind in virtual time as much as it used, and a newcomer goes first.
      const actual = (this.now() - ticket.startedAt) / 1000;
      q.nextDispatchR += ticket.seats * actual + (ticket.finalSeats * ticket.finalMs) / 1000 - ticket.charged;
      this.estimate += ESTIMATE_WEIGHT * (actual - this.estimate);
    }
    if (ticket.finalSeats > 0) {
      ticket.state = 'final';
      ticket.finalUntil = this.now() + ticket.finalMs;
      // kube's queueset: a request holds max(initial, final) seats from its dispatch to the end of its final phase.
      this.finals.push(ticket);
    } else {
      ticket.state = 'done';
      this.holdSeats(ticket, q, -widest(ticket));
      if (q) this.dropIfIdle(q);
    }
    for (const t of this.dispatch()) t.onDispatch?.();
  }

  /** About how many requests wait ahead of a waiting one in its queue (fewer when some behind it gave up). */
  ahead(ticket: Ticket): number {
    const q = ticket.state === 'waiting' ? this.active.get(ticket.queue) : undefined;
    return q ? Math.max(0, ticket.seq - q.left) : 0;
  }

  /** Ends the final phase of requests whose final seats are due back; returns the tickets dispatched meanwhile. */
  expireFinals(): Ticket[] {
    if (this.finalsHead >= this.finals.length) return [];
    const now = this.now();
    let released = false;
    while (this.finalsHead < this.finals.length && this.finals[this.finalsHead]!.finalUntil <= now) {
      if (!released) this.sync();
      released = true;
      const t = this.finals[this.finalsHead++]!;
      t.state = 'done';
      const q = this.active.get(t.queue);
      this.holdSeats(t, q, -widest(t));
      if (q) this.dropIfIdle(q);
    }
    if (this.finalsHead > 64 && this.finalsHead * 2 > this.finals.length) {
      this.finals = this.finals.slice(this.finalsHead);
      this.finalsHead = 0;
    }
    if (!released) return [];
    const started = this.dispatch();
    for (const t of started) t.onDispatch?.();
    return started;
  }

  private holdSeats(ticket: Ticket, q: Queue | undefined, delta: number): void {
    this.seatsInUse += delta;
    if (q) q.seatsInUse += delta;
    if (delta < 0 && ticket.parked) {
      ticket.parked = false;
      this.parkedSeats -= widest(ticket);
    }
  }

  /**
   * The seats requests may use that started in the last PARKED_AFTER_MS (core/flowcontrol/load.ts scales it while
   * the isolate's thread is saturated); requests running longer wait on the network, not the thread, and do not
   * count against it. Returns the tickets dispatched by a raise.
   */
  setActiveLimit(seats: number): Ticket[] {
    if (seats === this.activeLimit) return [];
    this.sync();
    this.activeLimit = seats;
    return this.dispatch();
  }

  /**
   * Dispatches what fits now that time passed (requests running past PARKED_AFTER_MS no longer count against the
   * active limit); a waiting request calls this as it looks. Returns the tickets started.
   */
  poke(): Ticket[] {
    if (this.waiting === 0) return [];
    // Without a shrunk active limit, only a request newly parked can make room (a finish dispatches by itself).
    const parkedBefore = this.parkedSeats;
    this.park();
    if (this.activeLimit === Infinity && this.parkedSeats === parkedBefore) return [];
    this.sync();
    const started = this.dispatch();
    for (const t of started) t.onDispatch?.();
    return started;
  }

  /** Marks the requests that have run past PARKED_AFTER_MS (they started in order: a prefix of `order`). */
  private park(): void {
    const now = this.now();
    // A flood's requests slowed by the thread they share run long too, but they also raise the level's service-time
    // estimate as they end: past a quarter second and 20 times that estimate, a request is waiting on something else.
    const after = Math.max(PARKED_AFTER_MS, PARK_FACTOR * this.estimate * 1000);
    while (this.orderHead < this.order.length) {
      const t = this.order[this.orderHead]!;
      if (t.state === 'executing') {
        if (now - t.startedAt < after) break;
        t.parked = true;
        this.parkedSeats += widest(t);
      }
      this.orderHead++;
    }
    if (this.orderHead > 64 && this.orderHead * 2 > this.order.length) {
      this.order = this.order.slice(this.orderHead);
      this.orderHead = 0;
    }
  }

  /** A waiting request gives up (its wait limit passed, or its client went away); false if it was not waiting. */
  remove(ticket: Ticket): boolean {
    if (ticket.state !== 'waiting') return false;
    this.expireFinals();
    this.sync();
    ticket.state = 'done';
    const q = this.active.get(ticket.queue);
    if (q) {
      const i = q.waiting.indexOf(ticket, q.head); // bounded by the queue length limit
      if (i >= 0) q.waiting.splice(i, 1);
      q.waitingCount--;
      q.left++;
      q.waitingSeats -= ticket.seats;
      this.dropIfIdle(q);
    }
    this.waiting--;
    this.waitingSeats -= ticket.seats;
    // The head that gave up may have been the one waiting for seats: others may fit now.
    for (const t of this.dispatch()) t.onDispatch?.();
    return true;
  }

  /**
   * Ends what nobody will end: requests executing longer than `maxRunMs` (their request was cancelled before it
   * could release its seats) and requests waiting longer than `maxWaitMs` (their waiter is gone). Linear in the
   * requests held; the caller runs it at most about once a second.
   */
  reap(maxRunMs: number, maxWaitMs: number): { ran: Ticket[]; waited: Ticket[] } {
    this.expireFinals();
    const now = this.now();
    const ran = [...this.running].filter((t) => now - t.startedAt > maxRunMs);
    for (const t of ran) this.finish(t);
    const waited: Ticket[] = [];
    for (const q of [...this.active.values()]) {
      for (let i = q.head; i < q.waiting.length; i++) {
        const t = q.waiting[i]!;
        if (t.state === 'waiting' && now - t.enqueuedAt > maxWaitMs) waited.push(t);
      }
    }
    for (const t of waited) this.remove(t);
    return { ran, waited };
  }

  /**
   * Whether a request of `seats` may start now. Parked requests (running past PARKED_AFTER_MS and 20× the level's
   * service time: waiting on the network — an admission webhook, a busy store — not on the isolate's one thread)
   * hold their seats in the figures but not against the limit: kube's seats stand for a share of many cores, and
   * here a level of a few seats would otherwise stay full behind requests stuck on a hanging webhook while the
   * thread idles (test/e2e/admission-webhooks.test.ts). At most one request a poll is added per parked one.
   */
  private fits(seats: number): boolean {
    if (this.seatsInUse === 0) return true;
    this.park();
    const active = this.seatsInUse - this.parkedSeats;
    if (active === 0) return true;
    return active + seats <= this.config.concurrencyLimit && active + seats <= this.activeLimit;
  }

  private run(ticket: Ticket, q: Queue | undefined): void {
    ticket.state = 'executing';
    ticket.startedAt = this.now();
    this.running.add(ticket);
    this.order.push(ticket);
    this.seatsInUse += widest(ticket);
    this.executing++;
    if (q) {
      q.seatsInUse += widest(ticket);
      q.executing++;
      ticket.charged = ticket.seats * this.estimate + (ticket.finalSeats * ticket.finalMs) / 1000;
      q.nextDispatchR += ticket.charged;
    }
  }

  /** Dispatches while the request due next fits; returns the tickets started. */
  private dispatch(): Ticket[] {
    const started: Ticket[] = [];
    while (this.waiting > 0) {
      const q = this.nextQueue();
      if (!q) break;
      const head = q.waiting[q.head]!;
      // kube: a wide request due next is not overtaken by narrower ones; it waits for enough seats.
      if (!this.fits(widest(head))) break;
      q.head++;
      if (q.head > 64 && q.head * 2 > q.waiting.length) {
        q.waiting = q.waiting.slice(q.head);
        q.head = 0;
      }
      q.waitingCount--;
      q.left++;
      q.waitingSeats -= head.seats;
      this.waiting--;
      this.waitingSeats -= head.seats;
      this.run(head, q);
      started.push(head);
    }
    this.noteDemand();
    return started;
  }

  private noteDemand(): void {
    this.onDemand?.(this.seatsInUse + this.waitingSeats);
  }

  /** The queue whose head would finish first in virtual time (ties: the longest active). Linear in the active queues. */
  private nextQueue(): Queue | undefined {
    let best: Queue | undefined;
    let bestFinish = Infinity;
    for (const q of this.active.values()) {
      if (q.waitingCount === 0) continue;
      const head = q.waiting[q.head]!;
      const finish = q.nextDispatchR + head.seats * this.estimate + (head.finalSeats * head.finalMs) / 1000;
      if (finish < bestFinish) {
        best = q;
        bestFinish = finish;
      }
    }
    return best;
  }

  /** kube's shuffle sharding: the flow's hand of queues, and in it the one with the fewest seats waiting and in use. */
  private chooseQueue(hash: number): Queue {
    const deck = Math.max(1, Math.floor(this.config.queues));
    const hand = dealHand(hash, deck, Math.max(1, Math.min(Math.floor(this.config.handSize), deck, MAX_HAND)));
    let best: Queue | undefined;
    let bestLoad = Infinity;
    for (const index of hand) {
      const q = this.active.get(index);
      const load = q ? q.waitingSeats + q.seatsInUse : 0;
      if (load < bestLoad) {
        bestLoad = load;
        best = q ?? this.newQueue(index);
        if (load === 0) break;
      }
    }
    return best!;
  }

  private newQueue(index: number): Queue {
    const q: Queue = { index, waiting: [], head: 0, waitingCount: 0, waitingSeats: 0, executing: 0, seatsInUse: 0, nextDispatchR: this.currentR, enqueued: 0, left: 0 };
    this.active.set(index, q);
    return q;
  }

  private dropIfIdle(q: Queue): void {
    if (q.waitingCount === 0 && q.executing === 0 && q.seatsInUse === 0) this.active.delete(q.index);
  }

  /**
   * kube's syncTimeLocked: virtual time advances at the rate each active queue would be served if the seats
   * in demand (capped by the limit) were shared equally among them.
   */
  private sync(): void {
    const now = this.now();
    const elapsed = Math.max(0, now - this.lastRealMs) / 1000;
    this.lastRealMs = now;
    const activeQueues = this.active.size;
    if (activeQueues === 0 || elapsed === 0) return;
    const demand = Math.min(this.seatsInUse + this.waitingSeats, this.config.concurrencyLimit);
    this.currentR += (elapsed * demand) / activeQueues;
  }
}

const NO_FINAL = { seats: 0, ms: 0 };
/**
 * A request running this long (and 20× its level's service time) is waiting on the network (a webhook, a store), not
 * on the isolate's thread. A quarter second: a level's few seats held by requests stuck on a hanging webhook let a
 * tenant's next request in after that, not after a second (test/e2e/admission-webhooks.test.ts's victim has 1.5 s);
 * requests slowed by a busy thread raise the service time, and with it the bar, as they end.
 */
export const PARKED_AFTER_MS = 250;
const PARK_FACTOR = 20;
const widest = (t: Ticket) => Math.max(t.seats, t.finalSeats);

/**
 * The `hand` distinct queue indexes below `deck` that `hash` deals (shuffle sharding: each flow gets its own small
 * set of queues, so two flows rarely share all of theirs). The hash is spent as a mixed-radix number — one digit
 * per card, radix deck, deck-1, … — and each digit picks among the cards not yet dealt. O(hand²), hand ≤ 32.
 */
export function dealHand(hash: number, deck: number, hand: number): number[] {
  const picked: number[] = []; // ascending
  let h = Math.floor(Math.abs(hash));
  for (let i = 0; i < hand; i++) {
    const radix = deck - i;
    let card = h % radix;
    h = Math.floor(h / radix);
    // The card-th of the cards not yet dealt.
    let j = 0;
    while (j < picked.length && picked[j]! <= card) {
      card++;
      j++;
    }
    picked.splice(j, 0, card);
  }
  // Order of dealing does not matter to the caller beyond determinism.
  return picked;
}
