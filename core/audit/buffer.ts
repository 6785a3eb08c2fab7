// Core: where audit events wait and are kept, bounded in bytes. Requests only enqueue (an estimate of the event's
// size, no serialization); a flush after the response serializes the queue, hands each line to the writers (the
// console for Workers Logpush) and keeps the newest lines in a ring an operator reads back (GET /_edgeplane/audit).
// Like kube's buffered audit backend (plugin/pkg/audit/buffered), a full queue drops new events and counts them
// rather than slow the request that made them.

import { serializeEvent, type AuditEvent } from './event';

export interface AuditLimits {
  queueBytes: number; // events waiting for the next flush
  ringBytes: number; // serialized events kept for reading back (0: none)
  maxEventBytes: number; // one serialized event (kube's --audit-log-truncate-max-event-size)
}

export interface AuditCounters {
  events: number; // events written
  dropped: number; // events dropped because the queue was full
  truncated: number; // events written without their request/response objects to fit maxEventBytes
  tooLarge: number; // events dropped because even truncated they did not fit
  evicted: number; // events pushed out of the ring by newer ones
}

interface Kept {
  seq: number;
  time: string; // stageTimestamp
  line: string;
}

/** The page of kept events after a point, for the read-back endpoint. */
export interface AuditPage {
  lines: string[];
  last: number; // seq of the newest event returned, or of the point asked from when none
  oldest: number; // seq of the oldest event still kept (0: none)
}

export class AuditBuffer {
  private pending: { ev: AuditEvent; bytes: number }[] = [];
  private pendingBytes = 0;
  private ring: Kept[] = [];
  private head = 0; // ring[head] is the oldest kept line
  private ringBytes = 0;
  private seq = 0;
  readonly counters: AuditCounters = { events: 0, dropped: 0, truncated: 0, tooLarge: 0, evicted: 0 };

  get queued(): number {
    return this.pending.length;
  }

  get keptBytes(): number {
    return this.ringBytes;
  }

  /** Queues one event; false (and counted) when the queue has no room for it. */
  enqueue(ev: AuditEvent, estimatedBytes: number, limits: AuditLimits): boolean {
    if (this.pendingBytes + estimatedBytes > limits.queueBytes) {
      this.counters.dropped++;
      return false;
    }
    this.pending.push({ ev, bytes: estimatedBytes });
    this.pendingBytes += estimatedBytes;
    return true;
  }

  /** Serializes every queued event, in order, to `write` and the ring. */
  flush(limits: AuditLimits, write: ((line: string) => void) | undefined): void {
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    for (const { ev } of batch) {
      const out = serializeEvent(ev, limits.maxEventBytes);
      if (!out) {
        this.counters.tooLarge++;
        continue;
      }
      if (out.truncated) this.counters.truncated++;
      this.counters.events++;
      this.seq++;
      write?.(out.line);
      this.keep({ seq: this.seq, time: ev.stageTimestamp, line: out.line }, limits.ringBytes);
    }
  }

  private keep(k: Kept, budget: number): void {
    const cost = 2 * k.line.length + 64;
    if (cost > budget) return;
    this.ring.push(k);
    this.ringBytes += cost;
    while (this.ringBytes > budget) {
      const old = this.ring[this.head++];
      this.ringBytes -= 2 * old.line.length + 64;
      this.counters.evicted++;
    }
    // Compact once the dead prefix is the larger part: amortized constant per event.
    if (this.head > 1024 && this.head * 2 > this.ring.length) {
      this.ring = this.ring.slice(this.head);
      this.head = 0;
    }
  }

  /**
   * Kept events after `since` — a sequence number (events with a greater one) or a MicroTime/RFC 3339 time (events
   * stamped at or after it) — oldest first, at most `limit`. Binary search for a sequence number; a time scans.
   */
  read(since: { seq?: number; time?: string }, limit: number): AuditPage {
    const live = this.ring.length - this.head;
    const oldest = live > 0 ? this.ring[this.head].seq : 0;
    let from = this.head;
    if (since.seq !== undefined) {
      let lo = this.head;
      let hi = this.ring.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.ring[mid].seq <= since.seq) lo = mid + 1;
        else hi = mid;
      }
      from = lo;
    }
    const lines: string[] = [];
    let last = since.seq ?? 0;
    for (let i = from; i < this.ring.length && lines.length < limit; i++) {
      const k = this.ring[i];
      if (since.time !== undefined && k.time < since.time) continue;
      lines.push(k.line);
      last = k.seq;
    }
    return { lines, last, oldest };
  }
}
