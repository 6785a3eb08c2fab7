// Canonical layer → replicas: the store pushes each write's changes, by RPC, to every subscribed
// watch-cache replica. Why RPC pushes and not a WebSocket or a stream per replica: calls on one stub
// keep their order, neither side is pinned awake between writes (a held socket or stream would keep
// the replica from hibernating and die on every restart), and a replica that sees a gap pulls the
// missing revisions from the log, so a lost push costs a pull, never an event.

import { LOG_BATCH_BYTES, type CanonicalLog } from './canonical-log';
import type { ChangeRow } from './watch-cache';
import type { WatchReplica } from './watch-replica';
import type { Authorizer } from './authorizer';

export interface ReplicaEnv {
  REPLICA?: DurableObjectNamespace<WatchReplica>;
  AUTHORIZER?: DurableObjectNamespace<Authorizer>;
}

/** Subscribers are watch-cache replicas, or authorizer shards (named authz:<n>) following RBAC. */
type Subscriber = DurableObjectStub<WatchReplica> | DurableObjectStub<Authorizer>;
export const AUTHORIZER_PREFIX = 'authz:';

export interface SubscribeReply {
  revision: number; // the store's newest revision
  compacted: number;
  changes?: ChangeRow[]; // after the asked revision, oldest first, at most one batch; undefined if compacted
}

const SUBSCRIBE_BATCH = 1000;

export class Replication {
  private readonly subscribers = new Map<string, Subscriber>();
  messagesSent = 0;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: ReplicaEnv,
    private readonly groupResource: string,
    private readonly log: CanonicalLog,
    private readonly revision: () => number,
    private readonly compacted: () => number,
  ) {
    for (const row of ctx.storage.sql.exec<{ name: string }>('SELECT name FROM subscribers')) this.add(row.name);
  }

  get size(): number {
    return this.subscribers.size;
  }

  names(): string[] {
    return [...this.subscribers.keys()];
  }

  subscribe(name: string, after: number): SubscribeReply {
    if (!this.subscribers.has(name)) {
      this.ctx.storage.sql.exec('INSERT OR IGNORE INTO subscribers (name) VALUES (?)', name);
      this.add(name);
    }
    const reply: SubscribeReply = { revision: this.revision(), compacted: this.compacted() };
    if (after >= this.compacted()) reply.changes = this.log.since(after, SUBSCRIBE_BATCH);
    return reply;
  }

  unsubscribe(name: string): void {
    this.ctx.storage.sql.exec('DELETE FROM subscribers WHERE name = ?', name);
    this.subscribers.delete(name);
  }

  /**
   * One message per replica per write, whatever the number of watchers behind it. A write too large for one RPC
   * value (a collection delete of big objects) is announced by its head revision only: the replicas see the gap
   * and pull the changes in byte-bounded batches.
   */
  push(changes: ChangeRow[], head: number): void {
    let bytes = 0;
    for (const c of changes) bytes += c.value.length + (c.prev_value?.length ?? 0);
    if (bytes > LOG_BATCH_BYTES) changes = [];
    for (const [name, stub] of this.subscribers) {
      this.messagesSent++;
      this.ctx.waitUntil(stub.receive(this.groupResource, name, changes, head, this.compacted()).catch((e: unknown) => {
        // The replica restarted or is down: a stub that saw its object break stays broken, so take a
        // new one. The replica pulls what it missed on the next push, or re-subscribes when it is back.
        console.warn(`push to replica ${name} failed: ${String(e)}`);
        if (this.subscribers.get(name) === stub) this.add(name);
      }));
    }
  }

  /** After the store restarts: tell each replica the newest revision, so one that missed pushes pulls. */
  announce(): void {
    if (this.subscribers.size) this.push([], this.revision());
  }

  private add(name: string): void {
    const ns = name.startsWith(AUTHORIZER_PREFIX) ? this.env.AUTHORIZER : this.env.REPLICA;
    if (!ns) return;
    this.subscribers.set(name, (ns as DurableObjectNamespace<WatchReplica>).get(ns.idFromName(name)));
  }
}
