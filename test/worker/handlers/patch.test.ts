// worker/handlers/patch.ts: a PATCH as sent; an apply that would create needs what a POST needs, decided up front
// and carried to the store, which alone knows whether the object exists.
import { describe, expect, it } from 'vitest';
import { ALICE, resourceApp } from '../resource-app';

const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: 'b' } };

describe('PATCH', () => {
  it('sends a merge patch as written', async () => {
    const { request, storeOf, calls } = resourceApp();
    storeOf('core/configmaps').seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns' }, data: { a: 'b' } });
    const res = await request('PATCH', '/api/v1/namespaces/ns/configmaps/cm', '{"data":{"a":"c"}}', { 'content-type': 'application/merge-patch+json' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown }).data).toEqual({ a: 'c' });
    expect(calls.find((c) => c.method === 'write')!.args[1]).toMatchObject({ verb: 'patch', body: '{"data":{"a":"c"}}', patchType: 'application/merge-patch+json' });
  });

  it('refuses an apply that would create for a user who may not create, and applies it to an existing object', async () => {
    const { request, storeOf, authorizerCalls } = resourceApp({ user: ALICE, authorizer: { check: false } });
    storeOf('core/namespaces').seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
    const refused = await request('PATCH', '/api/v1/namespaces/ns/configmaps/cm?fieldManager=a', config, APPLY);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toMatch(/^configmaps "cm" is forbidden: User "alice" cannot create resource "configmaps"/);
    expect(authorizerCalls.find((c) => c.method === 'check')!.args[2]).toMatchObject({ verb: 'create', resource: 'configmaps', name: 'cm', namespace: 'ns' });
    storeOf('core/configmaps').seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns' }, data: { a: 'x' } });
    const applied = await request('PATCH', '/api/v1/namespaces/ns/configmaps/cm?fieldManager=a&force=true', config, APPLY);
    expect(applied.status).toBe(200);
    expect(((await applied.json()) as { data: unknown }).data).toEqual({ a: 'b' });
  });

  it('refuses an apply that would create in a missing namespace as a POST would (404)', async () => {
    const { request, calls } = resourceApp();
    const res = await request('PATCH', '/api/v1/namespaces/ns/configmaps/cm?fieldManager=a', config, APPLY);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toBe('namespaces "ns" not found');
    expect(calls.find((c) => c.method === 'write')!.args[1]).toMatchObject({ createRefused: { code: 404 } });
  });
});
