import { describe, expect, it } from 'vitest';
import { TENANTS_PROBE_INTERVAL_MS, isSystemWatcher, PROBE_INTERVAL_MS, quotaKeys, serviceAccountNamespace, tenantOf, WatchQuota, type Admission, type QuotaHolder } from '../../../core/watch/quota';
import { WatcherIndex } from '../../../core/watch/watcher-index';
import type { WatchEvent } from '../../../core/watch/event';

describe('WatchQuota', () => {
  const limits = { tenants: 10, perUser: 3, perNamespace: 4 };
  const holder = (): QuotaHolder & { probes: number } => {
    const h = { probes: 0, probe: () => void h.probes++ };
    return h;
  };
  const admitted = (a: Admission) => (a.admitted ? a.release : undefined);

  it('bounds each user, and gives a slot back once (however often it is released)', () => {
    const q = new WatchQuota(limits);
    const first = admitted(q.admit('alice', '', holder(), 0))!;
    expect(first).toBeDefined();
    admitted(q.admit('alice', '', holder(), 0));
    admitted(q.admit('alice', '', holder(), 0));
    expect(q.admit('alice', '', holder(), 0)).toEqual({ admitted: false, full: 'user:alice' });
    expect(q.admit('bob', '', holder(), 0).admitted).toBe(true);
    first();
    first();
    expect(q.count('user:alice')).toBe(2);
    expect(q.admit('alice', '', holder(), 0).admitted).toBe(true);
    expect(q.admit('alice', '', holder(), 0).admitted).toBe(false);
  });

  it('makes the ServiceAccounts of one namespace share its bound, wherever they watch', () => {
    const q = new WatchQuota(limits);
    const sa = (i: number) => `system:serviceaccount:tenant:minted-${i}`;
    // Six minted accounts, one watch each: the namespace's bound (4) stops them, not the sum of their user bounds.
    const results = Array.from({ length: 6 }, (_, i) => q.admit(sa(i), i % 2 ? 'tenant' : '', holder(), 0).admitted);
    expect(results).toEqual([true, true, true, true, false, false]);
    expect(q.count('namespace:tenant')).toBe(4);
    // Another namespace's accounts and other users are untouched.
    expect(q.admit('system:serviceaccount:other:app', 'other', holder(), 0).admitted).toBe(true);
    expect(q.admit('carol', 'elsewhere', holder(), 0).admitted).toBe(true);
  });

  it('counts a namespaced watch against the namespace it watches, and its own namespace once', () => {
    const q = new WatchQuota(limits);
    for (let i = 0; i < 4; i++) expect(q.admit(`user-${i}`, 'shared', holder(), 0).admitted).toBe(true);
    expect(q.admit('user-9', 'shared', holder(), 0)).toEqual({ admitted: false, full: 'namespace:shared' });
    expect(quotaKeys('system:serviceaccount:a:x', 'a')).toEqual(['user:system:serviceaccount:a:x', 'namespace:a']);
    expect(quotaKeys('system:serviceaccount:a:x', 'b')).toEqual(['user:system:serviceaccount:a:x', 'namespace:a', 'namespace:b']);
    expect(quotaKeys('dave', '')).toEqual(['user:dave']);
  });

  it('keeps tenants below MAX_WATCHERS and never refuses or counts a system component', () => {
    const q = new WatchQuota({ tenants: 5, perUser: 3, perNamespace: 3 });
    for (const [user, n] of [['t1', 3], ['t2', 2]] as const) for (let i = 0; i < n; i++) expect(q.admit(user, '', holder(), 0).admitted).toBe(true);
    expect(q.admit('t3', '', holder(), 0)).toEqual({ admitted: false, full: 'tenants' });
    for (let i = 0; i < 100; i++) expect(q.admit(undefined, 'kube-system', holder(), 0).admitted).toBe(true);
    expect(q.tenantWatches).toBe(5);
    expect(q.refused).toBe(1);
  });

  it('asks the holders of a full bound whether their clients are still there, rate-limited per bound and per holder', () => {
    const q = new WatchQuota({ tenants: 8, perUser: 3, perNamespace: 3 });
    const held = [holder(), holder(), holder()];
    for (const h of held) q.admit('system:serviceaccount:t:a', 't', h, 0);
    const bystander = holder();
    q.admit('frank', '', bystander, 0);
    q.admit('system:serviceaccount:t:a', 't', holder(), 10_000);
    expect(held.map((h) => h.probes)).toEqual([1, 1, 1]);
    expect(bystander.probes).toBe(0);
    // Within PROBE_INTERVAL_MS: neither the same bound again nor another full bound with the same holders.
    q.admit('system:serviceaccount:t:a', 't', holder(), 10_000 + PROBE_INTERVAL_MS - 1);
    q.admit('system:serviceaccount:t:b', 't', holder(), 10_000 + PROBE_INTERVAL_MS - 1);
    expect(held.map((h) => h.probes)).toEqual([1, 1, 1]);
    q.admit('system:serviceaccount:t:a', 't', holder(), 10_000 + PROBE_INTERVAL_MS);
    expect(held.map((h) => h.probes)).toEqual([2, 2, 2]);
    // All tenants' watches: probed when MAX_WATCHERS refuses, at most every TENANTS_PROBE_INTERVAL_MS.
    for (let i = 0; i < 4; i++) q.admit(`g${i}`, '', holder(), 20_000);
    expect(q.admit('late', '', holder(), 20_000)).toEqual({ admitted: false, full: 'tenants' });
    expect(bystander.probes).toBe(1);
    q.admit('late', '', holder(), 20_000 + TENANTS_PROBE_INTERVAL_MS - 1);
    expect(bystander.probes).toBe(1);
    q.admit('late', '', holder(), 20_000 + TENANTS_PROBE_INTERVAL_MS);
    expect(bystander.probes).toBe(2);
  });

  it('counts restored watches even past the bounds', () => {
    const q = new WatchQuota({ tenants: 10, perUser: 1, perNamespace: 10 });
    const r1 = q.restore('alice', '', holder());
    q.restore('alice', '', holder());
    q.restore(undefined, '', holder());
    expect(q.count('user:alice')).toBe(2);
    expect(q.admit('alice', '', holder(), 0).admitted).toBe(false);
    r1();
    expect(q.tenantWatches).toBe(1);
  });

  it('tells system components from tenants', () => {
    const sys = (username: string, groups: string[] = []) => isSystemWatcher({ username, groups });
    expect(sys('admin', ['system:masters'])).toBe(true);
    expect(sys('system:node:node-1', ['system:nodes', 'system:authenticated'])).toBe(true);
    expect(sys('system:kube-controller-manager')).toBe(true);
    expect(sys('system:kube-scheduler')).toBe(true);
    expect(sys('system:kube-proxy')).toBe(true);
    expect(sys('system:serviceaccount:kube-system:replicaset-controller', ['system:serviceaccounts'])).toBe(true);
    expect(sys('system:serviceaccount:tenant:kube-system', ['system:serviceaccounts'])).toBe(false);
    expect(sys('system:serviceaccount:kube-system-lookalike:x')).toBe(false);
    expect(sys('alice', ['system:authenticated'])).toBe(false);
    expect(sys('system:anonymous', ['system:unauthenticated'])).toBe(false);
  });

  it('names a tenant by its ServiceAccount namespace or its user', () => {
    expect(tenantOf('system:serviceaccount:team-a:minted-7')).toBe('namespace:team-a');
    expect(tenantOf('alice')).toBe('user:alice');
    expect(serviceAccountNamespace('system:serviceaccount:broken')).toBeUndefined();
  });
});

describe('WatcherIndex name watches', () => {
  const ev = (namespace: string, name: string) => ({ namespace, name, object: { fields: {} } }) as unknown as WatchEvent;

  it('finds a name watch in one namespace, across all namespaces, and of a cluster-scoped object', () => {
    const index = new WatcherIndex<string>();
    index.add('ns-x', { namespace: 'ns', name: 'x' });
    index.add('all-x', { namespace: '', name: 'x' });
    index.add('other-y', { namespace: '', name: 'y' });
    expect([...index.candidates(ev('ns', 'x'))].sort()).toEqual(['all-x', 'ns-x']);
    expect([...index.candidates(ev('elsewhere', 'x'))]).toEqual(['all-x']);
    expect([...index.candidates(ev('', 'x'))]).toEqual(['all-x']); // cluster-scoped: keyed "/x" once
    index.remove('all-x');
    expect([...index.candidates(ev('elsewhere', 'x'))]).toEqual([]);
  });
});
