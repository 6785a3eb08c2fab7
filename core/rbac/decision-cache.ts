// Authorizer: cached RBAC decisions, dropped whenever the policy changes and bounded in bytes. An allowed
// decision keeps the reason it was allowed for (the audit log's authorization.k8s.io/reason).
//
// Budget, against the 128 MB isolate limit of an authorizer shard: the RBAC objects themselves (each
// ≤ 1.5 MB as stored, parsed once), 16 MiB here (keys charged in full: ~70,000 typical keys of ~150
// characters), 1 MiB of rate-limit buckets (core/rate-limit.ts). A request whose name, namespace or
// whole key is longer than kube allows an object name (253), a namespace (63) or we allow a key (2 KiB)
// is decided but never cached, so no request — a 2 MB resource name, say — takes a share of the budget.

import { ByteLru } from '../byte-lru';
import type { UserInfo } from './authorize';
import type { RequestAttributes } from './rules';

export const DECISION_CACHE_BYTES = 16 << 20;
export const MAX_CACHED_NAME = 253;
export const MAX_CACHED_NAMESPACE = 63;
export const MAX_CACHED_KEY = 2048;

/** A cached decision: false (denied), or the reason an allowed request was allowed (core/rbac/authorize.ts allowedBy). */
export type CachedDecision = false | string;

export class DecisionCache {
  private readonly entries: ByteLru<CachedDecision>;
  // Allowed-by reasons, one string per distinct reason: an entry holds a reference to one of these, so the
  // reasons cost what the bindings they name cost once, not once per cached decision. Dropped with the entries.
  private readonly reasons = new Map<string, string>();
  private generation = -1;

  constructor(budgetBytes = DECISION_CACHE_BYTES) {
    this.entries = new ByteLru(budgetBytes);
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.entries.bytes;
  }

  /** The cached decision for this request under policy `generation`, if any. */
  get(generation: number, user: UserInfo, attrs: RequestAttributes): CachedDecision | undefined {
    this.follow(generation);
    const key = keyOf(user, attrs);
    return key === undefined ? undefined : this.entries.get(key);
  }

  set(generation: number, user: UserInfo, attrs: RequestAttributes, decision: CachedDecision): void {
    this.follow(generation);
    const key = keyOf(user, attrs);
    if (key === undefined) return;
    if (decision === false) {
      this.entries.set(key, false);
      return;
    }
    let reason = this.reasons.get(decision);
    if (reason === undefined) this.reasons.set(decision, (reason = decision));
    this.entries.set(key, reason);
  }

  private follow(generation: number): void {
    if (generation === this.generation) return;
    this.entries.clear();
    this.reasons.clear();
    this.generation = generation;
  }
}

function keyOf(user: UserInfo, attrs: RequestAttributes): string | undefined {
  if (attrs.name.length > MAX_CACHED_NAME || attrs.namespace.length > MAX_CACHED_NAMESPACE) return undefined;
  // Checked before building the key, so an oversized request costs no large string either.
  if (attrs.path.length + attrs.resource.length + attrs.subresource.length + user.username.length > MAX_CACHED_KEY) return undefined;
  const key = JSON.stringify([user.username, user.groups, attrs]);
  return key.length <= MAX_CACHED_KEY ? key : undefined;
}
