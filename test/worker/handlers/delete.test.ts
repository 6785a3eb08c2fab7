// worker/handlers/delete.ts: DELETE of one object and of a collection.
import { describe, expect, it } from 'vitest';
import { resourceApp } from '../resource-app';

describe('DELETE', () => {
  it('deletes with the query options and answers what the store answers', async () => {
    const { request, storeOf, calls } = resourceApp();
    storeOf('core/configmaps').seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns', uid: 'u' } });
    const res = await request('DELETE', '/api/v1/namespaces/ns/configmaps/cm?propagationPolicy=Background&gracePeriodSeconds=5');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'cm', kind: 'configmaps', uid: 'u' } });
    expect(calls.find((c) => c.method === 'write')!.args[1]).toMatchObject({
      verb: 'delete', name: 'cm', body: '', query: { propagationPolicy: 'Background', gracePeriodSeconds: '5', orphanDependents: undefined },
    });
    expect(storeOf('core/configmaps').state.get('ns/cm')).toBeUndefined();
  });

  it('deletes a collection by its selectors and answers the List of what it deleted', async () => {
    const { request, storeOf } = resourceApp();
    for (const [name, app] of [['a', 'x'], ['b', 'y'], ['c', 'x']]) {
      storeOf('core/configmaps').seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', labels: { app } } });
    }
    const res = await request('DELETE', '/api/v1/namespaces/ns/configmaps?labelSelector=app%3Dx');
    expect(res.status).toBe(200);
    const list = (await res.json()) as { kind: string; items: { metadata: { name: string } }[] };
    expect(list.kind).toBe('ConfigMapList');
    expect(list.items.map((i) => i.metadata.name)).toEqual(['a', 'c']);
    expect([...storeOf('core/configmaps').state.range('')].map((e) => e.key)).toEqual(['ns/b']);
  });
});
