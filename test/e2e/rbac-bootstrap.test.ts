// End-to-end (issue 18, class 10): the bootstrap roles are kube 1.32's. An `edit` ServiceAccount cannot write what
// kube keeps for the system — every */status, Endpoints, EndpointSlices — and gets kube-apiserver's exact 403 while a
// concurrent victim keeps its latency; what kube's `edit` may do still works. Across a restart on older state, the
// bootstrap policy is reconciled as kube-apiserver's post-start hook does (core/rbac/reconcile.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, type Running } from './fixtures';
import { as, limitedTenant, Victim, type Reply, type Tenant } from './hostile';

const NS = 'tenant';
const USER = `system:serviceaccount:${NS}:tenant`;
const MERGE = { 'content-type': 'application/merge-patch+json' };
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

/** kube-apiserver's 403 for `verb` on resource[/sub] of `group` in NS (responsewriters/errors.go + RBAC's reason). */
function forbidden(group: string, resource: string, name: string, verb: string, subresource = '') {
  const qualified = group ? `${resource}.${group}` : resource;
  const what = name ? `${qualified} "${name}"` : qualified;
  const full = subresource ? `${resource}/${subresource}` : resource;
  return {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
    message: `${what} is forbidden: User "${USER}" cannot ${verb} resource "${full}" in API group "${group}" in the namespace "${NS}"`,
    details: { ...(name ? { name } : {}), ...(group ? { group } : {}), kind: resource },
  };
}

const path = (group: string, resource: string, name = '', sub = '') =>
  `${group ? `/apis/${group}/v1` : '/api/v1'}/namespaces/${NS}/${resource}${name ? `/${name}` : ''}${sub ? `/${sub}` : ''}`;

const container = [{ name: 'c', image: 'nginx' }];
const template = { metadata: { labels: { app: 'web' } }, spec: { containers: container } };
// Objects the tenant may create (edit) whose status it must not write: [group, resource, body].
const WITH_STATUS: [string, string, object][] = [
  ['', 'pods', { metadata: { name: 'web', labels: { app: 'web' } }, spec: { containers: container } }],
  ['', 'services', { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } }],
  ['', 'replicationcontrollers', { metadata: { name: 'web' }, spec: { replicas: 0, selector: { app: 'web' }, template } }],
  ['apps', 'deployments', { metadata: { name: 'web' }, spec: { replicas: 0, selector: { matchLabels: { app: 'web' } }, template } }],
  ['apps', 'replicasets', { metadata: { name: 'web' }, spec: { replicas: 0, selector: { matchLabels: { app: 'web' } }, template } }],
  ['apps', 'statefulsets', { metadata: { name: 'web' }, spec: { replicas: 0, serviceName: 'web', selector: { matchLabels: { app: 'web' } }, template } }],
  ['apps', 'daemonsets', { metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template } }],
  ['batch', 'jobs', { metadata: { name: 'web' }, spec: { suspend: true, template: { spec: { containers: container, restartPolicy: 'Never' } } } }],
];
// The forged state: the pod reports the attacker's IP and is Ready, so Services would route to it.
const FORGED_POD_STATUS = { status: { podIP: '6.6.6.6', podIPs: [{ ip: '6.6.6.6' }], phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } };
const FORGED_ENDPOINTS = { metadata: { name: 'web' }, subsets: [{ addresses: [{ ip: '6.6.6.6' }], ports: [{ port: 80 }] }] };
const FORGED_SLICE = {
  metadata: { name: 'web-forged', labels: { 'kubernetes.io/service-name': 'web' } }, addressType: 'IPv4',
  endpoints: [{ addresses: ['6.6.6.6'], conditions: { ready: true } }], ports: [{ port: 80 }],
};

interface Attempt {
  what: string;
  reply: Reply;
  expected: object;
}

