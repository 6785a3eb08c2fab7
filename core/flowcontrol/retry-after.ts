// Core: the Retry-After a flow-control rejection names, per priority level (kube's dropped_requests_tracker.go):
// it starts at 1 s; when a level kept dropping — at least 3 × the current value in the last that-many seconds —
// it doubles (at most once per that-many seconds, up to 32 s), and when it dropped fewer than that-many it comes
// down by one, so clients back off harder while a level stays overloaded. Time in whole seconds, injected.

const MAX_RETRY_AFTER = 32;
const MAX_LEVELS = 1000;

interface LevelStats {
  history: { second: number; count: number }[]; // finished seconds, the last MAX_RETRY_AFTER of them
  currentSecond: number;
  currentCount: number;
  retryAfter: number;
  raisedAt: number;
}

export class DroppedRequests {
  private readonly levels = new Map<string, LevelStats>();

  /** A request of `level` was rejected at `second` (Unix seconds). */
  record(level: string, second: number): void {
    let s = this.levels.get(level);
    if (!s) {
      if (this.levels.size >= MAX_LEVELS) this.levels.delete(this.levels.keys().next().value!);
      this.levels.set(level, (s = { history: [], currentSecond: 0, currentCount: 0, retryAfter: 1, raisedAt: 0 }));
    }
    if (s.currentSecond === second) {
      s.currentCount++;
      return;
    }
    // A new second: the one that ended joins the history, and the value is reconsidered from it.
    s.history.push({ second: s.currentSecond, count: s.currentCount });
    while (s.history.length && s.currentSecond - s.history[0]!.second > MAX_RETRY_AFTER) s.history.shift();
    s.currentSecond = second;
    s.currentCount = 1;
    this.reconsider(s, second);
  }

  retryAfter(level: string): number {
    return this.levels.get(level)?.retryAfter ?? 1;
  }

  private reconsider(s: LevelStats, now: number): void {
    let dropped = 0;
    for (let i = s.history.length - 1; i >= 0; i--) {
      const h = s.history[i]!;
      if (now - h.second > s.retryAfter) break;
      if (h.second < now) dropped += h.count;
    }
    if (now - s.raisedAt >= s.retryAfter && dropped >= 3 * s.retryAfter) {
      s.retryAfter = Math.min(MAX_RETRY_AFTER, s.retryAfter * 2);
      s.raisedAt = now;
    } else if (dropped < s.retryAfter && s.retryAfter > 1) {
      s.retryAfter--;
    }
  }
}
