// RBAC through the front door: a matrix of users, verbs, types and namespaces over HTTP and both
// watch transports; escalation; ServiceAccount tokens; kubectl auth; namespace deletion.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { http, kubectl, SIGNING_KEY, startTestGateway, stopTestGateway, type Running } from './fixtures';
import { httpWatch, wsWatch } from './watch-streams';
import { keyFromSecret, signServiceAccountToken } from '../../core/auth/service-account-token';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER as ISSUER } from '../../worker/settings';
let r: Running;
beforeAll(async () => {
  r = await startTestGateway({
    vars: {
      STATIC_TOKENS: ['alice-token,alice,uid-a,"dev-team"', 'bob-token,bob,uid-b', 'carol-token,carol,uid-c'].join('\n'),
      AUTHZ_SHARDS: '3',
    },
  });
  for (const ns of ['ns-a', 'ns-b']) await admin('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  // alice: edit pods and read configmaps in ns-a (a Role bound to her group); bob: read pods and
  // configmaps everywhere (a ClusterRole); carol: nothing.
  await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/ns-a/roles', {
    metadata: { name: 'pod-editor' },
    rules: [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
    ],
  });
  await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/ns-a/rolebindings', {
    metadata: { name: 'dev-team-edits-pods' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-editor' },
    subjects: [{ kind: 'Group', name: 'dev-team', apiGroup: 'rbac.authorization.k8s.io' }],
  });
  await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    metadata: { name: 'reader' },
    rules: [{ apiGroups: [''], resources: ['pods', 'configmaps'], verbs: ['get', 'list', 'watch'] }],
  });
  await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: 'bob-reads' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reader' },
    subjects: [{ kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' }],
  });
}, 120_000);
afterAll(() => stopTestGateway(r));

function admin(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  return http(r, method, path, body, headers);
}
function as(token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return http(r, method, path, body, { authorization: `Bearer ${token}`, ...headers });
}

// The test's own statement of the policy above: what each user may do, by namespace, type and verb.
const READ = ['get', 'list', 'watch'];
const ALL = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
function expected(user: string, ns: string, type: string, verb: string): boolean {
  if (user === 'alice') return ns === 'ns-a' && ((type === 'pods' && ALL.includes(verb)) || (type === 'configmaps' && READ.includes(verb)));
  if (user === 'bob') return (type === 'pods' || type === 'configmaps') && READ.includes(verb);
  return false;
}

const body = (type: string, name: string) => type === 'pods'
  ? { metadata: { name }, spec: { containers: [{ name: 'c', image: 'x' }] } }
  : { metadata: { name }, data: { k: 'dg==' } };

async function attempt(token: string, verb: string, ns: string, type: string): Promise<number> {
  const base = `/api/v1/namespaces/${ns}/${type}`;
  switch (verb) {
    case 'get': return (await as(token, 'GET', `${base}/thing`)).status;
    case 'list': return (await as(token, 'GET', base)).status;
    case 'watch': return (await as(token, 'GET', `${base}?watch=true&timeoutSeconds=1`)).status;
    case 'create': return (await as(token, 'POST', base, body(type, `made-${Math.random().toString(36).slice(2, 8)}`))).status;
    case 'update': return (await as(token, 'PUT', `${base}/thing`, body(type, 'thing'))).status;
    case 'patch': return (await as(token, 'PATCH', `${base}/thing`, { metadata: { labels: { a: 'b' } } }, { 'content-type': 'application/merge-patch+json' })).status;
    default: return (await as(token, 'DELETE', `${base}/thing`)).status;
  }
}

