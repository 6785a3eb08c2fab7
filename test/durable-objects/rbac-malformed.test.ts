// A malformed ClusterRoleBinding already in the store (planted past every validation, as an object
// stored before validation existed would be) is ignored by the authorizer: other users' requests and the
// admin's keep working, the authorizer counts it in /metrics, and the admin can delete it.
import { describe, expect, it } from 'vitest';
import { env, exports } from 'cloudflare:workers';
import { api, TOKEN } from './api';

const CRB = 'rbac.authorization.k8s.io/clusterrolebindings';
const SHARD = 'authz:0'; // AUTHZ_SHARDS is unset: one shard

/** Commits `object` as it is (no admission, defaulting or validation) through the store's commit path. */
async function plant(groupResource: string, object: Record<string, any>): Promise<number> {
  const stub = env.STORE.get(env.STORE.idFromName(groupResource));
  const planted = await stub.rawWrite(groupResource, object as never);
  if (!planted.ok) throw new Error(`plant failed: ${planted.status.message}`);
  return planted.value.revision!;
}

async function malformedGauge(): Promise<number> {
  const res = await (exports as { default: Fetcher }).default.fetch('http://edgeplane.test/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await res.text();
  const line = text.split('\n').find((l) => l.startsWith(`edgeplane_rbac_malformed_objects{shard="${SHARD}"}`));
  if (!line) throw new Error('no edgeplane_rbac_malformed_objects in /metrics');
  return Number(line.split(' ').at(-1));
}

describe('a malformed ClusterRoleBinding in the store', () => {
  it('harms nobody, is counted, and can be deleted by the admin', async () => {
    // A non-admin user: a ServiceAccount that may view the default namespace.
    expect((await api('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'robot' } })).status).toBe(201);
    const token = (await api('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', { spec: {} })).json.status.token as string;
    const robot = { authorization: `Bearer ${token}` };
    expect((await api('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      metadata: { name: 'robot-view' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: 'default' }],
    })).status).toBe(201);
    expect((await api('GET', '/api/v1/namespaces/default/configmaps', undefined, robot)).status).toBe(200);
    expect(await malformedGauge()).toBe(0);

    const revision = await plant(CRB, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'bad', uid: 'u-bad', creationTimestamp: '2026-01-01T00:00:00Z' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: { kind: 'ServiceAccount', name: 'robot', namespace: 'default' },
    });
    const shard = env.AUTHORIZER.get(env.AUTHORIZER.idFromName(SHARD));
    await shard.catchUp(SHARD, CRB, revision);
    expect(await malformedGauge()).toBe(1);

    // The robot's requests are decided as before: allowed where view allows, denied (kube's 403) elsewhere.
    expect((await api('GET', '/api/v1/namespaces/default/configmaps', undefined, robot)).status).toBe(200);
    const denied = await api('GET', '/api/v1/namespaces/default/secrets', undefined, robot);
    // (details also carries name: "", which kube omits: core/status.ts's detailsFor, outside this change.)
    const { details, ...status } = denied.json;
    expect(status).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'secrets is forbidden: User "system:serviceaccount:default:robot" cannot list resource "secrets" in API group "" in the namespace "default"',
    });
    expect(details.kind).toBe('secrets');
    const review = await api('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      spec: { resourceAttributes: { verb: 'list', resource: 'configmaps', namespace: 'default' } },
    }, robot);
    expect(review.json.status).toEqual({ allowed: true });

    // The admin works, sees the object, and deletes it.
    expect((await api('GET', '/api/v1/namespaces')).status).toBe(200);
    expect((await api('GET', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/bad')).json.subjects).toEqual({ kind: 'ServiceAccount', name: 'robot', namespace: 'default' });
    const deleted = await api('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/bad');
    expect(deleted.status).toBe(200);
    expect((await api('GET', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/bad')).status).toBe(404);
    expect(await malformedGauge()).toBe(0);
    expect((await api('GET', '/api/v1/namespaces/default/configmaps', undefined, robot)).status).toBe(200);
  });
});
