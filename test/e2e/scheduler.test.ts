// The scheduler, simulated kubelets and node lifecycle end to end: kubectl against the real gateway with
// the controller manager running 3 simulated nodes (short node-loss settings).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';

async function must(r: Running, ...args: string[]) {
  const res = await kubectl(r, args);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

const list = async (r: Running, path: string): Promise<any[]> => (await http(r, 'GET', path)).json.items;
const podsOf = (r: Running, ns: string, selector = '') => list(r, `/api/v1/namespaces/${ns}/pods${selector ? `?labelSelector=${encodeURIComponent(selector)}` : ''}`);
const nodeOf = (p: any): string | undefined => p.spec.nodeName;
const running = (p: any) => p.status.phase === 'Running' && !p.metadata.deletionTimestamp && p.status.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');
const eventsFor = (r: Running, ns: string, name: string) => list(r, `/api/v1/namespaces/${ns}/events?fieldSelector=${encodeURIComponent(`involvedObject.name=${name}`)}`);

async function storeWrites(r: Running): Promise<number> {
  const text = (await http(r, 'GET', '/metrics')).text;
  return text.split('\n').filter((l) => l.startsWith('edgeplane_store_writes_total{')).reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
}

/** Waits for `n` Running, Ready pods matching `selector` in `ns`; answers them. */
function allRunning(r: Running, ns: string, selector: string, n: number, ms = 30_000) {
  return waitFor(`${n} running pods ${selector} in ${ns}`, async () => {
    const pods = (await podsOf(r, ns, selector)).filter((p) => !p.metadata.deletionTimestamp);
    return pods.length === n && pods.every(running) ? pods : undefined;
  }, ms);
}

const SETTINGS = { CONTROLLERS: 'on', SIMULATED_NODES: '3', NODE_MONITOR_GRACE_SECONDS: '4', DEFAULT_TOLERATION_SECONDS: '3' };

describe('scheduler and simulated nodes', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: SETTINGS });
    await waitFor('3 Ready nodes', async () => {
      const nodes = await list(r, '/api/v1/nodes');
      return nodes.length === 3 && nodes.every((n) => n.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')) ? true : undefined;
    });
  }, 60_000);
  afterAll(() => stopTestGateway(r));

  it('registers nodes that renew their Leases in kube-node-lease', async () => {
    const out = await must(r, 'get', 'nodes');
    expect(out).toMatch(/node-1\s+Ready\s+<none>\s+\S+\s+v1\.32\.0-edgeplane/);
    const lease = (await http(r, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-2')).json;
    expect(lease.spec).toMatchObject({ holderIdentity: 'node-2', leaseDurationSeconds: 40 });
    expect(lease.metadata.ownerReferences[0]).toMatchObject({ kind: 'Node', name: 'node-2' });
    const node = (await http(r, 'GET', '/api/v1/nodes/node-2')).json;
    expect(node.spec.podCIDR).toBe('10.244.2.0/24');
    expect(node.status.allocatable).toMatchObject({ cpu: '4', memory: '8Gi', pods: '110' });
  });

  it('schedules a Deployment\'s pods across the nodes and runs them with IPs and events', async () => {
    const t0 = Date.now();
    const w0 = await storeWrites(r);
    await must(r, 'create', 'deployment', 'web', '--image=nginx', '--replicas=3');
    const pods = await allRunning(r, 'default', 'app=web', 3);
    const ms = Date.now() - t0;
    console.log(`3 replicas: all Running after ${ms} ms, ${(await storeWrites(r)) - w0} store writes`);
    expect(new Set(pods.map(nodeOf)).size).toBe(3); // spread: one per node
    for (const p of pods) {
      const i = nodeOf(p)!.slice('node-'.length);
      expect(p.status.podIP).toMatch(new RegExp(`^10\\.244\\.${i}\\.\\d+$`));
      expect(p.status.conditions.find((c: any) => c.type === 'PodScheduled')).toMatchObject({ status: 'True' });
      // DefaultTolerationSeconds admission.
      expect(p.spec.tolerations).toEqual(expect.arrayContaining([
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 3 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 3 },
      ]));
    }
    const name = pods[0].metadata.name;
    // kwok's fast stage: one status write to Running, and the scheduler's event only.
    const events = await waitFor('the Scheduled event', async () => {
      const list = await eventsFor(r, 'default', name);
      return list.some((e) => e.reason === 'Scheduled') ? list : undefined;
    });
    expect(events.map((e) => e.reason)).toEqual(['Scheduled']);
    expect(await must(r, 'describe', 'pod', name)).toMatch(new RegExp(`Normal\\s+Scheduled\\s+\\S+\\s+default-scheduler\\s+Successfully assigned default/${name} to ${nodeOf(pods[0])}`));
  });

  it('gives a pod annotated simulate-kubelet=full a kubelet\'s ContainerCreating and container events', async () => {
    await http(r, 'POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'full', labels: { app: 'full' }, annotations: { 'edgeplane.dev/simulate-kubelet': 'full' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx' }] },
    });
    const [p] = await allRunning(r, 'default', 'app=full', 1);
    const describe = await waitFor('the kubelet events in describe', async () => {
      const out = await must(r, 'describe', 'pod', 'full');
      return /Started/.test(out) ? out : undefined;
    });
    expect(describe).toMatch(new RegExp(`Normal\\s+Scheduled\\s+\\S+\\s+default-scheduler\\s+Successfully assigned default/full to ${nodeOf(p)}`));
    expect(describe).toMatch(/Normal\s+Pulling\s+\S+\s+kubelet\s+Pulling image "nginx"/);
    expect(describe).toMatch(/Normal\s+Created\s+\S+\s+kubelet\s+Created container: nginx/);
    expect(describe).toMatch(/Normal\s+Started\s+\S+\s+kubelet\s+Started container nginx/);
    expect(describe).toMatch(/Status:\s+Running/);
    // A pod without a controller on node-1 would stop the drain test below (kubectl drain refuses it without --force).
    await must(r, 'delete', 'pod', 'full', '--grace-period=0', '--force');
  });

  it('answers a binding as BindingREST: 201 Success, then 409 once bound', async () => {
    const created = await http(r, 'POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'manual' }, spec: { schedulerName: 'my-scheduler', containers: [{ name: 'c', image: 'nginx' }] },
    });
    expect(created.status).toBe(201);
    // A pod for another scheduler is left alone: a later default-scheduler pod is placed, it is not.
    await http(r, 'POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'after' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await waitFor('pod "after" to be bound', async () => ((await http(r, 'GET', '/api/v1/namespaces/default/pods/after')).json.spec.nodeName ? true : undefined));
    expect((await http(r, 'GET', '/api/v1/namespaces/default/pods/manual')).json.spec.nodeName).toBeUndefined();
    expect((await eventsFor(r, 'default', 'manual')).filter((e) => e.reason === 'FailedScheduling')).toEqual([]);

    const binding = (node: string, extra: object = {}) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'manual', ...extra }, target: { kind: 'Node', name: node } });
    const wrongUid = await http(r, 'POST', '/api/v1/namespaces/default/pods/manual/binding', binding('node-1', { uid: 'nope' }));
    expect(wrongUid.status).toBe(409);
    const ok = await http(r, 'POST', '/api/v1/namespaces/default/pods/manual/binding', binding('node-1'));
    expect(ok.status).toBe(201);
    expect(ok.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const bound = (await http(r, 'GET', '/api/v1/namespaces/default/pods/manual')).json;
    expect(bound.spec.nodeName).toBe('node-1');
    const again = await http(r, 'POST', '/api/v1/namespaces/default/pods/manual/binding', binding('node-2'));
    expect(again.status).toBe(409);
    expect(again.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Conflict', code: 409,
      message: 'Operation cannot be fulfilled on pods/binding "manual": pod manual is already assigned to node "node-1"',
      details: { name: 'manual', kind: 'pods/binding' },
    });
    expect((await http(r, 'GET', '/api/v1/namespaces/default/pods/manual')).json.metadata.resourceVersion).toBe(bound.metadata.resourceVersion);
    const missing = await http(r, 'POST', '/api/v1/namespaces/default/pods/manual/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'manual' }, target: {} });
    expect(missing.status).toBe(422);
    // Binding needs `create pods/binding`: the edit role does not have it.
    await must(r, 'create', 'serviceaccount', 'editor');
    await must(r, 'create', 'rolebinding', 'editor', '--clusterrole=edit', '--serviceaccount=default:editor');
    const token = (await must(r, 'create', 'token', 'editor')).trim();
    const denied = await http(r, 'POST', '/api/v1/namespaces/default/pods/after/binding', binding('node-1'), { authorization: `Bearer ${token}` });
    expect(denied.status).toBe(403);
    await must(r, 'delete', 'pod', 'manual', 'after', '--wait=false');
  });

  it('leaves a pod that fits nowhere Pending with kube\'s FailedScheduling message', async () => {
    await http(r, 'POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'huge' }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '64' } } }] },
    });
    const message = '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    const event = await waitFor('a FailedScheduling event', async () => (await eventsFor(r, 'default', 'huge')).find((e) => e.reason === 'FailedScheduling'));
    expect(event).toMatchObject({ type: 'Warning', message, source: { component: 'default-scheduler' } });
    const pod = await waitFor('PodScheduled=False', async () => {
      const p = (await http(r, 'GET', '/api/v1/namespaces/default/pods/huge')).json;
      return p.status.conditions?.some((c: any) => c.type === 'PodScheduled' && c.status === 'False') ? p : undefined;
    });
    expect(pod.status.phase).toBe('Pending');
    expect(pod.spec.nodeName).toBeUndefined();
    expect(pod.status.conditions.find((c: any) => c.type === 'PodScheduled')).toMatchObject({ reason: 'Unschedulable', message });
    expect(await must(r, 'describe', 'pod', 'huge')).toMatch(/Warning\s+FailedScheduling\s+\d+s(?: \(x\d+ over \d+s\))?\s+default-scheduler\s+0\/3 nodes are available: 3 Insufficient cpu\./);
    await must(r, 'delete', 'pod', 'huge');
  });

  it('follows a nodeSelector to a labelled node', async () => {
    await must(r, 'label', 'node', 'node-3', 'disk=ssd');
    await http(r, 'POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'picky', labels: { app: 'picky' } }, spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'c', image: 'nginx' }] },
    });
    const [p] = await allRunning(r, 'default', 'app=picky', 1);
    expect(nodeOf(p)).toBe('node-3');
  });

  it('deletes a bound pod gracefully: Terminating until its kubelet has stopped it', async () => {
    await http(r, 'POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'slow', labels: { app: 'slow' }, annotations: { 'edgeplane.dev/simulate-termination-seconds': '4', 'edgeplane.dev/simulate-kubelet': 'full' } },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    await allRunning(r, 'default', 'app=slow', 1);
    const del = await http(r, 'DELETE', '/api/v1/namespaces/default/pods/slow');
    expect(del.status).toBe(200);
    expect(del.json.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(Date.parse(del.json.metadata.deletionTimestamp) - Date.now()).toBeGreaterThan(25_000);
    expect(await must(r, 'get', 'pod', 'slow')).toMatch(/slow\s+1\/1\s+Terminating/);
    const t0 = Date.now();
    await must(r, 'delete', 'pod', 'slow', '--timeout=20s'); // waits for the kubelet
    expect(Date.now() - t0).toBeGreaterThan(1_000);
    expect((await http(r, 'GET', '/api/v1/namespaces/default/pods/slow')).status).toBe(404);
    expect((await eventsFor(r, 'default', 'slow')).some((e) => e.reason === 'Killing' && e.message === 'Stopping container c')).toBe(true);
  });

  it('evicts a pod through pods/eviction: 201 Success, then the pod terminates', async () => {
    await http(r, 'POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'evictee', labels: { app: 'evictee' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    await allRunning(r, 'default', 'app=evictee', 1);
    const eviction = (name: string) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } });
    const wrong = await http(r, 'POST', '/api/v1/namespaces/default/pods/evictee/eviction', eviction('other'));
    expect(wrong.status).toBe(400);
    expect(wrong.json.message).toBe('name in URL does not match name in Eviction object');
    expect((await http(r, 'GET', '/api/v1/namespaces/default/pods/evictee')).json.metadata.deletionTimestamp).toBeUndefined();
    const res = await http(r, 'POST', '/api/v1/namespaces/default/pods/evictee/eviction', eviction('evictee'));
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    await waitFor('the evicted pod to be gone', async () => ((await http(r, 'GET', '/api/v1/namespaces/default/pods/evictee')).status === 404 ? true : undefined));
    const resources = (await http(r, 'GET', '/api/v1')).json.resources;
    expect(resources.find((x: any) => x.name === 'pods/eviction')).toEqual({ name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
  });

  it('keeps new pods off a cordoned node, and drains it', async () => {
    await must(r, 'cordon', 'node-1');
    expect(await must(r, 'get', 'node', 'node-1')).toMatch(/Ready,SchedulingDisabled/);
    await waitFor('the unschedulable taint', async () => ((await http(r, 'GET', '/api/v1/nodes/node-1')).json.spec.taints?.some((t: any) => t.key === 'node.kubernetes.io/unschedulable') ? true : undefined));
    const before = new Set((await podsOf(r, 'default', 'app=web')).map((p) => p.metadata.name));
    await must(r, 'scale', 'deployment', 'web', '--replicas=6');
    const pods = await allRunning(r, 'default', 'app=web', 6);
    expect(pods.filter((p) => !before.has(p.metadata.name)).map(nodeOf)).not.toContain('node-1');

    const drained = await kubectl(r, ['drain', 'node-1', '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=30s']);
    expect(drained.code, drained.stderr).toBe(0);
    expect(drained.stdout).toContain('node/node-1 drained');
    // Through the eviction API, which discovery lists.
    expect(drained.stdout).toMatch(/evicting pod default\/web-/);
    expect(drained.stdout).toMatch(/pod\/web-\S+ evicted/);
    const after = await allRunning(r, 'default', 'app=web', 6);
    expect(after.map(nodeOf)).not.toContain('node-1');
    await must(r, 'uncordon', 'node-1');
    await waitFor('the unschedulable taint to go', async () => (!(await http(r, 'GET', '/api/v1/nodes/node-1')).json.spec.taints?.length ? true : undefined));
  });

  it('marks a lost node Unknown, taints it, evicts its pods and reschedules them; the node comes back', async () => {
    await must(r, 'scale', 'deployment', 'web', '--replicas=3');
    let pods = await allRunning(r, 'default', 'app=web', 3);
    // Make sure node-2 runs one of them.
    if (!pods.some((p) => nodeOf(p) === 'node-2')) {
      await must(r, 'scale', 'deployment', 'web', '--replicas=6');
      pods = await allRunning(r, 'default', 'app=web', 6);
    }
    const victims = pods.filter((p) => nodeOf(p) === 'node-2').map((p) => p.metadata.name);
    expect(victims.length).toBeGreaterThan(0);
    const replicas = pods.length;
    // Stopping a node is for admins only (a non-resource URL under RBAC).
    const editor = (await must(r, 'create', 'token', 'editor')).trim();
    const refused = await http(r, 'POST', '/_edgeplane/nodes/node-2/stop', undefined, { authorization: `Bearer ${editor}` });
    expect(refused.status).toBe(403);
    const stopped = await http(r, 'POST', '/_edgeplane/nodes/node-2/stop');
    expect(stopped.status).toBe(200);
    expect(stopped.json.metadata.annotations['edgeplane.dev/simulate']).toBe('stopped');
    const node = await waitFor('node-2 Ready=Unknown', async () => {
      const n = (await http(r, 'GET', '/api/v1/nodes/node-2')).json;
      return n.status.conditions.find((c: any) => c.type === 'Ready').status === 'Unknown' ? n : undefined;
    });
    expect(node.status.conditions.find((c: any) => c.type === 'Ready')).toMatchObject({ reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
    expect(await must(r, 'get', 'node', 'node-2')).toMatch(/node-2\s+NotReady/);
    const tainted = await waitFor('unreachable taints', async () => {
      const t = (await http(r, 'GET', '/api/v1/nodes/node-2')).json.spec.taints ?? [];
      return t.length === 2 ? t : undefined;
    });
    expect(tainted.map((t: any) => `${t.key}:${t.effect}`)).toEqual(['node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute']);
    // Evicted after the 3 s toleration: Terminating (the stopped kubelet cannot finish them), replaced elsewhere.
    await waitFor('the pods on node-2 to be evicted', async () => {
      const left = await podsOf(r, 'default', 'app=web');
      return victims.every((v) => left.find((p) => p.metadata.name === v)?.metadata.deletionTimestamp) ? true : undefined;
    });
    const evicted = (await http(r, 'GET', `/api/v1/namespaces/default/pods/${victims[0]}`)).json;
    expect(evicted.status.conditions.find((c: any) => c.type === 'DisruptionTarget')).toMatchObject({ status: 'True', reason: 'DeletionByTaintManager' });
    const replaced = await allRunning(r, 'default', 'app=web', replicas);
    expect(replaced.map(nodeOf)).not.toContain('node-2');
    expect((await eventsFor(r, 'default', victims[0])).some((e) => e.reason === 'TaintManagerEviction' && e.message === `Marking for deletion Pod default/${victims[0]}`)).toBe(true);

    // Back: Ready again, taints gone, and its kubelet finishes the Terminating pods.
    expect((await http(r, 'POST', '/_edgeplane/nodes/node-2/start')).status).toBe(200);
    await waitFor('node-2 Ready without taints', async () => {
      const n = (await http(r, 'GET', '/api/v1/nodes/node-2')).json;
      return n.status.conditions.find((c: any) => c.type === 'Ready').status === 'True' && !n.spec.taints?.length ? true : undefined;
    });
    await waitFor('the evicted pods to be gone', async () => {
      const names = new Set((await podsOf(r, 'default', 'app=web')).map((p) => p.metadata.name));
      return victims.every((v) => !names.has(v)) ? true : undefined;
    });
    // The healthy nodes, renewing their Leases, were never taken for lost.
    for (const healthy of ['node-1', 'node-3']) {
      expect((await eventsFor(r, 'default', healthy)).filter((e) => e.reason === 'NodeNotReady')).toEqual([]);
    }
    expect((await eventsFor(r, 'default', 'node-2')).filter((e) => e.reason === 'NodeNotReady')).toHaveLength(1);
  }, 60_000);

  it('brings 100 replicas to Running (measured)', async () => {
    const t0 = Date.now();
    const w0 = await storeWrites(r);
    await must(r, 'create', 'deployment', 'many', '--image=nginx', '--replicas=100');
    const pods = await allRunning(r, 'default', 'app=many', 100, 120_000);
    const ms = Date.now() - t0;
    const writes = (await storeWrites(r)) - w0;
    console.log(`100 replicas: all Running after ${ms} ms, ${writes} store writes (${Math.round((writes / ms) * 1000)} writes/s)`);
    const perNode = new Map<string, number>();
    for (const p of pods) perNode.set(nodeOf(p)!, (perNode.get(nodeOf(p)!) ?? 0) + 1);
    expect(Math.max(...perNode.values()) - Math.min(...perNode.values())).toBeLessThanOrEqual(3);
  }, 150_000);
});
