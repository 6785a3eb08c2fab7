// Broadcast layer: every watcher of one resource type. Live watchers get each event from `publish`
// (indexed, filtered, one serialization per event); new or resuming watchers are replayed apart from
// the live broadcast, from the window or the log in bounded batches, and join it once caught up.

import type { StateEntry } from '../object-state';
import { addedFrame, bookmarkFrame, errorFrame, frameFor, frameJoiner, type Frame, type FrameJoin, type FrameFormat, type TableRenderer, type WatchEvent } from './event';
import { deliveryType, type WatchScope } from './filter';
import { WatcherIndex, type IndexKey } from './watcher-index';
import type { WatchWindow } from './window';
import { matches } from '../list/query';
import { internalError, resourceExpired, tooLargeResourceVersion, type Status } from '../status';

/** Where a watcher's frames go: an HTTP stream or a WebSocket. */
export interface Sink {
  send(frame: Frame): boolean; // false: over its buffer, and the watcher must go
  full(): boolean; // a replay should stop sending and wait for `drained`
  drained(timeoutMs: number): Promise<boolean>; // false: it did not drain in time
  close(): void;
  // Transports that learn of a gone client only by writing (HTTP streams) send a blank line now and then.
  heartbeat?(): void;
  // Transports that hold the frames sent within one turn and send them together (several events per WebSocket
  // message, for clients that opted in): the hub calls this once per turn in which it sent to them, after the
  // turn's last frame; `join` builds the message, shared by watchers that hold the same frames. False: the
  // transport failed, and the watcher must go.
  flush?(join: FrameJoin): boolean;
}

export interface WatchRequest {
  scope: WatchScope;
  indexKey: IndexKey;
  format: 'json' | 'table';
  bookmarks: boolean;
  deadline: number; // ms since epoch
  initialEvents: boolean; // synthetic ADDED for the current state first (RV unset or "0", or WatchList)
  watchList: boolean; // end the initial events with the initial-events-end bookmark
  after: number | undefined; // deliver events with revision > after; undefined: from the newest revision
}

/** What the hub needs from the store that owns it. */
export interface HubSource {
  kind: string;
  apiVersion: string;
  revision(): number;
  compacted(): number;
  window: WatchWindow;
  entries(namespace: string): Iterable<StateEntry>; // current state, key order
  readLog(after: number, limit: number): Promise<WatchEvent[]>; // canonical log, oldest first
  waitFor(revision: number, timeoutMs: number): Promise<boolean>;
  table: TableRenderer;
  triggerOf?: (fields: Record<string, string>) => string | undefined;
  yieldTurn(): Promise<void>; // let writes and other requests run between replay batches
}

export interface HubOptions {
  bookmarkIntervalMs: number; // apiserver defaultBookmarkFrequency: 1 min
  heartbeatIntervalMs: number; // blank lines on idle HTTP streams, so a gone client is noticed
  replayBatch: number; // events or objects replayed per turn
  freshnessWaitMs: number; // WatchList waits this long for a future revision (blockTimeout, 3 s)
  drainWaitMs: number; // how long a replay waits for a full client buffer before closing it
}

export interface HubStats {
  watchers: number;
  deliveries: number;
  slowClosed: number;
  expired: number;
  renderErrors: number; // a frame for one watcher could not be built (filter or renderer threw)
  sinkErrors: number; // a transport threw while sending to one watcher
}

// Before a watch times out it gets a last bookmark, so its client resumes from a fresh revision
// (apiserver cache_watcher.go: deadline - 2 s).
const FINAL_BOOKMARK_MS = 2000;

export class Watcher {
  live = false;
  closed = false;
  headersSent = false;
  nextBookmark: number;
  nextHeartbeat: number;
  finalBookmarkSent = false;
  held = false; // the sink holds frames until the hub's next flush (Sink.flush)

  constructor(readonly req: WatchRequest, readonly sink: Sink, public after: number, now: number, interval: number, heartbeat: number) {
    this.nextBookmark = now + interval;
    this.nextHeartbeat = sink.heartbeat ? now + heartbeat : Infinity;
  }

  /** When this watcher next needs the hub's attention: a bookmark, a heartbeat, or its end. */
  nextDue(): number {
    let due = Math.min(this.req.deadline, this.nextHeartbeat);
    if (this.req.bookmarks) {
      due = Math.min(due, this.nextBookmark, this.finalBookmarkSent ? Infinity : this.req.deadline - FINAL_BOOKMARK_MS);
    }
    return due;
  }

  format(): FrameFormat {
    if (this.req.format === 'json') return 'json';
    if (this.headersSent) return 'table';
    this.headersSent = true;
    return 'table-headers';
  }
}

export class WatchHub {
  private readonly index = new WatcherIndex<Watcher>();
  private readonly catchingUp = new Set<Watcher>();
  private holding: Watcher[] = []; // watchers whose sinks hold frames for this turn's flush
  private tickBookmark: Frame | undefined; // the bookmark of the tick under way (at the head revision)
  private flushQueued = false;
  readonly stats: HubStats = { watchers: 0, deliveries: 0, slowClosed: 0, expired: 0, renderErrors: 0, sinkErrors: 0 };

