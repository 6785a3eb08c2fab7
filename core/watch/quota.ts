// Caching layer: who may open another watch in one store or replica, for one resource type. kube-apiserver
// has no per-resource watcher cap; here MAX_WATCHERS protects a Durable Object's memory, so no single tenant
// may come near it: every watch of a tenant counts against its user's bound and its namespace's bound (a
// namespaced watch against the namespace it watches, and a ServiceAccount's watch against the namespace the
// account lives in, so accounts a namespace admin mints share one bound). The gateway's own components and
// system:masters are never counted nor refused (API Priority and Fairness's exempt level: their watches are
// few, and the cluster stops without them). Memory: one entry per key with a watch open, one per watch.

// The defaults (core/settings.ts): 1000 per user and per namespace, because client-go opens one watch per type
// per process, so a user or a namespace needs many only when many processes share one identity (a DaemonSet's
// pods on one ServiceAccount; they spread over replicas by client address). 1000 is a sixth of MAX_WATCHERS'
// 6000: at least six tenants must each fill their bound before tenants' watches reach it, and system
// components are outside it anyway.
// A bound that refuses a watch first asks its holders whether their clients are still there (a liveness
// write: locally workerd notices a gone HTTP client only when it writes to it), so a tenant that hung up frees
// its slots as soon as someone wants them. A bound is probed at most once a second, and so is each holder
// (it may be in several full bounds); all tenants' watches together at most every 5 s. A write costs ~35 µs
// (one chunk, see watch-sinks.ts), so a tenant knocking at its full bound of 1000 costs at most 35 ms a
// second, and a full MAX_WATCHERS of 6000 at most 42 ms a second.
export const PROBE_INTERVAL_MS = 1000;
export const TENANTS_PROBE_INTERVAL_MS = 5000;

export interface WatchLimits {
  tenants: number; // MAX_WATCHERS: all tenants' watches together
  perUser: number; // MAX_WATCHES_PER_USER
  perNamespace: number; // MAX_WATCHES_PER_NAMESPACE
}

/** The authenticated user as the front door sees it. */
export interface WatchUser {
  username: string;
  groups: readonly string[];
}

const SYSTEM_GROUPS = ['system:masters', 'system:nodes'];
// The controller manager, the scheduler and kube-proxy (core/auth/internal-identity.ts), as kube names them.
const SYSTEM_USERS = new Set(['system:kube-controller-manager', 'system:kube-scheduler', 'system:kube-proxy']);
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
const KUBE_SYSTEM_ACCOUNTS = `${SERVICE_ACCOUNT_PREFIX}kube-system:`;

/**
 * A system component, whose watches others' watches never refuse: system:masters, the kubelets
 * (system:nodes), the controller manager, scheduler and kube-proxy, and kube-system's ServiceAccounts (the
 * controllers'). Only the cluster's administrators can make such an identity.
 */
export function isSystemWatcher(user: WatchUser): boolean {
  return user.groups.some((g) => SYSTEM_GROUPS.includes(g)) || SYSTEM_USERS.has(user.username) || user.username.startsWith(KUBE_SYSTEM_ACCOUNTS);
}

/** The namespace a ServiceAccount user lives in (system:serviceaccount:<ns>:<name>), else undefined. */
export function serviceAccountNamespace(username: string): string | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const rest = username.slice(SERVICE_ACCOUNT_PREFIX.length);
  const colon = rest.indexOf(':');
  return colon > 0 ? rest.slice(0, colon) : undefined;
}

/**
 * Who a tenant is for placement and fairness: its namespace for a ServiceAccount (accounts minted in one
 * namespace are one tenant), else its user name.
 */
export function tenantOf(username: string): string {
  const ns = serviceAccountNamespace(username);
  return ns === undefined ? `user:${username}` : `namespace:${ns}`;
}

/** The bounds one tenant watch of `namespace` ('' for cluster-wide) counts against. */
export function quotaKeys(username: string, namespace: string): string[] {
  const keys = [`user:${username}`];
  const home = serviceAccountNamespace(username);
  if (home !== undefined) keys.push(`namespace:${home}`);
  if (namespace && namespace !== home) keys.push(`namespace:${namespace}`);
  return keys;
}

/** A watch counted in the quota: `probe` writes something so that a client that has gone is noticed. */
export interface QuotaHolder {
  probe(): void;
  lastProbe?: number;
}

export type Admission = { admitted: true; release: () => void } | { admitted: false; full: string };

const TENANTS = 'tenants';

export class WatchQuota {
  private readonly holders = new Map<string, Set<QuotaHolder>>(); // by key, and every tenant watch under TENANTS
  private readonly probedAt = new Map<string, number>();
  refused = 0;

  constructor(private readonly limits: WatchLimits) {}

  /**
   * Counts a new watch of `user` (undefined: a system component, never counted) on `namespace`, or says
   * which bound is full; a refused bound's holders are probed (rate-limited) so gone clients free it.
   */
  admit(user: string | undefined, namespace: string, holder: QuotaHolder, now: number): Admission {
    if (user === undefined) return { admitted: true, release: () => undefined };
    const keys = quotaKeys(user, namespace);
    const full = this.count(TENANTS) >= this.limits.tenants ? TENANTS : keys.find((k) => this.count(k) >= this.limitOf(k));
    if (full !== undefined) {
      this.refused++;
      this.probe(full, now);
      return { admitted: false, full };
    }
    return { admitted: true, release: this.hold([TENANTS, ...keys], holder) };
  }

  /** Counts a watch admitted before (a socket kept across eviction), past the bounds if need be. */
  restore(user: string | undefined, namespace: string, holder: QuotaHolder): () => void {
    return user === undefined ? () => undefined : this.hold([TENANTS, ...quotaKeys(user, namespace)], holder);
  }

  count(key: string): number {
    return this.holders.get(key)?.size ?? 0;
  }

  /** Tenant watches counted (system components' are not). */
  get tenantWatches(): number {
    return this.count(TENANTS);
  }

  private limitOf(key: string): number {
    return key.startsWith('user:') ? this.limits.perUser : this.limits.perNamespace;
  }

  /** Asks the holders of `key` whether their clients are there, rate-limited (see PROBE_INTERVAL_MS). */
  private probe(key: string, now: number): void {
    if (now - (this.probedAt.get(key) ?? -Infinity) < (key === TENANTS ? TENANTS_PROBE_INTERVAL_MS : PROBE_INTERVAL_MS)) return;
    this.probedAt.set(key, now);
    if (this.probedAt.size > this.holders.size + 1) {
      // Keys whose holders have all gone: forget when they were probed (bounded by the keys in use).
      for (const k of this.probedAt.keys()) if (k !== key && !this.holders.has(k)) this.probedAt.delete(k);
    }
    for (const h of [...(this.holders.get(key) ?? [])]) {
      if (now - (h.lastProbe ?? -Infinity) < PROBE_INTERVAL_MS) continue;
      h.lastProbe = now;
      try {
        h.probe();
      } catch {
        // a holder whose transport fails is released by its own close path
      }
    }
  }

  /** Returns a release that counts only once, however often it is called. */
  private hold(keys: string[], holder: QuotaHolder): () => void {
    for (const k of keys) {
      let set = this.holders.get(k);
      if (!set) this.holders.set(k, (set = new Set()));
      set.add(holder);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const k of keys) {
        const set = this.holders.get(k);
        if (!set) continue;
        set.delete(holder);
        if (set.size === 0) this.holders.delete(k);
      }
    };
  }
}
