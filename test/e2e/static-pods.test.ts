// Static pods end to end: the simulated kubelets read STATIC_POD_URL (here a local HTTP server the test
// controls) and publish mirror pods through the real gateway; kubectl sees them, cannot unmake them, and
// deleting one brings it back; a changed manifest replaces it, a removed one deletes it; a huge or malformed
// manifest changes nothing else (static-pods-hostile.test.ts measures another tenant's latency meanwhile).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';

const manifest = (image: string) => `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  containers:
  - name: web
    image: ${image}
---
apiVersion: v1
kind: Pod
metadata: {name: proxy, namespace: kube-system}
spec:
  containers: [{name: proxy, image: envoy}]
`;

describe('static pods', () => {
  let r: Running;
  let server: Server;
  let body = manifest('nginx:1.27');
  let reads = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      reads++;
      res.writeHead(200, { 'content-type': 'application/yaml' });
      res.end(body);
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/manifests.yaml`;
    r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '2', STATIC_POD_URL: url, STATIC_POD_CHECK_SECONDS: '1' } });
  });
  afterAll(async () => {
    await stopTestGateway(r);
    await new Promise((ok) => server.close(ok));
  });

  const get = async (ns: string, name: string) => {
    const res = await http(r, 'GET', `/api/v1/namespaces/${ns}/pods/${name}`);
    return res.status === 200 ? res.json : undefined;
  };
  const running = (ns: string, name: string, pred: (p: any) => boolean = () => true) =>
    waitFor(`${ns}/${name} running`, async () => {
      const p = await get(ns, name);
      return p?.status?.phase === 'Running' && !p.metadata.deletionTimestamp && pred(p) ? p : undefined;
    });

  it('publishes a mirror pod per node, as kube\'s kubelet does, and reports its status', async () => {
    const web1 = await running('default', 'web-node-1');
    await running('default', 'web-node-2');
    await running('kube-system', 'proxy-node-1');
    const node = (await http(r, 'GET', '/api/v1/nodes/node-1')).json;
    expect(web1.spec.nodeName).toBe('node-1');
    expect(web1.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: node.metadata.uid, controller: true }]);
    const a = web1.metadata.annotations;
    expect(a['kubernetes.io/config.source']).toBe('http');
    expect(a['kubernetes.io/config.mirror']).toMatch(/^[0-9a-f]{32}$/);
    expect(a['kubernetes.io/config.hash']).toBe(a['kubernetes.io/config.mirror']);
    expect(a['kubernetes.io/config.seen']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(web1.status.podIP).toMatch(/^10\.244\.1\./);
    expect((await kubectl(r, ['get', 'pods', '-o', 'wide'])).stdout).toMatch(/web-node-1\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.1\.\d+\s+node-1/);
  }, 60_000);

  it('refuses to add, change or remove the mirror annotation, with kube\'s messages', async () => {
    const change = await kubectl(r, ['annotate', 'pod', 'web-node-1', 'kubernetes.io/config.mirror=forged', '--overwrite']);
    expect(change.code).not.toBe(0);
    expect(change.stderr).toContain('The Pod "web-node-1" is invalid: metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not remove or update mirror pod annotation');
    const remove = await kubectl(r, ['annotate', 'pod', 'web-node-1', 'kubernetes.io/config.mirror-']);
    expect(remove.stderr).toContain('Forbidden: may not remove or update mirror pod annotation');
    await kubectl(r, ['run', 'plain', '--image=nginx']);
    const add = await kubectl(r, ['annotate', 'pod', 'plain', 'kubernetes.io/config.mirror=x']);
    expect(add.stderr).toContain('The Pod "plain" is invalid: metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod annotation');
    const unbound = await http(r, 'POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'unbound', annotations: { 'kubernetes.io/config.mirror': 'x' } }, spec: { containers: [{ name: 'c', image: 'x' }] },
    });
    expect(unbound.status).toBe(422);
    expect(unbound.json.message).toBe('Pod "unbound" is invalid: metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set');
    // Other annotations change as on any pod.
    expect((await kubectl(r, ['annotate', 'pod', 'web-node-1', 'note=ok'])).code).toBe(0);
  }, 60_000);

  it('brings back a mirror pod deleted through the API, and removes mirror pods no manifest names', async () => {
    const before = await running('default', 'web-node-2');
    expect((await kubectl(r, ['delete', 'pod', 'web-node-2', '--wait=false'])).code).toBe(0);
    const after = await running('default', 'web-node-2', (p) => p.metadata.uid !== before.metadata.uid);
    expect(after.metadata.annotations['kubernetes.io/config.seen']).toBe(before.metadata.annotations['kubernetes.io/config.seen']);
    const forged = await http(r, 'POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'forged', annotations: { 'kubernetes.io/config.mirror': 'x' } },
      spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'x' }] },
    });
    expect(forged.status).toBe(201);
    await waitFor('the orphaned mirror pod to be deleted', async () => ((await get('default', 'forged')) ? undefined : true));
  }, 60_000);

  it('replaces mirror pods when the manifest changes and keeps them through a bad read', async () => {
    const old = await get('default', 'web-node-1');
    body = manifest('nginx:1.28');
    const replaced = await running('default', 'web-node-1', (p) => p.spec.containers[0].image === 'nginx:1.28');
    expect(replaced.metadata.uid).not.toBe(old.metadata.uid);
    expect(replaced.metadata.annotations['kubernetes.io/config.mirror']).not.toBe(old.metadata.annotations['kubernetes.io/config.mirror']);

    // Hostile manifests: 4 MiB (refused unread), then malformed documents beside a good one. Nothing else stalls.
    body = 'x'.repeat(4 * 1024 * 1024);
    const from = reads;
    await waitFor('two reads of the huge manifest', async () => (reads >= from + 2 ? true : undefined));
    expect((await get('default', 'web-node-1'))?.metadata.uid).toBe(replaced.metadata.uid);
    expect((await kubectl(r, ['get', 'pods', '-A'])).code).toBe(0);
    body = `{"apiVersion": "v1", "kind": "Pod"\n---\nkind: Service\n---\n${manifest('nginx:1.28').split('---')[1]}`;
    await waitFor('web-node-1 to go with its manifest', async () => ((await get('default', 'web-node-1')) ? undefined : true));
    expect((await get('kube-system', 'proxy-node-1'))?.metadata.annotations['kubernetes.io/config.mirror']).toBeDefined();

    body = '';
    await waitFor('every mirror pod to go', async () => {
      const pods = (await http(r, 'GET', '/api/v1/pods')).json.items;
      return pods.some((p: any) => p.metadata.annotations?.['kubernetes.io/config.mirror']) ? undefined : true;
    });
  }, 90_000);

});
