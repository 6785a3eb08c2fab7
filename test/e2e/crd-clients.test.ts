// Custom resources through clients and at scale: @kubernetes/client-node's CustomObjectsApi and an
// informer, the Python client's CustomObjectsApi list and watch, 1,000 watchers on a custom type (every
// event once, in order), watch-cache replicas, several served versions, and how soon a new CRD is served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { CustomObjectsApi, KubeConfig, makeInformer, type KubernetesObject } from '@kubernetes/client-node';
import { http, startTestGateway, stopTestGateway, type Running } from './fixtures';
import { httpWatch, wsWatch, type OpenWatch } from './watch-streams';

let r: Running;
beforeAll(async () => {
  r = await startTestGateway({ vars: { ENABLE_TEST_HOOKS: 'true', EVENT_RETENTION_COUNT: '40' } });
  await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: 'w' } });
}, 120_000);
afterAll(() => stopTestGateway(r));

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function widgets(versions = [{ name: 'v1', served: true, storage: true }]) {
  return {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com', scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: versions.map((v) => ({
        ...v,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
      })),
    },
  };
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

const BASE = '/apis/example.com/v1/namespaces/w/widgets';

describe('custom resources through clients', () => {
  it('a new CRD is served at once: the first request after the create finds its type', async () => {
    // No polling: the create answers once this gateway serves the type (kube's CRD handler is ready as the
    // Established condition is set), so the very next request must not 404.
    expect((await http(r, 'POST', CRD_PATH, widgets())).status).toBe(201);
    expect((await http(r, 'GET', BASE)).status).toBe(200);
  });

  it('@kubernetes/client-node CustomObjectsApi and an informer', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(r.kubeconfig);
    const api = kc.makeApiClient(CustomObjectsApi);
    const created = await api.createNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'w', plural: 'widgets', body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'a' }, spec: { size: 1 } } }) as KubernetesObject & { spec: unknown };
    expect(created.spec).toEqual({ size: 1 });
    const informer = makeInformer<KubernetesObject>(kc, BASE, () => api.listNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'w', plural: 'widgets' }) as never);
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add:${o.metadata!.name}`));
    informer.on('update', (o) => seen.push(`update:${o.metadata!.name}`));
    informer.on('delete', (o) => seen.push(`delete:${o.metadata!.name}`));
    await informer.start();
    try {
      await http(r, 'POST', BASE, { metadata: { name: 'b' }, spec: { size: 2 } });
      await http(r, 'PATCH', `${BASE}/a`, { spec: { size: 3 } }, { 'content-type': 'application/merge-patch+json' });
      await http(r, 'DELETE', `${BASE}/b`);
      await waitFor('the informer to follow', async () => (seen.length >= 4 ? true : undefined));
      expect(seen).toEqual(['add:a', 'add:b', 'update:a', 'delete:b']);
      expect(informer.list('w').map((o) => o.metadata!.name)).toEqual(['a']);
    } finally {
      await informer.stop();
    }
  });

  it('the Python client lists and watches custom objects', async () => {
    const script = `
import sys, json
from kubernetes import client, config, watch
config.load_kube_config(config_file=sys.argv[1])
api = client.CustomObjectsApi()
items = api.list_namespaced_custom_object('example.com', 'v1', 'w', 'widgets')['items']
print(json.dumps([i['metadata']['name'] for i in items]))
rv = api.list_namespaced_custom_object('example.com', 'v1', 'w', 'widgets')['metadata']['resourceVersion']
api.create_namespaced_custom_object('example.com', 'v1', 'w', 'widgets', {'apiVersion': 'example.com/v1', 'kind': 'Widget', 'metadata': {'name': 'py'}, 'spec': {'size': 7}})
for ev in watch.Watch().stream(api.list_namespaced_custom_object, 'example.com', 'v1', 'w', 'widgets', resource_version=rv, timeout_seconds=5):
    print(json.dumps([ev['type'], ev['object']['metadata']['name'], ev['object']['spec']['size']]))
    break
