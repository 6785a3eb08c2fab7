// Controllers: the ClusterRole aggregation controller (kubernetes pkg/controller/clusterroleaggregation): a
// ClusterRole with an aggregationRule holds exactly the rules of the ClusterRoles its selectors match (selectors ORed,
// each selector's roles in name order, each rule once; core/rbac/aggregation.ts), written by server-side apply as
// field manager clusterrole-aggregation-controller with force, as kube does. It writes as
// system:serviceaccount:kube-system:clusterrole-aggregation-controller, whose bootstrap role holds `escalate` on
// clusterroles: it may store rules it does not hold itself, and no one else's escalation check is waived by it.
//
// Reactions are bounded: kube queues every aggregated role on every ClusterRole event; here a change queues only the
// aggregated roles whose selectors match the changed role's old or new labels (and the role itself when it
// aggregates), so an event costs O(aggregated roles) and a sync O(roles).

import type { KubeObject } from '../client/types';
import type { ResourceRef, Api } from './api-client';
import type { Clock } from './clock';
import type { SharedInformer } from './informers';
import { logSyncError, runWorker, WorkQueue } from './workqueue';
import { aggregatedRules, sameRules, type AggregatableRole } from '../core/rbac/aggregation';
import type { PolicyRule } from '../core/rbac/rules';
import { matchesLabels, selectorFromLabelSelector, type LabelSelector, type LabelSelectorSpec } from '../core/selectors/label-selector';

export const COMPONENT = 'clusterrole-aggregation-controller';
export const CLUSTER_ROLES: ResourceRef = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', namespaced: false };

type Role = KubeObject & { aggregationRule?: { clusterRoleSelectors?: LabelSelectorSpec[] } | null; rules?: PolicyRule[] };

const asRole = (o: KubeObject) => o as Role;
const aggregates = (o: Role | undefined): boolean => !!o?.aggregationRule;

export class ClusterRoleAggregationController {
  readonly queue: WorkQueue;
  // The aggregated roles and their parsed selectors (undefined: a selector that does not parse; its sync reports it).
  private readonly aggregated = new Map<string, LabelSelector[] | undefined>();

  constructor(private readonly api: Api, private readonly roles: SharedInformer, clock: Clock) {
    this.queue = new WorkQueue(clock);
    roles.addHandlers({
      add: (o) => this.changed(undefined, asRole(o)),
      update: (o, old) => this.changed(asRole(old), asRole(o)),
      delete: (o) => this.changed(asRole(o), undefined),
    });
  }

  run(workers = 1): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(COMPONENT) }));
  }

  private changed(old: Role | undefined, cur: Role | undefined): void {
    const name = (cur ?? old)!.metadata.name!;
    if (aggregates(cur)) {
      this.aggregated.set(name, parseSelectors(cur!));
      this.queue.add(name);
    } else {
      this.aggregated.delete(name);
    }
    for (const [target, selectors] of this.aggregated) {
      if (target === name) continue;
      // A selector that does not parse: queue the role, whose sync reports the error (and retries with backoff).
      if (!selectors || [old, cur].some((r) => r && selectors.some((s) => matchesLabels(s, r.metadata.labels as Record<string, string> | undefined)))) this.queue.add(target);
    }
  }

  async sync(name: string): Promise<void> {
    const role = this.roles.get(name) as Role | undefined;
    if (!role || !aggregates(role)) return;
    const rules = aggregatedRules(role as AggregatableRole, this.roles.list() as AggregatableRole[]);
    if (sameRules(rules, role.rules ?? [])) return;
    await this.api.patch(CLUSTER_ROLES, '', name, 'apply', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules: rules.map(applyRule),
    }, '', { fieldManager: COMPONENT, force: true });
  }
}

function parseSelectors(role: Role): LabelSelector[] | undefined {
  try {
    const specs = role.aggregationRule?.clusterRoleSelectors;
    return Array.isArray(specs) ? specs.map(selectorFromLabelSelector) : [];
  } catch {
    return undefined;
  }
}

// toApplyPolicyRule: the rule's five lists, each only when set.
function applyRule(r: PolicyRule): PolicyRule {
  const out: PolicyRule = {};
  if (r.verbs?.length) out.verbs = r.verbs;
  if (r.apiGroups?.length) out.apiGroups = r.apiGroups;
  if (r.resources?.length) out.resources = r.resources;
  if (r.resourceNames?.length) out.resourceNames = r.resourceNames;
  if (r.nonResourceURLs?.length) out.nonResourceURLs = r.nonResourceURLs;
  return out;
}
