// API Priority and Fairness through the real gateway: kube's bootstrap FlowSchemas and priority levels are served
// and named on every response; a user-created FlowSchema sending one ServiceAccount to a small priority level makes
// its flood get kube's 429 (with the PF headers) while another user's requests, and system:masters', keep
// succeeding; with the control loops on, kube-apiserver's Dangling condition and bootstrap ensure. Correctness only:
// latency under a flood is bench/scenarios/apf.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, waitFor, type Running } from './fixtures';
import { as, limitedTenant, type Tenant } from './hostile';

const FC = '/apis/flowcontrol.apiserver.k8s.io/v1';
const FS_HEADER = 'x-kubernetes-pf-flowschema-uid';
const PL_HEADER = 'x-kubernetes-pf-prioritylevel-uid';

let r: Running;
let flooder: Tenant;
let quiet: Tenant;
beforeAll(async () => {
  r = await startTestGateway();
  flooder = await limitedTenant(r, 'apf-flood', 'view');
  quiet = await limitedTenant(r, 'apf-quiet', 'view');
});
afterAll(() => stopTestGateway(r));

const uidOf = async (kind: string, name: string) => (await http(r, 'GET', `${FC}/${kind}/${name}`)).json.metadata.uid as string;

describe('API Priority and Fairness', () => {
  it("serves kube's bootstrap objects to kubectl", async () => {
    const got = await kubectl(r, ['get', 'flowschemas,prioritylevelconfigurations', '-o', 'name']);
    expect(got.code, got.stderr).toBe(0);
    const names = got.stdout.trim().split('\n').sort();
    for (const fs of ['catch-all', 'endpoint-controller', 'exempt', 'global-default', 'kube-controller-manager', 'kube-scheduler',
      'kube-system-service-accounts', 'probes', 'service-accounts', 'system-leader-election', 'system-node-high', 'system-nodes', 'workload-leader-election']) {
      expect(names).toContain(`flowschema.flowcontrol.apiserver.k8s.io/${fs}`);
    }
    for (const pl of ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']) {
      expect(names).toContain(`prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/${pl}`);
    }
    const exempt = await http(r, 'GET', `${FC}/flowschemas/exempt`);
    expect(exempt.json.metadata.annotations['apf.kubernetes.io/autoupdate-spec']).toBe('true');
  });

  it('names the FlowSchema and priority level of every response by UID', async () => {
    const [exemptFs, exemptPl, saFs, lowPl] = await Promise.all([
      uidOf('flowschemas', 'exempt'), uidOf('prioritylevelconfigurations', 'exempt'), uidOf('flowschemas', 'service-accounts'), uidOf('prioritylevelconfigurations', 'workload-low'),
    ]);
    await waitFor('admin request stamped with the stored exempt UIDs', async () => {
      const res = await http(r, 'GET', '/api/v1/namespaces');
      return res.headers.get(FS_HEADER) === exemptFs && res.headers.get(PL_HEADER) === exemptPl ? true : undefined;
    }, 20_000);
    const sa = await as(r, quiet, 'GET', `/api/v1/namespaces/${quiet.namespace}/configmaps`);
    expect(sa.status).toBe(200);
    expect(sa.headers.get(FS_HEADER)).toBe(saFs);
    expect(sa.headers.get(PL_HEADER)).toBe(lowPl);
    const denied = await as(r, quiet, 'GET', '/api/v1/namespaces/kube-system/secrets');
    expect(denied.status).toBe(403);
    expect(denied.headers.get(FS_HEADER)).toBe(saFs);
  });

  it("answers a flooding ServiceAccount's overflow with kube's 429 while another user and system:masters go through", async () => {
    const tiny = await http(r, 'POST', `${FC}/prioritylevelconfigurations`, {
      metadata: { name: 'tiny' },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } } } },
    });
    expect(tiny.status, tiny.text).toBe(201);
    const flood = await http(r, 'POST', `${FC}/flowschemas`, {
      metadata: { name: 'flood' },
      spec: {
        priorityLevelConfiguration: { name: 'tiny' }, matchingPrecedence: 500, distinguisherMethod: { type: 'ByUser' },
        rules: [{
          subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: flooder.namespace, name: 'tenant' } }],
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }],
        }],
      },
    });
    expect(flood.status, flood.text).toBe(201);
    const floodUid = flood.json.metadata.uid as string;
    const tinyUid = tiny.json.metadata.uid as string;
    await waitFor('the flooder classified into the new FlowSchema', async () => {
      const res = await as(r, flooder, 'GET', `/api/v1/namespaces/${flooder.namespace}/configmaps`);
      return res.headers.get(FS_HEADER) === floodUid ? true : undefined;
    }, 20_000);

    const path = `/api/v1/namespaces/${flooder.namespace}/configmaps`;
    let rejected: Awaited<ReturnType<typeof as>> | undefined;
    const others: number[] = [];
    const masters: number[] = [];
    for (let round = 0; round < 10 && !rejected; round++) {
      const burst = Array.from({ length: 40 }, () => as(r, flooder, 'GET', path));
      const other = Array.from({ length: 5 }, () => as(r, quiet, 'GET', `/api/v1/namespaces/${quiet.namespace}/configmaps`));
      const admin = Array.from({ length: 5 }, () => http(r, 'GET', '/api/v1/namespaces/default/configmaps'));
      const [b, o, a] = await Promise.all([Promise.all(burst), Promise.all(other), Promise.all(admin)]);
      rejected = b.find((x) => x.status === 429 && x.headers.get(FS_HEADER) === floodUid);
      others.push(...o.map((x) => x.status));
      masters.push(...a.map((x) => x.status));
      expect(b.every((x) => x.status === 200 || x.status === 429)).toBe(true);
    }
    expect(rejected, 'the flood was never rejected by flow control').toBeDefined();
    expect(rejected!.headers.get(PL_HEADER)).toBe(tinyUid);
    // kube's Retry-After starts at 1 s and doubles (to 32 s at most) while the level keeps rejecting.
    const retryAfter = Number(rejected!.headers.get('retry-after'));
    expect([1, 2, 4, 8, 16, 32]).toContain(retryAfter);
    expect(rejected!.json).toMatchObject({
      kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'TooManyRequests', code: 429,
      message: 'Too many requests, please try again later.', details: { retryAfterSeconds: retryAfter },
    });
    expect(others.every((s) => s === 200)).toBe(true);
    expect(masters.every((s) => s === 200)).toBe(true);

    const text = (await http(r, 'GET', '/metrics')).text;
    expect(text).toMatch(/apiserver_flowcontrol_rejected_requests_total\{flow_schema="flood",priority_level="tiny",reason="queue-full"\} [1-9]/);
    expect(text).toMatch(/apiserver_flowcontrol_dispatched_requests_total\{flow_schema="flood",priority_level="tiny"\} [1-9]/);
    expect(text).toMatch(/apiserver_flowcontrol_nominal_limit_seats\{priority_level="tiny"\} [1-9]/);
  });

  it("charges a watch at its start only: open watches hold none of their level's seats", async () => {
    // The flooder's level (`tiny`, from the test above) has one seat and one queue place.
    const path = `/api/v1/namespaces/${flooder.namespace}/configmaps?watch=true&timeoutSeconds=60`;
    const watches: AbortController[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const abort = new AbortController();
        watches.push(abort);
        const res = await fetch(`${r.gateway.url}${path}`, { headers: { authorization: `Bearer ${flooder.token}` }, signal: abort.signal });
        expect(res.status).toBe(200);
        expect(res.headers.get(FS_HEADER)).toBe(await uidOf('flowschemas', 'flood'));
      }
      const get = await as(r, flooder, 'GET', `/api/v1/namespaces/${flooder.namespace}/configmaps`);
      expect(get.status).toBe(200);
    } finally {
      for (const w of watches) w.abort();
    }
  });

  it('puts the mandatory objects back at the next start and leaves an opted-out suggested one alone', async () => {
    const catchAll = (await http(r, 'GET', `${FC}/prioritylevelconfigurations/catch-all`)).json;
    catchAll.spec.limited.nominalConcurrencyShares = 2;
    expect((await http(r, 'PUT', `${FC}/prioritylevelconfigurations/catch-all`, catchAll)).status).toBe(200);
    const low = (await http(r, 'GET', `${FC}/prioritylevelconfigurations/workload-low`)).json;
    low.metadata.annotations['apf.kubernetes.io/autoupdate-spec'] = 'false';
    low.spec.limited.nominalConcurrencyShares = 7;
    expect((await http(r, 'PUT', `${FC}/prioritylevelconfigurations/workload-low`, low)).status).toBe(200);
    const persistDir = r.persistDir;
    await stopTestGateway(r, true);
    r = await startTestGateway({ persistDir });
    await waitFor('catch-all restored', async () => {
      const got = await http(r, 'GET', `${FC}/prioritylevelconfigurations/catch-all`);
      return got.json?.spec?.limited?.nominalConcurrencyShares === 5 ? true : undefined;
    }, 20_000);
    expect((await http(r, 'GET', `${FC}/prioritylevelconfigurations/workload-low`)).json.spec.limited.nominalConcurrencyShares).toBe(7);
  });
});

