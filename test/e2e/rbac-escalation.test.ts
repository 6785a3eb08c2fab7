// RBAC that fails closed, through the real gateway: escalation checked on the object the store writes
// (create, update, every patch type), bindings to missing roles, roleRef changes, dangling bindings in a
// denial's reason, a huge role decided without its breakdown, and system:masters with every binding gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, type Running } from './fixtures';

let r: Running;
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const ROLES = `${RBAC}/namespaces/ns-x/roles`;
const BINDINGS = `${RBAC}/namespaces/ns-x/rolebindings`;

beforeAll(async () => {
  r = await startTestGateway({ vars: { STATIC_TOKENS: ['dana-token,dana,uid-d', 'eve-token,eve,uid-e'].join('\n') } });
  await admin('POST', '/api/v1/namespaces', { metadata: { name: 'ns-x' } });
  // dana is a namespace admin of ns-x (the bootstrap `admin` ClusterRole: workloads, secrets, roles and
  // bindings, but neither `bind` nor `escalate`); eve holds nothing.
  await admin('POST', BINDINGS, {
    metadata: { name: 'dana-admin' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
    subjects: [{ kind: 'User', name: 'dana' }],
  });
}, 120_000);
afterAll(() => stopTestGateway(r));

function admin(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  return http(r, method, path, body, headers);
}
function dana(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return http(r, method, path, body, { authorization: 'Bearer dana-token', ...headers });
}

const DANA = 'user "dana" (groups=["system:authenticated"])';
const forbiddenRole = (name: string, missing: string) => ({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
  message: `roles.rbac.authorization.k8s.io "${name}" is forbidden: ${DANA} is attempting to grant RBAC permissions not currently held:\n${missing}`,
  details: { name, group: 'rbac.authorization.k8s.io', kind: 'roles' },
});
const NODES = '{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}';

describe('escalation prevention on the written object', () => {
  it('refuses a create beyond the user\'s rules with kube\'s Status, and stores nothing', async () => {
    const res = await dana('POST', ROLES, { metadata: { name: 'grab' }, rules: [{ apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get'] }] });
    expect(res.status).toBe(403);
    expect(res.json).toEqual(forbiddenRole('grab', NODES));
    expect((await admin('GET', `${ROLES}/grab`)).status).toBe(404);
  });

  it.each([
    ['update', 'PUT', { metadata: { name: 'small' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }] }, 'application/json'],
    ['json patch', 'PATCH', [{ op: 'replace', path: '/rules/0/resources/0', value: 'nodes' }], 'application/json-patch+json'],
    ['merge patch', 'PATCH', { rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }] }, 'application/merge-patch+json'],
    ['strategic patch', 'PATCH', { rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }] }, 'application/strategic-merge-patch+json'],
  ])('refuses an escalating %s and leaves the role unchanged', async (_name, method, body, contentType) => {
    await admin('DELETE', `${ROLES}/small`);
    expect((await dana('POST', ROLES, { metadata: { name: 'small' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] })).status).toBe(201);
    const before = (await admin('GET', `${ROLES}/small`)).json;
    const res = await dana(method, `${ROLES}/small`, body, { 'content-type': contentType });
    expect(res.json).toEqual(forbiddenRole('small', NODES));
    expect((await admin('GET', `${ROLES}/small`)).json).toEqual(before);
  });

  it('answers an unknown patch type 415 without writing', async () => {
    const before = (await admin('GET', `${ROLES}/small`)).json;
    const res = await dana('PATCH', `${ROLES}/small`, '{"rules":[{"apiGroups":["*"],"resources":["*"],"verbs":["*"]}]}', { 'content-type': 'application/x-unknown-patch' });
    expect(res.status).toBe(415);
    expect(res.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'UnsupportedMediaType', code: 415 });
    expect((await admin('GET', `${ROLES}/small`)).json).toEqual(before);
  });

  it('answers a binding to a missing role by a user without `bind` with the role\'s NotFound, as kube does', async () => {
    for (const [kind, resource] of [['ClusterRole', 'clusterroles'], ['Role', 'roles']]) {
      const res = await dana('POST', BINDINGS, {
        metadata: { name: 'to-nothing' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: 'no-such-role' },
        subjects: [{ kind: 'User', name: 'eve' }],
      });
      expect(res.json).toEqual({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404,
        message: `${resource}.rbac.authorization.k8s.io "no-such-role" not found`,
        details: { name: 'no-such-role', group: 'rbac.authorization.k8s.io', kind: resource },
      });
    }
    expect((await admin('GET', `${BINDINGS}/to-nothing`)).status).toBe(404);
  });

  it('refuses binding a role beyond the user, and allows one within', async () => {
    const res = await dana('POST', BINDINGS, {
      metadata: { name: 'eve-admin' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'User', name: 'eve' }],
    });
    expect(res.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: `rolebindings.rbac.authorization.k8s.io "eve-admin" is forbidden: ${DANA} is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}`,
      details: { name: 'eve-admin', group: 'rbac.authorization.k8s.io', kind: 'rolebindings' },
    });
    expect((await admin('GET', `${BINDINGS}/eve-admin`)).status).toBe(404);
    const ok = await dana('POST', BINDINGS, {
      metadata: { name: 'eve-view' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: 'eve' }],
    });
    expect(ok.status).toBe(201);
  });

  it('refuses a roleRef change with 422 and kube\'s message, and stores nothing', async () => {
    const before = (await admin('GET', `${BINDINGS}/eve-view`)).json;
    const res = await admin('PATCH', `${BINDINGS}/eve-view`, { roleRef: { name: 'edit' } }, { 'content-type': 'application/merge-patch+json' });
    const cause = 'Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef';
    expect(res.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
      message: `RoleBinding.rbac.authorization.k8s.io "eve-view" is invalid: roleRef: ${cause}`,
      details: { name: 'eve-view', group: 'rbac.authorization.k8s.io', kind: 'RoleBinding', causes: [{ reason: 'FieldValueInvalid', message: cause, field: 'roleRef' }] },
    });
    // dana holds everything `edit` grants, so she gets past the escalation check to the same 422.
    expect((await dana('PATCH', `${BINDINGS}/eve-view`, { roleRef: { name: 'edit' } }, { 'content-type': 'application/merge-patch+json' })).status).toBe(422);
    expect((await admin('GET', `${BINDINGS}/eve-view`)).json).toEqual(before);
  });

  it('names a dangling binding in a denial\'s reason, as kube\'s RBAC authorizer does', async () => {
    await admin('POST', BINDINGS, {
      metadata: { name: 'eve-ghost' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ghost' },
      subjects: [{ kind: 'User', name: 'eve' }],
    });
    const res = await http(r, 'GET', '/api/v1/namespaces/ns-x/secrets', undefined, { authorization: 'Bearer eve-token' });
    expect(res.status).toBe(403);
    expect(res.json.message).toBe('secrets is forbidden: User "eve" cannot list resource "secrets" in API group "" in the namespace "ns-x": RBAC: clusterrole.rbac.authorization.k8s.io "ghost" not found');
    expect((await http(r, 'GET', '/api/v1/namespaces/ns-x/pods', undefined, { authorization: 'Bearer eve-token' })).status).toBe(200);
  });

  it('decides a 30×30×30×30 role by a namespace admin without its 810,000-tuple breakdown', async () => {
    const values = (known: string[], prefix: string) => [...known, ...Array.from({ length: 30 - known.length }, (_, i) => `${prefix}${i}`)];
    const rule = {
      verbs: values(['get', 'list', 'watch'], 'verb'), apiGroups: values(['', 'apps'], 'group.example.com'),
      resources: values(['pods', 'deployments'], 'res'), resourceNames: values([], 'name'),
    };
    const res = await dana('POST', ROLES, { metadata: { name: 'huge' }, rules: [rule] });
    expect(res.status).toBe(403);
    // dana holds get/list/watch on core pods and apps deployments: 3 × 2 × 30 tuples; the rest are
    // missing, the first 100 in kube's order listed, one line each (named tuples are not merged).
    const lines = (res.json.message as string).split('\n');
    expect(lines[0]).toBe(`roles.rbac.authorization.k8s.io "huge" is forbidden: ${DANA} is attempting to grant RBAC permissions not currently held:`);
    expect(lines).toHaveLength(1 + 100 + 1);
    expect(lines.at(-1)).toBe(`... and ${30 ** 4 - 3 * 2 * 30 - 100} more`);
    expect(lines).toContain('{APIGroups:[""], Resources:["pods"], ResourceNames:["name0"], Verbs:["verb0"]}');
    expect((await admin('GET', `${ROLES}/huge`)).status).toBe(404);
  });
});

