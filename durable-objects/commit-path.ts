// Canonical layer: the one way a change enters the store (kine's Log under its Backend). Inside one SQLite
// transaction each committed object gets the next revision and is logged with its previous value; once the
// transaction is durable, the changes go to memory (the watch cache and its watchers), the replicas and
// authorizer shards, in revision order; then retention compacts the log. Every write, the bootstrap objects
// and the raw-write test hook take this path; API writes queue for it (group commit: those arriving while the
// last batch is not yet durable run together, one SQLite commit for all).

import type { KubeObject } from '../core/object-meta';
import type { StateEntry } from '../core/object-state';
import type { EventType } from '../core/watch/event';
import type { ChangeRow } from '../core/follow/change-log';
import type { Settings } from '../core/settings';
import { formatRevision } from '../core/revision';
import type { ServiceAllocations } from '../core/admission/service-ranges';
import type { CanonicalLog } from './canonical-log';
import type { WatchCache } from './watch-cache';
import type { Replication } from './replication';
import { failpoint } from '../contract/failpoints';
import { checkJsonSize } from '../core/writes/stored';

/** A transaction under way: `commit` stores `object` under `key` at the next revision and returns it. */
export interface Transaction {
  commit(kind: EventType, key: string, object: KubeObject): KubeObject;
  /** The newest revision so far: the store's before the transaction, plus what it committed. */
  readonly revision: number;
  /**
   * The JSON every reader gets for an object this transaction committed (as stored, with a custom type's
   * schema defaults), so the answer reuses it instead of serializing the object once more; undefined for
   * any other object.
   */
  served(object: unknown): string | undefined;
}

/** One change committed to SQLite, on its way to the watch cache and the replicas. */
interface Committed {
  row: ChangeRow;
  object: KubeObject; // as served: with a custom type's schema defaults (watch-cache.ts serve)
  served: string;
  prev: StateEntry | undefined;
}

export interface CommitPathOptions {
  ctx: DurableObjectState;
  log: CanonicalLog;
  settings: Settings;
  cache: WatchCache;
  replication: Replication;
  // Services only: the clusterIPs and nodePorts stored Services hold, kept in step here, so allocation checks
  // an index inside the write's transaction (core/admission).
  serviceAllocations?: ServiceAllocations;
}

// A batch runs in one turn of the event loop, holding everything else back: bounded, so other requests get in.
// Measured: at 64 creates in flight batches average ~3 writes (one fsync per 3 creates instead of per create);
// a bound of 64 let a 1,500-replica Deployment's burst of creates delay another tenant's Deployment past its
// bound (test/e2e/hostile-workloads.test.ts, issue 18 class 7), 8 keeps it where it was.
const MAX_BATCH = 8;

export class CommitPath {
  compacted: number;
  writes = 0; // writes that committed something
  batches = 0; // turns in which queued writes committed together (group commit)
  private eventCount: number;
  // Group commit: writes waiting for the batch under way to be durable, and that batch's changes for the
  // replicas (pushed once, when it ends).
  private readonly waiting: (() => void)[] = [];
  private draining = false;
  private batch: { rows: ChangeRow[]; head: number } | undefined;

  constructor(private readonly o: CommitPathOptions) {
    this.compacted = o.log.meta('compacted');
    this.eventCount = o.log.eventCount();
  }

