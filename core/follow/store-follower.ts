// Core: one follower of one store's log, the loop a watch-cache replica, an authorizer shard (per RBAC store)
// and each isolate's CRD registry all run: list at R page by page, subscribe after R (when the store pushes),
// apply changes in revision order, pull on a gap, list again when the log was compacted past it. client-go's
// Reflector (ListAndWatch, relist on "too old resource version") done once; the decisions are LogPosition's,
// the I/O the caller's (`FollowedStore`), what is followed the sink's.

import type { ChangeRow, LogReply, Snapshot, SnapshotItem, SnapshotPage } from './change-log';
import { LogPosition } from './log-position';

/** The store being followed, as its follower reaches it. */
export interface FollowedStore {
  /** One page of a consistent list: `continueToken` is '' for the first page, then the previous page's. */
  listPage(continueToken: string): Promise<SnapshotPage>;
  /** The log after `after`. */
  readLog(after: number): Promise<LogReply>;
  /** Push mode: from now on the store pushes every change to this follower; answers like readLog. */
  subscribe?(after: number): Promise<LogReply>;
  unsubscribe?(): Promise<void>;
}

/** What the follower keeps current. */
export interface FollowerSink {
  /** Everything at `snapshot.revision`, replacing what was held (`reached` is not called for it). */
  load(snapshot: Snapshot): void;
  /** The next change, exactly one revision after the last one applied. */
  apply(row: ChangeRow): void;
  /** After a batch of changes was applied: the revision reached (to persist it, or rebuild from it once). */
  reached?(revision: number): void;
  /** What is held can no longer be followed (compacted past, or the follower stopped); a new `load` follows. */
  lost?(): void;
}

export interface FollowerOptions {
  /**
   * Concurrent callers share one loop (true: a Durable Object's requests), or each runs its own (false: a
   * Worker, where one request may not wait on another's I/O; the position keeps their results in order).
   */
  shared: boolean;
}

export interface FollowerStats {
  applied: number; // changes applied
  pushes: number; // pushes received
  loads: number; // snapshots loaded: the first list and every relist
}

export class StoreFollower {
  readonly position = new LogPosition();
  readonly stats: FollowerStats = { applied: 0, pushes: 0, loads: 0 };
  private wanted = false; // started and not stopped
  private loaded = false; // a snapshot is held and, in push mode, the subscription stands
  private readLogNow = false; // a refresh asked for one read of the log even if nothing says it is behind
  private held: ChangeRow[] | undefined; // test hook: pushes held back to make a follower lag
  private running: Promise<void> | undefined;

  constructor(
    private readonly store: FollowedStore,
    private readonly sink: FollowerSink,
    private readonly options: FollowerOptions = { shared: true },
  ) {}

  /** True once a snapshot is held (and subscribed to, in push mode). */
  get following(): boolean {
    return this.loaded;
  }

  /** Follows from now on; resolves once a snapshot is held and caught up with what the store had then. */
  start(): Promise<void> {
    this.wanted = true;
    return this.loaded ? Promise.resolve() : this.kick();
  }

  /** Pull mode: asks the store now (one small read when nothing changed), and catches up. */
  refresh(): Promise<void> {
    this.wanted = true;
    return this.kick(true);
  }

  /** Resolves once `revision` is applied, or once the store has nothing newer to give (read-your-writes). */
  async catchUp(revision: number): Promise<void> {
    this.position.heard(revision, 0);
    // A loop already running may have read the log before `revision` existed: then one more.
    for (let tries = 0; tries < 2 && this.position.revision < revision; tries++) await this.kick();
  }

  /**
   * A push: the changes of one write, the store's newest revision and its compaction point. Applies what
   * continues this follower's position now; a gap starts a pull (the returned promise, which the caller may
   * await or leave running). Undefined: nothing runs on (the common case: a push that continues the position).
   */
  receive(rows: readonly ChangeRow[], head: number, compacted: number): Promise<void> | undefined {
    this.stats.pushes++;
    this.position.heard(head, compacted);
    if (!this.loaded) {
      // Not following (stopped, or never started since a restart): drop the subscription rather than be pushed
      // to for nothing. While a start is under way its subscription's answer carries these changes.
      return !this.wanted && this.store.unsubscribe ? this.store.unsubscribe() : undefined;
    }
    if (this.held) {
      this.held.push(...rows);
      return undefined;
    }
    this.accept(rows);
    return this.position.behind ? this.kick() : undefined;
  }

  /** Stops following: what the sink holds is lost, and the store stops pushing. */
  async stop(): Promise<void> {
    this.wanted = false;
    this.loaded = false;
    this.sink.lost?.();
    await this.store.unsubscribe?.();
  }

  /** Test hook: hold pushes (and pulls) back, to make this follower lag; releasing applies them and catches up. */
  hold(paused: boolean): Promise<void> {
    if (paused) {
      this.held ??= [];
      return Promise.resolve();
    }
    const held = this.held ?? [];
    this.held = undefined;
    if (this.loaded) this.accept(held);
    return this.kick();
  }

  private kick(readLog = false): Promise<void> {
    if (!this.options.shared) return this.run(readLog);
    if (readLog) this.readLogNow = true;
    this.running ??= this.run(false).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** The one loop: load when nothing is held, then read the log while behind (or once when asked). */
  private async run(readLog: boolean): Promise<void> {
    while (this.wanted) {
      if (!this.loaded) {
        await this.load();
        readLog = false;
        this.readLogNow = false;
        continue;
      }
      const read = readLog || this.readLogNow || (this.position.behind && !this.held);
      if (!read) return;
      readLog = false;
      this.readLogNow = false;
      const reply = await this.store.readLog(this.position.revision);
      if (this.position.compactedPast(reply)) {
        // The changes this follower misses are gone from the log: start again from a fresh list.
        this.lose();
        continue;
      }
      if (!reply.changes!.length) return; // nothing newer in the log
      if (this.loaded && !this.held) this.accept(reply.changes!);
    }
  }

  private async load(): Promise<void> {
    const snapshot = await this.list();
    if (!this.wanted) return; // stopped meanwhile
    if (!this.position.adopt(snapshot.revision)) {
      if (this.loaded) return; // a concurrent list, newer, was adopted first
      // Revisions never go back; a store that did was replaced under this follower: say so rather than loop.
      throw new Error(`${this.position.revision} was followed, but the store lists at ${snapshot.revision}`);
    }
    this.sink.load(snapshot);
    this.stats.loads++;
    if (!this.store.subscribe) {
      this.loaded = true;
      return;
    }
    const reply = await this.store.subscribe(snapshot.revision);
    if (!this.wanted) return;
    this.loaded = true;
    if (this.position.compactedPast(reply)) this.lose(); // compacted between the list and the subscription
    else this.accept(reply.changes!);
  }

  /** A consistent list, page by page: every page at the first page's revision (continue tokens pin it). */
  private async list(): Promise<Snapshot> {
    const items: SnapshotItem[] = [];
    let revision = 0;
    let token = '';
    do {
      const page = await this.store.listPage(token);
      revision = page.revision;
      items.push(...page.items);
      token = page.continue;
    } while (token);
    return { revision, items };
  }

  private accept(rows: readonly ChangeRow[]): void {
    const run = this.position.next(rows);
    for (const row of run) {
      this.sink.apply(row);
      this.position.advance(row.revision);
      this.stats.applied++;
    }
    if (run.length) this.sink.reached?.(this.position.revision);
  }

  private lose(): void {
    this.loaded = false;
    this.sink.lost?.();
  }
}
