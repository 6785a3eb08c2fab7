// Canonical layer → followers: the store pushes each write's changes, by RPC, to every subscriber — watch-cache
// replicas, and authorizer shards following RBAC. Why RPC pushes and not a WebSocket or a stream per replica:
// calls on one stub keep their order, neither side is pinned awake between writes (a held socket or stream
// would keep the replica from hibernating and die on every restart), and a follower that sees a gap pulls the
// missing revisions from the log (core/follow/store-follower.ts), so a lost push costs a pull, never an event.

import type { ChangeRow, LogReply } from '../core/follow/change-log';
import type { Bindings } from '../contract/bindings';
import type { SubscriberRpc } from '../contract/rpc';
import { subscriberStub } from '../contract/names';
import { LOG_BATCH_BYTES } from './canonical-log';

export interface ReplicationOptions {
  ctx: DurableObjectState;
  env: Partial<Pick<Bindings, 'REPLICA' | 'AUTHORIZER'>>;
  groupResource: string;
  /** The store's log after a revision (a subscription's first answer). */
  readLog: (after: number) => LogReply;
  revision: () => number;
  compacted: () => number;
}

export class Replication {
  private readonly subscribers = new Map<string, DurableObjectStub<SubscriberRpc>>();
  messagesSent = 0;

  constructor(private readonly o: ReplicationOptions) {
    for (const row of o.ctx.storage.sql.exec<{ name: string }>('SELECT name FROM subscribers')) this.add(row.name);
  }

  get size(): number {
    return this.subscribers.size;
  }

  names(): string[] {
    return [...this.subscribers.keys()];
  }

  subscribe(name: string, after: number): LogReply {
    if (!this.subscribers.has(name)) {
      this.o.ctx.storage.sql.exec('INSERT OR IGNORE INTO subscribers (name) VALUES (?)', name);
      this.add(name);
    }
    return this.o.readLog(after);
  }

  unsubscribe(name: string): void {
    this.o.ctx.storage.sql.exec('DELETE FROM subscribers WHERE name = ?', name);
    this.subscribers.delete(name);
  }

  /**
   * One message per subscriber per write, whatever the number of watchers behind it. A write too large for one
   * RPC value (a collection delete of big objects) is announced by its head revision only: the followers see
   * the gap and pull the changes in byte-bounded batches.
   */
  push(changes: ChangeRow[], head: number): void {
    let bytes = 0;
    for (const c of changes) bytes += c.value.length + (c.prev_value?.length ?? 0);
    if (bytes > LOG_BATCH_BYTES) changes = [];
    for (const [name, stub] of this.subscribers) {
      this.messagesSent++;
      this.o.ctx.waitUntil(stub.receive(this.o.groupResource, name, changes, head, this.o.compacted()).catch((e: unknown) => {
        // The follower restarted or is down: a stub that saw its object break stays broken, so take a
        // new one. The follower pulls what it missed on the next push, or re-subscribes when it is back.
        console.warn(`push to ${name} failed: ${(e as Error)?.message ?? e}`);
        if (this.subscribers.get(name) === stub) this.add(name);
      }));
    }
  }

  /** After the store restarts: tell each follower the newest revision, so one that missed pushes pulls. */
  announce(): void {
    if (this.subscribers.size) this.push([], this.o.revision());
  }

  private add(name: string): void {
    const stub = subscriberStub(this.o.env, name);
    if (stub) this.subscribers.set(name, stub as DurableObjectStub<SubscriberRpc>);
  }
}
