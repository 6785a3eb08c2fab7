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
