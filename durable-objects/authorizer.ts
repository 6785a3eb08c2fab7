// Front door's policy point: a Durable Object (sharded by user) that follows the four RBAC stores — a store
// follower each (core/follow/store-follower.ts), subscribed as a replica is — and answers authorization
// (cached until RBAC changes), rule listings, escalation checks and each user's rate limit in one call per
// request. This file is its RPC surface (contract/rpc.ts AuthorizerRpc) and that wiring.

import { DurableObject } from 'cloudflare:workers';
import { lookupGroupResource } from '../core/registry';
import { forbiddenReason, isPrivileged, RbacPolicy, type Decision, type RbacKind, type UserInfo } from '../core/rbac/authorize';
import type { PolicyRule, RequestAttributes } from '../core/rbac/rules';
import { parseRoleRef } from '../core/rbac/stored';
import type { EscalationGrant } from '../core/rbac/escalation';
import { DecisionCache } from '../core/rbac/decision-cache';
import { TokenBuckets } from '../core/rate-limit';
import type { ChangeRow } from '../core/follow/change-log';
import { StoreFollower, type FollowerSink } from '../core/follow/store-follower';
import { requireSettings, type Settings } from '../core/settings';
import type { Bindings } from '../contract/bindings';
import type { Admission, AuthorizerRpc, AuthorizerStats, Impersonation } from '../contract/rpc';
import { followedStore } from '../contract/store-source';

const RBAC_STORES = {
  'rbac.authorization.k8s.io/roles': 'Role',
  'rbac.authorization.k8s.io/clusterroles': 'ClusterRole',
  'rbac.authorization.k8s.io/rolebindings': 'RoleBinding',
  'rbac.authorization.k8s.io/clusterrolebindings': 'ClusterRoleBinding',
} as const satisfies Record<string, RbacKind>;
type RbacStore = keyof typeof RBAC_STORES;


export class Authorizer extends DurableObject<Bindings> implements AuthorizerRpc {
  private readonly policy = new RbacPolicy();
  private followers: Map<string, StoreFollower> | undefined; // per RBAC store, once this shard knows its name
  private readonly settings: Settings = requireSettings(this.env);
  private readonly decisions = new DecisionCache(this.settings.authzDecisionCacheBytes); // bounded in bytes
  private readonly buckets = new TokenBuckets();

  /**
   * Impersonation, rate limit, then RBAC: one call per request. A user past its bucket whose next token comes due
   * within RATE_LIMIT_MAX_DELAY_MS is allowed with `delayMs`: the front door holds it that long (core/rate-limit.ts).
   * With `impersonation`, each `impersonate` check is
   * decided for the requester first (kube's impersonation filter runs before flow control and authorization); a
   * refusal is charged to the requester's bucket, so only a requester allowed to act as `user` spends `user`'s.
   * system:masters is allowed before the rate limit and RBAC, as kube's privileged-group authorizer comes before
   * RBAC and flow control exempts it (the front door does not even call here for it; this is for other callers).
   */
  async admit(name: string, user: UserInfo, attrs: RequestAttributes, impersonation?: Impersonation): Promise<Admission> {
    const qps = this.settings.rateLimitQps;
    const burst = this.settings.rateLimitBurst;
    if (impersonation && !isPrivileged(impersonation.requester)) {
      const { requester, checks } = impersonation;
      for (let i = 0; i < checks.length; i++) {
        const decision = await this.decide(name, requester, checks[i]);
        if (decision.allowed) continue;
        const wait = this.buckets.take(requester.username, Date.now(), qps, burst);
        if (wait > 0) return { allowed: false, throttled: true, retryAfterSeconds: Math.ceil(wait / 1000) };
        return { allowed: false, throttled: false, reason: forbiddenReason(requester, checks[i], decision.reason), decisionReason: decision.reason, impersonation: i };
      }
    }
    if (isPrivileged(user)) return { allowed: true, reason: '' };
    const token = this.buckets.reserve(user.username, Date.now(), qps, burst, this.settings.rateLimitMaxDelayMs);
    if ('retryAfterMs' in token) return { allowed: false, throttled: true, retryAfterSeconds: Math.ceil(token.retryAfterMs / 1000) };
    const decision = await this.decide(name, user, attrs);
    return decision.allowed
      ? { allowed: true, reason: decision.allowedBy ?? '', ...(token.delayMs > 0 ? { delayMs: Math.ceil(token.delayMs) } : {}) }
      : { allowed: false, throttled: false, reason: forbiddenReason(user, attrs, decision.reason), decisionReason: decision.reason };
  }

  /** The decision alone, for SelfSubjectAccessReview. */
  async check(name: string, user: UserInfo, attrs: RequestAttributes): Promise<boolean> {
    if (isPrivileged(user)) return true;
    try {
      return (await this.decide(name, user, attrs)).allowed;
    } catch (e) {
      console.error('authorization check failed', user.username, (e as Error)?.message);
      return false; // fail closed
    }
  }

