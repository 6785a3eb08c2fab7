// worker/handlers/create.ts (and binding.ts, eviction.ts): POST through the front door to a fake store.
import { describe, expect, it } from 'vitest';
import { resourceApp } from '../resource-app';

function withNamespace(phase = 'Active') {
  const app = resourceApp();
  app.storeOf('core/namespaces').seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' }, status: { phase } });
  return app;
}

const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', uid: `uid-${name}` },
  spec: { containers: [{ name: 'c', image: 'i' }], ...spec }, status: { phase: 'Pending' },
});

describe('POST', () => {
  it('creates in a namespace that exists, fenced at the revision admission read', async () => {
    const { request, storeOf, calls } = withNamespace();
    const res = await request('POST', '/api/v1/namespaces/ns/configmaps?fieldManager=me', { metadata: { name: 'cm' }, data: { a: 'b' } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns' }, data: { a: 'b' } });
    expect(storeOf('core/configmaps').state.get('ns/cm')).toBeDefined();
    const write = calls.find((c) => c.method === 'write')!;
    expect(write.args[1]).toMatchObject({ verb: 'create', namespace: 'ns', fieldManager: 'me' });
    expect(write.args[2]).toMatchObject({ namespaceRevision: 1, dryRun: false, fieldValidation: 'Warn' });
  });

  it('refuses a create in a missing or terminating namespace and writes nothing', async () => {
    const missing = resourceApp();
    const res = await missing.request('POST', '/api/v1/namespaces/ns/configmaps', { metadata: { name: 'cm' } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toBe('namespaces "ns" not found');
    const terminating = withNamespace('Terminating');
    const refused = await terminating.request('POST', '/api/v1/namespaces/ns/configmaps', { metadata: { name: 'cm' } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message)
      .toBe('configmaps "cm" is forbidden: unable to create new content in namespace ns because it is being terminated');
    expect([...missing.calls, ...terminating.calls].filter((c) => c.method === 'write')).toEqual([]);
  });

  it("admits from the isolate's copy of the namespace; a fence refusal reads it again and retries once", async () => {
    const { request, storeOf, calls } = withNamespace();
    const namespaces = storeOf('core/namespaces');
    const reads = () => calls.filter((c) => c.store === 'core/namespaces' && c.method === 'get').length;
    expect((await request('POST', '/api/v1/namespaces/ns/configmaps', { metadata: { name: 'a' } })).status).toBe(201);
    expect((await request('POST', '/api/v1/namespaces/ns/configmaps', { metadata: { name: 'b' } })).status).toBe(201);
    expect(reads()).toBe(1);
    // Deleted and created anew (revision 2) meanwhile; the configmaps store fenced the old incarnation at 2.
    namespaces.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' }, status: { phase: 'Active' } });
    await storeOf('core/configmaps').fenceNamespace('core/configmaps', 'ns', 2);
    expect((await request('POST', '/api/v1/namespaces/ns/configmaps', { metadata: { name: 'c' } })).status).toBe(201);
    expect(reads()).toBe(2);
    const writes = calls.filter((c) => c.method === 'write').map((c) => (c.args[2] as { namespaceRevision?: number }).namespaceRevision);
    expect(writes).toEqual([1, 1, 1, 2]);
    // Now terminating (revision 3, fenced at 3): the cached copy is refused by the store, the fresh one by admission.
    namespaces.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' }, status: { phase: 'Terminating' } });
    await storeOf('core/configmaps').fenceNamespace('core/configmaps', 'ns', 3);
    const refused = await request('POST', '/api/v1/namespaces/ns/configmaps', { metadata: { name: 'd' } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message)
      .toBe('configmaps "d" is forbidden: unable to create new content in namespace ns because it is being terminated');
    expect(storeOf('core/configmaps').state.get('ns/d')).toBeUndefined();
    expect(reads()).toBe(3);
  });

  it('refuses a body of a media type it cannot read (415) and a fieldValidation it does not know (400)', async () => {
    const { request, calls } = withNamespace();
    expect((await request('POST', '/api/v1/namespaces/ns/configmaps', 'x', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await request('POST', '/api/v1/namespaces/ns/configmaps?fieldValidation=Loose', { metadata: { name: 'cm' } })).status).toBe(400);
    expect(calls.filter((c) => c.method === 'write')).toEqual([]);
  });

  it('binds a pod as an update of its binding subresource, answered 201 Success', async () => {
    const { request, storeOf, calls } = withNamespace();
    storeOf('core/pods').seed(pod('p'));
    const res = await request('POST', '/api/v1/namespaces/ns/pods/p/binding', { metadata: { name: 'p' }, target: { kind: 'Node', name: 'node-1' } });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    expect(calls.find((c) => c.method === 'write')!.args[1]).toMatchObject({ verb: 'update', name: 'p', subresource: 'binding' });
    expect(JSON.parse(storeOf('core/pods').state.get('ns/p')!.json).spec.nodeName).toBe('node-1');
    // Binding twice is the store's 409.
    expect((await request('POST', '/api/v1/namespaces/ns/pods/p/binding', { target: { name: 'node-2' } })).status).toBe(409);
  });

  it("evicts a pod as its DELETE with the Eviction's options, answered 201 Success", async () => {
    const { request, storeOf, calls } = withNamespace();
    storeOf('core/pods').seed(pod('p'));
    const res = await request('POST', '/api/v1/namespaces/ns/pods/p/eviction', { metadata: { name: 'p' }, deleteOptions: { gracePeriodSeconds: 0 } });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    expect(calls.find((c) => c.method === 'write')!.args[1]).toMatchObject({ verb: 'delete', name: 'p', body: '{"gracePeriodSeconds":0}' });
    expect(storeOf('core/pods').state.get('ns/p')).toBeUndefined();
    // A pod that is gone: the store's 404, not a Success.
    expect((await request('POST', '/api/v1/namespaces/ns/pods/p/eviction', { metadata: { name: 'p' } })).status).toBe(404);
  });

  it('answers a review without storing it', async () => {
    const { request, calls } = resourceApp();
    const res = await request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { status: { userInfo: { username: string } } }).status.userInfo.username).toBe('admin');
    expect(calls).toEqual([]);
  });
});
