// Canonical layer: the one way a change enters the store (kine's Log under its Backend). Inside one SQLite
// transaction each committed object gets the next revision and is logged with its previous value; once the
// transaction is durable, the changes go to memory (the watch cache and its watchers), the replicas and
// authorizer shards, in revision order; then retention compacts the log. Every write, the bootstrap objects
// and the raw-write test hook take this path.

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

/** A transaction under way: `commit` stores `object` under `key` at the next revision and returns it. */
export interface Transaction {
  commit(kind: EventType, key: string, object: KubeObject): KubeObject;
  /** The newest revision so far: the store's before the transaction, plus what it committed. */
  readonly revision: number;
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

export class CommitPath {
  compacted: number;
  writes = 0; // writes that committed something
  private eventCount: number;

  constructor(private readonly o: CommitPathOptions) {
    this.compacted = o.log.meta('compacted');
    this.eventCount = o.log.eventCount();
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
        log.append(row, now);
        // The answer and every reader get the object as read back from storage (schema defaults applied).
        changes.push({ row, object, served: cache.serve(object, row.value), prev });
        return object;
      },
      get revision() {
        return next;
      },
    };
    const result = this.o.ctx.storage.transactionSync(() => {
      const value = fn(tx);
      if (changes.length) log.setMeta('revision', next);
      return value;
    });
    if (changes.length) this.publish(changes, now);
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
    // Compact first, so the push tells replicas the compaction point this write produced.
    this.compactIfNeeded(now);
    this.o.replication.push(changes.map((c) => c.row), changes[changes.length - 1].row.revision);
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
    this.o.ctx.storage.transactionSync(() => log.compact(upTo));
    this.compacted = upTo;
    this.eventCount = log.eventCount();
  }
}
