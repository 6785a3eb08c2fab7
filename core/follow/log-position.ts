// Core: where a follower stands in a store's log, and the three decisions it makes on what arrives:
// which changes apply now (in revision order, never twice, nothing past a gap), whether it is behind (a
// pull is due), and whether a snapshot may replace what it holds (never an older one). client-go's
// Reflector keeps the same position (lastSyncResourceVersion); etcd's watchable store the same gap rule.

import type { ChangeRow, LogReply } from './change-log';

export class LogPosition {
  /** The last revision applied; -1 before any snapshot was adopted. */
  revision = -1;
  /** The newest revision the store is known to have: from its replies and pushes, or a change seen past a gap. */
  head = 0;
  /** The store's compaction point: its log holds nothing at or below it. */
  compacted = 0;

  /** What the store said of itself (a reply or a push): both only ever grow. */
  heard(head: number, compacted: number): void {
    this.head = Math.max(this.head, head);
    this.compacted = Math.max(this.compacted, compacted);
  }

  /** True while the store has revisions this follower has not applied. */
  get behind(): boolean {
    return this.revision < this.head;
  }

  /**
   * Whether a snapshot at `revision` may replace what is held: not if it is older (two lists in flight, the
   * slower one answering last). Adopting it moves the position there.
   */
  adopt(revision: number): boolean {
    if (revision < this.revision) return false;
    this.revision = revision;
    this.head = Math.max(this.head, revision);
    return true;
  }

  /**
   * Of `rows` (oldest first, as a push or a log read carries them), the run that continues from this
   * position: older ones are dropped (already applied), and a gap ends the run — the changes past it wait
   * for the pull that fills it, which `behind` now asks for. The caller applies the run, then `advance`s.
   */
  next(rows: readonly ChangeRow[]): ChangeRow[] {
    const run: ChangeRow[] = [];
    let at = this.revision;
    for (const row of rows) {
      if (row.revision <= at) continue;
      if (row.revision !== at + 1) {
        this.head = Math.max(this.head, row.revision);
        break;
      }
      run.push(row);
      at = row.revision;
    }
    return run;
  }

  /** One change of the run from `next` was applied. */
  advance(revision: number): void {
    this.revision = revision;
  }

  /** A log read's answer: whether only a new snapshot can catch up (the log was compacted past this position). */
  compactedPast(reply: LogReply): boolean {
    this.heard(reply.revision, reply.compacted);
    return reply.changes === undefined;
  }
}
