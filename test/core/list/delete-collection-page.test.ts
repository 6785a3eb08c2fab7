// deletecollection page by page (issue 18 class 6): pages bounded in bytes, items and entries looked at, a cursor
// after the last key looked at, and the answer listing the objects as they were, with those held by finalizers counted.
import { describe, expect, it } from 'vitest';
import { DELETE_PAGE_LIMITS, pickDeletePage } from '../../../core/list/delete-collection-page';
import { parseSelectors } from '../../../core/list/options';
import { executeWrite } from '../../../core/writes';
import { lookupGroupResource } from '../../../core/registry';
import type { KubeObject } from '../../../core/object-meta';
import type { StateEntry } from '../../../core/object-state';
import { memoryStore } from '../memory-store';

const configmaps = lookupGroupResource('core/configmaps')!;
const none = parseSelectors({ labelSelector: '', fieldSelector: '' });
const entry = (key: string, bytes: number, labels: Record<string, string> = {}): StateEntry => ({ key, revision: 1, json: 'x'.repeat(bytes), labels, fields: {} });

describe('pickDeletePage', () => {
  it('stops at the byte bound (one object may pass it), at the item bound, and at the entries-looked-at bound', () => {
    const big = Array.from({ length: 10 }, (_, i) => entry(`ns/b${i}`, 1_500_000));
    expect(pickDeletePage(big, none)).toEqual({ keys: ['ns/b0', 'ns/b1'], continue: 'ns/b1' }); // 2 MiB: the second passes it
    const small = Array.from({ length: 600 }, (_, i) => entry(`ns/s${String(i).padStart(3, '0')}`, 10));
    const page = pickDeletePage(small, none);
    expect(page.keys).toHaveLength(DELETE_PAGE_LIMITS.items);
    expect(page.continue).toBe('ns/s499');
    const sel = parseSelectors({ labelSelector: 'app=web', fieldSelector: '' });
    const sparse = Array.from({ length: 20_000 }, (_, i) => entry(`ns/${String(i).padStart(5, '0')}`, 10, i === 15_000 ? { app: 'web' } : {}));
    expect(pickDeletePage(sparse, sel)).toEqual({ keys: [], continue: 'ns/09999' });
    expect(pickDeletePage(sparse.slice(10_000), sel)).toEqual({ keys: ['ns/15000'] });
  });
});

describe('a deletecollection page through executeWrite', () => {
  it('deletes the page\'s keys still matching, answers them as they were, and counts those finalizers hold', () => {
    const { store, objects } = memoryStore();
    const env = { type: configmaps, now: 0, newUid: () => 'u', randomSuffix: () => 'abcde' };
    for (const [name, extra] of [['a', {}], ['b', { finalizers: ['x/y'] }], ['c', {}], ['d', {}]] as const) {
      executeWrite(store, env, { verb: 'create', namespace: 'ns', body: JSON.stringify({ metadata: { name, labels: { app: 'web' }, ...extra } }) });
    }
    executeWrite(store, env, { verb: 'patch', namespace: 'ns', name: 'c', subresource: '', patchType: 'application/merge-patch+json', body: '{"metadata":{"labels":null}}' });
    const before = store.get('ns/a')!;
    const res = executeWrite(store, env, {
      verb: 'deletecollection', namespace: 'ns', selectors: parseSelectors({ labelSelector: 'app=web', fieldSelector: '' }), body: '', query: {},
      page: { keys: ['ns/a', 'ns/b', 'ns/c', 'ns/gone'], resourceVersion: '7', continue: 'ns/c' },
    });
    const body = res.body as { kind: string; metadata: unknown; items: KubeObject[] };
    expect(body.kind).toBe('ConfigMapList');
    expect(body.metadata).toEqual({ resourceVersion: '7', continue: 'ns/c' });
    expect(body.items.map((i) => i.metadata.name)).toEqual(['a', 'b']);
    expect(body.items[0]).toEqual(before); // as listed: its own resourceVersion, not the deletion's
    expect(res.held).toBe(1);
    expect([...objects.keys()].sort()).toEqual(['ns/b', 'ns/c', 'ns/d']);
    expect(objects.get('ns/b')!.metadata.deletionTimestamp).toBeTruthy();
  });
});
