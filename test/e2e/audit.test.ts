// The audit log through the real gateway: kubectl's delete recorded with who (also under impersonation), what and
// the authorizer's decision; a refused request; Secret data absent at Metadata; bodies only at Request levels; a
// policy rule that drops a user; failed authentication; a watch's two stages; and the read-back endpoint behind RBAC.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, waitFor, type Running } from './fixtures';

let r: Running;
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    users: [quiet]
  - level: None
    nonResourceURLs: [/healthz*, /readyz*, /livez*]
  - level: RequestResponse
    namespaces: [recorded]
    resources:
      - group: ""
        resources: [configmaps]
  - level: Metadata
`;

beforeAll(async () => {
  r = await startTestGateway({
    vars: {
      STATIC_TOKENS: ['jane-token,jane,uid-j', 'alice-token,alice,uid-a', 'bob-token,bob,uid-b', 'quiet-token,quiet,uid-q'].join('\n'),
      AUDIT_POLICY: POLICY,
    },
  });
  for (const ns of ['ns-a', 'recorded']) await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
  for (const who of ['jane', 'quiet']) {
    await http(r, 'POST', `${RBAC}/namespaces/ns-a/rolebindings`, {
      metadata: { name: `${who}-edits` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [{ kind: 'User', name: who, apiGroup: 'rbac.authorization.k8s.io' }],
    });
  }
  await http(r, 'POST', `${RBAC}/clusterroles`, {
    metadata: { name: 'impersonate-jane' }, rules: [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['jane'] }],
  });
  await http(r, 'POST', `${RBAC}/clusterrolebindings`, {
    metadata: { name: 'alice-as-jane' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonate-jane' },
    subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
  });
  for (const name of ['one', 'two', 'three', 'four']) await http(r, 'POST', '/api/v1/namespaces/ns-a/configmaps', { metadata: { name } });
}, 120_000);
afterAll(() => stopTestGateway(r));

interface Ev {
  auditID: string;
  stage: string;
  level: string;
  verb: string;
  requestURI: string;
  user: { username?: string; groups?: string[] };
  impersonatedUser?: { username?: string; groups?: string[] };
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: Record<string, string>;
  responseStatus?: { code: number; message?: string; reason?: string };
  requestObject?: any;
  responseObject?: any;
  annotations?: Record<string, string>;
}

async function auditLog(): Promise<{ items: Ev[]; text: string }> {
  const res = await http(r, 'GET', '/_edgeplane/audit?limit=5000');
  expect(res.status).toBe(200);
  expect(res.json.kind).toBe('EventList');
  return { items: res.json.items, text: res.text };
}
const find = async (pred: (e: Ev) => boolean) => (await auditLog()).items.filter(pred);

describe('audit log', () => {
  it('records a kubectl delete with who, what and the decision', async () => {
    const del = await kubectl(r, ['--token=jane-token', 'delete', 'configmap', 'one', '-n', 'ns-a']);
    expect(del.code).toBe(0);
    const [ev] = await find((e) => e.verb === 'delete' && e.objectRef?.name === 'one');
    expect(ev).toMatchObject({
      kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', stage: 'ResponseComplete', requestURI: '/api/v1/namespaces/ns-a/configmaps/one',
      user: { username: 'jane', uid: 'uid-j', groups: ['system:authenticated'] },
      objectRef: { resource: 'configmaps', namespace: 'ns-a', name: 'one', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 200 },
      annotations: {
        'authorization.k8s.io/decision': 'allow',
        'authorization.k8s.io/reason': 'RBAC: allowed by RoleBinding "jane-edits/ns-a" of ClusterRole "edit" to User "jane"',
      },
    });
    expect(ev.impersonatedUser).toBeUndefined();
    expect(ev.userAgent).toMatch(/^kubectl\/v1\.32/);
    expect(ev.sourceIPs?.length).toBeGreaterThan(0);
    expect(ev.auditID).toMatch(/^[0-9a-f-]{36}$/);
    // No body at Metadata, and omitStages left RequestReceived out.
    expect([ev.requestObject, ev.responseObject]).toEqual([undefined, undefined]);
    expect((await find((e) => e.auditID === ev.auditID)).map((e) => e.stage)).toEqual(['ResponseComplete']);
  });

  it('records the impersonator as the user and the impersonated identity beside it', async () => {
    expect((await kubectl(r, ['--token=alice-token', '--as=jane', 'delete', 'configmap', 'two', '-n', 'ns-a'])).code).toBe(0);
    const [ev] = await find((e) => e.verb === 'delete' && e.objectRef?.name === 'two');
    expect(ev.user).toEqual({ username: 'alice', uid: 'uid-a', groups: ['system:authenticated'] });
    expect(ev.impersonatedUser).toEqual({ username: 'jane', groups: ['system:authenticated'] });
    expect(ev.annotations?.['authorization.k8s.io/reason']).toBe('RBAC: allowed by RoleBinding "jane-edits/ns-a" of ClusterRole "edit" to User "jane"');
    // A refused impersonation is recorded too, with kube's 403 and no decision of the request itself.
    const refused = await kubectl(r, ['--token=bob-token', '--as=jane', 'delete', 'configmap', 'three', '-n', 'ns-a']);
    expect(refused.code).toBe(1);
    const [denied] = await find((e) => e.verb === 'delete' && e.objectRef?.name === 'three');
    expect(denied.user.username).toBe('bob');
    expect(denied.responseStatus).toMatchObject({ code: 403, reason: 'Forbidden', message: 'users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope' });
    expect(denied.annotations).toBeUndefined();
  });

  it('records a refused request with the authorizer\'s decision and kube\'s Status', async () => {
    const res = await http(r, 'DELETE', '/api/v1/namespaces/ns-a/configmaps/four', undefined, { authorization: 'Bearer bob-token', 'audit-id': 'bob-delete-1' });
    expect(res.status).toBe(403);
    expect(res.headers.get('audit-id')).toBe('bob-delete-1');
    const [ev] = await find((e) => e.auditID === 'bob-delete-1');
    expect(ev.annotations).toEqual({ 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' });
    expect(ev.responseStatus).toEqual({
      metadata: {}, status: 'Failure', reason: 'Forbidden', details: { name: 'four', kind: 'configmaps' }, code: 403,
      message: 'configmaps "four" is forbidden: User "bob" cannot delete resource "configmaps" in API group "" in the namespace "ns-a"',
    });
  });

  it('never records a Secret\'s data at Metadata level, but names the Secret', async () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, stringData: { password: 'hunter2-plain' }, data: { token: btoa('hunter2-b64') } };
    expect((await kubectl(r, ['create', '-n', 'ns-a', '-f', '-'], JSON.stringify(secret))).code).toBe(0);
    expect((await kubectl(r, ['get', 'secret', 'db', '-n', 'ns-a', '-o', 'json'])).code).toBe(0);
    const { items, text } = await auditLog();
    const events = items.filter((e) => e.objectRef?.resource === 'secrets' && e.objectRef.namespace === 'ns-a');
    expect(events.map((e) => [e.verb, e.objectRef?.name])).toEqual([['create', 'db'], ['get', 'db']]);
    for (const e of events) expect([e.level, e.requestObject, e.responseObject]).toEqual(['Metadata', undefined, undefined]);
    for (const secretText of ['hunter2', btoa('hunter2-b64'), btoa('hunter2-plain')]) expect(text).not.toContain(secretText);
  });

  it('records request and response bodies where the policy asks for RequestResponse', async () => {
    const res = await http(r, 'POST', '/api/v1/namespaces/recorded/configmaps', { metadata: { name: 'kept' }, data: { colour: 'blue' } }, { 'audit-id': 'rr-1' });
    expect(res.status).toBe(201);
    const [ev] = await find((e) => e.auditID === 'rr-1');
    expect(ev.level).toBe('RequestResponse');
    expect(ev.requestObject).toEqual({ metadata: { name: 'kept' }, data: { colour: 'blue' } });
    expect(ev.responseObject).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'kept', namespace: 'recorded' }, data: { colour: 'blue' } });
    expect(ev.objectRef).toEqual({ resource: 'configmaps', namespace: 'recorded', name: 'kept', apiVersion: 'v1' });
  });

  it('drops every request of a user a rule gives level None', async () => {
    const res = await http(r, 'DELETE', '/api/v1/namespaces/ns-a/configmaps/four', undefined, { authorization: 'Bearer quiet-token', 'audit-id': 'quiet-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('audit-id')).toBe('quiet-1'); // the Audit-Id is echoed whatever the level
    expect(await find((e) => e.auditID === 'quiet-1' || e.user.username === 'quiet')).toEqual([]);
  });

  it('records a failed authentication as kube does: one ResponseStarted event without a user', async () => {
    const res = await http(r, 'GET', '/api/v1/namespaces', undefined, { authorization: 'Bearer wrong', 'audit-id': 'bad-token-1' });
    expect(res.status).toBe(401);
    const events = await find((e) => e.auditID === 'bad-token-1');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ stage: 'ResponseStarted', user: {}, verb: 'list', responseStatus: { metadata: {}, message: 'Authentication failed, attempted: bearer', code: 401 } });
  });

  it('records a watch when it starts and again when it ends', async () => {
    const res = await http(r, 'GET', '/api/v1/namespaces/ns-a/configmaps?watch=true&timeoutSeconds=1', undefined, { 'audit-id': 'watch-1' });
    expect(res.status).toBe(200);
    const stages = await waitFor('both watch stages', async () => {
      const got = (await find((e) => e.auditID === 'watch-1')).map((e) => e.stage);
      return got.length === 2 ? got : undefined;
    }, 15_000);
    expect(stages).toEqual(['ResponseStarted', 'ResponseComplete']);
  });

  it('serves the log only to users RBAC allows, pages it, and counts what it wrote', async () => {
    const jane = await http(r, 'GET', '/_edgeplane/audit', undefined, { authorization: 'Bearer jane-token' });
    expect([jane.status, jane.json.message]).toEqual([403, 'forbidden: User "jane" cannot get path "/_edgeplane/audit"']);
    const first = await http(r, 'GET', '/_edgeplane/audit?limit=2');
    expect(first.json.items).toHaveLength(2);
    const next = await http(r, 'GET', `/_edgeplane/audit?limit=2&since=${first.json.metadata.resourceVersion}`);
    expect(next.json.items[0].auditID).not.toBe(first.json.items[1].auditID);
    expect((await http(r, 'GET', '/_edgeplane/audit?since=yesterday')).status).toBe(400);
    const metrics = (await http(r, 'GET', '/metrics')).text;
    expect(Number(/^edgeplane_audit_events_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(10);
    expect(metrics).toMatch(/^edgeplane_audit_events_dropped_total 0$/m);
  });
});
