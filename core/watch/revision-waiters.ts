// Caching layer: reads that ask for a revision the store has not reached yet wait here, bounded,
// and are released by the write that reaches it (apiserver watch_cache.go waitUntilFreshAndBlock).

interface Waiter {
  revision: number;
  resolve: (reached: boolean) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class RevisionWaiters {
  private waiting: Waiter[] = [];

  /** Resolves true once `advance` reaches `revision`, false after `timeoutMs`. */
  wait(revision: number, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        revision,
        resolve,
        timer: setTimeout(() => {
          this.waiting = this.waiting.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiting.push(waiter);
    });
  }

  advance(revision: number): void {
    if (this.waiting.length === 0) return;
    const ready = this.waiting.filter((w) => w.revision <= revision);
    this.waiting = this.waiting.filter((w) => w.revision > revision);
    for (const w of ready) {
      clearTimeout(w.timer);
      w.resolve(true);
    }
  }
}
