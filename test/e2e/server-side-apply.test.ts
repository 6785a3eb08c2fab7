// Server-side apply and managedFields through the real gateway: /usr/bin/kubectl apply --server-side on
// a Deployment, a ConfigMap and a Service (create, no-op, change, conflicts and --force-conflicts, pruning
// of dropped fields, takeover from client-side apply, --show-managed-fields), and @kubernetes/client-node's
// patch with the apply content type.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import { http, kubectl, startTestGateway, stopTestGateway, type Running } from './fixtures';

let r: Running;
beforeAll(async () => {
  r = await startTestGateway({ vars: { STATIC_TOKENS: 'patcher-token,patcher,uid-p' } });
});
afterAll(() => stopTestGateway(r));

const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
const CM = '/api/v1/namespaces/default/configmaps';
const SVC = '/api/v1/namespaces/default/services';

const deployment = (replicas: number, image = 'nginx:1.27', extraLabels: Record<string, string> = {}) => JSON.stringify({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web', ...extraLabels } },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image, ports: [{ containerPort: 80 }] }] } },
  },
});

const CONFLICT_HELP = 'Please review the fields above--they currently have other managers.';

describe('kubectl apply --server-side', () => {
  it('creates, leaves unchanged and configures a Deployment, recording one Apply entry', async () => {
    const created = await kubectl(r, ['apply', '--server-side', '-f', '-'], deployment(2));
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('deployment.apps/web serverside-applied');
    const first = (await http(r, 'GET', `${DEPLOY}/web`)).json;
    expect(first.metadata.managedFields).toHaveLength(1);
    expect(first.metadata.managedFields[0]).toMatchObject({ manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1' });
    expect(first.metadata.managedFields[0].fieldsV1).toEqual({
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': {
        'f:replicas': {}, 'f:selector': {},
        'f:template': { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': {
          '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
        } } } },
      },
    });

    const unchanged = await kubectl(r, ['apply', '--server-side', '-f', '-'], deployment(2));
    expect(unchanged.stdout.trim()).toBe('deployment.apps/web serverside-applied');
    expect((await http(r, 'GET', `${DEPLOY}/web`)).json.metadata.resourceVersion).toBe(first.metadata.resourceVersion);

    const configured = await kubectl(r, ['apply', '--server-side', '-f', '-'], deployment(3, 'nginx:1.28'));
    expect(configured.code).toBe(0);
    const after = (await http(r, 'GET', `${DEPLOY}/web`)).json;
    expect(after.spec.replicas).toBe(3);
    expect(after.spec.template.spec.containers[0].image).toBe('nginx:1.28');
    expect(after.metadata.generation).toBe(2);
  });

  it('a second field manager conflicts with kube\'s text, then --force-conflicts takes the field', async () => {
    const res = await kubectl(r, ['apply', '--server-side', '--field-manager=ops', '-f', '-'], deployment(5, 'nginx:1.28'));
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('error: Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
    expect(res.stderr).toContain(CONFLICT_HELP);
    expect((await http(r, 'GET', `${DEPLOY}/web`)).json.spec.replicas).toBe(3);

    const forced = await kubectl(r, ['apply', '--server-side', '--field-manager=ops', '--force-conflicts', '-f', '-'], deployment(5, 'nginx:1.28'));
    expect(forced.code).toBe(0);
    const obj = (await http(r, 'GET', `${DEPLOY}/web`)).json;
    expect(obj.spec.replicas).toBe(5);
    const byManager = Object.fromEntries(obj.metadata.managedFields.map((e: { manager: string }) => [e.manager, e]));
    expect(byManager.ops.fieldsV1['f:spec']['f:replicas']).toEqual({});
    expect(byManager.kubectl.fieldsV1['f:spec']['f:replicas']).toBeUndefined();
    // The image is shared: both applied the same value.
    expect(byManager.kubectl.fieldsV1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"nginx"}']['f:image']).toEqual({});
  });

  it('removes a label the applier stops specifying; get -o yaml hides managedFields unless asked', async () => {
    // replicas 5 agrees with "ops", so the field is shared and there is no conflict.
    expect((await kubectl(r, ['apply', '--server-side', '-f', '-'], deployment(5, 'nginx:1.28', { tier: 'web' }))).stderr).toBe('');
    expect((await http(r, 'GET', `${DEPLOY}/web`)).json.metadata.labels).toEqual({ app: 'web', tier: 'web' });
    await kubectl(r, ['apply', '--server-side', '-f', '-'], deployment(5, 'nginx:1.28'));
    expect((await http(r, 'GET', `${DEPLOY}/web`)).json.metadata.labels).toEqual({ app: 'web' });

    const plain = await kubectl(r, ['get', 'deployment', 'web', '-o', 'yaml']);
    expect(plain.stdout).not.toContain('managedFields');
    const shown = await kubectl(r, ['get', 'deployment', 'web', '-o', 'yaml', '--show-managed-fields']);
    expect(shown.stdout).toContain('managedFields:');
    expect(shown.stdout).toContain('manager: ops');
    expect(shown.stdout).toContain('operation: Apply');
  });

  it('takes over a ConfigMap created by client-side apply, and prunes a key dropped later', async () => {
    const v1 = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '1', b: '2' } });
    expect((await kubectl(r, ['apply', '-f', '-'], v1)).stdout.trim()).toBe('configmap/settings created');
    const csa = (await http(r, 'GET', `${CM}/settings`)).json;
    expect(csa.metadata.managedFields.map((e: { manager: string; operation: string }) => [e.manager, e.operation]))
      .toEqual([['kubectl-client-side-apply', 'Update']]);
    expect(csa.metadata.managedFields[0].fieldsV1).toEqual({
      'f:data': { '.': {}, 'f:a': {}, 'f:b': {} },
      'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
    });

    // Another manager changing a client-side-applied field conflicts with the client-side-apply entry.
    const other = await kubectl(r, ['apply', '--server-side', '--field-manager=other', '-f', '-'],
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: 'x' } }));
    expect(other.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a');

    const v2 = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '10', b: '2' } });
    const up = await kubectl(r, ['apply', '--server-side', '-f', '-'], v2);
    expect(up.stderr).toBe('');
    const ssa = (await http(r, 'GET', `${CM}/settings`)).json;
    expect(ssa.data).toEqual({ a: '10', b: '2' });
    const managers = ssa.metadata.managedFields.map((e: { manager: string; operation: string }) => `${e.manager}/${e.operation}`);
    expect(managers).toContain('kubectl/Apply');
    expect(managers).not.toContain('kubectl-client-side-apply/Update');

    const v3 = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '10' } });
    expect((await kubectl(r, ['apply', '--server-side', '-f', '-'], v3)).code).toBe(0);
    expect((await http(r, 'GET', `${CM}/settings`)).json.data).toEqual({ a: '10' });
  });

  it('keys Service ports by port and protocol; two managers own one port each', async () => {
    const svc = (ports: unknown[]) => JSON.stringify({
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'front' }, spec: { selector: { app: 'web' }, ports },
    });
    expect((await kubectl(r, ['apply', '--server-side', '-f', '-'], svc([{ name: 'http', port: 80, targetPort: 8080 }]))).code).toBe(0);
    expect((await kubectl(r, ['apply', '--server-side', '--field-manager=dns', '-f', '-'],
      svc([{ name: 'dns', port: 53, protocol: 'UDP' }]))).code).toBe(0);
    const obj = (await http(r, 'GET', `${SVC}/front`)).json;
    expect(obj.spec.ports.map((p: { port: number; protocol: string }) => `${p.port}/${p.protocol}`)).toEqual(['80/TCP', '53/UDP']);
    const dns = obj.metadata.managedFields.find((e: { manager: string }) => e.manager === 'dns');
    expect(Object.keys(dns.fieldsV1['f:spec']['f:ports'])).toEqual(['k:{"port":53,"protocol":"UDP"}']);
    const res = await kubectl(r, ['apply', '--server-side', '--field-manager=dns', '-f', '-'],
      svc([{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'http', port: 80, targetPort: 9090 }]));
    expect(res.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .spec.ports[port=80,protocol="TCP"].targetPort');
  });

  it('answers kube\'s 422 without a fieldManager and 201 on create through HTTP', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'raw' }, data: { k: 'v' } });
    const missing = await http(r, 'PATCH', `${CM}/raw`, body, { 'content-type': 'application/apply-patch+yaml' });
    expect(missing.status).toBe(422);
    expect(missing.json.message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const created = await http(r, 'PATCH', `${CM}/raw?fieldManager=me`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: raw\ndata:\n  k: v\n',
      { 'content-type': 'application/apply-patch+yaml' });
    expect(created.status).toBe(201);
    const dry = await http(r, 'PATCH', `${CM}/raw?fieldManager=me&dryRun=All`, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"raw"},"data":{"k":"dry"}}',
      { 'content-type': 'application/apply-patch+yaml' });
    expect(dry.status).toBe(200);
    expect(dry.json.data).toEqual({ k: 'dry' });
    expect((await http(r, 'GET', `${CM}/raw`)).json.data).toEqual({ k: 'v' });
  });

  it('an apply that would create needs create permission, not only patch', async () => {
    await http(r, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
      { metadata: { name: 'cm-patcher' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'patch'] }] });
    await http(r, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      metadata: { name: 'patcher' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-patcher' },
      subjects: [{ kind: 'User', name: 'patcher', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    const as = { authorization: 'Bearer patcher-token', 'content-type': 'application/apply-patch+yaml' };
    const cmBody = (name: string, v: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: v } });
    const denied = await http(r, 'PATCH', `${CM}/new-one?fieldManager=p`, cmBody('new-one', 'v'), as);
    expect(denied.status).toBe(403);
    expect(denied.json.message).toBe('configmaps "new-one" is forbidden: User "patcher" cannot create resource "configmaps" in API group "" in the namespace "default"');
    expect((await http(r, 'GET', `${CM}/new-one`)).status).toBe(404);
    // Creating by apply in a namespace that does not exist is the namespace lifecycle's 404.
    const nowhere = await http(r, 'PATCH', '/api/v1/namespaces/nowhere/configmaps/x?fieldManager=me', cmBody('x', 'v'), { 'content-type': 'application/apply-patch+yaml' });
    expect(nowhere.status).toBe(404);
    expect(nowhere.json.message).toBe('namespaces "nowhere" not found');
    // The same user may apply to an object that exists.
    const updated = await http(r, 'PATCH', `${CM}/raw?fieldManager=p&force=true`, cmBody('raw', 'patched'), as);
    expect(updated.status).toBe(200);
    expect(updated.json.data).toEqual({ k: 'patched' });
  });

  it('an apply to a Role cannot grant what the applier does not hold', async () => {
    await http(r, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
      { metadata: { name: 'role-patcher' }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['get', 'patch'] }] });
    await http(r, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      metadata: { name: 'patcher-roles' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'role-patcher' },
      subjects: [{ kind: 'User', name: 'patcher', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    const ROLES = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles';
    await http(r, 'POST', ROLES, { metadata: { name: 'target' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] });
    const escalate = await http(r, 'PATCH', `${ROLES}/target?fieldManager=p&force=true`,
      JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'target' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] }),
      { authorization: 'Bearer patcher-token', 'content-type': 'application/apply-patch+yaml' });
    expect(escalate.status).toBe(403);
    expect(escalate.json.message).toContain('is attempting to grant RBAC permissions not currently held');
    expect((await http(r, 'GET', `${ROLES}/target`)).json.rules[0].resources).toEqual(['configmaps']);
  });

  it('records non-apply writes under the User-Agent prefix', async () => {
    await http(r, 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ua' }, data: { k: 'v' } }, { 'user-agent': 'my-controller/1.0 (linux)' });
    const obj = (await http(r, 'GET', `${CM}/ua`)).json;
    expect(obj.metadata.managedFields.map((e: { manager: string; operation: string }) => [e.manager, e.operation])).toEqual([['my-controller', 'Update']]);
  });
});

describe('@kubernetes/client-node', () => {
  it('applies with PatchStrategy.ServerSideApply, creating then updating', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(r.kubeconfig);
    const api = KubernetesObjectApi.makeApiClient(kc);
    const spec: KubernetesObject & { data: Record<string, string> } = {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-node', namespace: 'default' }, data: { a: '1' },
    };
    const created = await api.patch(spec, undefined, undefined, 'node-client', false, PatchStrategy.ServerSideApply);
    expect(created.metadata?.managedFields?.[0]).toMatchObject({ manager: 'node-client', operation: 'Apply' });
    const updated = await api.patch({ ...spec, data: { a: '2' } }, undefined, undefined, 'node-client', true, PatchStrategy.ServerSideApply);
    expect((updated as typeof spec).data).toEqual({ a: '2' });
  });
});
