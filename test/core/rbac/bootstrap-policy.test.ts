// The bootstrap RBAC policy the gateway seeds (core/bootstrap.ts) is kube 1.32's, rule for rule: compared with kube's
// published bootstrap policy test data (vendor/kubernetes-bootstrap-policy, see its LICENSE note). Rules are compared
// as kube's authorizer reads them — a role's rules as a multiset, each rule's lists as sets — and separately in kube's
// order, so that stored objects read as kube's do.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BOOTSTRAP_CLUSTER_ROLES, EDGEPLANE_CLUSTER_ROLE_BINDINGS, SEEDS } from '../../../core/bootstrap';
import { KUBE_CLUSTER_ROLE_BINDINGS, KUBE_CLUSTER_ROLES, KUBE_ROLE_BINDINGS, KUBE_ROLES } from '../../../core/rbac/bootstrap-policy';
import { RbacPolicy } from '../../../core/rbac/authorize';
import type { PolicyRule, RequestAttributes } from '../../../core/rbac/rules';

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const VENDOR = join(__dirname, '../../../vendor/kubernetes-bootstrap-policy');
const items = (file: string): Any[] => parse(readFileSync(join(VENDOR, file), 'utf8')).items;

const kubeClusterRoles = [...items('cluster-roles.yaml'), ...items('controller-roles.yaml')];
const kubeClusterRoleBindings = [...items('cluster-role-bindings.yaml'), ...items('controller-role-bindings.yaml')];
const kubeRoles = items('namespace-roles.yaml');
const kubeRoleBindings = items('namespace-role-bindings.yaml');

const key = (o: Any) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const byKey = (list: readonly Any[]) => new Map(list.map((o) => [key(o), o]));

/** A rule as the authorizer reads it: each list a set. */
function normalRule(r: PolicyRule): string {
  const set = (v?: string[]) => [...new Set(v ?? [])].sort();
  return JSON.stringify([set(r.verbs), set(r.apiGroups), set(r.resources), set(r.resourceNames), set(r.nonResourceURLs)]);
}
const ruleMultiset = (rules: PolicyRule[] | null | undefined) => (rules ?? []).map(normalRule).sort();
const subjectSet = (subjects: Any[] | null | undefined) => (subjects ?? []).map((s) => JSON.stringify([s.kind, s.apiGroup ?? '', s.name, s.namespace ?? ''])).sort();
// Metadata kube's objects carry beyond the test data's serialization artifacts (creationTimestamp: null).
const metaOf = (o: Any) => ({ labels: o.metadata.labels ?? {}, annotations: o.metadata.annotations ?? {} });

/**
 * What kube's ClusterRole aggregation controller stores in an aggregated role, from kube's own roles: the rules of
 * the other roles its selectors' labels match, in name order, each rule once. Written here from kube's definition,
 * independently of core/rbac/aggregation.ts; the selectors in kube's policy are matchLabels only.
 */
function kubeAggregated(name: string): PolicyRule[] {
  const roles = byKey(kubeClusterRoles);
  const rulesOf = (n: string, depth: number): PolicyRule[] => {
    const role = roles.get(`/${n}`);
    if (!role.aggregationRule) return role.rules ?? [];
    if (depth > 5) throw new Error('aggregation too deep');
    const labels = role.aggregationRule.clusterRoleSelectors.map((s: Any) => s.matchLabels);
    const matching = kubeClusterRoles
      .filter((r) => r.metadata.name !== n && labels.some((l: Record<string, string>) => Object.entries(l).every(([k, v]) => r.metadata.labels?.[k] === v)))
      .map((r) => r.metadata.name as string)
      .sort();
    const out: PolicyRule[] = [];
    for (const m of matching) {
      for (const rule of rulesOf(m, depth + 1)) if (!out.some((x) => JSON.stringify(x) === JSON.stringify(rule))) out.push(rule);
    }
    return out;
  };
  return rulesOf(name, 0);
}