/** One round of every write kube keeps for the system, as the tenant. */
async function systemWrites(r: Running, t: Tenant): Promise<Attempt[]> {
  const out: Attempt[] = [];
  const attempt = async (what: string, expected: object, method: string, p: string, body?: unknown, headers?: Record<string, string>) => {
    out.push({ what, expected, reply: await as(r, t, method, p, body, headers) });
  };
  for (const [group, resource] of WITH_STATUS) {
    const patch = resource === 'pods' ? FORGED_POD_STATUS : { status: { observedGeneration: 99 } };
    await attempt(`PATCH ${resource}/status`, forbidden(group, resource, 'web', 'patch', 'status'), 'PATCH', path(group, resource, 'web', 'status'), patch, MERGE);
    const current = await as(r, t, 'GET', path(group, resource, 'web'));
    await attempt(`PUT ${resource}/status`, forbidden(group, resource, 'web', 'update', 'status'), 'PUT', path(group, resource, 'web', 'status'),
      { ...current.json, ...patch });
  }
  for (const [group, resource, body] of [['', 'endpoints', FORGED_ENDPOINTS], ['discovery.k8s.io', 'endpointslices', FORGED_SLICE]] as const) {
    await attempt(`POST ${resource}`, forbidden(group, resource, '', 'create'), 'POST', path(group, resource), body);
    await attempt(`PUT ${resource}`, forbidden(group, resource, 'victim', 'update'), 'PUT', path(group, resource, 'victim'), { ...body, metadata: { name: 'victim' } });
    await attempt(`PATCH ${resource}`, forbidden(group, resource, 'victim', 'patch'), 'PATCH', path(group, resource, 'victim'), { metadata: { labels: { x: 'y' } } }, MERGE);
    await attempt(`DELETE ${resource}`, forbidden(group, resource, 'victim', 'delete'), 'DELETE', path(group, resource, 'victim'));
    await attempt(`DELETE ${resource} collection`, forbidden(group, resource, '', 'deletecollection'), 'DELETE', path(group, resource));
  }
  return out;
}

