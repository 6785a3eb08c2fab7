// ClusterRole aggregation with the controllers on: a ClusterRole labelled aggregate-to-view that grants a CRD's
// resources extends `view` (a ServiceAccount bound to view may then list them) and removing the label takes it away
// again; the controller writes by server-side apply as kube's does; and escalation prevention for such roles is
// kube's (a creator must hold the rules; only cluster-admin may set an aggregationRule).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, waitFor, type Running } from './fixtures';

let r: Running;
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const WIDGETS = '/apis/widgets.example.com/v1/namespaces/team/widgets';
const TO_VIEW = 'rbac.authorization.k8s.io/aggregate-to-view';
let saToken = '';

const widgetReader = (labels: Record<string, string>) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'widgets-view', labels },
  rules: [{ apiGroups: ['widgets.example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }],
});

beforeAll(async () => {
  r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '0', STATIC_TOKENS: 'carol-token,carol,uid-c' } });
  const crd = await http(r, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.widgets.example.com' },
    spec: {
      group: 'widgets.example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  });
  expect(crd.status).toBe(201);
  await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: 'team' } });
  await waitFor('the widgets type', async () => ((await http(r, 'GET', WIDGETS)).status === 200 ? true : undefined));
  await http(r, 'POST', '/api/v1/namespaces/team/serviceaccounts', { metadata: { name: 'reader' } });
  await http(r, 'POST', `${RBAC}/namespaces/team/rolebindings`, {
    metadata: { name: 'reader-views' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'team' }],
  });
  const token = await http(r, 'POST', '/api/v1/namespaces/team/serviceaccounts/reader/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
  saToken = token.json.status.token;
}, 120_000);
afterAll(() => stopTestGateway(r));

const saLists = async () => (await http(r, 'GET', WIDGETS, undefined, { authorization: `Bearer ${saToken}` })).status;

describe('clusterrole aggregation', () => {
  it('extends view with a role labelled aggregate-to-view, and takes it away when the label goes', async () => {
    expect(await saLists()).toBe(403);
    expect((await http(r, 'POST', `${RBAC}/clusterroles`, widgetReader({ [TO_VIEW]: 'true' }))).status).toBe(201);
    await waitFor('view to aggregate widgets', async () => ((await saLists()) === 200 ? true : undefined));
    const view = (await http(r, 'GET', `${RBAC}/clusterroles/view`)).json;
    expect(view.rules).toContainEqual({ apiGroups: ['widgets.example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] });
    // The rules are the controller's, applied as kube's controller applies them.
    expect(view.metadata.managedFields.map((f: { manager: string; operation: string }) => [f.manager, f.operation])).toContainEqual(['clusterrole-aggregation-controller', 'Apply']);
    // edit and admin aggregate view in turn (view is labelled aggregate-to-edit, edit aggregate-to-admin).
    await waitFor('admin to aggregate widgets', async () => {
      const admin = (await http(r, 'GET', `${RBAC}/clusterroles/admin`)).json;
      return admin.rules.some((x: { resources?: string[] }) => x.resources?.includes('widgets')) ? true : undefined;
    });
    expect((await kubectl(r, ['label', 'clusterrole', 'widgets-view', `${TO_VIEW}-`])).code).toBe(0);
    await waitFor('view to drop widgets', async () => ((await saLists()) === 403 ? true : undefined));
    expect((await http(r, 'GET', `${RBAC}/clusterroles/view`)).json.rules).not.toContainEqual(widgetReader({}).rules[0]);
    // kubectl sees the same through the ServiceAccount's eyes.
    const canI = await kubectl(r, ['auth', 'can-i', 'list', 'widgets.widgets.example.com', '-n', 'team', '--as=system:serviceaccount:team:reader']);
    expect(canI.stdout.trim()).toBe('no');
  });

  it('keeps escalation prevention: a creator must hold an aggregated role\'s rules, and only cluster-admin sets an aggregationRule', async () => {
    await http(r, 'POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'role-writer' }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['create', 'update', 'get'] }],
    });
    await http(r, 'POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'carol-writes-roles' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'role-writer' },
      subjects: [{ kind: 'User', name: 'carol', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    const gadgets = { ...widgetReader({ [TO_VIEW]: 'true' }), metadata: { name: 'gadgets-view', labels: { [TO_VIEW]: 'true' } } };
    const refused = await http(r, 'POST', `${RBAC}/clusterroles`, gadgets, { authorization: 'Bearer carol-token' });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toContain('clusterroles.rbac.authorization.k8s.io "gadgets-view" is forbidden: user "carol" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held');
    // Holding the rules (here through a binding to widgets-view) is enough.
    await http(r, 'POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'carol-widgets' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'widgets-view' },
      subjects: [{ kind: 'User', name: 'carol', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    expect((await http(r, 'POST', `${RBAC}/clusterroles`, gadgets, { authorization: 'Bearer carol-token' })).status).toBe(201);
    const aggregator = { metadata: { name: 'my-aggregate' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [TO_VIEW]: 'true' } }] }, rules: [] };
    const noAggregation = await http(r, 'POST', `${RBAC}/clusterroles`, aggregator, { authorization: 'Bearer carol-token' });
    expect([noAggregation.status, noAggregation.json.message]).toEqual([403,
      'clusterroles.rbac.authorization.k8s.io "my-aggregate" is forbidden: must have cluster-admin privileges to use the aggregationRule']);
    // An admin may; the controller then fills it in.
    expect((await http(r, 'POST', `${RBAC}/clusterroles`, aggregator)).status).toBe(201);
    await waitFor('my-aggregate filled in', async () => {
      const rules = (await http(r, 'GET', `${RBAC}/clusterroles/my-aggregate`)).json.rules ?? [];
      return rules.some((x: { resources?: string[] }) => x.resources?.includes('widgets')) ? rules : undefined;
    });
  });
});
