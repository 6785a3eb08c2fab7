// The authorizer's decision cache: bounded in bytes (keys included), never holding oversized requests,
// and forgetting everything when the policy changes.
import { describe, expect, it } from 'vitest';
import { DecisionCache, MAX_CACHED_NAME } from '../../../core/rbac/decision-cache';
import type { UserInfo } from '../../../core/rbac/authorize';
import type { RequestAttributes } from '../../../core/rbac/rules';

const user: UserInfo = { username: 'alice', uid: '1', groups: ['system:authenticated'] };
const BY = 'RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "alice"';
const get = (name: string, namespace = 'ns'): RequestAttributes => ({ verb: 'get', resourceRequest: true, apiGroup: '', resource: 'pods', subresource: '', name, namespace, path: '' });

describe('DecisionCache', () => {
  it('answers what was stored under the same policy generation', () => {
    const c = new DecisionCache();
    expect(c.get(1, user, get('a'))).toBeUndefined();
    c.set(1, user, get('a'), BY);
    c.set(1, user, get('b'), false);
    expect([c.get(1, user, get('a')), c.get(1, user, get('b'))]).toEqual([BY, false]);
    expect(c.get(1, { ...user, groups: ['other'] }, get('a'))).toBeUndefined();
  });

  it('forgets everything when the policy generation changes', () => {
    const c = new DecisionCache();
    c.set(1, user, get('a'), BY);
    expect(c.get(2, user, get('a'))).toBeUndefined();
    expect([c.size, c.bytes]).toEqual([0, 0]);
  });

  it('stays within its byte budget, charging each key in full', () => {
    const budget = 64 * 1024;
    const c = new DecisionCache(budget);
    for (let i = 0; i < 5000; i++) c.set(1, user, get(`${'n'.repeat(200)}-${i}`), BY);
    expect(c.bytes).toBeLessThanOrEqual(budget);
    expect(c.size).toBeLessThan(5000);
    // Each entry is charged at least its key's UTF-16 bytes.
    expect(c.bytes / c.size).toBeGreaterThan(2 * 200);
    // The most recent entries are the ones kept.
    expect(c.get(1, user, get(`${'n'.repeat(200)}-4999`))).toBe(BY);
    expect(c.get(1, user, get(`${'n'.repeat(200)}-0`))).toBeUndefined();
  });

  it('never caches a request whose name or namespace is beyond kube\'s limits, or whose key is huge', () => {
    const c = new DecisionCache();
    c.set(1, user, get('x'.repeat(2 * 1024 * 1024)), BY); // a 2 MB resource name
    c.set(1, user, get('x'.repeat(MAX_CACHED_NAME + 1)), BY);
    c.set(1, user, get('a', 'n'.repeat(64)), BY);
    c.set(1, user, { ...get(''), resourceRequest: false, path: `/${'p'.repeat(4096)}` }, BY);
    expect([c.size, c.bytes]).toEqual([0, 0]);
    c.set(1, user, get('x'.repeat(MAX_CACHED_NAME)), BY);
    expect(c.size).toBe(1);
  });

});
