import { describe, expect, it } from 'vitest';
import { WatchQuota } from '../../core/watch-quota';
import { WatcherIndex } from '../../core/watcher-index';
import type { WatchEvent } from '../../core/watch-event';

describe('WatchQuota', () => {
  it('admits up to the limit per user, and again once a watch is released (once)', () => {
    const q = new WatchQuota(2);
    expect(q.admit('alice')).toBe(true);
    const release = q.hold('alice');
    expect(q.admit('alice')).toBe(true);
    q.hold('alice');
    expect(q.admit('alice')).toBe(false);
    expect(q.admit('bob')).toBe(true);
    release();
    release();
    expect(q.count('alice')).toBe(1);
    expect(q.admit('alice')).toBe(true);
    expect(q.admit('alice')).toBe(false);
  });

  it('counts restored watches even past the limit', () => {
    const q = new WatchQuota(1);
    q.restore('alice');
    q.restore('alice');
    expect(q.count('alice')).toBe(2);
    expect(q.admit('alice')).toBe(false);
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