describe('the bootstrap edit role (issue 18 class 10)', () => {
  let r: Running | undefined;
  let tenant: Tenant;
  let victim: Victim;
  afterAll(() => stopTestGateway(r));

  beforeAll(async () => {
    r = await startTestGateway();
    tenant = await limitedTenant(r, NS);
    victim = await Victim.create(r);
    for (const [group, resource, body] of WITH_STATUS) {
      const made = await as(r, tenant, 'POST', path(group, resource), body);
      expect(made.status, `${resource}: ${made.text}`).toBe(201);
    }
    // What the system owns in the tenant's namespace: the Service's Endpoints and EndpointSlice, written by the admin.
    expect((await http(r, 'POST', path('', 'endpoints'), { metadata: { name: 'victim' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] })).status).toBe(201);
    expect((await http(r, 'POST', path('discovery.k8s.io', 'endpointslices'), { ...FORGED_SLICE, metadata: { name: 'victim' }, endpoints: [{ addresses: ['10.0.0.1'] }] })).status).toBe(201);
  });

  it('refuses every */status, Endpoints and EndpointSlice write with kube\'s 403 while a victim keeps its latency', async () => {
    const rounds = 10;
    const { result, report } = await victim.during('edit tenant writes system-owned resources', async () => {
      const all: Attempt[] = [];
      for (let i = 0; i < rounds; i++) all.push(...await systemWrites(r!, tenant));
      return all;
    });
    expect(result.length).toBe(rounds * (WITH_STATUS.length * 2 + 10));
    const allowed = result.filter((a) => a.reply.status !== 403).map((a) => `${a.what}: ${a.reply.status}`);
    expect([...new Set(allowed)]).toEqual([]);
    for (const a of result.slice(0, result.length / rounds)) expect(a.reply.json, a.what).toEqual(a.expected);
    expect(report.failures).toEqual([]);
    // Nothing was forged: the pod reports no IP, the system's Endpoints and EndpointSlice are as the admin wrote them.
    const pod = (await http(r!, 'GET', path('', 'pods', 'web'))).json;
    expect(pod.status.podIP).toBeUndefined();
    expect((await http(r!, 'GET', path('', 'endpoints', 'victim'))).json.subsets[0].addresses).toEqual([{ ip: '10.0.0.1' }]);
    expect((await http(r!, 'GET', path('discovery.k8s.io', 'endpointslices'))).json.items.map((s: any) => s.metadata.name)).toEqual(['victim']);
  });

  it('still allows what kube\'s edit may do', async () => {
    const t = tenant;
    const ok = async (method: string, p: string, body?: unknown, headers?: Record<string, string>) => {
      const res = await as(r!, t, method, p, body, headers);
      expect(res.status, `${method} ${p}: ${res.text.slice(0, 300)}`).toBeLessThan(300);
      return res;
    };
    await ok('POST', path('', 'configmaps'), { metadata: { name: 'cfg' } });
    await ok('POST', path('', 'secrets'), { metadata: { name: 'sec' }, stringData: { a: 'b' } });
    await ok('POST', path('', 'serviceaccounts'), { metadata: { name: 'robot' } });
    await ok('POST', path('', 'serviceaccounts', 'robot', 'token'), { spec: { expirationSeconds: 3600 } });
    await ok('PATCH', path('apps', 'deployments', 'web'), { spec: { replicas: 2 } }, MERGE);
    const scale = (await ok('GET', path('apps', 'deployments', 'web', 'scale'))).json;
    await ok('PUT', path('apps', 'deployments', 'web', 'scale'), { ...scale, spec: { replicas: 3 } });
    // view's reads of the status subresources, Endpoints and EndpointSlices.
    await ok('GET', path('', 'pods', 'web', 'status'));
    await ok('GET', path('batch', 'jobs', 'web', 'status'));
    await ok('GET', path('', 'endpoints'));
    await ok('GET', path('discovery.k8s.io', 'endpointslices'));
    // kube 1.32's system:aggregate-to-edit also grants writes of core Events and of Leases (coordination.k8s.io):
    // kube's edit may write them, so here too.
    await ok('POST', path('', 'events'), {
      metadata: { name: 'note' }, involvedObject: { kind: 'Pod', name: 'web', namespace: NS }, reason: 'Note', message: 'hi', type: 'Normal',
    });
    await ok('POST', path('coordination.k8s.io', 'leases'), { metadata: { name: 'lock' }, spec: { holderIdentity: 'me' } });
    await ok('DELETE', path('apps', 'deployments', 'web'));
  });
});