  /**
   * Group commit: runs `work` (which commits through `run`) at once when the store is idle; while the writes
   * before it are not yet durable, it waits, and every write that arrived meanwhile runs in one turn of the
   * event loop. Each keeps its own transaction (a throw rolls back that write alone) and its own revision, but
   * workerd commits what one turn wrote as one SQLite transaction — one COMMIT and one fsync instead of one
   * per write (measured: one fsync and ~18 page writes per create without this) — the replicas get one push
   * for the batch, and every answer still leaves only once its write is durable (the output gate).
   */
  queued<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push(() => {
        try {
          resolve(work());
        } catch (e) {
          reject(e);
        }
      });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.waiting.length) {
        const works = this.waiting.splice(0, MAX_BATCH);
        this.batch = { rows: [], head: 0 };
        try {
          for (const w of works) w();
        } finally {
          const { rows, head } = this.batch;
          this.batch = undefined;
          this.batches++;
          try {
            if (head) this.afterCommit(rows, head, Date.now());
          } catch (e) {
            // Compaction failed (the writes themselves are committed): the next batch tries again.
            console.error('after a batch of writes', e);
          }
        }
        // Until this batch is durable, arriving writes wait, to share the next one. A storage failure breaks
        // the object (its output gate) whatever happens here; the writes still waiting fail with it.
        await this.o.ctx.storage.sync().catch(() => undefined);
      }
    } finally {
      this.draining = false;
    }
  }

  /**
   * Runs `fn` in one transaction; what it commits is published once the transaction is done. A throw rolls
   * back everything `fn` committed, and nothing is published.
   */
  run<T>(now: number, fn: (tx: Transaction) => T): T {
    const { log, cache } = this.o;
    const changes: Committed[] = [];
    let next = cache.revision;
    const tx: Transaction = {
      commit(kind, key, object) {
        next += 1;
        object.metadata.resourceVersion = formatRevision(next);
        const prev = cache.state.get(key);
        const row: ChangeRow = { revision: next, type: kind, key, value: JSON.stringify(object), prev_value: prev?.json ?? null };
        // The size limit, measured on what is stored (core/writes' checkSize leaves it to this commit: one
        // serialization per write instead of two; bench/profile.ts writes-64: checkSize was 2% of a create).
        if (kind !== 'DELETED') checkJsonSize(row.value);
        log.append(row, now);
        // The answer and every reader get the object as read back from storage (schema defaults applied).
        changes.push({ row, object, served: cache.serve(object, row.value), prev });
        return object;
      },
      get revision() {
        return next;
      },
      served(object) {
        for (let i = changes.length - 1; i >= 0; i--) if (changes[i].object === object && changes[i].row.type !== 'DELETED') return changes[i].served;
        return undefined;
      },
    };
    const { ctx, replication: { groupResource: store } } = this.o;
    failpoint('store.write.before-transaction', ctx, store);
    const result = ctx.storage.transactionSync(() => {
      const value = fn(tx);
      if (changes.length) log.setMeta('revision', next);
      if (changes.length) failpoint('store.storage-error', ctx, store);
      if (changes.length) failpoint('store.write.in-transaction', ctx, store);
      return value;
    });
    if (changes.length) failpoint('store.write.after-commit', ctx, store);
    if (changes.length) this.publish(changes, now);
    if (changes.length) failpoint('store.write.after-broadcast', ctx, store);
    return result;
  }

  /**
   * Memory, watchers and replicas follow SQLite only once the transaction has committed. The output
   * gate holds every frame and push sent here until the write is durable. Nothing here may stop the
   * push to replicas: the hub isolates each watcher, and a change that fails to apply is logged.
   */
  private publish(changes: Committed[], now: number): void {
    const { cache } = this.o;
    for (const c of changes) {
      this.o.serviceAllocations?.track(c.row.key, c.row.type === 'DELETED' ? undefined : c.object);
      try {
        cache.apply(cache.event(c.row, now, c.object, c.prev, c.served));
      } catch (e) {
        console.error(`applying revision ${c.row.revision} to the watch cache failed`, e);
      }
    }
    this.writes++;
    this.eventCount += changes.length;
    const head = changes[changes.length - 1].row.revision;
    if (this.batch) {
      for (const c of changes) this.batch.rows.push(c.row);
      this.batch.head = head;
    } else this.afterCommit(changes.map((c) => c.row), head, now);
  }

  /** After a write, or a batch of them: compact first, so the push tells replicas the compaction point it produced. */
  private afterCommit(rows: ChangeRow[], head: number, now: number): void {
    this.compactIfNeeded(now);
    this.o.replication.push(rows, head);
  }

  /** Retention by count and/or age; what is compacted answers 410 Expired from then on. */
  private compactIfNeeded(now: number): void {
    const { log, settings } = this.o;
    const keep = settings.eventRetentionCount;
    const maxAgeMs = settings.eventRetentionSeconds * 1000;
    let upTo = this.compacted;
    if (this.eventCount > keep) upTo = Math.max(upTo, this.o.cache.revision - keep);
    if (maxAgeMs > 0) upTo = Math.max(upTo, log.newestBefore(now - maxAgeMs) ?? 0);
    if (upTo <= this.compacted) return;
    // Counted as it goes, not by count(*): once the log is full, every write compacts, and counting a full log
    // reads all of its pages.
    this.eventCount -= this.o.ctx.storage.transactionSync(() => {
      failpoint('store.compact.before-commit', this.o.ctx, this.o.replication.groupResource);
      return log.compact(upTo);
    });
    failpoint('store.compact.after-commit', this.o.ctx, this.o.replication.groupResource);
    this.compacted = upTo;
  }
}