describe('system:masters', () => {
  it('keeps working with every binding deleted, cluster-admin\'s included', async () => {
    expect((await admin('DELETE', `${RBAC}/clusterrolebindings/cluster-admin`)).status).toBe(200);
    expect((await admin('DELETE', `${RBAC}/clusterrolebindings`)).status).toBe(200);
    // Every namespace's RoleBindings: ns-x's and kube's bootstrap ones in kube-system and kube-public.
    const namespaces = new Set<string>((await admin('GET', `${RBAC}/rolebindings`)).json.items.map((b: any) => b.metadata.namespace));
    expect([...namespaces].sort()).toEqual(['kube-public', 'kube-system', 'ns-x']);
    for (const ns of namespaces) expect((await admin('DELETE', `${RBAC}/namespaces/${ns}/rolebindings`)).status).toBe(200);
    expect((await admin('GET', `${RBAC}/clusterrolebindings`)).json.items).toEqual([]);
    expect((await admin('GET', `${RBAC}/rolebindings`)).json.items).toEqual([]);
    // Reads, writes, an RBAC write with no check to pass, and a review all still answer as for an admin.
    expect((await admin('GET', '/api/v1/namespaces')).status).toBe(200);
    expect((await admin('POST', '/api/v1/namespaces/ns-x/configmaps', { metadata: { name: 'still-here' } })).status).toBe(201);
    const review = await admin('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { spec: { resourceAttributes: { verb: 'delete', resource: 'nodes' } } });
    expect(review.json.status).toEqual({ allowed: true });
    expect((await admin('POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'cluster-admin' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' }],
    })).status).toBe(201);
    // Everyone else lost what the bindings gave them.
    expect((await dana('GET', '/api/v1/namespaces/ns-x/pods')).status).toBe(403);
  });
});
