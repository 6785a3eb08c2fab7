// Test helper: an in-memory canonical store as a follower reaches it (core/follow/store-follower.ts): a log with
// compaction, consistent paged lists, log reads in small batches, and pushes to one subscriber.

import type { ChangeRow, LogReply, SnapshotItem, SnapshotPage } from '../../../core/follow/change-log';
import type { FollowedStore, FollowerSink } from '../../../core/follow/store-follower';

export class FakeStore {
  readonly log: ChangeRow[] = [];
  readonly objects = new Map<string, string>();
  revision = 0;
  compacted = 0;
  calls = { listPage: 0, readLog: 0, subscribe: 0, unsubscribe: 0 };
  subscribed = false;
  pageSize = 2;
  batch = 3;
  /** Each listPage call waits for this (tests hold a list open with it). */
  gate: Promise<void> = Promise.resolve();

  write(key: string, value: string | undefined): ChangeRow {
    const row: ChangeRow = {
      revision: ++this.revision, type: value === undefined ? 'DELETED' : this.objects.has(key) ? 'MODIFIED' : 'ADDED',
      key, value: value ?? this.objects.get(key) ?? '', prev_value: this.objects.get(key) ?? null,
    };
    if (value === undefined) this.objects.delete(key);
    else this.objects.set(key, value);
    this.log.push(row);
    return row;
  }

  compact(upTo = this.revision): void {
    this.compacted = upTo;
  }

  private reply(after: number): LogReply {
    const reply: LogReply = { revision: this.revision, compacted: this.compacted };
    if (after >= this.compacted) reply.changes = this.log.filter((r) => r.revision > after).slice(0, this.batch);
    return reply;
  }

  /** `push`: false for a pull-only follower. */
  source(push = true): FollowedStore {
    const snapshots: { revision: number; items: SnapshotItem[] }[] = [];
    const store: FollowedStore = {
      listPage: async (token): Promise<SnapshotPage> => {
        this.calls.listPage++;
        // The first page fixes the snapshot (before any wait: a held list answers with the state it began at);
        // the token names the snapshot and where the rest of it starts.
        let [id, from] = token.split('@').map(Number);
        if (!token) {
          const items = [...this.objects].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, v]) => ({ key, object: JSON.parse(v) as unknown }));
          id = snapshots.push({ revision: this.revision, items }) - 1;
          from = 0;
        }
        await this.gate;
        const snap = snapshots[id];
        const more = from + this.pageSize < snap.items.length;
        return { revision: snap.revision, items: snap.items.slice(from, from + this.pageSize), continue: more ? `${id}@${from + this.pageSize}` : '' };
      },
      readLog: async (after) => {
        this.calls.readLog++;
        return this.reply(after);
      },
    };
    if (push) {
      store.subscribe = async (after) => {
        this.calls.subscribe++;
        this.subscribed = true;
        return this.reply(after);
      };
      store.unsubscribe = async () => {
        this.calls.unsubscribe++;
        this.subscribed = false;
      };
    }
    return store;
  }
}

/** A sink that keeps key → value and records what happened to it. */
export class MapSink implements FollowerSink {
  readonly values = new Map<string, unknown>();
  readonly events: string[] = [];

  load(snapshot: { revision: number; items: SnapshotItem[] }): void {
    this.values.clear();
    for (const i of snapshot.items) this.values.set(i.key, i.object);
    this.events.push(`load@${snapshot.revision}`);
  }

  apply(row: ChangeRow): void {
    if (row.type === 'DELETED') this.values.delete(row.key);
    else this.values.set(row.key, JSON.parse(row.value));
    this.events.push(`apply@${row.revision}`);
  }

  reached(revision: number): void {
    this.events.push(`reached@${revision}`);
  }

  lost(): void {
    this.events.push('lost');
  }
}