describe('the bootstrap policy across a restart on older state', () => {
  let r: Running | undefined;
  afterAll(() => stopTestGateway(r));

  const get = async (p: string) => (await http(r!, 'GET', p)).json;
  const put = async (p: string, obj: any) => {
    const res = await http(r!, 'PUT', p, obj);
    expect(res.status, res.text).toBe(200);
  };

  it('reconciles as kube-apiserver does: legacy seeds replaced, autoupdate roles completed, protected ones kept', async () => {
    r = await startTestGateway();
    const edit = await get(`${RBAC}/clusterroles/edit`);
    const kubeEditRules = edit.rules;
    // A role as an older edgeplane seeded it: no autoupdate annotation, no aggregation, and edit granting pods/status.
    delete edit.metadata.annotations;
    delete edit.aggregationRule;
    edit.rules = [...edit.rules, { apiGroups: [''], resources: ['pods/status'], verbs: ['patch', 'update'] }];
    await put(`${RBAC}/clusterroles/edit`, edit);
    // An autoupdate role missing one of kube's rules and holding one of the admin's: the rule comes back, the admin's stays.
    const job = await get(`${RBAC}/clusterroles/system:controller:job-controller`);
    const kubeJobRules = job.rules;
    const custom = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] };
    job.rules = [...job.rules.filter((x: any) => x.resources[0] !== 'jobs/finalizers'), custom];
    await put(`${RBAC}/clusterroles/system:controller:job-controller`, job);
    // A protected role (autoupdate "false") is left as the admin wrote it.
    const view = await get(`${RBAC}/clusterroles/view`);
    view.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'] = 'false';
    view.rules = [custom];
    await put(`${RBAC}/clusterroles/view`, view);
    // A deleted role and a deleted namespaced Role come back.
    expect((await http(r, 'DELETE', `${RBAC}/clusterroles/system:kube-dns`)).status).toBe(200);
    expect((await http(r, 'DELETE', `${RBAC}/namespaces/kube-system/roles/system::leader-locking-kube-scheduler`)).status).toBe(200);
    // A legacy binding with an extra subject: replaced. An autoupdate binding with one: kept, kube's subjects added.
    const basic = await get(`${RBAC}/clusterrolebindings/system:basic-user`);
    delete basic.metadata.annotations;
    basic.subjects = [...basic.subjects, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:unauthenticated' }];
    await put(`${RBAC}/clusterrolebindings/system:basic-user`, basic);
    const discovery = await get(`${RBAC}/clusterrolebindings/system:discovery`);
    const extra = { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'jane' };
    discovery.subjects = [extra];
    await put(`${RBAC}/clusterrolebindings/system:discovery`, discovery);
    // A role and binding only an older edgeplane seeded (kube runs taint eviction as node-controller): removed.
    for (const kind of ['clusterroles', 'clusterrolebindings']) {
      const legacy = kind === 'clusterroles'
        ? { metadata: { name: 'system:controller:taint-eviction-controller', labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['delete'] }] }
        : {
          metadata: { name: 'system:controller:taint-eviction-controller', labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:controller:taint-eviction-controller' },
          subjects: [{ kind: 'ServiceAccount', name: 'taint-eviction-controller', namespace: 'kube-system' }],
        };
      expect((await http(r, 'POST', `${RBAC}/${kind}`, legacy)).status).toBe(201);
    }

    // Objects already as this version ships them are not written again at a start (kube's reconcile: ReconcileNone).
    const untouched = [`${RBAC}/clusterroles/admin`, `${RBAC}/clusterroles/system:node`, `${RBAC}/clusterrolebindings/edgeplane:simulated-nodes`,
      `${RBAC}/namespaces/kube-system/roles/system::leader-locking-kube-controller-manager`, `${RBAC}/namespaces/kube-public/rolebindings/system:controller:bootstrap-signer`];
    const versions = async () => Promise.all(untouched.map(async (p) => (await get(p)).metadata.resourceVersion));
    const before = await versions();

    await stopTestGateway(r, true);
    r = await startTestGateway({ persistDir: r.persistDir });
    expect(await versions()).toEqual(before);

    const after = await get(`${RBAC}/clusterroles/edit`);
    expect(after.rules).toEqual(kubeEditRules);
    expect(after.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } }] });
    expect(after.metadata.annotations).toEqual({ 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
    expect((await get(`${RBAC}/clusterroles/system:controller:job-controller`)).rules).toEqual([...kubeJobRules.filter((x: any) => x.resources[0] !== 'jobs/finalizers'), custom,
      kubeJobRules.find((x: any) => x.resources[0] === 'jobs/finalizers')]);
    expect((await get(`${RBAC}/clusterroles/view`)).rules).toEqual([custom]);
    expect((await get(`${RBAC}/clusterroles/system:kube-dns`)).rules).toEqual([{ apiGroups: [''], resources: ['endpoints', 'services'], verbs: ['list', 'watch'] }]);
    expect((await http(r, 'GET', `${RBAC}/namespaces/kube-system/roles/system::leader-locking-kube-scheduler`)).status).toBe(200);
    expect((await get(`${RBAC}/clusterrolebindings/system:basic-user`)).subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }]);
    expect((await get(`${RBAC}/clusterrolebindings/system:discovery`)).subjects).toEqual([extra, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }]);
    for (const kind of ['clusterroles', 'clusterrolebindings']) {
      expect((await http(r, 'GET', `${RBAC}/${kind}/system:controller:taint-eviction-controller`)).status).toBe(404);
    }
  });
});
