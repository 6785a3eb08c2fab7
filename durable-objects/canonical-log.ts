// Canonical layer: the store's SQLite tables behind plain methods: current objects, the revision log,
// counters, compaction, and "everything since revision N". All calls are synchronous, so a caller's
// transactionSync covers them.

import { SCHEMA, type MetaKey } from './schema';
import type { ChangeRow } from './watch-cache';

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
    this.sql.exec(
      'INSERT INTO events (revision, type, key, value, prev_value, at) VALUES (?, ?, ?, ?, ?, ?)',
      c.revision, c.type, c.key, c.value, c.prev_value, at,
    );
  }

  /** Events after `revision`, oldest first; the foundational "everything since N" query. */
  since(revision: number, limit: number): ChangeRow[] {
    return this.sql.exec<ChangeRow>(
      'SELECT revision, type, key, value, prev_value FROM events WHERE revision > ? ORDER BY revision LIMIT ?',
      revision, limit,
    ).toArray();
  }

  /** Per key, its value just before its first change after `revision` (null: it did not exist then). */
  valuesBefore(revision: number, keep: (key: string) => boolean): Map<string, string | null> {
    const values = new Map<string, string | null>();
    for (const row of this.sql.exec<{ key: string; prev_value: string | null }>(
      'SELECT key, prev_value FROM events WHERE revision > ? ORDER BY revision', revision,
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
    this.setMeta('compacted', revision);
  }
}
