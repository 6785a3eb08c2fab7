// worker/handlers/after-write.ts: what a write waits for before it is answered.
import { describe, expect, it } from 'vitest';
import { resourceApp } from '../resource-app';

describe('after a write', () => {
  it('has an RBAC change in force at every authorizer shard before answering', async () => {
    const { request, authorizerCalls } = resourceApp({ vars: { AUTHZ_SHARDS: '2' } });
    const res = await request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'r' }, rules: [] });
    expect(res.status).toBe(201);
    expect(authorizerCalls.filter((c) => c.method === 'catchUp').map((c) => c.args)).toEqual([
      ['authz:0', 'rbac.authorization.k8s.io/clusterroles', 1],
      ['authz:1', 'rbac.authorization.k8s.io/clusterroles', 1],
    ]);
  });

  it('asks no authorizer to catch up after a write that failed or is not RBAC', async () => {
    const { request, authorizerCalls } = resourceApp();
    await request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'r' }, rules: 'all' });
    await request('POST', '/api/v1/namespaces', { metadata: { name: 'ns' } });
    expect(authorizerCalls.filter((c) => c.method === 'catchUp')).toEqual([]);
  });
});
