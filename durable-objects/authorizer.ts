// Front door's policy point: a Durable Object (sharded by user) that follows the four RBAC stores by
// subscription, as a replica does, and answers authorization (cached until RBAC changes), rule listings,
// escalation checks and each user's rate limit in one call per request.

import { DurableObject } from 'cloudflare:workers';
import { lookupGroupResource } from '../core/registry';
import { RbacPolicy, type Binding, type Role, type RoleRef, type UserInfo } from '../core/rbac/authorize';
import { uncovered, type PolicyRule, type RequestAttributes } from '../core/rbac/rules';
import { TokenBuckets } from '../core/rate-limit';
import type { ChangeRow } from './watch-cache';
import type { ResourceStore } from './resource-store';

export interface AuthorizerEnv {
  STORE: DurableObjectNamespace<ResourceStore>;
  RATE_LIMIT_QPS?: string;
  RATE_LIMIT_BURST?: string;
}

export type Admission = { allowed: true } | { allowed: false; throttled: true; retryAfterSeconds: number } | { allowed: false; throttled: false };

const RBAC_STORES = {
  'rbac.authorization.k8s.io/roles': 'Role',
  'rbac.authorization.k8s.io/clusterroles': 'ClusterRole',
  'rbac.authorization.k8s.io/rolebindings': 'RoleBinding',
  'rbac.authorization.k8s.io/clusterrolebindings': 'ClusterRoleBinding',
} as const;
type RbacStore = keyof typeof RBAC_STORES;

// kube-apiserver's defaults are per priority level; these are per user and generous.
const DEFAULT_QPS = 200;
const MAX_CACHED_DECISIONS = 50_000;
const DEFAULT_BURST = 400;

export class Authorizer extends DurableObject<AuthorizerEnv> {
  private readonly policy = new RbacPolicy();
  private readonly revisions = new Map<RbacStore, number>();
  private loading: Promise<void> | undefined;
  private loaded = false;
  private name = '';
  private decisions = new Map<string, boolean>();
  private decisionsGeneration = -1;
  private readonly buckets = new TokenBuckets();

  /** Rate limit, then RBAC: one call per request. system:masters is exempt, as in kube's flow control. */
  async admit(name: string, user: UserInfo, attrs: RequestAttributes): Promise<Admission> {
    const exempt = user.groups.includes('system:masters');
    const wait = exempt ? 0 : this.buckets.take(user.username, Date.now(), this.setting('RATE_LIMIT_QPS', DEFAULT_QPS), this.setting('RATE_LIMIT_BURST', DEFAULT_BURST));
    if (wait > 0) return { allowed: false, throttled: true, retryAfterSeconds: Math.ceil(wait / 1000) };
    return (await this.check(name, user, attrs)) ? { allowed: true } : { allowed: false, throttled: false };
  }

  /** The decision alone, for SelfSubjectAccessReview. */
  async check(name: string, user: UserInfo, attrs: RequestAttributes): Promise<boolean> {
    await this.ensureLoaded(name);
    // Dropped when RBAC changes, and bounded: keys include object names, so they are many.
    if (this.decisionsGeneration !== this.policy.generation || this.decisions.size >= MAX_CACHED_DECISIONS) {
      this.decisions = new Map();
      this.decisionsGeneration = this.policy.generation;
    }
    const key = JSON.stringify([user.username, user.groups, attrs]);
    let allowed = this.decisions.get(key);
    if (allowed === undefined) {
      allowed = this.policy.allows(user, attrs);
      this.decisions.set(key, allowed);
    }
    return allowed;
  }

  /** The user's rules in a namespace, for SelfSubjectRulesReview (kubectl auth can-i --list). */
  async rules(name: string, user: UserInfo, namespace: string): Promise<PolicyRule[]> {
    await this.ensureLoaded(name);
    return this.policy.rulesFor(user, namespace);
  }

  /**
   * Escalation prevention: the rules a user may not grant (kube rbac/validation ConfirmNoEscalation). A
   * role's rules, or the rules of the role a binding refers to, must all be held by the user where the
   * object applies; holding `escalate` (roles) or `bind` (bindings) on the role waives it.
   */
  async escalation(name: string, user: UserInfo, kind: string, obj: { rules?: PolicyRule[]; roleRef?: RoleRef }, namespace: string): Promise<PolicyRule[]> {
    await this.ensureLoaded(name);
    const isBinding = kind === 'RoleBinding' || kind === 'ClusterRoleBinding';
    const roleKind = isBinding ? obj.roleRef?.kind : kind;
    const roleName = isBinding ? obj.roleRef?.name ?? '' : '';
    const waiver: RequestAttributes = {
      verb: isBinding ? 'bind' : 'escalate', resourceRequest: true, apiGroup: 'rbac.authorization.k8s.io',
      resource: roleKind === 'ClusterRole' ? 'clusterroles' : 'roles', subresource: '', name: roleName, namespace, path: '',
    };
    if (this.policy.allows(user, waiver)) return [];
    const wanted = isBinding ? this.policy.roleRules(obj.roleRef!, namespace) ?? [] : obj.rules ?? [];
    return uncovered(this.policy.rulesFor(user, namespace), wanted);
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
    const list = (await res.json()) as { metadata: { resourceVersion: string }; items: (Role & Binding)[] };
    for (const item of list.items) this.policy.set(RBAC_STORES[gr], item, item.metadata);
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
      const obj = JSON.parse(row.value) as Role & Binding;
      this.policy.set(kind, row.type === 'DELETED' ? undefined : obj, obj.metadata);
      this.revisions.set(gr, row.revision);
    }
  }

  private store(gr: RbacStore) {
    if (!lookupGroupResource(gr)) throw new Error(`unknown RBAC store ${gr}`);
    return this.env.STORE.get(this.env.STORE.idFromName(gr));
  }

  private setting(name: 'RATE_LIMIT_QPS' | 'RATE_LIMIT_BURST', fallback: number): number {
    const raw = this.env[name];
    const v = Number(raw);
    return raw !== undefined && raw !== '' && Number.isFinite(v) && v > 0 ? v : fallback;
  }
}
