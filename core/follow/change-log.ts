// Core: a store's revision log as its followers see it (replicas, authorizer shards, each isolate's CRD
// registry): one change as stored and pushed, what a read of the log answers, and a consistent snapshot.

import type { EventType } from '../watch/event';

/** One change as stored in the log and pushed to followers: the stored JSON, before and after. */
export type ChangeRow = {
  revision: number;
  type: EventType;
  key: string;
  value: string;
  prev_value: string | null;
};

/**
 * A read of the log after some revision (and a subscription's first answer): the store's newest revision, its
 * compaction point, and the changes after the asked revision, oldest first, at most one batch; `changes` is
 * undefined when the log was compacted past the asked revision, so only a fresh list can catch up.
 */
export interface LogReply {
  revision: number;
  compacted: number;
  changes?: ChangeRow[];
}

/** One object of a consistent list, under its store key (namespace/name, or name). */
export interface SnapshotItem {
  key: string;
  object: unknown;
}

/** Every object at one revision: what a follower starts from, and starts again from after a compaction. */
export interface Snapshot {
  revision: number;
  items: SnapshotItem[];
}

/** One page of a consistent list; `continue` is '' on the last page. */
export interface SnapshotPage extends Snapshot {
  continue: string;
}
