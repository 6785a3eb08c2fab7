import { describe, expect, it } from 'vitest';
import { followedStore, snapshotPage } from '../../contract/store-source';
import type { Bindings } from '../../contract/bindings';

describe('snapshotPage', () => {
  it('keys each item by its store key, and reads the revision and continue token', () => {
    const page = snapshotPage({
      metadata: { resourceVersion: '42', continue: 'abc' },
      items: [{ metadata: { namespace: 'ns', name: 'a' } }, { metadata: { name: 'b' } }, { metadata: { name: 7 } }, null],
    }, true);
    expect(page.revision).toBe(42);
    expect(page.continue).toBe('abc');
    expect(page.items.map((i) => i.key)).toEqual(['ns/a', 'b', '', '']);
  });

  it('keys a cluster-scoped object by its name, whatever namespace it claims', () => {
    expect(snapshotPage({ metadata: { resourceVersion: '1' }, items: [{ metadata: { namespace: 'x', name: 'bad' } }] }, false).items[0].key).toBe('bad');
  });

  it.each([{}, { metadata: {}, items: [] }, { metadata: { resourceVersion: 'x' }, items: [] }, { metadata: { resourceVersion: '1' } }])('refuses %j', (body) => {
    expect(() => snapshotPage(body, true)).toThrow('not a list at a revision');
  });
});

describe('followedStore', () => {
  it('lists pages through the list RPC, reads the log, and subscribes under the follower name', async () => {
    const calls: unknown[][] = [];
    const stub = {
      list: async (...args: unknown[]) => (calls.push(['list', ...args]), Response.json({ metadata: { resourceVersion: '3' }, items: [] })),
      readLog: async (...args: unknown[]) => (calls.push(['readLog', ...args]), { revision: 3, compacted: 0, changes: [] }),
      subscribe: async (...args: unknown[]) => (calls.push(['subscribe', ...args]), { revision: 3, compacted: 0, changes: [] }),
      unsubscribe: async (...args: unknown[]) => void calls.push(['unsubscribe', ...args]),
    };
    const env = { STORE: { idFromName: (n: string) => n, get: () => stub } } as unknown as Bindings;
    const store = followedStore(env, 'core/pods', 'core/pods@enam#0');
    expect(await store.listPage('tok+/=')).toEqual({ revision: 3, items: [], continue: '' });
    await store.readLog(2);
    await store.subscribe!(3);
    await store.unsubscribe!();
    expect(calls).toEqual([
      ['list', 'core/pods', { namespace: '', query: '?limit=500&continue=tok%2B%2F%3D', format: { as: 'List' } }],
      ['readLog', 'core/pods', 2],
      ['subscribe', 'core/pods', 'core/pods@enam#0', 3],
      ['unsubscribe', 'core/pods', 'core/pods@enam#0'],
    ]);
    expect(followedStore(env, 'core/pods').subscribe).toBeUndefined(); // no name: a pull-only follower
  });

  it('says why a snapshot list failed', async () => {
    const stub = { list: async () => Response.json({ kind: 'Status', code: 410 }, { status: 410 }) };
    const env = { STORE: { idFromName: (n: string) => n, get: () => stub } } as unknown as Bindings;
    await expect(followedStore(env, 'core/pods').listPage('')).rejects.toThrow('snapshot list of core/pods failed: {"kind":"Status","code":410}');
  });
});