  constructor(private readonly src: HubSource, private readonly opts: HubOptions) {}

  get size(): number {
    return this.index.size + this.catchingUp.size;
  }

  /** Starts a watcher: replay what it asked for, then join the live broadcast. */
  async start(req: WatchRequest, sink: Sink, now: number): Promise<Watcher> {
    const w = new Watcher(req, sink, req.after ?? this.src.revision(), now, this.opts.bookmarkIntervalMs, this.opts.heartbeatIntervalMs);
    this.catchingUp.add(w);
    try {
      await this.replay(w);
    } catch (e) {
      this.close(w);
      throw e;
    }
    return w;
  }

  /**
   * Fault isolation: whatever throws while filtering or rendering for one watcher (a selector, a Table
   * printer, a transport) ends that watcher alone, with an ERROR event; every other watcher still gets
   * the event, and the caller (store or replica) goes on to its replicas and waiting reads.
   */
  publish(ev: WatchEvent): void {
    // One plain loop over the index's sets per event (no generator, no promise, nothing per watcher but its frame).
    this.index.forEachCandidate(ev, this.src.triggerOf, (w) => this.publishTo(w, ev));
  }

  private publishTo(w: Watcher, ev: WatchEvent): void {
    if (ev.revision <= w.after) return;
    let frame: Frame;
    try {
      const type = deliveryType(w.req.scope, ev);
      if (!type) return;
      frame = frameFor(ev, type, w.format(), this.src.table);
    } catch (e) {
      return this.renderFailed(w, ev.key, e);
    }
    this.deliver(w, frame);
  }

  /**
   * Sends what sinks with several events per message hold: once per turn, after every event of the turn (a
   * group commit's writes, a replica's push) has been published, so a burst costs one message per watcher.
   */
  private readonly flushHeld = (): void => {
    this.flushQueued = false;
    const held = this.holding;
    this.holding = [];
    const join = frameJoiner();
    for (const w of held) {
      w.held = false;
      if (w.closed) continue;
      let ok: boolean;
      try {
        ok = w.sink.flush!(join);
      } catch (e) {
        this.sinkFailed(w, e);
        continue;
      }
      if (!ok) {
        this.stats.sinkErrors++; // the socket refused the message (closed under us)
        this.close(w);
      }
    }
  };

  /** Bookmarks and timeouts due by `now`; returns when it next needs calling (undefined: never). */
  tick(now: number): number | undefined {
    let next: number | undefined;
    const head = this.src.revision();
    this.tickBookmark = undefined;
    for (const w of this.index.watchers()) {
      try {
        this.tickOne(w, now, head);
      } catch (e) {
        this.sinkFailed(w, e);
      }
      if (w.closed) continue;
      const due = w.nextDue();
      next = next === undefined ? due : Math.min(next, due);
    }
    this.tickBookmark = undefined;
    return next;
  }

  private tickOne(w: Watcher, now: number, head: number): void {
    if (w.req.bookmarks && head >= w.after) {
      const finalDue = !w.finalBookmarkSent && now >= w.req.deadline - FINAL_BOOKMARK_MS;
      if (finalDue || now >= w.nextBookmark) {
        if (finalDue) w.finalBookmarkSent = true;
        w.nextBookmark = now + this.opts.bookmarkIntervalMs;
        // One frame per tick for every watcher due, not one serialization each.
        this.tickBookmark ??= bookmarkFrame(this.src.kind, this.src.apiVersion, head);
        this.deliver(w, this.tickBookmark);
      }
    }
    if (now >= w.nextHeartbeat) {
      w.nextHeartbeat = now + this.opts.heartbeatIntervalMs;
      w.sink.heartbeat!();
    }
    if (now >= w.req.deadline) this.close(w);
  }

  close(w: Watcher): void {
    if (w.closed) return;
    w.closed = true;
    this.index.remove(w);
    this.catchingUp.delete(w);
    this.stats.watchers = this.size;
    try {
      w.sink.close();
    } catch (e) {
      this.stats.sinkErrors++;
      console.error('watch sink failed to close', e);
    }
  }

  /** Closes every watcher: their clients resume elsewhere or later from their last revision. */
  closeAll(): void {
    for (const w of [...this.index.watchers(), ...this.catchingUp]) this.close(w);
  }

  private deliver(w: Watcher, frame: Frame): void {
    if (w.closed) return;
    let sent: boolean;
    try {
      sent = w.sink.send(frame);
    } catch (e) {
      return this.sinkFailed(w, e);
    }
    if (sent) {
      this.stats.deliveries++;
      if (w.sink.flush && !w.held) {
        w.held = true;
        this.holding.push(w);
        if (!this.flushQueued) {
          this.flushQueued = true;
          queueMicrotask(this.flushHeld);
        }
      }
      return;
    }
    // Over its buffer: close it so its client resumes from its last revision (apiserver terminates
    // unresponsive watchers the same way, with a plain close).
    this.stats.slowClosed++;
    this.close(w);
  }

