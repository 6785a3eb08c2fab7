// Contract, fault tests only: named failpoints inside the Durable Objects (gofail's, as etcd's robustness tests use
// them). One registry per isolate, which the Worker and every object running in it share (as crd-types.ts): the
// Worker arms a name through `PUT /debug/failpoints/<name>` (served only with ENABLE_TEST_HOOKS, 404 otherwise) and
// the next object that reaches that point fails there. Unarmed — always, in production — a point costs one check
// of an empty map.

/** Every failpoint inside the objects; robustness/run/failpoints.ts arms them by these names. */
export const INSIDE_FAILPOINTS = [
  'store.write.before-transaction', // a write's transaction not begun
  'store.write.in-transaction', // everything committed, the transaction not yet done: rolled back
  'store.write.after-commit', // durable, not yet in memory, at watchers or replicas
  'store.write.after-broadcast', // durable, published to watchers and replicas
  'store.storage-error', // SQLite fails inside the write's transaction (SQLITE_FULL)
  'store.compact.before-commit', // compaction's transaction begun, nothing deleted
  'store.compact.after-commit', // the log compacted, the store's memory not yet told
  'replica.push.drop', // one push to one follower lost
  'replica.push.duplicate', // one push delivered twice
  'replica.push.reorder', // one push held back and delivered after the next
  'watch.before-send', // a watcher's next frame held (sleep), its later frames queued behind it (etcd's SleepBeforeSendWatchResponse)
  'watch.before-bookmark', // the same, for a bookmark frame
  'informer.drop-event', // one event of a type's informer lost on its way to one controller's handler (the informer's cache still has it)
  'clock.skew', // the controller manager's clock (its loops, leases, kubelets) off by ±ms until disarmed
] as const;
export type InsideFailpoint = (typeof INSIDE_FAILPOINTS)[number];

/**
 * What an armed point does: throw an Error, or abort its object (ctx.abort: a crash, memory lost) and throw; or, at
 * the points that may wait (SLEEP_POINTS), hold what passes there for `ms`.
 */
export type FailpointAction = 'throw' | 'abort' | 'sleep' | 'skew';

/** The points that can sleep (gofail's `sleep(ms)`); the others run synchronously inside a transaction. */
export const SLEEP_POINTS: readonly InsideFailpoint[] = ['watch.before-send', 'watch.before-bookmark'];
const MAX_SLEEP_MS = 10_000;
/** The points that take `skew(±ms)`: a clock off by that much while armed. */
export const SKEW_POINTS: readonly InsideFailpoint[] = ['clock.skew'];
const MAX_SKEW_MS = 600_000;

interface Armed {
  action: FailpointAction;
  ms?: number; // sleep's and skew's
  seen?: boolean; // skew: counted as a hit once, when first read
  remaining: number; // hits left before it disarms itself
  store?: string; // only in this store ("group/resource"); any when absent
}

const armed = new Map<string, Armed>();
const hits = new Map<string, number>();

/**
 * Parses gofail-style terms: `throw`, `abort`, `3*throw`, `sleep(500)`, `2*sleep(500)` (at most 10 s), `off`, and
 * `skew(-30000)` (at most ±10 min; it holds until `off`). Undefined when it is none of them.
 */
export function parseFailpointTerm(term: string): { action: FailpointAction | 'off'; count: number; ms?: number } | undefined {
  const t = term.trim();
  const skew = /^skew\((-?[0-9]{1,6})\)$/.exec(t);
  if (skew) {
    const ms = Number(skew[1]);
    return Math.abs(ms) > MAX_SKEW_MS ? undefined : { action: 'skew', count: 1, ms };
  }
  const m = /^(?:([1-9][0-9]{0,5})\*)?(throw|abort|off|sleep\(([0-9]{1,5})\))$/.exec(t);
  if (!m) return undefined;
  const count = m[1] ? Number(m[1]) : 1;
  if (m[3] === undefined) return { action: m[2] as FailpointAction | 'off', count };
  const ms = Number(m[3]);
  return ms > MAX_SLEEP_MS ? undefined : { action: 'sleep', count, ms };
}

export function armFailpoint(name: InsideFailpoint, action: FailpointAction | 'off', count = 1, store?: string, ms = 0): void {
  if (action === 'off') armed.delete(name);
  else armed.set(name, { action, remaining: count, ...(action === 'sleep' || action === 'skew' ? { ms } : {}), ...(store ? { store } : {}) });
}

/** Armed points with their hits left, and how often each point fired since the isolate started. */
export function failpointState(): { armed: Record<string, string>; hits: Record<string, number> } {
  return {
    armed: Object.fromEntries([...armed].map(([n, a]) => [n, a.action === 'skew' ? `skew(${a.ms})` : `${a.remaining}*${a.action === 'sleep' ? `sleep(${a.ms})` : a.action}${a.store ? ` in ${a.store}` : ''}`])),
    hits: Object.fromEntries(hits),
  };
}

/**
 * A failpoint in `store` (its "group/resource"): nothing unless `name` is armed for it; then it fires once (of its
 * count): aborts the object (`ctx`) when so armed, and throws. Points that do not throw (a replica push to drop) ask `fired` instead.
 */
export function failpoint(name: InsideFailpoint, ctx: DurableObjectState, store: string): void {
  const action = fire(name, store)?.action;
  if (!action || action === 'sleep' || action === 'skew') return; // refused when arming a point that cannot take them
  if (action === 'abort') ctx.abort(`failpoint ${name}`);
  throw new Error(name === 'store.storage-error' ? `SQLITE_FULL: database or disk is full (failpoint ${name})` : `failpoint ${name}`);
}

/** Whether `name` is armed (for `store`), counting this as one of its hits. */
export function fired(name: InsideFailpoint, store: string): boolean {
  return fire(name, store) !== undefined;
}

/**
 * A point that may wait: 0 unless `name` is armed (for `store`); armed with `sleep(ms)`, the ms to hold what passes
 * here; armed with `throw` or `abort`, it throws (the caller has no object to abort: its caller fails instead).
 */
export function failpointSleep(name: InsideFailpoint, store: string): number {
  const a = fire(name, store);
  if (!a) return 0;
  if (a.action === 'sleep') return a.ms ?? 0;
  throw new Error(`failpoint ${name}`);
}

/**
 * How far the clock of whoever reads this is off: 0 unless `clock.skew` is armed, then its ms until it is
 * disarmed (one hit, counted at the first read). Unarmed — always, in production — one check of an empty map.
 */
export function clockSkewMs(): number {
  if (armed.size === 0) return 0;
  const a = armed.get('clock.skew');
  if (!a || a.action !== 'skew') return 0;
  if (!a.seen) {
    a.seen = true;
    hits.set('clock.skew', (hits.get('clock.skew') ?? 0) + 1);
  }
  return a.ms ?? 0;
}

// The store is passed, not read from ctx.id.name: an object woken by its alarm or by a call made with an id from
// a string has no name (measured: after a runtime restart, no store point fired until the store was reset).
function fire(name: InsideFailpoint, store: string): Armed | undefined {
  if (armed.size === 0) return undefined;
  const a = armed.get(name);
  if (!a || (a.store !== undefined && store !== a.store)) return undefined;
  if (--a.remaining <= 0) armed.delete(name);
  hits.set(name, (hits.get(name) ?? 0) + 1);
  return a;
}
