// The ClusterRole aggregation controller with fakes: kube's union (selectors ORed, roles in name order, rules once),
// applied with its field manager and force; no write when nothing changes; chains settle; only affected roles queue.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { ClusterRoleAggregationController, CLUSTER_ROLES, COMPONENT } from '../../controllers/clusterrole-aggregation';
import { aggregatedRules } from '../../core/rbac/aggregation';
import { KUBE_CLUSTER_ROLES } from '../../core/rbac/bootstrap-policy';
import { BOOTSTRAP_CLUSTER_ROLES } from '../../core/bootstrap';
import { FakeApi, FakeClock, FakeInformer } from './fakes';

const role = (name: string, rules: object[], labels: Record<string, string> = {}, selectors?: object[]): KubeObject =>
  ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels }, rules, ...(selectors ? { aggregationRule: { clusterRoleSelectors: selectors } } : {}) }) as KubeObject;
const read = (resources: string[]) => ({ verbs: ['get', 'list', 'watch'], apiGroups: ['example.com'], resources });
const TO_VIEW = { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' };

function setup() {
  const clock = new FakeClock();
  const informer = new FakeInformer();
  const api = new FakeApi();
  const c = new ClusterRoleAggregationController(api, informer, clock);
  // A role as stored (the fake API answers a patch of what it holds) and as the informer sees it.
  const add = (o: KubeObject) => {
    api.put(CLUSTER_ROLES, o);
    informer.add(o);
  };
  return { clock, informer, api, c, add };
}

describe('clusterrole aggregation controller', () => {
  it('applies the union of the selected roles\' rules, in name order, each once, with its field manager and force', async () => {
    const { api, c, add } = setup();
    add(role('widgets-view', [read(['widgets']), read(['gadgets'])], TO_VIEW));
    add(role('a-gadgets-view', [read(['gadgets'])], TO_VIEW));
    add(role('unrelated', [read(['secrets'])]));
    add(role('view', [{ verbs: ['get'], apiGroups: [''], resources: ['stale'] }], {}, [{ matchLabels: TO_VIEW }]));
    await c.sync('view');
    expect(api.calls).toEqual([{
      verb: 'patch', resource: 'clusterroles', namespace: '', name: 'view', subresource: '',
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'view' }, rules: [read(['gadgets']), read(['widgets'])] },
      patchOptions: { fieldManager: COMPONENT, force: true },
    }]);
  });

  it('ORs its selectors, taking each selector\'s roles in turn as kube does', () => {
    const roles = [role('b', [read(['b'])], { x: '1' }), role('a', [read(['a'])], { y: '1' }), role('c', [read(['c'])], { x: '1', y: '1' })];
    const target = role('t', [], {}, [{ matchLabels: { x: '1' } }, { matchExpressions: [{ key: 'y', operator: 'Exists' }] }]);
    expect(aggregatedRules(target as never, roles as never).map((r) => r.resources![0])).toEqual(['b', 'c', 'a']);
  });

  it('writes nothing when the rules already are the union, and nothing for a role without an aggregationRule', async () => {
    const { api, c, add } = setup();
    add(role('widgets-view', [read(['widgets'])], TO_VIEW));
    add(role('view', [read(['widgets'])], {}, [{ matchLabels: TO_VIEW }]));
    add(role('plain', []));
    await c.sync('view');
    await c.sync('plain');
    await c.sync('gone');
    expect(api.calls).toEqual([]);
  });

  it('queues only the aggregated roles a change can affect', async () => {
    const { c, add } = setup();
    add(role('view', [], {}, [{ matchLabels: TO_VIEW }]));
    add(role('edit', [], {}, [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } }]));
    while (c.queue.len() > 0) c.queue.done((await c.queue.get())!);
    add(role('noise', [read(['x'])], { team: 'a' }));
    expect(c.queue.len()).toBe(0);
    add(role('widgets-view', [read(['widgets'])], TO_VIEW));
    expect(c.queue.len()).toBe(1);
    expect(await c.queue.get()).toBe('view');
  });

  it('leaves kube\'s bootstrap admin, edit and view as the bootstrap policy stores them (no write at a start)', async () => {
    const { api, c, add } = setup();
    for (const r of BOOTSTRAP_CLUSTER_ROLES) add(structuredClone(r) as unknown as KubeObject);
    for (const name of ['admin', 'edit', 'view']) await c.sync(name);
    expect(api.calls).toEqual([]);
    // And from kube's unaggregated roles, syncing until nothing changes reaches the same rules.
    const { informer: fresh, api: api2, c: c2, add: add2 } = setup();
    const metricsReader = BOOTSTRAP_CLUSTER_ROLES.filter((r) => r.metadata.name === 'system:aggregated-metrics-reader');
    for (const r of [...KUBE_CLUSTER_ROLES, ...metricsReader]) add2(structuredClone(r) as unknown as KubeObject);
    for (let pass = 0; pass < 3; pass++) {
      for (const name of ['view', 'edit', 'admin']) {
        const before = api2.calls.length;
        await c2.sync(name);
        if (api2.calls.length > before) add2({ ...fresh.get(name)!, rules: (api2.calls.at(-1)!.body as { rules: unknown }).rules } as KubeObject);
      }
    }
    for (const name of ['admin', 'edit', 'view']) {
      expect(fresh.get(name)!.rules, name).toEqual(BOOTSTRAP_CLUSTER_ROLES.find((r) => r.metadata.name === name)!.rules);
    }
  });

  it('takes a role\'s rules away when its label is removed', async () => {
    const { api, c, add } = setup();
    add(role('widgets-view', [read(['widgets'])], TO_VIEW));
    add(role('view', [read(['widgets'])], {}, [{ matchLabels: TO_VIEW }]));
    add(role('widgets-view', [read(['widgets'])], {}));
    expect(await c.queue.get()).toBe('view');
    await c.sync('view');
    expect((api.calls.at(-1)!.body as { rules: unknown[] }).rules).toEqual([]);
  });

  it('names its resource as kube does', () => {
    expect(CLUSTER_ROLES).toEqual({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', namespaced: false });
  });
});
