import { afterEach, describe, expect, it } from 'vitest';
import { resetCustomTypeSync, syncCustomTypes, type CrdSource } from '../../../core/crd/registry-sync';
import { lookupType } from '../../../core/registry';
import type { Crd } from '../../../core/crd/crd-object';

function crd(plural: string, rv: string): Crd {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com`, uid: plural, resourceVersion: rv },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural, kind: plural }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] },
    status: { acceptedNames: { plural, kind: plural }, conditions: [{ type: 'Established', status: 'True' }] },
  } as Crd;
}

function source(state: { revision: number; items: Crd[] }) {
  const calls = { revision: 0, list: 0 };
  const s: CrdSource = {
    revision: async () => (calls.revision++, state.revision),
    list: async () => (calls.list++, { revision: state.revision, items: state.items }),
  };
  return { s, calls };
}

afterEach(() => resetCustomTypeSync());

describe('syncCustomTypes', () => {
  it('asks at most once per max age, lists only when the revision moved, and honours a forwarded revision', async () => {
    const state = { revision: 5, items: [crd('widgets', '5')] };
    const { s, calls } = source(state);
    await syncCustomTypes(s, { now: 1000, maxAgeMs: 1000 });
    expect(lookupType('example.com', 'v1', 'widgets')?.kind).toBe('widgets');
    expect(calls).toEqual({ revision: 1, list: 1 });
    await syncCustomTypes(s, { now: 1500, maxAgeMs: 1000 });
    expect(calls).toEqual({ revision: 1, list: 1 }); // fresh: no call at all
    await syncCustomTypes(s, { now: 2100, maxAgeMs: 1000 });
    expect(calls).toEqual({ revision: 2, list: 1 }); // stale: one small call, nothing changed
    state.revision = 7;
    state.items = [crd('gadgets', '7')];
    await syncCustomTypes(s, { now: 2200, maxAgeMs: 1000, minRevision: 7 });
    expect(calls).toEqual({ revision: 3, list: 2 }); // a newer revision forwarded: checked at once
    expect(lookupType('example.com', 'v1', 'widgets')).toBeUndefined();
    expect(lookupType('example.com', 'v1', 'gadgets')?.custom?.storage).toBe(true);
    // Built-ins always win, and never depend on the CRD list.
    expect(lookupType('apps', 'v1', 'deployments')?.custom).toBeUndefined();
  });
});
