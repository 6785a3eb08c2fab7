// Impersonation headers as kube's buildImpersonationRequests reads them, the attributes each is authorized with, and
// the user the request then runs as.
import { describe, expect, it } from 'vitest';
import { impersonatedUser, impersonationAttributes, internalErrorText, parseImpersonation, splitServiceAccount } from '../../../core/auth/impersonation';

const parse = (h: Record<string, string>) => parseImpersonation(new Headers(h));

describe('impersonation headers', () => {
  it('reads nothing from a request without them', () => {
    expect(parse({ authorization: 'Bearer x' })).toEqual({ kind: 'none' });
    expect(parse({ 'impersonate-user': '' })).toEqual({ kind: 'none' });
  });

  it('reads user, groups (repeated lines arrive joined), percent-decoded extras and uid, in kube\'s order', () => {
    const h = new Headers({ 'impersonate-uid': 'u-1', 'impersonate-user': 'jane' });
    h.append('impersonate-group', 'devs');
    h.append('impersonate-group', 'ops');
    h.append('impersonate-extra-scopes.example.com%2fteam', 'blue');
    h.append('impersonate-extra-scopes.example.com%2fteam', 'red');
    const p = parseImpersonation(h);
    if (p.kind !== 'requests') throw new Error(p.kind);
    expect(p.requests.map((r) => [r.kind, r.name, r.fieldPath])).toEqual([
      ['User', 'jane', ''], ['Group', 'devs', ''], ['Group', 'ops', ''], ['UserExtra', 'blue', 'scopes.example.com/team'], ['UserExtra', 'red', 'scopes.example.com/team'], ['UID', 'u-1', ''],
    ]);
    expect(impersonatedUser(p.requests, p.groupsSpecified)).toEqual({
      username: 'jane', uid: 'u-1', groups: ['devs', 'ops', 'system:authenticated'], extra: { 'scopes.example.com/team': ['blue', 'red'] },
    });
    expect(p.requests.map(impersonationAttributes).map((a) => [a.verb, a.apiGroup, a.resource, a.subresource, a.name])).toEqual([
      ['impersonate', '', 'users', '', 'jane'], ['impersonate', '', 'groups', '', 'devs'], ['impersonate', '', 'groups', '', 'ops'],
      ['impersonate', 'authentication.k8s.io', 'userextras', 'scopes.example.com/team', 'blue'],
      ['impersonate', 'authentication.k8s.io', 'userextras', 'scopes.example.com/team', 'red'], ['impersonate', 'authentication.k8s.io', 'uids', '', 'u-1'],
    ]);
  });

  it('treats a valid ServiceAccount username as the ServiceAccount, authorized in its namespace', () => {
    const p = parse({ 'impersonate-user': 'system:serviceaccount:ns-a:robot' });
    if (p.kind !== 'requests') throw new Error(p.kind);
    expect(impersonationAttributes(p.requests[0])).toMatchObject({ resource: 'serviceaccounts', namespace: 'ns-a', name: 'robot', apiGroup: '' });
    expect(impersonatedUser(p.requests, false).groups).toEqual(['system:serviceaccounts', 'system:serviceaccounts:ns-a', 'system:authenticated']);
    expect(splitServiceAccount('system:serviceaccount:Bad_NS:robot')).toBeUndefined();
    expect(splitServiceAccount('system:serviceaccount:a:b:c')).toBeUndefined();
    // Not a ServiceAccount name: an ordinary user of that name.
    const odd = parse({ 'impersonate-user': 'system:serviceaccount:a:b:c' });
    expect(odd.kind === 'requests' && odd.requests[0].kind).toBe('User');
  });

  it('adds system:authenticated unless a group says otherwise, and system:unauthenticated for anonymous', () => {
    const user = (h: Record<string, string>) => {
      const p = parse(h);
      if (p.kind !== 'requests') throw new Error(p.kind);
      return impersonatedUser(p.requests, p.groupsSpecified).groups;
    };
    expect(user({ 'impersonate-user': 'jane', 'impersonate-group': 'system:authenticated' })).toEqual(['system:authenticated']);
    expect(user({ 'impersonate-user': 'jane', 'impersonate-group': 'system:unauthenticated' })).toEqual(['system:unauthenticated']);
    expect(user({ 'impersonate-user': 'system:anonymous' })).toEqual(['system:unauthenticated']);
    expect(user({ 'impersonate-user': 'system:serviceaccount:ns:sa', 'impersonate-group': 'x' })).toEqual(['x', 'system:authenticated']);
  });

  it('refuses groups, extras or a uid without a user with kube\'s text, and too many values', () => {
    expect(parse({ 'impersonate-group': 'system:masters' })).toEqual({ kind: 'error', message: 'requested [{Group  system:masters    }] without impersonating a user' });
    expect(parse({ 'impersonate-extra-k': 'v' })).toEqual({ kind: 'error', message: 'requested [{UserExtra  v  authentication.k8s.io/v1  k}] without impersonating a user' });
    const many = parse({ 'impersonate-user': 'jane', 'impersonate-group': Array.from({ length: 101 }, (_, i) => `g${i}`).join(', ') });
    expect(many.kind === 'error' && many.tooMany).toBe(true);
    expect(internalErrorText('/api?x=<y>', 'boom')).toBe('Internal Server Error: "/api?x=&lt;y&gt;": boom\n');
  });
});
