// Canonical layer: the store's SQLite tables behind plain methods: current objects, the revision log,
// counters, compaction, and "everything since revision N". All calls are synchronous, so a caller's
// transactionSync covers them.

import { SCHEMA, type MetaKey } from './schema';
import type { ChangeRow } from '../core/follow/change-log';

// A batch read from the log stops past this many bytes of JSON (at least one row is returned): batches cross
// RPC, whose values are limited to 32 MiB, and a thousand 1 MiB objects would not fit.
export const LOG_BATCH_BYTES = 8 * 1024 * 1024;

const EVENT_COLUMNS = 'e.revision AS revision, e.type AS type, e.key AS key, e.value AS value, coalesce(p.value, e.prev_value) AS prev_value';
const EVENTS = 'events e LEFT JOIN events_prev p ON p.revision = e.revision';

export class CanonicalLog {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(SCHEMA);
  }

  meta(name: 'type'): string | undefined;
  meta(name: 'revision' | 'compacted'): number;
  meta(name: MetaKey): string | number | undefined {
    const rows = this.sql.exec<{ value: string | number }>('SELECT value FROM meta WHERE name = ?', name).toArray();
    if (rows.length) return rows[0].value;
    return name === 'type' ? undefined : 0;
  }

  setMeta(name: MetaKey, value: string | number): void {
    this.sql.exec('INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)', name, value);
  }

  *objects(): Generator<{ key: string; revision: number; value: string }> {
    yield* this.sql.exec<{ key: string; revision: number; value: string }>('SELECT key, revision, value FROM objects');
  }

  eventCount(): number {
    return this.sql.exec<{ n: number }>('SELECT count(*) AS n FROM events').one().n;
  }

  /** Writes one change: the object row and its event (inside the caller's transaction). */
  append(c: ChangeRow, at: number): void {
    if (c.type === 'DELETED') this.sql.exec('DELETE FROM objects WHERE key = ?', c.key);
    else this.sql.exec('INSERT OR REPLACE INTO objects (key, revision, value) VALUES (?, ?, ?)', c.key, c.revision, c.value);
    this.sql.exec('INSERT INTO events (revision, type, key, value, at) VALUES (?, ?, ?, ?, ?)', c.revision, c.type, c.key, c.value, at);
    if (c.prev_value !== null) this.sql.exec('INSERT INTO events_prev (revision, value) VALUES (?, ?)', c.revision, c.prev_value);
  }

  /**
   * Events after `revision`, oldest first; the foundational "everything since N" query. At most `limit` rows and,
   * past the first, at most `maxBytes` of JSON: the caller asks again from the last revision it got.
   */
  since(revision: number, limit: number, maxBytes = LOG_BATCH_BYTES): ChangeRow[] {
    const rows: ChangeRow[] = [];
    let bytes = 0;
    for (const row of this.sql.exec<ChangeRow>(`SELECT ${EVENT_COLUMNS} FROM ${EVENTS} WHERE e.revision > ? ORDER BY e.revision LIMIT ?`, revision, limit)) {
      bytes += row.value.length + (row.prev_value?.length ?? 0);
      if (rows.length > 0 && bytes > maxBytes) break;
      rows.push(row);
    }
    return rows;
  }

  /** Per key, its value just before its first change after `revision` (null: it did not exist then). */
  valuesBefore(revision: number, keep: (key: string) => boolean): Map<string, string | null> {
    const values = new Map<string, string | null>();
    for (const row of this.sql.exec<{ key: string; prev_value: string | null }>(
      `SELECT e.key AS key, coalesce(p.value, e.prev_value) AS prev_value FROM ${EVENTS} WHERE e.revision > ? ORDER BY e.revision`, revision,
    )) {
      if (!values.has(row.key) && keep(row.key)) values.set(row.key, row.prev_value);
    }
    return values;
  }

  /** The newest revision written before `at` (ms), for age-based retention. */
  newestBefore(at: number): number | null {
    return this.sql.exec<{ r: number | null }>('SELECT max(revision) AS r FROM events WHERE at < ?', at).one().r;
  }

  /** Deletes every event at or below `revision` and records it as the compaction point. */
  compact(revision: number): void {
    this.sql.exec('DELETE FROM events WHERE revision <= ?', revision);
    this.sql.exec('DELETE FROM events_prev WHERE revision <= ?', revision);
    this.setMeta('compacted', revision);
  }
}