describe('RBAC matrix', () => {
  const users = [['alice', 'alice-token'], ['bob', 'bob-token'], ['carol', 'carol-token']] as const;
  const cases = users.flatMap(([user, token]) => ['ns-a', 'ns-b'].flatMap((ns) => ['pods', 'configmaps', 'secrets'].flatMap((type) =>
    ALL.map((verb) => ({ user, token, ns, type, verb, allowed: expected(user, ns, type, verb) })))));

  it.each(cases)('$user $verb $type in $ns → allowed=$allowed', async (c) => {
    const status = await attempt(c.token, c.verb, c.ns, c.type);
    if (c.allowed) expect(status).not.toBe(403);
    else expect(status).toBe(403);
  });

  it.each(users.flatMap(([user, token]) => ['ns-a', 'ns-b'].map((ns) => ({ user, token, ns }))))('$user WebSocket watch of pods in $ns follows the rules', async ({ user, token, ns }) => {
    const open = new Promise<number>((resolve) => {
      const ws = new WebSocket(`${r.gateway.url.replace('http', 'ws')}/api/v1/namespaces/${ns}/pods?watch=true`, { headers: { authorization: `Bearer ${token}` } });
      ws.on('open', () => {
        ws.terminate();
        resolve(101);
      });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => undefined);
    });
    expect(await open).toBe(expected(user, ns, 'pods', 'watch') ? 101 : 403);
  });

  it('answers a denial with kube-apiserver\'s Status', async () => {
    const res = await as('carol-token', 'GET', '/api/v1/namespaces/ns-a/pods');
    expect(res.json).toMatchObject({
      kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'pods is forbidden: User "carol" cannot list resource "pods" in API group "" in the namespace "ns-a"',
      details: { kind: 'pods' },
    });
    const named = await as('alice-token', 'GET', '/api/v1/namespaces/ns-b/pods/x');
    expect(named.json.message).toBe('pods "x" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "ns-b"');
    const cluster = await as('alice-token', 'GET', '/api/v1/pods');
    expect(cluster.json.message).toBe('pods is forbidden: User "alice" cannot list resource "pods" in API group "" at the cluster scope');
    const metrics = await as('alice-token', 'GET', '/metrics');
    expect(metrics.json).toMatchObject({ code: 403, message: 'forbidden: User "alice" cannot get path "/metrics"' });
  });

  it('never delivers an event from a namespace the watcher may not read, on either transport', async () => {
    const alice = { authorization: 'Bearer alice-token' };
    const watchers = [
      await httpWatch(r, '/api/v1/namespaces/ns-a/pods?watch=true', alice),
      await wsWatch(r, '/api/v1/namespaces/ns-a/pods?watch=true', { headers: alice }),
    ];
    const clusterWide = await as('alice-token', 'GET', '/api/v1/pods?watch=true');
    expect(clusterWide.status).toBe(403);
    await admin('POST', '/api/v1/namespaces/ns-b/pods', body('pods', 'secret-plans'));
    await admin('POST', '/api/v1/namespaces/ns-a/pods', body('pods', 'visible'));
    for (const w of watchers) {
      await w.log.until((e) => e.some((x) => x.object.metadata.name === 'visible'), 'the ns-a event');
      expect(w.log.events.every((x) => x.object.metadata.namespace === 'ns-a')).toBe(true);
      w.close();
    }
  });

  it('follows RBAC changes at once: a new binding grants, a deleted one revokes', async () => {
    expect((await as('carol-token', 'GET', '/api/v1/namespaces/ns-b/configmaps')).status).toBe(403);
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/ns-b/rolebindings', {
      metadata: { name: 'carol-view' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: 'carol' }],
    });
    expect((await as('carol-token', 'GET', '/api/v1/namespaces/ns-b/configmaps')).status).toBe(200);
    expect((await as('carol-token', 'GET', '/api/v1/namespaces/ns-a/configmaps')).status).toBe(403);
    await admin('DELETE', '/apis/rbac.authorization.k8s.io/v1/namespaces/ns-b/rolebindings/carol-view');
    expect((await as('carol-token', 'GET', '/api/v1/namespaces/ns-b/configmaps')).status).toBe(403);
  });
});

describe('escalation prevention', () => {
  it('refuses a role granting more than its creator holds, and a binding to such a role', async () => {
    // alice may manage roles in ns-a only through this grant, which holds nothing about secrets.
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/ns-a/roles', {
      metadata: { name: 'role-manager' },
      rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'get', 'list', 'update', 'patch'] }],
    });
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/ns-a/rolebindings', {
      metadata: { name: 'alice-manages-roles' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'role-manager' },
      subjects: [{ kind: 'User', name: 'alice' }],
    });
    const roles = '/apis/rbac.authorization.k8s.io/v1/namespaces/ns-a/roles';
    const within = await as('alice-token', 'POST', roles, { metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
    expect(within.status).toBe(201);
    const beyond = await as('alice-token', 'POST', roles, { metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] });
    expect(beyond.status).toBe(403);
    expect(beyond.json.message).toContain('is attempting to grant RBAC permissions not currently held');
    const patched = await as('alice-token', 'PATCH', `${roles}/pod-reader`, { rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.status).toBe(403);
    const bindAdmin = await as('alice-token', 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/ns-a/rolebindings', {
      metadata: { name: 'alice-admin' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'User', name: 'alice' }],
    });
    expect(bindAdmin.status).toBe(403);
    expect((await as('alice-token', 'GET', '/api/v1/namespaces/ns-a/secrets')).status).toBe(403);
  });
});

