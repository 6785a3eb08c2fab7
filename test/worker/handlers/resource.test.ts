// worker/handlers/resource.ts: what is refused before any handler runs, and which store and view a request goes to.
import { describe, expect, it } from 'vitest';
import { resourceApp } from '../resource-app';

describe('handleResource', () => {
  it.each([
    ['PUT on a collection', 'PUT', '/api/v1/namespaces/ns/pods'],
    ['a verb the type does not serve', 'DELETE', '/api/v1/namespaces'],
    ['namespaces/finalize other than PUT', 'GET', '/api/v1/namespaces/ns/finalize'],
    ['a write across all namespaces', 'POST', '/api/v1/pods'],
    ['a named POST', 'POST', '/api/v1/namespaces/ns/configmaps/cm'],
    ['DELETE of a subresource', 'DELETE', '/api/v1/namespaces/ns/pods/p/status'],
  ])('answers 405 for %s', async (_name, method, path) => {
    const { request, storeOf, calls } = resourceApp();
    storeOf('core/namespaces').seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
    const res = await request(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
    expect(res.status).toBe(405);
    expect(calls.filter((c) => c.method === 'write')).toEqual([]);
  });

  it('answers 404 for a namespaced path to a cluster-scoped type', async () => {
    const { request } = resourceApp();
    expect((await request('GET', '/api/v1/namespaces/ns/nodes')).status).toBe(404);
  });

  it('refuses an answer it cannot send (406) before anything is written', async () => {
    const { request, calls } = resourceApp();
    const res = await request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'cm' } }, { accept: 'text/html' });
    expect(res.status).toBe(406);
    expect(calls).toEqual([]);
  });

  it('sends events.k8s.io/v1 to the core/v1 events store, naming the view it answers in', async () => {
    const { request, calls } = resourceApp();
    await request('GET', '/apis/events.k8s.io/v1/namespaces/ns/events/e');
    await request('GET', '/apis/events.k8s.io/v1/namespaces/ns/events');
    expect(calls.map((c) => [c.store, c.method])).toEqual([['core/events', 'get'], ['core/events', 'list']]);
    expect(calls[0].args[1]).toMatchObject({ name: 'e', view: 'events.k8s.io/v1' });
    expect(calls[1].args[1]).toMatchObject({ format: { as: 'List', view: 'events.k8s.io/v1' } });
  });
});
