import { describe, expect, it } from 'vitest';
import { diffCache, objectKey } from '../../client/cache';
import type { KubeObject } from '../../client/types';

const cm = (name: string, rv: string, namespace = 'ns'): KubeObject => ({ kind: 'ConfigMap', metadata: { name, namespace, resourceVersion: rv } });
const mapOf = (...objs: KubeObject[]) => new Map(objs.map((o) => [objectKey(o), o]));

describe('objectKey', () => {
  it('is namespace/name, or the name for cluster-scoped objects', () => {
    expect(objectKey(cm('a', '1', 'x'))).toBe('x/a');
    expect(objectKey({ metadata: { name: 'node-1' } })).toBe('node-1');
  });
});

describe('diffCache', () => {
  it('finds objects gone, new and changed; unchanged resourceVersions are not updates', () => {
    const old = mapOf(cm('gone', '1'), cm('same', '2'), cm('changed', '3'));
    const items = [cm('same', '2'), cm('changed', '9'), cm('new', '10')];
    const d = diffCache(old, items);
    expect(d.deleted.map((o) => o.metadata.name)).toEqual(['gone']);
    expect(d.added.map((o) => o.metadata.name)).toEqual(['new']);
    expect(d.updated).toEqual([{ object: items[1], old: old.get('ns/changed') }]);
    expect([...d.next.keys()].sort()).toEqual(['ns/changed', 'ns/new', 'ns/same']);
    expect(d.next.get('ns/changed')).toBe(items[1]);
  });

  it('keeps same-named objects of different namespaces apart', () => {
    const d = diffCache(mapOf(cm('a', '1', 'x')), [cm('a', '1', 'y')]);
    expect(d.deleted.map(objectKey)).toEqual(['x/a']);
    expect(d.added.map(objectKey)).toEqual(['y/a']);
  });

  it('an empty list deletes everything; an empty cache adds everything', () => {
    expect(diffCache(mapOf(cm('a', '1'), cm('b', '2')), []).deleted).toHaveLength(2);
    const fresh = diffCache(new Map(), [cm('a', '1'), cm('b', '2')]);
    expect(fresh.added).toHaveLength(2);
    expect(fresh.updated).toEqual([]);
    expect(fresh.deleted).toEqual([]);
  });

  it('treats objects without a resourceVersion as changed (nothing proves they are the same)', () => {
    const a = { metadata: { name: 'a', namespace: 'ns' } };
    expect(diffCache(mapOf(a), [{ metadata: { name: 'a', namespace: 'ns' } }]).updated).toHaveLength(1);
  });

  it('does not modify the cache it was given', () => {
    const old = mapOf(cm('a', '1'));
    diffCache(old, []);
    expect(old.size).toBe(1);
  });
});
