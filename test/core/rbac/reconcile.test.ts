// Reconciling stored bootstrap objects with this version's (kube's reconcile_role.go / reconcile_rolebindings.go),
// the aggregation of admin/edit/view, and the writes a store's start makes from them.
import { describe, expect, it } from 'vitest';
import { reconcileBinding, reconcileRole } from '../../../core/rbac/reconcile';
import { aggregateAll, aggregatedRules } from '../../../core/rbac/aggregation';
import { clusterRoleBinding, group, serviceAccount, user, type BootstrapRole } from '../../../core/rbac/bootstrap-policy';
import { bootstrapWrites, SEEDS } from '../../../core/bootstrap';

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const AUTO = 'rbac.authorization.kubernetes.io/autoupdate';
const pods = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] };
const jobs = { verbs: ['update'], apiGroups: ['batch'], resources: ['jobs/status'] };
const widgets = { verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] };

function expectedRole(rules = [pods, jobs], aggregate?: string): BootstrapRole {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole',
    metadata: { name: 'r', labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { [AUTO]: 'true' } },
    ...(aggregate ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregate]: 'true' } }] } } : {}),
    rules,
  };
}
const stored = (rules: object[], annotations?: Record<string, string>, extra: object = {}) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole',
  metadata: { name: 'r', resourceVersion: '7', uid: 'u', labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, ...(annotations ? { annotations } : {}) },
  rules, ...extra,
});

describe('reconcileRole', () => {
  it('creates a missing role and leaves a protected one (autoupdate=false) alone', () => {
    expect(reconcileRole(undefined, expectedRole())).toEqual({ op: 'create', object: expectedRole() });
    expect(reconcileRole(stored([widgets], { [AUTO]: 'false' }), expectedRole())).toEqual({ op: 'none' });
  });

  it('leaves an autoupdate role that already covers the expected rules, in any shape', () => {
    const merged = { verbs: ['get', 'list', 'update'], apiGroups: ['', 'batch'], resources: ['pods', 'jobs/status'] };
    expect(reconcileRole(stored([merged], { [AUTO]: 'true' }), expectedRole())).toEqual({ op: 'none' });
  });

  it('adds what an autoupdate role is missing and keeps its extra rules (the union)', () => {
    const r = reconcileRole(stored([widgets, { ...pods, verbs: ['get'] }], { [AUTO]: 'true' }), expectedRole()) as Any;
    expect(r.op).toBe('update');
    expect(r.object.rules).toEqual([widgets, { ...pods, verbs: ['get'] }, pods, jobs]);
    expect(r.object.metadata).toMatchObject({ resourceVersion: '7', uid: 'u' }); // an update of the stored object
  });

  it('merges labels and annotations in, the stored values winning', () => {
    const s = stored([pods, jobs], { [AUTO]: 'true', note: 'mine' });
    s.metadata.labels = { 'kubernetes.io/bootstrapping': 'custom' } as Any;
    const r = reconcileRole(s, { ...expectedRole(), metadata: { ...expectedRole().metadata, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults', extra: 'x' } } }) as Any;
    expect(r.object.metadata.labels).toEqual({ 'kubernetes.io/bootstrapping': 'custom', extra: 'x' });
    expect(r.object.metadata.annotations).toEqual({ [AUTO]: 'true', note: 'mine' });
  });

  it('gives an older edgeplane seed (no autoupdate annotation) kube\'s rules and aggregation exactly', () => {
    const r = reconcileRole(stored([pods, jobs, widgets]), expectedRole([pods], 'agg')) as Any;
    expect(r.op).toBe('update');
    expect(r.object.rules).toEqual([pods]);
    expect(r.object.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { agg: 'true' } }] });
    expect(r.object.metadata.annotations).toEqual({ [AUTO]: 'true' });
    // The same rules in another order or shape are rewritten as kube's too.
    expect((reconcileRole(stored([jobs, pods]), expectedRole()) as Any).object.rules).toEqual([pods, jobs]);
  });

  it('adds missing aggregation selectors, and drops aggregation from a role that is not aggregated', () => {
    const agg = { clusterRoleSelectors: [{ matchLabels: { mine: 'true' } }] };
    const added = reconcileRole(stored([], { [AUTO]: 'true' }, { aggregationRule: agg }), expectedRole([], 'agg')) as Any;
    expect(added.object.aggregationRule.clusterRoleSelectors).toEqual([{ matchLabels: { mine: 'true' } }, { matchLabels: { agg: 'true' } }]);
    const dropped = reconcileRole(stored([pods, jobs], { [AUTO]: 'true' }, { aggregationRule: agg }), expectedRole()) as Any;
    expect(dropped.op).toBe('update');
    expect(dropped.object.aggregationRule).toBeUndefined();
  });

  it('stays bounded on a huge stored role: what it cannot decide within the budget gets kube\'s rule added', () => {
    const many = Array.from({ length: 3000 }, (_, i) => `r${i}`);
    const giant = Array.from({ length: 50 }, (_, i) => ({ verbs: ['get'], apiGroups: [`g${i}`], resources: many }));
    const wanted = { verbs: ['get'], apiGroups: ['g1', 'g2', 'g3'], resources: many };
    // 150,000 owner values: over the budget before any search, so undecided, so kube's rule is added.
    const r = reconcileRole(stored(giant, { [AUTO]: 'true' }), expectedRole([wanted])) as Any;
    expect(r.object.rules).toHaveLength(51);
    expect(r.object.rules.at(-1)).toEqual(wanted);
  });
});

