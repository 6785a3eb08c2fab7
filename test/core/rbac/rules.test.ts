import { describe, expect, it } from 'vitest';
import { covers, describeRule, ruleAllows, uncovered, type PolicyRule, type RequestAttributes } from '../../../core/rbac/rules';

const attrs = (a: Partial<RequestAttributes>): RequestAttributes => ({
  verb: 'get', resourceRequest: true, apiGroup: '', resource: 'pods', subresource: '', name: '', namespace: 'ns', path: '', ...a,
});

describe('ruleAllows', () => {
  it.each([
    ['exact match', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, attrs({}), true],
    ['other verb', { verbs: ['list'], apiGroups: [''], resources: ['pods'] }, attrs({}), false],
    ['verb wildcard', { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, attrs({ verb: 'delete' }), true],
    ['other group', { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, attrs({}), false],
    ['group wildcard', { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] }, attrs({ apiGroup: 'apps', resource: 'deployments' }), true],
    ['subresource needs its own entry', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, attrs({ subresource: 'status' }), false],
    ['subresource entry', { verbs: ['get'], apiGroups: [''], resources: ['pods/status'] }, attrs({ subresource: 'status' }), true],
    ['any resource with a subresource', { verbs: ['get'], apiGroups: [''], resources: ['*/scale'] }, attrs({ resource: 'deployments', subresource: 'scale' }), true],
    ['resource wildcard', { verbs: ['get'], apiGroups: [''], resources: ['*'] }, attrs({ subresource: 'log' }), true],
    ['named, matching', { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, attrs({ name: 'a' }), true],
    ['named, other', { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, attrs({ name: 'b' }), false],
    ['named rule does not grant list', { verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, attrs({ verb: 'list' }), false],
    ['non-resource exact', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, attrs({ resourceRequest: false, path: '/healthz' }), true],
    ['non-resource prefix', { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, attrs({ resourceRequest: false, path: '/apis/apps/v1' }), true],
    ['non-resource rule is not a resource rule', { verbs: ['get'], nonResourceURLs: ['*'] }, attrs({}), false],
  ] as [string, PolicyRule, RequestAttributes, boolean][])('%s', (_name, rule, a, allowed) => {
    expect(ruleAllows(rule, a)).toBe(allowed);
  });
});

describe('covers (escalation)', () => {
  const owner: PolicyRule[] = [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'configmaps'] },
    { verbs: ['*'], apiGroups: ['apps'], resources: ['deployments'] },
  ];
  it.each([
    ['a subset', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, true],
    ['a verb not held', { verbs: ['delete'], apiGroups: [''], resources: ['pods'] }, false],
    ['a wildcard verb only an owner wildcard covers', { verbs: ['*'], apiGroups: ['apps'], resources: ['deployments'] }, true],
    ['a wildcard the owner lacks', { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, false],
    ['resource names narrow a held rule', { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['x'] }, true],
    ['one part beyond', { verbs: ['get'], apiGroups: [''], resources: ['pods', 'secrets'] }, false],
  ] as [string, PolicyRule, boolean][])('%s', (_n, servant, ok) => {
    expect(covers(owner, servant)).toBe(ok);
  });

  it('names exactly what is missing', () => {
    const missing = uncovered(owner, [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }]);
    expect(missing.map(describeRule)).toEqual(['{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}']);
  });
});