describe('ServiceAccount tokens', () => {
  it('issues a token through TokenRequest that authenticates as the account', async () => {
    const sa = await admin('POST', '/api/v1/namespaces/ns-a/serviceaccounts', { metadata: { name: 'robot' } });
    expect(sa.status).toBe(201);
    const issued = await admin('POST', '/api/v1/namespaces/ns-a/serviceaccounts/robot/token', { spec: { expirationSeconds: 3600 } });
    expect(issued.status).toBe(201);
    expect(issued.json).toMatchObject({ kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', status: { token: expect.any(String) } });
    const token = issued.json.status.token as string;
    const whoami = await as(token, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    expect(whoami.json.status.userInfo).toMatchObject({ username: 'system:serviceaccount:ns-a:robot', groups: expect.arrayContaining(['system:serviceaccounts', 'system:serviceaccounts:ns-a']) });
    expect((await as(token, 'GET', '/api/v1/namespaces/ns-a/pods')).status).toBe(403);
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/ns-a/rolebindings', {
      metadata: { name: 'robot-views' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: 'ns-a' }],
    });
    expect((await as(token, 'GET', '/api/v1/namespaces/ns-a/pods')).status).toBe(200);
    // Deleting the account invalidates its tokens.
    await admin('DELETE', '/api/v1/namespaces/ns-a/serviceaccounts/robot');
    expect((await as(token, 'GET', '/api/v1/namespaces/ns-a/pods')).status).toBe(401);
  });

  it('rejects expired and badly signed tokens, and short expirations', async () => {
    const sa = (await admin('POST', '/api/v1/namespaces/ns-a/serviceaccounts', { metadata: { name: 'robot2' } })).json;
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: ISSUER, sub: 'system:serviceaccount:ns-a:robot2', aud: [ISSUER], iat: now - 7200, nbf: now - 7200, exp: now - 3600, jti: 'j',
      'kubernetes.io': { namespace: 'ns-a', serviceaccount: { name: 'robot2', uid: sa.metadata.uid } },
    };
    const key = keyFromSecret(SIGNING_KEY);
    expect((await as(await signServiceAccountToken(claims, key), 'GET', '/api/v1/namespaces/ns-a/pods')).status).toBe(401);
    const forged = await signServiceAccountToken({ ...claims, exp: now + 3600 }, keyFromSecret('not-the-key-but-as-long-as-one-is'));
    expect((await as(forged, 'GET', '/api/v1/namespaces/ns-a/pods')).status).toBe(401);
    const valid = await signServiceAccountToken({ ...claims, exp: now + 3600 }, key);
    expect((await as(valid, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {})).status).toBe(201);
    const short = await admin('POST', '/api/v1/namespaces/ns-a/serviceaccounts/robot2/token', { spec: { expirationSeconds: 60 } });
    expect(short).toMatchObject({ status: 422 });
  });
});

describe('kubectl auth', () => {
  it('whoami, can-i, can-i --list, create role and create rolebinding work', async () => {
    const whoami = await kubectl(r, ['auth', 'whoami', '-o', 'json']);
    expect(JSON.parse(whoami.stdout).status.userInfo.username).toBe('admin');
    expect((await kubectl(r, ['auth', 'can-i', 'delete', 'pods', '-n', 'ns-b'])).stdout.trim()).toBe('yes');
    const asCarol = await kubectl(r, ['auth', 'can-i', 'list', 'pods', '-n', 'ns-a', '--token', 'carol-token']);
    expect(asCarol.stdout.trim()).toBe('no');
    expect((await kubectl(r, ['create', 'role', 'lease-reader', '--verb=get,list', '--resource=leases.coordination.k8s.io', '-n', 'ns-b'])).stdout).toContain('role.rbac.authorization.k8s.io/lease-reader created');
    expect((await kubectl(r, ['create', 'rolebinding', 'carol-leases', '--role=lease-reader', '--user=carol', '-n', 'ns-b'])).stdout).toContain('rolebinding.rbac.authorization.k8s.io/carol-leases created');
    expect((await kubectl(r, ['auth', 'can-i', 'list', 'leases.coordination.k8s.io', '-n', 'ns-b', '--token', 'carol-token'])).stdout.trim()).toBe('yes');
    const list = await kubectl(r, ['auth', 'can-i', '--list', '-n', 'ns-b', '--token', 'carol-token']);
    expect(list.stdout).toMatch(/leases\.coordination\.k8s\.io\s+\[\]\s+\[\]\s+\[get list\]/);
    expect(list.stdout).toMatch(/selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/);
  });
});

describe('namespace deletion', () => {
  it('removes the namespace\'s objects of every type, and refuses creates while it terminates', async () => {
    await admin('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } });
    await admin('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'cm' } });
    await admin('POST', '/api/v1/namespaces/doomed/pods', body('pods', 'p'));
    await admin('POST', '/apis/apps/v1/namespaces/doomed/deployments', { metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } } } } });
    await admin('POST', '/api/v1/namespaces/doomed/secrets', { metadata: { name: 'held', finalizers: ['example.com/keep'] } });
    const first = await admin('DELETE', '/api/v1/namespaces/doomed');
    expect(first.status).toBe(200);
    expect(first.json.status.phase).toBe('Terminating');
    const refused = await admin('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'late' } });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({
      reason: 'Forbidden',
      message: 'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated',
      details: { causes: [{ reason: 'NamespaceTerminating', field: 'metadata.namespace' }] },
    });
    for (const path of ['/api/v1/namespaces/doomed/configmaps', '/api/v1/namespaces/doomed/pods', '/apis/apps/v1/namespaces/doomed/deployments']) {
      expect((await admin('GET', path)).json.items).toEqual([]);
    }
    await admin('PATCH', '/api/v1/namespaces/doomed/secrets/held', { metadata: { finalizers: null } }, { 'content-type': 'application/merge-patch+json' });
    expect((await admin('DELETE', '/api/v1/namespaces/doomed')).status).toBe(200);
    expect((await admin('GET', '/api/v1/namespaces/doomed')).status).toBe(404);
  });
});