  /** The decision and its reason, for SubjectAccessReview (RBAC's `allowed by …`; empty for system:masters). */
  async review(name: string, user: UserInfo, attrs: RequestAttributes): Promise<{ allowed: boolean; reason: string }> {
    if (isPrivileged(user)) return { allowed: true, reason: '' };
    try {
      const d = await this.decide(name, user, attrs);
      return { allowed: d.allowed, reason: d.allowed ? d.allowedBy ?? '' : d.reason };
    } catch (e) {
      console.error('authorization review failed', user.username, (e as Error)?.message);
      return { allowed: false, reason: '' }; // fail closed
    }
  }

  private async decide(name: string, user: UserInfo, attrs: RequestAttributes): Promise<Decision> {
    await this.follow(name);
    const generation = this.policy.generation;
    const cached = this.decisions.get(generation, user, attrs);
    if (cached !== undefined) return cached === false ? { allowed: false, reason: '' } : { allowed: true, reason: '', allowedBy: cached };
    const decision = this.policy.decide(user, attrs);
    // A denial with a reason (bindings to missing roles) is not cached: it is rare and its text varies.
    if (!decision.reason) this.decisions.set(generation, user, attrs, decision.allowed ? decision.allowedBy ?? '' : false);
    return decision;
  }

  /** The user's rules in a namespace, for SelfSubjectRulesReview (kubectl auth can-i --list). */
  async rules(name: string, user: UserInfo, namespace: string): Promise<PolicyRule[]> {
    await this.follow(name);
    return this.policy.rulesFor(user, namespace);
  }

  /**
   * What the store's escalation check needs (core/rbac/escalation.ts): the user's rules where the object
   * applies and, for a binding, the rules of the role its roleRef names (kube's GetRoleReferenceRules).
   */
  async escalationGrant(name: string, user: UserInfo, namespace: string, roleRef: unknown): Promise<EscalationGrant> {
    const grant: EscalationGrant = {
      user: { username: user.username, groups: user.groups }, privileged: isPrivileged(user), namespace, ownerRules: [], resolutionErrors: [],
    };
    if (grant.privileged) return grant;
    await this.follow(name);
    const resolved = this.policy.resolve(user, namespace, 'registry');
    // The same role bound twice gives the same rules twice: send each once.
    const seen = new Set<string>();
    grant.ownerRules = resolved.rules.filter((r) => {
      const k = JSON.stringify(r);
      return !seen.has(k) && !!seen.add(k);
    });
    grant.resolutionErrors = resolved.errors;
    const ref = parseRoleRef(roleRef);
    if (ref) grant.role = { ref, resolved: this.policy.roleReference(ref, namespace) };
    return grant;
  }

  async stats(name: string): Promise<AuthorizerStats> {
    await this.follow(name);
    return {
      malformedObjects: this.policy.malformed,
      decisionCacheEntries: this.decisions.size,
      decisionCacheBytes: this.decisions.bytes,
      rateLimitBuckets: this.buckets.size,
    };
  }

  async catchUp(name: string, groupResource: string, revision: number): Promise<void> {
    await this.follow(name);
    await this.followers!.get(groupResource)?.catchUp(revision);
  }

  async abort(): Promise<void> {
    this.ctx.abort('aborted by test hook');
  }

  /** A push from an RBAC store (see Replication); ignored until this shard follows. */
  async receive(groupResource: string, _name: string, changes: ChangeRow[], head: number, compacted: number): Promise<void> {
    await this.followers?.get(groupResource)?.receive(changes, head, compacted);
  }

  /** Follows the four RBAC stores, subscribed under this shard's name; resolves once each is caught up. */
  private async follow(name: string): Promise<void> {
    this.followers ??= new Map((Object.keys(RBAC_STORES) as RbacStore[]).map((gr) => {
      if (!lookupGroupResource(gr)) throw new Error(`unknown RBAC store ${gr}`);
      return [gr, new StoreFollower(followedStore(this.env, gr, name), policySink(this.policy, RBAC_STORES[gr]))];
    }));
    await Promise.all([...this.followers.values()].map((f) => f.start()));
  }
}

/**
 * One RBAC store's objects in the policy, identified by store key (namespace/name), not by the object, which
 * may be malformed. A new snapshot (after a compaction) also removes what is no longer there.
 */
function policySink(policy: RbacPolicy, kind: RbacKind): FollowerSink {
  let keys = new Set<string>();
  const namespaced = kind === 'Role' || kind === 'RoleBinding';
  const keyOf = (key: string) => {
    const slash = namespaced ? key.indexOf('/') : -1;
    return slash >= 0 ? { namespace: key.slice(0, slash), name: key.slice(slash + 1) } : { name: key };
  };
  return {
    load: (snapshot) => {
      const listed = new Set<string>();
      for (const item of snapshot.items) {
        policy.set(kind, item.object, keyOf(item.key));
        listed.add(item.key);
      }
      for (const key of keys) if (!listed.has(key)) policy.set(kind, undefined, keyOf(key));
      keys = listed;
    },
    apply: (row) => {
      const deleted = row.type === 'DELETED';
      policy.set(kind, deleted ? undefined : parseJson(row.value), keyOf(row.key));
      if (deleted) keys.delete(row.key);
      else keys.add(row.key);
    },
  };
}

/** A stored value, or a marker the policy counts as malformed when it is not JSON. */
function parseJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}