describe('bootstrap roles and bindings are kube 1.32\'s', () => {
  it('ships exactly kube\'s ClusterRoles, Roles, ClusterRoleBindings and RoleBindings, by name', () => {
    expect([...byKey(KUBE_CLUSTER_ROLES).keys()].sort()).toEqual([...byKey(kubeClusterRoles).keys()].sort());
    expect([...byKey(KUBE_CLUSTER_ROLE_BINDINGS).keys()].sort()).toEqual([...byKey(kubeClusterRoleBindings).keys()].sort());
    expect([...byKey(KUBE_ROLES).keys()].sort()).toEqual([...byKey(kubeRoles).keys()].sort());
    expect([...byKey(KUBE_ROLE_BINDINGS).keys()].sort()).toEqual([...byKey(kubeRoleBindings).keys()].sort());
  });

  it.each(kubeClusterRoles.map((r) => [r.metadata.name, r] as const))('ClusterRole %s: same rules, labels, annotations and aggregation', (_name, kube) => {
    const ours = byKey(KUBE_CLUSTER_ROLES).get(key(kube)) as Any;
    expect(ours.kind).toBe('ClusterRole');
    expect(metaOf(ours)).toEqual(metaOf(kube));
    expect(ours.aggregationRule ?? null).toEqual(kube.aggregationRule ?? null);
    expect(ruleMultiset(ours.rules)).toEqual(ruleMultiset(kube.rules));
    expect(ours.rules).toEqual(kube.rules ?? []); // and in kube's order, lists as kube stores them
  });

  it.each([...kubeRoles, ...kubeRoleBindings].map((o) => [`${o.kind} ${key(o)}`, o] as const))('%s: the same', (_name, kube) => {
    const ours = byKey(kube.kind === 'Role' ? KUBE_ROLES : KUBE_ROLE_BINDINGS).get(key(kube)) as Any;
    expect(metaOf(ours)).toEqual(metaOf(kube));
    if (kube.kind === 'Role') {
      expect(ruleMultiset(ours.rules)).toEqual(ruleMultiset(kube.rules));
      expect(ours.rules).toEqual(kube.rules);
    } else {
      expect(ours.roleRef).toEqual(kube.roleRef);
      expect(subjectSet(ours.subjects)).toEqual(subjectSet(kube.subjects));
    }
  });

  it.each(kubeClusterRoleBindings.map((b) => [b.metadata.name, b] as const))('ClusterRoleBinding %s: same roleRef, subjects, labels and annotations', (_name, kube) => {
    const ours = byKey(KUBE_CLUSTER_ROLE_BINDINGS).get(key(kube)) as Any;
    expect(ours.kind).toBe('ClusterRoleBinding');
    expect(metaOf(ours)).toEqual(metaOf(kube));
    expect(ours.roleRef).toEqual(kube.roleRef);
    expect(subjectSet(ours.subjects)).toEqual(subjectSet(kube.subjects));
  });

  it('stores admin, edit and view as kube\'s aggregation controller leaves them', () => {
    for (const name of ['admin', 'edit', 'view']) {
      const seeded = BOOTSTRAP_CLUSTER_ROLES.find((r) => r.metadata.name === name)!;
      const kube = byKey(kubeClusterRoles).get(`/${name}`);
      expect(seeded.aggregationRule).toEqual(kube.aggregationRule);
      // Plus metrics-server's system:aggregated-metrics-reader, which ships with the built-in metrics.k8s.io.
      const metrics = seeded.rules.filter((r) => r.apiGroups?.includes('metrics.k8s.io'));
      expect(metrics, name).toEqual([{ verbs: ['get', 'list', 'watch'], apiGroups: ['metrics.k8s.io'], resources: ['nodes', 'pods'] }]);
      expect(seeded.rules.filter((r) => !r.apiGroups?.includes('metrics.k8s.io')), name).toEqual(kubeAggregated(name));
    }
    // The aggregate-to-* roles themselves are stored too, unchanged.
    for (const name of ['system:aggregate-to-admin', 'system:aggregate-to-edit', 'system:aggregate-to-view']) {
      expect(BOOTSTRAP_CLUSTER_ROLES.find((r) => r.metadata.name === name)!.rules).toEqual(byKey(kubeClusterRoles).get(`/${name}`).rules);
    }
  });

  it('seeds kube\'s objects and, beyond them, only edgeplane\'s binding of kube\'s system:node role for the simulated kubelets (and metrics-server\'s reader role)', () => {
    const names = (store: string) => SEEDS[`rbac.authorization.k8s.io/${store}`]!.map((o) => key(o)).sort();
    expect(names('clusterroles')).toEqual([...byKey(kubeClusterRoles).keys(), '/system:aggregated-metrics-reader'].sort());
    expect(names('roles')).toEqual([...byKey(kubeRoles).keys()].sort());
    expect(names('rolebindings')).toEqual([...byKey(kubeRoleBindings).keys()].sort());
    expect(names('clusterrolebindings')).toEqual([...byKey(kubeClusterRoleBindings).keys(), '/edgeplane:simulated-nodes'].sort());
    expect(EDGEPLANE_CLUSTER_ROLE_BINDINGS).toEqual([expect.objectContaining({
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:node' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' }],
    })]);
  });

  it('leaves edit no write to status subresources, Endpoints or EndpointSlices, as in kube', () => {
    const policy = new RbacPolicy();
    for (const r of SEEDS['rbac.authorization.k8s.io/clusterroles']!) policy.set('ClusterRole', r, { name: key(r).slice(1) });
    policy.set('RoleBinding', {
      metadata: { name: 'b', namespace: 'ns' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [{ kind: 'User', name: 'ed', apiGroup: 'rbac.authorization.k8s.io' }],
    }, { namespace: 'ns', name: 'b' });
    const ed = { username: 'ed', uid: '', groups: ['system:authenticated'] };
    const can = (verb: string, apiGroup: string, resource: string, subresource = '') =>
      policy.allows(ed, { verb, resourceRequest: true, apiGroup, resource, subresource, name: 'x', namespace: 'ns', path: '' } as RequestAttributes);
    for (const [group, resource] of [['', 'pods'], ['', 'services'], ['', 'replicationcontrollers'], ['apps', 'deployments'], ['apps', 'replicasets'],
      ['apps', 'statefulsets'], ['apps', 'daemonsets'], ['batch', 'jobs'], ['batch', 'cronjobs']]) {
      for (const verb of ['update', 'patch']) expect(can(verb, group!, resource!, 'status'), `${verb} ${resource}/status`).toBe(false);
      expect(can('get', group!, resource!, 'status'), `get ${resource}/status`).toBe(true);
    }
    for (const [group, resource] of [['', 'endpoints'], ['discovery.k8s.io', 'endpointslices']]) {
      for (const verb of ['create', 'update', 'patch', 'delete', 'deletecollection']) expect(can(verb, group!, resource!), `${verb} ${resource}`).toBe(false);
      expect(can('list', group!, resource!)).toBe(true);
    }
    for (const [verb, group, resource, sub] of [['create', '', 'pods'], ['update', 'apps', 'deployments', 'scale'], ['create', '', 'secrets'],
      ['create', '', 'events'], ['create', 'coordination.k8s.io', 'leases'], ['create', '', 'serviceaccounts', 'token']]) {
      expect(can(verb!, group!, resource!, sub), `${verb} ${resource}/${sub ?? ''}`).toBe(true);
    }
  });
});
