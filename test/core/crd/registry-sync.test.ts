import { afterEach, describe, expect, it } from 'vitest';
import { CustomTypeFollower } from '../../../core/crd/registry-sync';
import { allResourceTypes, lookupType, setCustomTypes } from '../../../core/registry';
import type { Crd } from '../../../core/crd/crd-object';
import { FakeStore } from '../follow/fake-store';

function crd(plural: string, rv: string): Crd {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com`, uid: plural, resourceVersion: rv },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural, kind: plural }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] },
    status: { acceptedNames: { plural, kind: plural }, conditions: [{ type: 'Established', status: 'True' }] },
  } as Crd;
}

const put = (store: FakeStore, plural: string) => store.write(`${plural}.example.com`, JSON.stringify(crd(plural, String(store.revision + 1))));
const customResources = () => allResourceTypes().filter((t) => t.custom).map((t) => t.resource);

afterEach(() => setCustomTypes([]));

describe('CustomTypeFollower', () => {
  it('asks at most once per max age, reads only what changed, and honours a forwarded revision', async () => {
    const store = new FakeStore();
    put(store, 'widgets');
    const types = new CustomTypeFollower(setCustomTypes);
    const s = store.source(false);
    await types.sync(s, { now: 1000, maxAgeMs: 1000 });
    expect(lookupType('example.com', 'v1', 'widgets')?.kind).toBe('widgets');
    expect(store.calls).toMatchObject({ listPage: 1, readLog: 0 });
    await types.sync(s, { now: 1500, maxAgeMs: 1000 });
    expect(store.calls).toMatchObject({ listPage: 1, readLog: 0 }); // fresh: no call at all
    await types.sync(s, { now: 2100, maxAgeMs: 1000 });
    expect(store.calls).toMatchObject({ listPage: 1, readLog: 1 }); // stale: one small call, nothing changed
    store.write('widgets.example.com', undefined);
    put(store, 'gadgets');
    await types.sync(s, { now: 2200, maxAgeMs: 1000, minRevision: 3 });
    expect(store.calls).toMatchObject({ listPage: 1, readLog: 2 }); // a newer revision forwarded: read at once, changes only
    expect(types.revision).toBe(3);
    expect(lookupType('example.com', 'v1', 'widgets')).toBeUndefined();
    expect(lookupType('example.com', 'v1', 'gadgets')?.custom?.storage).toBe(true);
    // Built-ins always win, and never depend on the CRD list.
    expect(lookupType('apps', 'v1', 'deployments')?.custom).toBeUndefined();
  });

  it('lists again when the CRD store compacted its log past what it holds', async () => {
    const store = new FakeStore();
    put(store, 'widgets');
    const types = new CustomTypeFollower(setCustomTypes);
    await types.sync(store.source(false), { now: 0, maxAgeMs: 1000 });
    store.write('widgets.example.com', undefined);
    put(store, 'gizmos');
    store.compact();
    await types.sync(store.source(false), { now: 5000, maxAgeMs: 1000 });
    expect(store.calls).toMatchObject({ listPage: 2, readLog: 1 });
    expect(customResources()).toEqual(['gizmos']);
  });

  it('serves the types in CRD name order, whatever order the changes came in', async () => {
    const store = new FakeStore();
    const types = new CustomTypeFollower(setCustomTypes);
    await types.sync(store.source(false), { now: 0, maxAgeMs: 1000 });
    put(store, 'zebras');
    put(store, 'apples');
    await types.sync(store.source(false), { now: 0, maxAgeMs: 1000, minRevision: 2 });
    expect(customResources()).toEqual(['apples', 'zebras']);
  });
});
