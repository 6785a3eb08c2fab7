// Caching layer: open watches per user in one store or replica, for one resource type (kube-apiserver's
// max-in-flight idea applied to long-running requests, per user): one client that leaks watches cannot
// take the whole MAX_WATCHERS of a type from everyone else. Memory: one entry per user with a watch open.

// Why 1000: client-go opens one watch per type per process, so a user needs many only when many
// processes share its identity (a DaemonSet's pods on one ServiceAccount; they spread over replicas by
// client address). 1000 is a sixth of MAX_WATCHERS' default (6000), so six such users still fit, and a
// watch leak in one client stops at 1000 instead of starving the type.
export const DEFAULT_MAX_WATCHES_PER_USER = 1000;

export class WatchQuota {
  private readonly open = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** Counts a new watch for `user`; false (and nothing counted) when the user is at the limit. */
  admit(user: string): boolean {
    const n = this.open.get(user) ?? 0;
    if (n >= this.limit) return false;
    this.open.set(user, n + 1);
    return true;
  }

  /** Takes one back: returns a release that counts only once, however often it is called. */
  hold(user: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.open.get(user) ?? 1) - 1;
      if (n <= 0) this.open.delete(user);
      else this.open.set(user, n);
    };
  }

  /** Counts a watch that was admitted before (a socket restored after eviction), past the limit if need be. */
  restore(user: string): void {
    this.open.set(user, (this.open.get(user) ?? 0) + 1);
  }

  count(user: string): number {
    return this.open.get(user) ?? 0;
  }
}
