// Front door's policy point: a Durable Object (sharded by user) that follows the four RBAC stores by
// subscription, as a replica does, and answers authorization (cached until RBAC changes), rule listings,
// escalation checks and each user's rate limit in one call per request.

import { DurableObject } from 'cloudflare:workers';
import { lookupGroupResource } from '../core/registry';
import { forbiddenReason, isPrivileged, RbacPolicy, type Decision, type RbacKind, type UserInfo } from '../core/rbac/authorize';
import type { PolicyRule, RequestAttributes } from '../core/rbac/rules';
import { parseRoleRef } from '../core/rbac/stored';
import type { EscalationGrant } from '../core/rbac/escalation';
import { DecisionCache } from '../core/rbac/decision-cache';
import { TokenBuckets } from '../core/rate-limit';
import type { ChangeRow } from './watch-cache';
import type { ResourceStore } from './resource-store';
import { requireSettings, type Settings } from '../core/settings';

export interface AuthorizerEnv {
  STORE: DurableObjectNamespace<ResourceStore>;
}

export type Admission =
  | { allowed: true; reason: string } // reason: why (RBAC's "allowed by ..."), for the audit log
  | { allowed: false; throttled: true; retryAfterSeconds: number }
  | { allowed: false; throttled: false; reason: string; decisionReason: string; impersonation?: number };
// reason: the full kube 403 reason text; decisionReason: the authorizer's own reason (the audit log's); impersonation:
// the index of the impersonation request that was refused, when that is what was refused.

/** Who asks to act as the user `admit` decides for, and the `impersonate` checks that must all pass first. */
export interface Impersonation {
  requester: UserInfo;
  checks: RequestAttributes[];
}

export interface AuthorizerStats {
  malformedObjects: number;
  decisionCacheEntries: number;
  decisionCacheBytes: number;
  rateLimitBuckets: number;
}

const RBAC_STORES = {
  'rbac.authorization.k8s.io/roles': 'Role',
  'rbac.authorization.k8s.io/clusterroles': 'ClusterRole',
  'rbac.authorization.k8s.io/rolebindings': 'RoleBinding',
  'rbac.authorization.k8s.io/clusterrolebindings': 'ClusterRoleBinding',
} as const satisfies Record<string, RbacKind>;
type RbacStore = keyof typeof RBAC_STORES;

export class Authorizer extends DurableObject<AuthorizerEnv> {
  private readonly policy = new RbacPolicy();
  private readonly revisions = new Map<RbacStore, number>();
  private loading: Promise<void> | undefined;
  private loaded = false;
  private name = '';
  private readonly settings: Settings = requireSettings(this.env);
  private readonly decisions = new DecisionCache(this.settings.authzDecisionCacheBytes); // bounded in bytes
  private readonly buckets = new TokenBuckets();

  /**
   * Impersonation, rate limit, then RBAC: one call per request. With `impersonation`, each `impersonate` check is
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
    const wait = this.buckets.take(user.username, Date.now(), qps, burst);
    if (wait > 0) return { allowed: false, throttled: true, retryAfterSeconds: Math.ceil(wait / 1000) };
    const decision = await this.decide(name, user, attrs);
    return decision.allowed
      ? { allowed: true, reason: decision.allowedBy ?? '' }
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
    await this.ensureLoaded(name);
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
    await this.ensureLoaded(name);
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
    await this.ensureLoaded(name);
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

  /** Counters for /metrics. */
  async stats(name: string): Promise<AuthorizerStats> {
    await this.ensureLoaded(name);
    return {
      malformedObjects: this.policy.malformed,
      decisionCacheEntries: this.decisions.size,
      decisionCacheBytes: this.decisions.bytes,
      rateLimitBuckets: this.buckets.size,
    };
  }

  /** Read-your-writes for RBAC: returns once this shard has applied `revision` of `groupResource`. */
  async catchUp(name: string, groupResource: string, revision: number): Promise<void> {
    await this.ensureLoaded(name);
    const gr = groupResource as RbacStore;
    if ((this.revisions.get(gr) ?? 0) < revision) await this.pull(gr);
  }

  /** A push from an RBAC store (see Replication). */
  async receive(groupResource: string, name: string, changes: ChangeRow[], head: number): Promise<void> {
    this.name ||= name;
    const gr = groupResource as RbacStore;
    if (!this.loaded || !(gr in RBAC_STORES)) return;
    this.apply(gr, changes);
    if ((this.revisions.get(gr) ?? 0) < head) await this.pull(gr);
  }

  private ensureLoaded(name: string): Promise<void> {
    this.name ||= name;
    if (this.loaded) return Promise.resolve();
    this.loading ??= this.load().then(() => {
      this.loaded = true;
    }).finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<void> {
    await Promise.all((Object.keys(RBAC_STORES) as RbacStore[]).map(async (gr) => {
      const reply = await this.store(gr).subscribe(gr, this.name, 0);
      // Subscribing from 0 replays the whole log, or says it was compacted: then list and go on.
      if (reply.changes) {
        this.revisions.set(gr, 0);
        this.apply(gr, reply.changes);
      } else {
        await this.list(gr);
      }
      if ((this.revisions.get(gr) ?? 0) < reply.revision) await this.pull(gr);
    }));
  }

  private async list(gr: RbacStore): Promise<void> {
    const res = await this.store(gr).list(gr, { namespace: '', query: '', format: { as: 'List' } });
    const list = (await res.json()) as { metadata: { resourceVersion: string }; items: unknown[] };
    for (const item of list.items) {
      const meta = (item as { metadata?: { name?: unknown; namespace?: unknown } })?.metadata;
      const name = typeof meta?.name === 'string' ? meta.name : '';
      const namespace = typeof meta?.namespace === 'string' ? meta.namespace : '';
      this.policy.set(RBAC_STORES[gr], item, { namespace, name });
    }
    this.revisions.set(gr, Number(list.metadata.resourceVersion));
  }

  private async pull(gr: RbacStore): Promise<void> {
    for (;;) {
      const rows = await this.store(gr).changesSince(gr, this.revisions.get(gr) ?? 0);
      if (!rows) return this.list(gr);
      if (rows.length === 0) return;
      this.apply(gr, rows);
    }
  }

  private apply(gr: RbacStore, rows: ChangeRow[]): void {
    const kind = RBAC_STORES[gr];
    for (const row of rows) {
      const at = this.revisions.get(gr) ?? 0;
      if (row.revision <= at) continue;
      if (row.revision !== at + 1) return; // a gap: the caller pulls
      // Identified by the store key (namespace/name), not by the object, which may be malformed.
      const slash = kind === 'Role' || kind === 'RoleBinding' ? row.key.indexOf('/') : -1;
      const key = slash >= 0 ? { namespace: row.key.slice(0, slash), name: row.key.slice(slash + 1) } : { name: row.key };
      this.policy.set(kind, row.type === 'DELETED' ? undefined : parseJson(row.value), key);
      this.revisions.set(gr, row.revision);
    }
  }

  private store(gr: RbacStore) {
    if (!lookupGroupResource(gr)) throw new Error(`unknown RBAC store ${gr}`);
    return this.env.STORE.get(this.env.STORE.idFromName(gr));
  }
}

/** A stored value, or a marker the policy counts as malformed when it is not JSON. */
function parseJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}
