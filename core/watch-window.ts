// Caching layer: the in-memory window of recent events. It answers "everything after revision N" from
// memory when N is inside it; older requests fall back to the canonical log (or 410 once compacted).

import type { WatchEvent } from './watch-event';

export interface WindowLimits {
  maxEvents: number; // hard cap: memory
  minAgeMs: number; // events younger than this stay (apiserver eventFreshDuration, 75 s) unless over the cap
  minEvents: number; // below this many events nothing is evicted for age
}

// Memory, not correctness, sets the cap: anything older is read back from the SQLite log.
export const DEFAULT_WINDOW: WindowLimits = { maxEvents: 10_000, minAgeMs: 75_000, minEvents: 1000 };

export class WatchWindow {
  private events: WatchEvent[] = [];
  private head = 0; // index of the oldest retained event
  // Every event after `floor` is in memory; `floor` is the revision just before the oldest retained event.
  private floorRevision: number;

  constructor(private readonly limits: WindowLimits, startRevision: number) {
    this.floorRevision = startRevision;
  }

  get floor(): number {
    return this.floorRevision;
  }

  get size(): number {
    return this.events.length - this.head;
  }

  append(ev: WatchEvent, now: number): void {
    this.events.push(ev);
    this.evict(now);
  }

  /** Events with revision > after, oldest first; undefined when some of them are no longer in memory. */
  since(after: number): WatchEvent[] | undefined {
    if (after < this.floorRevision) return undefined;
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid].revision <= after) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo);
  }

  private evict(now: number): void {
    const { maxEvents, minAgeMs, minEvents } = this.limits;
    while (this.size > maxEvents || (this.size > minEvents && now - this.events[this.head].at > minAgeMs)) {
      const dropped = this.events[this.head];
      dropped.frames = undefined;
      this.floorRevision = dropped.revision;
      this.head++;
    }
    // Compact the backing array now and then rather than shifting on every eviction.
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }
}