describe('reconcileBinding', () => {
  const expected = clusterRoleBinding('b', 'role', [group('system:authenticated'), serviceAccount('kube-system', 'x')]);
  const storedBinding = (subjects: object[], annotations?: Record<string, string>, roleName = 'role') => ({
    ...expected, metadata: { name: 'b', resourceVersion: '3', labels: expected.metadata.labels, ...(annotations ? { annotations } : {}) },
    roleRef: { ...expected.roleRef, name: roleName }, subjects,
  });

  it('adds missing subjects and keeps extra ones; a subject without apiGroup equals one with ""', () => {
    const sa = { kind: 'ServiceAccount', name: 'x', namespace: 'kube-system', apiGroup: '' };
    const r = reconcileBinding(storedBinding([user('jane'), sa], { [AUTO]: 'true' }), expected) as Any;
    expect(r.object.subjects).toEqual([user('jane'), sa, group('system:authenticated')]);
  });

  it('recreates a binding whose roleRef differs, replaces an older seed\'s subjects, leaves a protected one', () => {
    expect(reconcileBinding(storedBinding([], { [AUTO]: 'true' }, 'other'), expected)).toEqual({ op: 'recreate', object: expected });
    expect((reconcileBinding(storedBinding([user('jane'), group('system:authenticated')]), expected) as Any).object.subjects).toEqual(expected.subjects);
    expect(reconcileBinding(storedBinding([user('jane')], { [AUTO]: 'false' }), expected)).toEqual({ op: 'none' });
    expect(reconcileBinding(storedBinding(expected.subjects!, { [AUTO]: 'true' }), expected)).toEqual({ op: 'none' });
  });
});

describe('aggregation', () => {
  const role = (name: string, labels: Record<string, string>, rules: object[], from?: string) =>
    ({ metadata: { name, labels }, rules, ...(from ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [from]: 'true' } }] } } : {}) });

  it('takes the rules of the matching roles in name order, each once, never its own', () => {
    const agg = role('agg', { to: 'true' }, [widgets], 'to');
    const roles = [agg, role('b', { to: 'true' }, [jobs, pods]), role('a', { to: 'true' }, [pods]), role('c', {}, [widgets])];
    expect(aggregatedRules(agg, roles)).toEqual([pods, jobs]);
  });

  it('resolves chains (view into edit into admin) whatever the order of the roles', () => {
    const roles = [
      role('admin', {}, [], 'to-admin'), role('edit', { 'to-admin': 'true' }, [], 'to-edit'), role('view', { 'to-edit': 'true' }, [], 'to-view'),
      role('x-admin', { 'to-admin': 'true' }, [widgets]), role('x-edit', { 'to-edit': 'true' }, [jobs]), role('x-view', { 'to-view': 'true' }, [pods]),
    ];
    const out = new Map(aggregateAll(roles).map((r) => [r.metadata.name, r.rules]));
    expect(out.get('view')).toEqual([pods]);
    expect(out.get('edit')).toEqual([pods, jobs]); // "view" < "x-edit"
    expect(out.get('admin')).toEqual([pods, jobs, widgets]);
  });
});

describe('bootstrapWrites', () => {
  it('creates every missing seed, in its namespace', () => {
    const writes = bootstrapWrites('rbac.authorization.k8s.io/roles', () => undefined);
    expect(writes).toHaveLength(SEEDS['rbac.authorization.k8s.io/roles']!.length);
    expect(writes.every((w) => w.verb === 'create' && ['kube-system', 'kube-public'].includes(w.namespace))).toBe(true);
  });

  it('writes nothing when the stored objects are this version\'s', () => {
    for (const store of Object.keys(SEEDS)) {
      const byKey = new Map(SEEDS[store]!.map((o: Any) => [`${o.metadata.namespace ?? ''}/${o.metadata.name}`, o]));
      expect(bootstrapWrites(store, (ns, name) => byKey.get(`${ns}/${name}`)), store).toEqual([]);
    }
  });

  it('removes what only older versions seeded, while it still looks seeded', () => {
    const legacy = (annotations?: object) => ({ metadata: { name: 'system:controller:taint-eviction-controller', labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, ...(annotations ? { annotations } : {}) } });
    const seeded = (o: object) => (ns: string, name: string) => (name === 'system:controller:taint-eviction-controller' ? o : SEEDS['rbac.authorization.k8s.io/clusterroles']!.find((r: Any) => r.metadata.name === name));
    expect(bootstrapWrites('rbac.authorization.k8s.io/clusterroles', seeded(legacy()))).toEqual([{ verb: 'delete', namespace: '', name: 'system:controller:taint-eviction-controller' }]);
    expect(bootstrapWrites('rbac.authorization.k8s.io/clusterroles', seeded(legacy({ [AUTO]: 'false' })))).toEqual([]);
  });
});