describe('API Priority and Fairness with the simulated cluster', () => {
  let c: Running;
  beforeAll(async () => {
    c = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '2' } });
  });
  afterAll(() => stopTestGateway(c));

  it("marks a FlowSchema naming a missing priority level Dangling, as kube-apiserver does, and clears it when the level appears", async () => {
    const made = await http(c, 'POST', `${FC}/flowschemas`, {
      metadata: { name: 'points-nowhere' },
      spec: { priorityLevelConfiguration: { name: 'not-yet' }, matchingPrecedence: 9500, rules: [{ subjects: [{ kind: 'User', user: { name: 'nobody' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/nowhere'] }] }] },
    });
    expect(made.status, made.text).toBe(201);
    const dangling = async (status: string) => {
      const fs = await http(c, 'GET', `${FC}/flowschemas/points-nowhere`);
      const cond = (fs.json?.status?.conditions ?? []).find((x: { type: string }) => x.type === 'Dangling');
      return cond?.status === status ? cond : undefined;
    };
    const missing = await waitFor('Dangling=True', () => dangling('True'), 30_000);
    expect(missing).toMatchObject({
      reason: 'NotFound', message: 'This FlowSchema references the PriorityLevelConfiguration object named "not-yet" but there is no such object',
    });
    expect(Date.parse(missing.lastTransitionTime)).toBeGreaterThan(0);
    // Written as kube's consumer writes it: a server-side apply of the status, so its field manager owns the condition.
    const owners = (await http(c, 'GET', `${FC}/flowschemas/points-nowhere`)).json.metadata.managedFields as { manager: string; operation: string; subresource?: string; fieldsV1: object }[];
    expect(owners.find((m) => m.manager === 'api-priority-and-fairness-config-consumer-v1')).toMatchObject({
      operation: 'Apply', subresource: 'status',
      fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Dangling"}': { '.': {}, 'f:type': {}, 'f:status': {}, 'f:reason': {}, 'f:message': {}, 'f:lastTransitionTime': {} } } } },
    });
    const level = await http(c, 'POST', `${FC}/prioritylevelconfigurations`, {
      metadata: { name: 'not-yet' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
    });
    expect(level.status, level.text).toBe(201);
    const found = await waitFor('Dangling=False', () => dangling('False'), 30_000);
    expect(found).toMatchObject({ reason: 'Found', message: 'This FlowSchema references the PriorityLevelConfiguration object named "not-yet" and it exists' });
    // A bootstrap FlowSchema deleted is put back (kube's configuration producer), with its bootstrap spec.
    expect((await http(c, 'DELETE', `${FC}/flowschemas/workload-leader-election`)).status).toBe(200);
    const back = await waitFor('workload-leader-election recreated', async () => {
      const got = await http(c, 'GET', `${FC}/flowschemas/workload-leader-election`);
      return got.status === 200 ? got.json : undefined;
    }, 30_000);
    expect(back.spec.priorityLevelConfiguration.name).toBe('leader-election');
    expect(back.metadata.annotations['apf.kubernetes.io/autoupdate-spec']).toBe('true');
  });

  it("sends the control loops and kubelets to kube's levels, and a Deployment still rolls out while a ServiceAccount floods", async () => {
    const tenant = await limitedTenant(c, 'apf-noisy', 'view');
    let flooding = true;
    let floodRequests = 0;
    const flood = Promise.all(Array.from({ length: 32 }, async () => {
      while (flooding) {
        floodRequests++;
        await as(c, tenant, 'GET', `/api/v1/namespaces/${tenant.namespace}/configmaps`).catch(() => undefined);
      }
    }));
    try {
      const made = await http(c, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
        metadata: { name: 'steady' },
        spec: { replicas: 2, selector: { matchLabels: { app: 'steady' } }, template: { metadata: { labels: { app: 'steady' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      });
      expect(made.status, made.text).toBe(201);
      await waitFor('the Deployment available during the flood', async () => {
        const d = await http(c, 'GET', '/apis/apps/v1/namespaces/default/deployments/steady');
        return d.json?.status?.availableReplicas === 2 ? true : undefined;
      }, 90_000);
    } finally {
      flooding = false;
      await flood;
    }
    expect(floodRequests).toBeGreaterThan(32);
    const text = (await http(c, 'GET', '/metrics')).text;
    const dispatched = (fs: string, pl: string) => Number(text.match(new RegExp(`^apiserver_flowcontrol_dispatched_requests_total\\{flow_schema="${fs}",priority_level="${pl}"\\} (\\d+)$`, 'm'))?.[1] ?? 0);
    expect(dispatched('service-accounts', 'workload-low')).toBeGreaterThan(0); // the tenant
    expect(dispatched('kube-system-service-accounts', 'workload-high')).toBeGreaterThan(0); // the controllers' accounts
    expect(dispatched('kube-scheduler', 'workload-high')).toBeGreaterThan(0);
    expect(dispatched('system-node-high', 'node-high') + dispatched('system-nodes', 'system')).toBeGreaterThan(0); // kubelets
    expect(dispatched('system-leader-election', 'leader-election')).toBeGreaterThan(0); // leases
  });
});
