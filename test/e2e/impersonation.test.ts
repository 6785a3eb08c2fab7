// Impersonation through the real gateway, with kubectl v1.32's --as/--as-group and raw Impersonate-* headers: who
// may impersonate whom (each header checked as the `impersonate` verb), kube's exact refusals, the user the rest of
// the request runs as (authorizer, SelfSubjectReview, SelfSubjectAccessReview), and that impersonation gives a
// component's name only the RBAC bound to it, never a component's own credentials.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, TOKEN, type Running } from './fixtures';

let r: Running;
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

beforeAll(async () => {
  r = await startTestGateway({
    vars: { STATIC_TOKENS: ['alice-token,alice,uid-a', 'dave-token,dave,uid-d'].join('\n'), AUTHZ_SHARDS: '2', MAX_WATCHES_PER_USER: '1' },
  });
  for (const ns of ['ns-a', 'ns-b']) await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
  // alice may impersonate jane, the group devs, service accounts of ns-a, uid 1234 and the extra scopes=view.
  await http(r, 'POST', `${RBAC}/clusterroles`, {
    metadata: { name: 'impersonate-some' },
    rules: [
      { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['jane'] },
      { apiGroups: [''], resources: ['groups'], verbs: ['impersonate'], resourceNames: ['devs'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['uids'], verbs: ['impersonate'], resourceNames: ['1234'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['userextras/scopes.example.com/team'], verbs: ['impersonate'], resourceNames: ['blue'] },
    ],
  });
  await http(r, 'POST', `${RBAC}/clusterrolebindings`, {
    metadata: { name: 'alice-impersonates' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonate-some' },
    subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
  });
  await http(r, 'POST', `${RBAC}/namespaces/ns-a/roles`, {
    metadata: { name: 'impersonate-sa' }, rules: [{ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] }],
  });
  await http(r, 'POST', `${RBAC}/namespaces/ns-a/rolebindings`, {
    metadata: { name: 'alice-impersonates-sa' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'impersonate-sa' },
    subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
  });
  // The group devs may read pods in ns-a; jane herself nothing.
  await http(r, 'POST', `${RBAC}/namespaces/ns-a/roles`, {
    metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }],
  });
  await http(r, 'POST', `${RBAC}/namespaces/ns-a/rolebindings`, {
    metadata: { name: 'devs-read-pods' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
    subjects: [{ kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' }],
  });
}, 120_000);
afterAll(() => stopTestGateway(r));

const as = (token: string, args: string[]) => kubectl(r, [`--token=${token}`, ...args]);
const whoami = async (args: string[], token?: string) => {
  const res = token ? await as(token, ['auth', 'whoami', '-o', 'json', ...args]) : await kubectl(r, ['auth', 'whoami', '-o', 'json', ...args]);
  expect(res.stderr).toBe('');
  return JSON.parse(res.stdout).status.userInfo;
};

describe('impersonation', () => {
  it('answers kubectl auth can-i --as for the impersonated user, not the admin', async () => {
    const jane = await kubectl(r, ['auth', 'can-i', 'delete', 'nodes', '--as=jane']);
    expect([jane.code, jane.stdout.trim()]).toEqual([1, 'no']);
    expect((await kubectl(r, ['auth', 'can-i', 'delete', 'nodes'])).stdout.trim()).toBe('yes');
    const dev = await kubectl(r, ['auth', 'can-i', 'list', 'pods', '-n', 'ns-a', '--as=jane', '--as-group=devs']);
    expect([dev.code, dev.stdout.trim()]).toEqual([0, 'yes']);
    expect((await kubectl(r, ['auth', 'can-i', 'list', 'pods', '-n', 'ns-b', '--as=jane', '--as-group=devs'])).stdout.trim()).toBe('no');
  });

  it('reports the impersonated user in kubectl auth whoami, with kube\'s groups', async () => {
    expect(await whoami(['--as=jane'])).toEqual({ username: 'jane', groups: ['system:authenticated'] });
    expect(await whoami(['--as=jane', '--as-group=devs', '--as-group=ops'])).toEqual({ username: 'jane', groups: ['devs', 'ops', 'system:authenticated'] });
    expect(await whoami(['--as=system:serviceaccount:ns-a:robot'])).toEqual({
      username: 'system:serviceaccount:ns-a:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns-a', 'system:authenticated'],
    });
    // Groups given replace a ServiceAccount's own, and system:unauthenticated keeps system:authenticated out: such a
    // user, like system:anonymous, is not bound to system:basic-user and may not even ask who it is (as on kube).
    for (const args of [['--as=system:serviceaccount:ns-a:robot', '--as-group=system:unauthenticated'], ['--as=system:anonymous']]) {
      const res = await kubectl(r, ['auth', 'whoami', ...args]);
      expect(res.stderr.trim(), args.join(' ')).toBe('error: the selfsubjectreviews API is not enabled in the cluster or you do not have permission to call it');
    }
    // A non-admin allowed to impersonate jane, devs, a uid and an extra, with the extra's key percent-decoded.
    const res = await http(r, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, {
      authorization: 'Bearer alice-token', 'impersonate-user': 'jane', 'impersonate-group': 'devs', 'impersonate-uid': '1234',
      'impersonate-extra-scopes.example.com%2fteam': 'blue',
    });
    expect(res.status).toBe(201);
    expect(res.json.status.userInfo).toEqual({ username: 'jane', uid: '1234', groups: ['devs', 'system:authenticated'], extra: { 'scopes.example.com/team': ['blue'] } });
  });

  it('checks every header against the requester and refuses with kube\'s messages', async () => {
    const refused = async (args: string[]) => {
      const res = await as('dave-token', args);
      expect(res.code).toBe(1);
      return res.stderr.trim();
    };
    expect(await refused(['get', 'pods', '-n', 'ns-a', '--as=jane'])).toBe(
      'Error from server (Forbidden): users "jane" is forbidden: User "dave" cannot impersonate resource "users" in API group "" at the cluster scope');
    const alice = async (args: string[]) => (await as('alice-token', args)).stderr.trim();
    expect(await alice(['get', 'pods', '-n', 'ns-a', '--as=john'])).toBe(
      'Error from server (Forbidden): users "john" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
    expect(await alice(['get', 'pods', '-n', 'ns-a', '--as=jane', '--as-group=devs', '--as-group=admins'])).toBe(
      'Error from server (Forbidden): groups "admins" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope');
    expect(await alice(['get', 'pods', '-n', 'ns-a', '--as=system:serviceaccount:ns-b:robot'])).toBe(
      'Error from server (Forbidden): serviceaccounts "robot" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns-b"');
    expect(await alice(['get', 'pods', '-n', 'ns-a', '--as=jane', '--as-uid=999'])).toBe(
      'Error from server (Forbidden): uids.authentication.k8s.io "999" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope');
    const extra = await http(r, 'GET', '/api/v1/namespaces/ns-a/pods', undefined, {
      authorization: 'Bearer alice-token', 'impersonate-user': 'jane', 'impersonate-extra-scopes.example.com%2fteam': 'red',
    });
    expect([extra.status, extra.json.message]).toEqual([403,
      'userextras.authentication.k8s.io "red" is forbidden: User "alice" cannot impersonate resource "userextras/scopes.example.com/team" in API group "authentication.k8s.io" at the cluster scope']);
    expect(extra.json.details).toEqual({ name: 'red', group: 'authentication.k8s.io', kind: 'userextras' });
  });

  it('authorizes the request as the impersonated user once impersonation is allowed', async () => {
    expect((await as('alice-token', ['get', 'pods', '-n', 'ns-a', '--as=jane', '--as-group=devs'])).code).toBe(0);
    expect((await as('alice-token', ['get', 'pods', '-n', 'ns-a', '--as=jane'])).stderr.trim()).toBe(
      'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "ns-a"');
    // alice herself may not read pods: the impersonated identity is what the authorizer sees.
    expect((await as('alice-token', ['get', 'pods', '-n', 'ns-a'])).code).toBe(1);
  });

  it('answers groups, extras or a uid without a user as kube does: a plain-text 500', async () => {
    const res = await http(r, 'GET', '/api/v1/namespaces/ns-a/pods?limit=5', undefined, { 'impersonate-group': 'system:masters' });
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('Internal Server Error: "/api/v1/namespaces/ns-a/pods?limit=5": requested [{Group  system:masters    }] without impersonating a user\n');
    const uid = await http(r, 'GET', '/api/v1/pods', undefined, { 'impersonate-uid': 'x' });
    expect(uid.text).toBe('Internal Server Error: "/api/v1/pods": requested [{UID  x  authentication.k8s.io/v1  }] without impersonating a user\n');
    // kubectl words it as any other server error.
    const k = await kubectl(r, ['get', 'pods', '-n', 'ns-a', '--as-group=devs']);
    expect(k.code).toBe(1);
  });

  it('never turns a component\'s name into the component: impersonated identities get RBAC, not internal credentials', async () => {
    // alice, allowed jane and devs only, cannot reach a controller's or a node's identity, nor system:masters.
    for (const args of [['--as=system:kube-controller-manager'], ['--as=system:serviceaccount:kube-system:generic-garbage-collector'],
      ['--as=system:node:node-1', '--as-group=system:nodes'], ['--as=jane', '--as-group=system:masters']]) {
      const res = await as('alice-token', ['get', 'secrets', '-A', ...args]);
      expect(res.code, args.join(' ')).toBe(1);
      expect(res.stderr).toContain('cannot impersonate resource');
    }
    // Even the admin, impersonating kube-proxy, holds exactly system:node-proxier's rules: no writes.
    const proxy = await kubectl(r, ['create', 'configmap', 'x', '-n', 'ns-a', '--as=system:kube-proxy']);
    expect(proxy.stderr.trim()).toBe(
      'error: failed to create configmap: configmaps is forbidden: User "system:kube-proxy" cannot create resource "configmaps" in API group "" in the namespace "ns-a"');
    // A header that looks like an internal token is just a username to authorize.
    const forged = await http(r, 'GET', '/api/v1/secrets', undefined, { authorization: 'Bearer alice-token', 'impersonate-user': 'edgeplane-internal.v1.c3lzdGVt.AAAA' });
    expect(forged.status).toBe(403);
  });

  it('counts an impersonated component\'s watches as a tenant\'s: the exemption is for the gateway\'s own credentials', async () => {
    const open = async () => {
      const ac = new AbortController();
      const res = await fetch(`${r.gateway.url}/api/v1/services?watch=true&timeoutSeconds=30`, {
        headers: { authorization: `Bearer ${TOKEN}`, 'impersonate-user': 'system:kube-proxy' }, signal: ac.signal,
      });
      return { status: res.status, close: () => ac.abort() };
    };
    const first = await open();
    const second = await open();
    first.close();
    second.close();
    // MAX_WATCHES_PER_USER is 1 here: the real kube-proxy is never counted, an impersonated one is.
    expect([first.status, second.status]).toEqual([200, 429]);
  });

  it('refuses a request asking to impersonate more values than allowed, before deciding any', async () => {
    const groups = Array.from({ length: 150 }, (_, i) => `g${i}`).join(', ');
    const res = await http(r, 'GET', '/api/v1/pods', undefined, { 'impersonate-user': 'jane', 'impersonate-group': groups });
    expect(res.status).toBe(500);
    expect(res.text).toContain('requested 150 groups, extra values and uids to impersonate; at most 100 are allowed');
  });
});