`;
    const out = await new Promise<string>((resolve, reject) => {
      execFile('/usr/bin/python3', ['-c', script, r.kubeconfig], { timeout: 30_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
    });
    expect(out.trim().split('\n')).toEqual(['["a"]', '["ADDED", "py", 7]']);
  });

  it('1,000 watchers of a custom type get every event once, in order', async () => {
    const head = (await http(r, 'GET', BASE)).json.metadata.resourceVersion;
    const path = `${BASE}?watch=true&resourceVersion=${head}`;
    const watchers: OpenWatch[] = [];
    const opening: Promise<OpenWatch>[] = [];
    for (let i = 0; i < 500; i++) {
      opening.push(wsWatch(r, path), httpWatch(r, path));
      if (opening.length >= 200) watchers.push(...(await Promise.all(opening.splice(0))));
    }
    watchers.push(...(await Promise.all(opening)));
    const rvs: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await http(r, 'POST', BASE, { metadata: { name: `f-${i}` }, spec: { size: i } });
      rvs.push(res.json.metadata.resourceVersion);
    }
    for (const w of watchers) {
      await w.log.until((e) => e.length >= rvs.length, 'all events', 60_000);
      expect(w.log.events.map((e) => e.object.metadata.resourceVersion)).toEqual(rvs);
      w.close();
    }
  }, 180_000);

  it('several served versions with conversion None: each is served, objects carry the asked version', async () => {
    const crd = (await http(r, 'GET', `${CRD_PATH}/widgets.example.com`)).json;
    const two = widgets([{ name: 'v1', served: true, storage: true }, { name: 'v1beta1', served: true, storage: false, deprecated: true } as never]);
    crd.spec.versions = two.spec.versions;
    const res = await http(r, 'PUT', `${CRD_PATH}/widgets.example.com`, crd);
    expect(res.status).toBe(200);
    const beta = await waitFor('v1beta1', async () => {
      const l = await http(r, 'GET', '/apis/example.com/v1beta1/namespaces/w/widgets/a');
      return l.status === 200 ? l.json : undefined;
    });
    expect(beta.apiVersion).toBe('example.com/v1beta1');
    expect((await http(r, 'GET', '/apis/example.com/v1beta1/namespaces/w/widgets/a')).headers.get('warning'))
      .toBe('299 - "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"');
    expect((await http(r, 'GET', '/apis/example.com')).json.versions.map((v: { version: string }) => v.version)).toEqual(['v1', 'v1beta1']);
    const list = (await http(r, 'GET', '/apis/example.com/v1beta1/namespaces/w/widgets')).json;
    expect(list.apiVersion).toBe('example.com/v1beta1');
    expect(new Set(list.items.map((i: { apiVersion: string }) => i.apiVersion))).toEqual(new Set(['example.com/v1beta1']));
    const head = list.metadata.resourceVersion;
    const watchers = [
      (await httpWatch(r, `/apis/example.com/v1beta1/namespaces/w/widgets?watch=true&resourceVersion=${head}`)).log,
      (await wsWatch(r, `/apis/example.com/v1beta1/namespaces/w/widgets?watch=true&resourceVersion=${head}`, { headers: { 'x-edgeplane-location': 'store' } })).log,
    ];
    const made = await http(r, 'POST', '/apis/example.com/v1beta1/namespaces/w/widgets', { apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { name: 'beta' } });
    for (const w of watchers) {
      await w.until((e) => e.length >= 1, 'the v1beta1 event');
      expect([w.events[0].type, w.events[0].object.apiVersion, w.events[0].object.metadata.name]).toEqual(['ADDED', 'example.com/v1beta1', 'beta']);
    }
    expect(made.status).toBe(201);
    expect(made.json.apiVersion).toBe('example.com/v1beta1');
    expect((await http(r, 'GET', `${BASE}/beta`)).json.apiVersion).toBe('example.com/v1');
  });

  it('cluster-scoped types, selectableFields, CEL rules enforced, and a finalizer holding a terminating CRD', async () => {
    const gadgets = {
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com', scope: 'Cluster',
        names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [{
          name: 'v1', served: true, storage: true,
          selectableFields: [{ jsonPath: '.spec.color' }],
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.color != "red"' }], properties: { color: { type: 'string' } } } } } },
        }],
      },
    };
    const made = await http(r, 'POST', CRD_PATH, gadgets);
    expect(made.status).toBe(201);
    expect(made.headers.get('warning')).toBeNull();
    const base = '/apis/example.com/v1/gadgets';
    const g1 = await waitFor('gadgets', async () => {
      const res = await http(r, 'POST', base, { metadata: { name: 'g1', finalizers: ['example.com/hold'] }, spec: { color: 'blue' } });
      return res.status === 201 ? res : undefined;
    });
    expect(g1.json.metadata.namespace).toBeUndefined();
    expect(g1.headers.get('warning')).toBeNull();
    const red = await http(r, 'POST', base, { metadata: { name: 'red' }, spec: { color: 'red' } });
    expect([red.status, red.json.message]).toEqual([422, 'Gadget.example.com "red" is invalid: spec: Invalid value: "object": failed rule: self.color != "red"']);
    await http(r, 'POST', base, { metadata: { name: 'g2' }, spec: { color: 'green' } });
    const green = await http(r, 'GET', `${base}?fieldSelector=spec.color%3Dgreen`);
    expect(green.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['g2']);
    expect((await http(r, 'GET', '/apis/example.com/v1/namespaces/w/gadgets')).status).toBe(404);

    // g1's finalizer holds the CRD in Terminating: creates are refused, discovery shows fewer verbs.
    const del = await http(r, 'DELETE', `${CRD_PATH}/gadgets.example.com`);
    expect(del.status).toBe(200);
    const crd = (await http(r, 'GET', `${CRD_PATH}/gadgets.example.com`)).json;
    expect(crd.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    expect(crd.status.conditions.find((c: { type: string }) => c.type === 'Terminating')).toMatchObject({ status: 'True', reason: 'InstanceDeletionCheck' });
    const refused = await waitFor('terminating type', async () => {
      const res = await http(r, 'POST', base, { metadata: { name: 'g3' } });
      return res.status === 405 ? res : undefined;
    });
    expect(refused.json.message).toBe('create not allowed while custom resource definition is terminating');
    const disc = (await http(r, 'GET', '/apis/example.com/v1')).json.resources.find((x: { name: string }) => x.name === 'gadgets');
    expect(disc.verbs).toEqual(['delete', 'deletecollection', 'get', 'list', 'watch']);
    expect((await http(r, 'GET', `${base}/g2`)).status).toBe(404);
    // Dropping the finalizer lets the cleanup finish: the object, then the CRD and its type are gone.
    const patched = await http(r, 'PATCH', `${base}/g1`, { metadata: { finalizers: null } }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.status).toBe(200);
    expect((await http(r, 'GET', `${CRD_PATH}/gadgets.example.com`)).status).toBe(404);
    expect((await http(r, 'GET', base)).status).toBe(404);
  });

  it('the custom store restarts like any other: exact resume, then 410 once compacted', async () => {
    const from = (await http(r, 'GET', BASE)).json.metadata.resourceVersion;
    const rvs: string[] = [];
    for (let i = 0; i < 3; i++) rvs.push((await http(r, 'POST', BASE, { metadata: { name: `r-${i}` } })).json.metadata.resourceVersion);
    expect((await http(r, 'POST', '/debug/stores/example.com/widgets/abort')).status).toBe(200);
    const w = (await httpWatch(r, `${BASE}?watch=true&resourceVersion=${from}`, { 'x-edgeplane-location': 'store' })).log;
    await w.until((e) => e.length >= 3, 'the three writes after the restart');
    expect(w.events.map((e) => [e.type, e.object.metadata.resourceVersion])).toEqual(rvs.map((rv) => ['ADDED', rv]));
    for (let i = 0; i < 45; i++) await http(r, 'POST', BASE, { metadata: { name: `z-${i}` } });
    const gone = (await httpWatch(r, `${BASE}?watch=true&resourceVersion=${from}`, { 'x-edgeplane-location': 'store' })).log;
    await gone.until((e) => e.length >= 1, 'the 410');
    expect(gone.events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
  });
});
