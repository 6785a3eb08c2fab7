// Services end to end with the control loops on: EndpointSlice and Endpoints controllers, the kube-proxy
// stand-in's rule tables, the namespace controller's two-phase deletion, and event expiry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';

const VARS = { CONTROLLERS: 'on', SIMULATED_NODES: '3', EVENT_TTL_SECONDS: '20', STATIC_TOKENS: 'dana-token,dana,uid-d' };

async function must(r: Running, ...args: string[]) {
  const res = await kubectl(r, args);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

const SLICES = '/apis/discovery.k8s.io/v1/namespaces/svc/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dweb';
const readyIPs = (slices: any[]) => slices.flatMap((s) => (s.endpoints ?? []).filter((e: any) => e.conditions.ready).map((e: any) => e.addresses[0])).sort();

describe('services and namespaces with the control loops', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: VARS });
    await must(r, 'create', 'namespace', 'svc');
  });
  afterAll(() => stopTestGateway(r));

  it('expose → EndpointSlice and Endpoints with the ready pod IPs; proxy rules follow a scale-down', async () => {
    await must(r, '-n', 'svc', 'create', 'deployment', 'web', '--image=nginx', '--replicas=3');
    await must(r, '-n', 'svc', 'rollout', 'status', 'deployment/web', '--timeout=30s');
    await must(r, '-n', 'svc', 'expose', 'deployment', 'web', '--port=80', '--target-port=80');
    const pods = (await http(r, 'GET', '/api/v1/namespaces/svc/pods')).json.items;
    const podIPs = pods.map((p: any) => p.status.podIP).sort();
    expect(podIPs).toHaveLength(3);

    const slices = await waitFor('an EndpointSlice with 3 ready endpoints', async () => {
      const items = (await http(r, 'GET', SLICES)).json.items;
      return readyIPs(items).length === 3 ? items : undefined;
    });
    expect(slices).toHaveLength(1);
    const svc = (await http(r, 'GET', '/api/v1/namespaces/svc/services/web')).json;
    const s = slices[0];
    expect(s.metadata.name).toMatch(/^web-[a-z0-9]{5}$/);
    expect(s.metadata.labels).toEqual({ app: 'web', 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
    expect(s.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(s.addressType).toBe('IPv4');
    expect(s.ports).toEqual([{ name: '', port: 80, protocol: 'TCP' }]);
    expect(readyIPs(slices)).toEqual(podIPs);
    for (const e of s.endpoints) {
      const p = pods.find((x: any) => x.status.podIP === e.addresses[0]);
      expect(e).toEqual({
        addresses: [p.status.podIP], conditions: { ready: true, serving: true, terminating: false }, nodeName: p.spec.nodeName,
        targetRef: { kind: 'Pod', namespace: 'svc', name: p.metadata.name, uid: p.metadata.uid },
      });
    }
    const table = await must(r, '-n', 'svc', 'get', 'endpointslices');
    expect(table).toMatch(new RegExp(`${s.metadata.name}\\s+IPv4\\s+80\\s+\\S+`));

    const ep = await waitFor('Endpoints web with 3 addresses', async () => {
      const e = await http(r, 'GET', '/api/v1/namespaces/svc/endpoints/web');
      return e.status === 200 && e.json.subsets?.[0]?.addresses?.length === 3 ? e.json : undefined;
    });
    expect(ep.subsets).toHaveLength(1);
    expect(ep.subsets[0].ports).toEqual([{ port: 80, protocol: 'TCP' }]);
    expect(ep.subsets[0].addresses.map((a: any) => a.ip)).toEqual(podIPs);
    const eps = await must(r, '-n', 'svc', 'get', 'endpoints', 'web');
    for (const ip of podIPs) expect(eps).toContain(`${ip}:80`);

    // Nothing changes: the slice is not rewritten.
    const rv = s.metadata.resourceVersion;
    await new Promise((res) => setTimeout(res, 500));
    expect((await http(r, 'GET', SLICES)).json.items[0].metadata.resourceVersion).toBe(rv);

    const rules = await waitFor('proxy rules for svc/web with 3 endpoints', async () => {
      const res = await http(r, 'GET', '/_edgeplane/nodes/node-1/proxy-rules');
      const rule = res.json?.rules?.find((x: any) => x.service === 'svc/web');
      return rule?.endpoints.length === 3 ? res.json : undefined;
    });
    expect(rules.kind).toBe('ProxyRules');
    expect(rules.node).toBe('node-1');
    const rule = rules.rules.find((x: any) => x.service === 'svc/web');
    expect(rule).toMatchObject({ clusterIP: svc.spec.clusterIP, port: { name: '', protocol: 'TCP', port: 80 }, nodePort: null });
    expect(rule.chain).toMatch(/^KUBE-SVC-[A-Z2-7]{16}$/);
    expect(rule.endpoints.map((e: any) => `${e.ip}:${e.port}`)).toEqual(podIPs.map((ip: string) => `${ip}:80`));
    expect(rule.endpoints.map((e: any) => e.probability)).toEqual(['0.3333333333', '0.5000000000', null]);
    expect((await http(r, 'GET', '/_edgeplane/nodes/node-9/proxy-rules')).status).toBe(404);

    await must(r, '-n', 'svc', 'scale', 'deployment/web', '--replicas=1');
    const one = await waitFor('the slice to shrink to 1 endpoint', async () => {
      const items = (await http(r, 'GET', SLICES)).json.items;
      return items.length === 1 && items[0].endpoints?.length === 1 ? items : undefined;
    });
    expect(one[0].metadata.name).toBe(s.metadata.name); // updated in place
    const left = readyIPs(one);
    await waitFor('proxy rules on node-2 to follow the scale-down', async () => {
      const res = await http(r, 'GET', '/_edgeplane/nodes/node-2/proxy-rules');
      const x = res.json?.rules?.find((y: any) => y.service === 'svc/web');
      return x && x.endpoints.length === 1 && x.endpoints[0].ip === left[0] && x.endpoints[0].probability === null ? true : undefined;
    });
    await waitFor('Endpoints web with 1 address', async () => {
      const e = (await http(r, 'GET', '/api/v1/namespaces/svc/endpoints/web')).json;
      return e.subsets?.[0]?.addresses?.length === 1 && e.subsets[0].addresses[0].ip === left[0] ? true : undefined;
    });
  });

  it('proxy rules are RBAC-protected: a user without a nonResourceURLs rule gets 403', async () => {
    const res = await http(r, 'GET', '/_edgeplane/nodes/node-1/proxy-rules', undefined, { authorization: 'Bearer dana-token' });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, details: {},
      message: 'forbidden: User "dana" cannot get path "/_edgeplane/nodes/node-1/proxy-rules"',
    });
  });

  it('serves events.k8s.io/v1 Events over the same store as core/v1: list, create, watch, kubectl get and describe', async () => {
    // Controller events (core/v1 writes) are listed through events.k8s.io/v1 with its field names.
    const listed = (await http(r, 'GET', '/apis/events.k8s.io/v1/namespaces/svc/events')).json;
    expect(listed.kind).toBe('EventList');
    expect(listed.apiVersion).toBe('events.k8s.io/v1');
    const scaled = listed.items.find((e: any) => e.reason === 'ScalingReplicaSet');
    expect(scaled).toMatchObject({
      apiVersion: 'events.k8s.io/v1', kind: 'Event', regarding: { kind: 'Deployment', name: 'web', namespace: 'svc' },
      note: expect.stringMatching(/^Scaled (up|down) replica set web-/), reportingController: 'deployment-controller',
      deprecatedSource: { component: 'deployment-controller' }, deprecatedCount: 1, type: 'Normal',
    });
    expect(scaled.message).toBeUndefined();
    expect(scaled.involvedObject).toBeUndefined();
    const all = await must(r, 'get', 'events.v1.events.k8s.io', '-A');
    expect(all).toMatch(/NAMESPACE\s+LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
    expect(all).toContain('deployment/web');

    // An events.k8s.io/v1 write (as the scheduler's recorder makes), read back through core/v1.
    const now = new Date().toISOString().replace(/Z$/, '').padEnd(23, '0').slice(0, 23) + '000Z';
    const svc = (await http(r, 'GET', '/api/v1/namespaces/svc/services/web')).json;
    const made = await http(r, 'POST', '/apis/events.k8s.io/v1/namespaces/svc/events', {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'web.v1event' }, eventTime: now,
      reportingController: 'e2e.example.com/tester', reportingInstance: 'tester-1', action: 'Probe', reason: 'Checked', type: 'Normal',
      note: 'checked by e2e', regarding: { kind: 'Service', namespace: 'svc', name: 'web', uid: svc.metadata.uid, apiVersion: 'v1' },
    });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'checked by e2e', regarding: { name: 'web' }, reportingController: 'e2e.example.com/tester' });
    const core = (await http(r, 'GET', '/api/v1/namespaces/svc/events/web.v1event')).json;
    expect(core).toMatchObject({
      apiVersion: 'v1', kind: 'Event', message: 'checked by e2e', reportingComponent: 'e2e.example.com/tester', reportingInstance: 'tester-1',
      involvedObject: { kind: 'Service', name: 'web', uid: svc.metadata.uid }, action: 'Probe', reason: 'Checked', eventTime: now,
    });
    const patched = await http(r, 'PATCH', '/apis/events.k8s.io/v1/namespaces/svc/events/web.v1event', { note: 'checked again' }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.status).toBe(200);
    expect(patched.json.note).toBe('checked again');
    expect((await http(r, 'GET', '/api/v1/namespaces/svc/events/web.v1event')).json.message).toBe('checked again');
    const described = await must(r, '-n', 'svc', 'describe', 'service', 'web');
    expect(described).toMatch(/Endpoints:\s+10\.244\.\d+\.\d+:80\n/); // from the EndpointSlice
    expect(described).toMatch(/Normal\s+Checked\s+.*e2e\.example\.com\/tester\s+checked again/);

    // events.k8s.io/v1 creates are validated strictly (eventTime required, no deprecated* fields); nothing is stored.
    const refused = await http(r, 'POST', '/apis/events.k8s.io/v1/namespaces/svc/events', {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'bad.v1event' }, reason: 'X', type: 'Normal', deprecatedCount: 2,
      regarding: { kind: 'Service', namespace: 'svc', name: 'web' },
    });
    expect(refused.status).toBe(422);
    expect(refused.json.message).toBe('Event.events.k8s.io "bad.v1event" is invalid: [eventTime: Required value, count: Invalid value: "": needs to be unset]');
    expect(refused.json.details).toMatchObject({ name: 'bad.v1event', group: 'events.k8s.io', kind: 'Event' });
    expect((await http(r, 'GET', '/api/v1/namespaces/svc/events/bad.v1event')).status).toBe(404);

    // A watch through events.k8s.io/v1 carries its field names.
    const res = await fetch(`${r.gateway.url}/apis/events.k8s.io/v1/namespaces/svc/events?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dweb.v1event`, {
      headers: { authorization: `Bearer e2e-admin-token` },
    });
    const frames = (await res.text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(frames[0].type).toBe('ADDED');
    expect(frames[0].object).toMatchObject({ apiVersion: 'events.k8s.io/v1', kind: 'Event', note: 'checked again', regarding: { name: 'web' } });
    expect(frames[0].object.message).toBeUndefined();
  });

  it('deletes a namespace through the namespace controller: Terminating with the finalizer, contents gone, then the namespace', async () => {
    await must(r, 'create', 'namespace', 'doomed');
    await must(r, '-n', 'doomed', 'create', 'configmap', 'c1', '--from-literal=a=b');
    await must(r, '-n', 'doomed', 'create', 'deployment', 'd', '--image=nginx', '--replicas=2');
    // A custom resource, to show every served type is emptied.
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    expect((await http(r, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    await waitFor('the Widget type to be served', async () => {
      const res = await http(r, 'POST', '/apis/example.com/v1/namespaces/doomed/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' } });
      return res.status === 201 ? true : undefined;
    });
    // A finalizer-held configmap keeps the namespace Terminating until it is released.
    await http(r, 'POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    await waitFor('2 pods in doomed', async () => ((await http(r, 'GET', '/api/v1/namespaces/doomed/pods')).json.items.length === 2 ? true : undefined));

    const del = await http(r, 'DELETE', '/api/v1/namespaces/doomed');
    expect(del.status).toBe(200);
    expect(del.json.metadata.deletionTimestamp).toBeTruthy();
    expect(del.json.spec.finalizers).toEqual(['kubernetes']);
    expect(del.json.status.phase).toBe('Terminating');
    const refused = await http(r, 'POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'late' } });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe('configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated');

    const stuck = await waitFor('the finalizer condition', async () => {
      const ns = (await http(r, 'GET', '/api/v1/namespaces/doomed')).json;
      const c = ns.status?.conditions?.find((x: any) => x.type === 'NamespaceFinalizersRemaining');
      return c?.status === 'True' ? ns : undefined;
    }, 30_000);
    const conds = Object.fromEntries(stuck.status.conditions.map((c: any) => [c.type, [c.status, c.reason, c.message]]));
    expect(conds).toEqual({
      NamespaceDeletionDiscoveryFailure: ['False', 'ResourcesDiscovered', 'All resources successfully discovered'],
      NamespaceDeletionGroupVersionParsingFailure: ['False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
      NamespaceDeletionContentFailure: ['False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
      NamespaceContentRemaining: ['True', 'SomeResourcesRemain', 'Some resources are remaining: configmaps. has 1 resource instances'],
      NamespaceFinalizersRemaining: ['True', 'SomeFinalizersRemain', 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances'],
    });
    expect(stuck.spec.finalizers).toEqual(['kubernetes']);
    for (const path of ['/api/v1/namespaces/doomed/pods', '/apis/apps/v1/namespaces/doomed/deployments', '/apis/example.com/v1/namespaces/doomed/widgets']) {
      expect((await http(r, 'GET', path)).json.items).toEqual([]);
    }
    expect((await http(r, 'GET', '/api/v1/namespaces/doomed/configmaps')).json.items.map((c: any) => c.metadata.name)).toEqual(['held']);

    // finalize answers PUT only.
    expect((await http(r, 'GET', '/api/v1/namespaces/doomed/finalize')).status).toBe(405);
    await http(r, 'PATCH', '/api/v1/namespaces/doomed/configmaps/held', { metadata: { finalizers: null } }, { 'content-type': 'application/merge-patch+json' });
    await waitFor('namespace doomed to be gone', async () => ((await http(r, 'GET', '/api/v1/namespaces/doomed')).status === 404 ? true : undefined), 30_000);
  });

  it('leaves no object in a namespace the controller deleted while creates raced it (the fence holds)', async () => {
    expect((await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: 'race' } })).status).toBe(201);
    let created = 0;
    const endings: string[] = [];
    const creator = async (resource: string, id: number) => {
      for (let j = 0; ; j++) {
        const res = await http(r, 'POST', `/api/v1/namespaces/race/${resource}`, { metadata: { name: `c${id}-${j}` } });
        if (res.status !== 201) {
          endings.push(`${res.status} ${res.json.reason}`);
          return;
        }
        created++;
      }
    };
    const creators = [0, 1, 2, 3].map((i) => creator(i % 2 ? 'secrets' : 'configmaps', i));
    await waitFor('20 creates before the deletion', async () => (created >= 20 ? true : undefined));
    expect((await http(r, 'DELETE', '/api/v1/namespaces/race')).status).toBe(200);
    await Promise.all(creators);
    for (const e of endings) expect(['403 Forbidden', '404 NotFound']).toContain(e);
    await waitFor('namespace race to be gone', async () => ((await http(r, 'GET', '/api/v1/namespaces/race')).status === 404 ? true : undefined), 30_000);
    for (const resource of ['configmaps', 'secrets']) {
      expect((await http(r, 'GET', `/api/v1/namespaces/race/${resource}`)).json.items, resource).toEqual([]);
    }
  });

  it('kubectl delete namespace waits until the controller finished', async () => {
    await must(r, 'create', 'namespace', 'quick');
    await must(r, '-n', 'quick', 'create', 'configmap', 'x');
    const out = await must(r, 'delete', 'namespace', 'quick', '--timeout=30s');
    expect(out).toContain('namespace "quick" deleted');
    expect((await http(r, 'GET', '/api/v1/namespaces/quick')).status).toBe(404);
  });

  it('expires events EVENT_TTL_SECONDS after their last write, keeping fresh ones', async () => {
    const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
    const event = (name: string, at: string) => http(r, 'POST', '/api/v1/namespaces/svc/events', {
      metadata: { name }, involvedObject: { kind: 'Pod', namespace: 'svc', name: 'x' }, reason: 'Test', message: name, type: 'Normal',
      firstTimestamp: at, lastTimestamp: at, count: 1, source: { component: 'e2e' },
    });
    expect((await event('old-one', stamp(Date.now() - 60_000))).status).toBe(201);
    expect((await event('fresh-one', stamp(Date.now()))).status).toBe(201);
    expect(await must(r, '-n', 'svc', 'get', 'events')).toContain('fresh-one');
    // TTL 20 s: a sweep every 10 s.
    await waitFor('the old event to expire', async () => ((await http(r, 'GET', '/api/v1/namespaces/svc/events/old-one')).status === 404 ? true : undefined), 25_000);
    expect((await http(r, 'GET', '/api/v1/namespaces/svc/events/fresh-one')).status).toBe(200);
  });
});
