// Durable Objects: every SQLite table, in one place. The store's: `objects` is the current state, `events` the
// revision log; both are written in one transaction per write, so they cannot disagree. An event's previous
// value lives in `events_prev`, a row of its own: a Durable Object's SQLite row is at most 2 MB, and an object
// and its previous state can each be 1.5 MiB. (`events.prev_value` is only read, for logs written before.)
// `subscribers` are the followers it pushes to (replication.ts); `namespace_fences` the namespaces it refuses
// creates in (namespace-fence.ts). A replica keeps only its own `meta`.

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS objects (
  key TEXT PRIMARY KEY,
  revision INTEGER NOT NULL,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
  revision INTEGER PRIMARY KEY,
  type TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  prev_value TEXT,
  at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events_prev (
  revision INTEGER PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value
);
CREATE TABLE IF NOT EXISTS subscribers (
  name TEXT PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS namespace_fences (
  name TEXT PRIMARY KEY,
  revision INTEGER NOT NULL
);
`;

export const REPLICA_SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value
);
`;

// `revision`: the last revision handed out (never reused, even after compaction).
// `compacted`: every event at or below it has been deleted from the log.
// `type`: the group/resource this store holds, so a restarted object knows itself before any request.
export type MetaKey = 'revision' | 'compacted' | 'type';
// A replica's: its own `name` and `type`, and the `revision` its watchers had seen (what to replay after eviction).
export type ReplicaMetaKey = 'name' | 'type' | 'revision';