  private async replay(w: Watcher): Promise<void> {
    const { req } = w;
    if (req.initialEvents && w.after > this.src.revision()) {
      // A watch-list must start from state at least as new as asked; wait a little, then 504.
      if (!(await this.src.waitFor(w.after, this.opts.freshnessWaitMs))) {
        return this.fail(w, tooLargeResourceVersion(w.after, this.src.revision(), 1));
      }
    }
    if (req.initialEvents) {
      // A snapshot of references: entries are immutable, so later writes do not change it.
      const snapshot = [...this.src.entries(req.scope.namespace)].filter((e) => matches(e, req.scope.selectors));
      w.after = this.src.revision();
      for (let i = 0; i < snapshot.length; i++) {
        if (!(await this.makeRoom(w, i))) return;
        let frame: Frame;
        try {
          frame = addedFrame(snapshot[i].json, w.format(), this.src.table);
        } catch (e) {
          return this.renderFailed(w, snapshot[i].key, e);
        }
        this.deliver(w, frame);
      }
    } else if (w.after < this.src.compacted()) {
      return this.expire(w);
    }
    await this.catchUp(w);
  }

  /**
   * Replays events after w.after, from the log in batches while they are older than the window, then
   * from memory, pausing whenever the client's buffer is full. It joins the live broadcast in the same
   * turn as the last replayed event, so no write can slip between the replay and the broadcast.
   */
  private async catchUp(w: Watcher): Promise<void> {
    for (let sent = 0; ; ) {
      if (w.closed) return;
      const recent = this.src.window.since(w.after);
      const events = recent ?? (w.after < this.src.compacted() ? undefined : await this.src.readLog(w.after, this.opts.replayBatch));
      if (!events) return this.expire(w);
      if (w.closed) return;
      if (!recent && events.length === 0) {
        // The log has nothing newer yet (a replica behind its store): wait for it to arrive.
        await this.src.yieldTurn();
        continue;
      }
      let i = 0;
      for (; i < events.length && !w.sink.full(); i++) this.replayEvent(w, events[i]);
      sent += i;
      if (recent && i === events.length) return this.finishReplay(w);
      if (!(await this.makeRoom(w, sent))) return;
    }
  }

  /** Between replay batches: wait for a full client buffer to drain (bounded), and let writes run. */
  private async makeRoom(w: Watcher, sent: number): Promise<boolean> {
    if (w.closed) return false;
    if (w.sink.full()) {
      if (!(await w.sink.drained(this.opts.drainWaitMs))) {
        this.stats.slowClosed++;
        this.close(w);
        return false;
      }
    } else if (sent > 0 && sent % this.opts.replayBatch === 0) {
      await this.src.yieldTurn();
    }
    return !w.closed;
  }

  private finishReplay(w: Watcher): void {
    if (w.req.watchList && w.req.bookmarks) {
      this.deliver(w, bookmarkFrame(this.src.kind, this.src.apiVersion, Math.max(w.after, this.src.revision()), true));
    }
    if (!w.closed) this.goLive(w);
  }

  private expire(w: Watcher): void {
    this.stats.expired++;
    this.fail(w, resourceExpired(`too old resource version: ${w.after} (${this.src.compacted()})`));
  }

  private replayEvent(w: Watcher, ev: WatchEvent): void {
    if (ev.revision <= w.after) return;
    w.after = ev.revision;
    let frame: Frame | undefined;
    try {
      const type = deliveryType(w.req.scope, ev);
      if (type) frame = frameFor(ev, type, w.format(), this.src.table);
    } catch (e) {
      return this.renderFailed(w, ev.key, e);
    }
    if (frame) this.deliver(w, frame);
  }

  /**
   * This watcher's frame for one object could not be built. kube-apiserver ends such a watch
   * (handlers/watch.go: an encode error closes the stream); the ERROR event also tells the client why,
   * and a client-go reflector answers it by listing and watching again.
   */
  private renderFailed(w: Watcher, key: string, e: unknown): void {
    this.stats.renderErrors++;
    console.error(`watch frame for ${key} failed`, e);
    const message = `unable to encode watch event for ${key}: ${(e as Error)?.message ?? String(e)}`;
    try {
      w.sink.send(errorFrame(internalError(message)));
    } catch {
      // the transport failed too; close below
    }
    this.close(w);
  }

  private sinkFailed(w: Watcher, e: unknown): void {
    this.stats.sinkErrors++;
    console.error('watch sink failed', e);
    this.close(w);
  }

  private goLive(w: Watcher): void {
    this.catchingUp.delete(w);
    w.live = true;
    this.index.add(w, w.req.indexKey);
    this.stats.watchers = this.size;
  }

  private fail(w: Watcher, status: Status): void {
    try {
      w.sink.send(errorFrame(status));
    } catch (e) {
      this.stats.sinkErrors++;
      console.error('watch sink failed', e);
    }
    this.close(w);
  }
}
