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
import { fired } from '../contract/failpoints';

export interface ReplicationOptions {
  ctx: DurableObjectState;
  env: Partial<Pick<Bindings, 'REPLICA' | 'AUTHORIZER'>>;
  groupResource: string;
  /** The store's log after a revision (a subscription's first answer). */
  readLog: (after: number) => LogReply;
  revision: () => number;
  compacted: () => number;
}

/** One follower: its stub, and what waits for the push under way to it to finish. */
interface Subscriber {
  stub: DurableObjectStub<SubscriberRpc>;
  sending: boolean;
  pending: ChangeRow[]; // changes written since the push under way was sent, in revision order
  pendingBytes: number;
  overflow: boolean; // pending grew past LOG_BATCH_BYTES: send the head alone, the follower pulls
  head: number; // the newest revision to announce (0: nothing waits)
}

export class Replication {
  private readonly subscribers = new Map<string, Subscriber>();
  private held: (() => void)[] = []; // pushes the replica.push.reorder failpoint holds until after the next
  messagesSent = 0;

  constructor(private readonly o: ReplicationOptions) {
    for (const row of o.ctx.storage.sql.exec<{ name: string }>('SELECT name FROM subscribers')) this.add(row.name);
  }

  get groupResource(): string {
    return this.o.groupResource;
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
   * At most one push under way per subscriber, whatever the number of watchers behind it: changes written
   * while one is under way wait and leave together in the next, when it returns. An idle store pushes each
   * write at once; a busy one sends one message per round trip instead of one per write (every push costs
   * both objects an RPC: serialization, a turn of each event loop). Calls on one stub keep their order, and
   * so do these. Changes too large for one RPC value (a collection delete of big objects) are announced by
   * their head revision only: the follower sees the gap and pulls them in byte-bounded batches.
   */
  push(changes: ChangeRow[], head: number): void {
    let bytes = 0;
    for (const c of changes) bytes += c.value.length + (c.prev_value?.length ?? 0);
    for (const [name, s] of this.subscribers) {
      if (!s.overflow) {
        s.pendingBytes += bytes;
        if (s.pendingBytes > LOG_BATCH_BYTES) {
          s.overflow = true;
          s.pending = [];
        } else for (const c of changes) s.pending.push(c);
      }
      s.head = Math.max(s.head, head);
      if (!s.sending) this.send(name, s);
    }
  }

  /** After the store restarts: tell each follower the newest revision, so one that missed pushes pulls. */
  announce(): void {
    if (this.subscribers.size) this.push([], this.o.revision());
  }

  private send(name: string, s: Subscriber): void {
    const changes = s.pending;
    const head = s.head;
    s.pending = [];
    s.pendingBytes = 0;
    s.overflow = false;
    s.head = 0;
    const stub = s.stub;
    const compacted = this.o.compacted();
    const deliver = () => {
      this.messagesSent++;
      return stub.receive(this.o.groupResource, name, changes, head, compacted).catch((e: unknown) => {
        // The follower restarted or is down: a stub that saw its object break stays broken, so take a
        // new one. The follower pulls what it missed on the next push, or re-subscribes when it is back.
        console.warn(`push to ${name} failed: ${(e as Error)?.message ?? e}`);
        if (s.stub === stub) s.stub = (subscriberStub(this.o.env, name) as DurableObjectStub<SubscriberRpc> | undefined) ?? stub;
      });
    };
    // Test failpoints (contract/failpoints.ts; off unless armed with ENABLE_TEST_HOOKS): a push lost, held
    // until after the next one, or sent twice. Followers must come out exact all the same.
    const held = this.held;
    this.held = [];
    if (fired('replica.push.drop', this.o.groupResource)) {
      for (const h of held) h();
      return;
    }
    if (fired('replica.push.reorder', this.o.groupResource)) {
      this.held.push(() => void this.o.ctx.waitUntil(deliver()));
      for (const h of held) h();
      return;
    }
    s.sending = true;
    const twice = fired('replica.push.duplicate', this.o.groupResource);
    this.o.ctx.waitUntil(deliver().then(() => (twice ? deliver() : undefined)).finally(() => {
      s.sending = false;
      for (const h of held) h();
      // What was written meanwhile, unless the follower unsubscribed.
      if (s.head > 0 && this.subscribers.get(name) === s) this.send(name, s);
    }));
  }

  private add(name: string): void {
    const stub = subscriberStub(this.o.env, name);
    if (stub) this.subscribers.set(name, { stub: stub as DurableObjectStub<SubscriberRpc>, sending: false, pending: [], pendingBytes: 0, overflow: false, head: 0 });
  }
}
