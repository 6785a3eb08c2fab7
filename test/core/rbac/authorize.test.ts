import { describe, expect, it } from 'vitest';
import { forbiddenReason, RbacPolicy, type UserInfo } from '../../../core/rbac/authorize';
import type { RequestAttributes } from '../../../core/rbac/rules';

const alice: UserInfo = { username: 'alice', uid: '1', groups: ['devs', 'system:authenticated'] };
const robot: UserInfo = { username: 'system:serviceaccount:ns-a:robot', uid: '2', groups: ['system:serviceaccounts'] };
const get = (namespace: string, resource = 'pods'): RequestAttributes => ({ verb: 'get', resourceRequest: true, apiGroup: '', resource, subresource: '', name: '', namespace, path: '' });

function policy() {
  const p = new RbacPolicy();
  p.set('ClusterRole', { metadata: { name: 'reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }, { name: 'reader' });
  p.set('Role', { metadata: { name: 'cm', namespace: 'ns-a' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] }, { name: 'cm', namespace: 'ns-a' });
  p.set('RoleBinding', { metadata: { name: 'devs-read', namespace: 'ns-a' }, roleRef: { kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'Group', name: 'devs' }] }, { name: 'devs-read', namespace: 'ns-a' });
  p.set('RoleBinding', { metadata: { name: 'robot-cm', namespace: 'ns-a' }, roleRef: { kind: 'Role', name: 'cm' }, subjects: [{ kind: 'ServiceAccount', name: 'robot' }] }, { name: 'robot-cm', namespace: 'ns-a' });
  return p;
}

describe('RbacPolicy', () => {
  it('applies a RoleBinding only in its namespace, even to a ClusterRole', () => {
    const p = policy();
    expect(p.allows(alice, get('ns-a'))).toBe(true);
    expect(p.allows(alice, get('ns-b'))).toBe(false);
    expect(p.allows(alice, get(''))).toBe(false);
  });

  it('matches a ServiceAccount subject without namespace in the binding\'s namespace', () => {
    const p = policy();
    expect(p.allows(robot, get('ns-a', 'configmaps'))).toBe(true);
    expect(p.allows(robot, get('ns-a', 'pods'))).toBe(false);
  });

  it('grants cluster-wide through a ClusterRoleBinding, and forgets deleted objects', () => {
    const p = policy();
    p.set('ClusterRoleBinding', { metadata: { name: 'all' }, roleRef: { kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'User', name: 'alice' }] }, { name: 'all' });
    const before = p.generation;
    expect(p.allows(alice, get('ns-b'))).toBe(true);
    expect(p.allows(alice, get(''))).toBe(true);
    p.set('ClusterRoleBinding', undefined, { name: 'all' });
    expect(p.generation).toBeGreaterThan(before);
    expect(p.allows(alice, get('ns-b'))).toBe(false);
  });

  it('words denials as kube-apiserver does', () => {
    expect(forbiddenReason(alice, get('ns-b'))).toBe('User "alice" cannot get resource "pods" in API group "" in the namespace "ns-b"');
    expect(forbiddenReason(alice, { ...get(''), verb: 'list', apiGroup: 'apps', resource: 'deployments', subresource: 'scale' }))
      .toBe('User "alice" cannot list resource "deployments/scale" in API group "apps" at the cluster scope');
    expect(forbiddenReason(alice, { ...get(''), resourceRequest: false, path: '/metrics' })).toBe('User "alice" cannot get path "/metrics"');
  });
});

describe('RbacPolicy with malformed stored objects', () => {
  const admin: UserInfo = { username: 'root', uid: '0', groups: ['ops'] };
  const bad = [
    ['subjects an object', 'ClusterRoleBinding', { metadata: { name: 'x' }, roleRef: { kind: 'ClusterRole', name: 'reader' }, subjects: { kind: 'User', name: 'alice' } }],
    ['a subject without a name', 'ClusterRoleBinding', { roleRef: { kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'User' }] }],
    ['no roleRef', 'ClusterRoleBinding', { subjects: [{ kind: 'User', name: 'alice' }] }],
    ['roleRef a string', 'ClusterRoleBinding', { roleRef: 'reader', subjects: [] }],
    ['rules an object', 'ClusterRole', { rules: { verbs: ['*'] } }],
    ['verbs a string', 'ClusterRole', { rules: [{ verbs: '*', apiGroups: ['*'], resources: ['*'] }] }],
    ['a rule that is a number', 'ClusterRole', { rules: [7] }],
    ['not an object at all', 'ClusterRoleBinding', null],
  ] as const;

  it.each(bad)('ignores a stored object with %s, counts it, and decides everything else as before', (_name, kind, obj) => {
    const p = policy();
    p.set('ClusterRole', { rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] }, { name: 'all' });
    p.set('ClusterRoleBinding', { roleRef: { kind: 'ClusterRole', name: 'all' }, subjects: [{ kind: 'Group', name: 'ops' }] }, { name: 'ops-all' });
    expect(p.set(kind, obj, { name: 'bad' })).toBe(false);
    expect(p.malformed).toBe(1);
    expect(p.allows(alice, get('ns-a'))).toBe(true);
    expect(p.allows(alice, get('ns-b'))).toBe(false);
    expect(p.allows(admin, { ...get(''), verb: 'delete', apiGroup: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings', name: 'bad' })).toBe(true);
    expect(p.rulesFor(alice, 'ns-a')).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
    // Deleting it (or replacing it by a good one) clears the count.
    p.set(kind, undefined, { name: 'bad' });
    expect(p.malformed).toBe(0);
  });

  it('a malformed role a binding refers to counts as missing, and a denial says so as kube does', () => {
    const p = policy();
    p.set('ClusterRole', { rules: 'nope' }, { name: 'broken' });
    p.set('ClusterRoleBinding', { roleRef: { kind: 'ClusterRole', name: 'broken' }, subjects: [{ kind: 'User', name: 'alice' }] }, { name: 'alice-broken' });
    const d = p.decide(alice, get('ns-b'));
    expect(d).toEqual({ allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "broken" not found' });
    expect(forbiddenReason(alice, get('ns-b'), d.reason)).toBe('User "alice" cannot get resource "pods" in API group "" in the namespace "ns-b": RBAC: clusterrole.rbac.authorization.k8s.io "broken" not found');
    // An allowed request has no denial reason, however many bindings dangle; it names what allowed it.
    expect(p.decide(alice, get('ns-a'))).toEqual({
      allowed: true, reason: '', allowedBy: 'RBAC: allowed by RoleBinding "devs-read/ns-a" of ClusterRole "reader" to Group "devs"',
    });
  });

  it('names the binding, role and first matching subject that allowed a request, as rbac.go does', () => {
    const p = policy();
    p.set('ClusterRoleBinding', { roleRef: { kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'User', name: 'carol' }, { kind: 'ServiceAccount', name: 'robot', namespace: 'ns-a' }] }, { name: 'robots-read' });
    expect(p.decide(robot, get('ns-b')).allowedBy).toBe('RBAC: allowed by ClusterRoleBinding "robots-read" of ClusterRole "reader" to ServiceAccount "robot/ns-a"');
    // A namespace-less ServiceAccount subject in a RoleBinding is the binding's namespace's.
    expect(p.decide(robot, get('ns-a', 'configmaps')).allowedBy).toBe('RBAC: allowed by RoleBinding "robot-cm/ns-a" of Role "cm" to ServiceAccount "robot/ns-a"');
    expect(p.decide(alice, get('ns-b')).allowedBy).toBeUndefined();
  });

  it('never applies unknown subject kinds, nor a namespace-less ServiceAccount in a cluster binding', () => {
    const p = policy();
    p.set('ClusterRoleBinding', { roleRef: { kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'Robot', name: 'alice' }, { kind: 'ServiceAccount', name: 'robot' }] }, { name: 'odd' });
    expect(p.allows(alice, get('ns-b'))).toBe(false);
    expect(p.allows(robot, get('ns-b'))).toBe(false);
  });
});
