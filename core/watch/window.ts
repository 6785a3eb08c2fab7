// Caching layer: the in-memory window of recent events. It answers "everything after revision N" from
// memory when N is inside it; older requests fall back to the canonical log (or 410 once compacted).

import type { WatchEvent } from './event';

export interface WindowLimits {
  maxEvents: number; // hard cap: memory
  maxBytes: number; // hard cap: memory, as the events' JSON (new and previous state) weighs
  minAgeMs: number; // events younger than this stay (apiserver eventFreshDuration, 75 s) unless over the cap
  minEvents: number; // below this many events nothing is evicted for age
}

// Memory, not correctness, sets the caps: anything older is read back from the SQLite log. 32 MiB of event JSON
// (about twice that once frames are cached for delivery) keeps a store or replica well inside a 128 MB isolate even
// when every event carries a 1.5 MiB object; without the byte cap, 10,000 such events would be 15 GB.
export const DEFAULT_WINDOW: WindowLimits = { maxEvents: 10_000, maxBytes: 32 * 1024 * 1024, minAgeMs: 75_000, minEvents: 1000 };

export class WatchWindow {
  private events: WatchEvent[] = [];
  private head = 0; // index of the oldest retained event
  // Every event after `floor` is in memory; `floor` is the revision just before the oldest retained event.
  private floorRevision: number;
  private bytes = 0;

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
    this.bytes += weight(ev);
    this.evict(now);
  }

  /** The JSON the window holds, in UTF-16 code units (what V8 keeps for non-Latin-1 text). */
  get heldBytes(): number {
    return this.bytes;
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
    const { maxEvents, maxBytes, minAgeMs, minEvents } = this.limits;
    while (this.size > maxEvents || (this.size > 1 && this.bytes > maxBytes) || (this.size > minEvents && now - this.events[this.head].at > minAgeMs)) {
      const dropped = this.events[this.head];
      this.bytes -= weight(dropped);
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

function weight(ev: WatchEvent): number {
  return ev.object.json.length + (ev.prev?.json.length ?? 0);
}
