// The reference's §15 "Minimal faithful demo", command by command with /usr/bin/kubectl against one gateway running
// its control loops (controller manager, scheduler, 3 simulated nodes, node lifecycle; short node-loss settings):
// create, rollout status, expose, scale, set image, rollout undo, describe, a Job to Complete, cordon and drain,
// node loss and rescheduling, delete with --cascade=orphan and cascading.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';

let r: Running;

async function k(...args: string[]): Promise<string> {
  const res = await kubectl(r, args);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

const items = async (path: string): Promise<any[]> => (await http(r, 'GET', path)).json.items;
const live = (p: any) => !p.metadata.deletionTimestamp;
const ready = (p: any) => p.status?.phase === 'Running' && p.status.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');
const webPods = async () => (await items('/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).filter(live);

beforeAll(async () => {
  r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '3', NODE_MONITOR_GRACE_SECONDS: '4', DEFAULT_TOLERATION_SECONDS: '3' } });
  await waitFor('3 Ready nodes', async () => {
    const out = await k('get', 'nodes', '--no-headers');
    const lines = out.trim().split('\n').filter(Boolean);
    return lines.length === 3 && lines.every((l) => /\sReady\s/.test(l)) ? lines : undefined;
  });
}, 120_000);
afterAll(() => stopTestGateway(r));

describe('§15: a cluster driven by kubectl', () => {
  it('15.1 create deployment → ReplicaSet, 3 pods spread over the nodes, rollout status succeeds', async () => {
    expect(await k('create', 'deployment', 'web', '--image=nginx', '--replicas=3')).toContain('deployment.apps/web created');
    expect(await k('rollout', 'status', 'deployment/web', '--timeout=60s')).toContain('deployment "web" successfully rolled out');
    const pods = await waitFor('3 ready web pods', async () => {
      const p = await webPods();
      return p.length === 3 && p.every(ready) ? p : undefined;
    });
    expect(new Set(pods.map((p) => p.spec.nodeName)).size).toBe(3);
    expect(pods.every((p) => /^10\.244\.\d+\.\d+$/.test(p.status.podIP ?? ''))).toBe(true);
    expect(await k('get', 'deploy', 'web', '--no-headers')).toMatch(/^web\s+3\/3\s+3\s+3\s/);
    // Both singletons show their holder in kube-system, as on a cluster.
    const leases = await k('get', 'lease', '-n', 'kube-system', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.spec.holderIdentity}{"\\n"}{end}');
    for (const name of ['kube-controller-manager', 'kube-scheduler']) expect(leases).toMatch(new RegExp(`^${name}=\\S+$`, 'm'));
  });

  it('15.2 expose → an EndpointSlice with the 3 pod IPs', async () => {
    await k('expose', 'deployment', 'web', '--port=80');
    const ips = (await webPods()).map((p) => p.status.podIP).sort();
    await waitFor('the slice of web with 3 ready endpoints', async () => {
      const slices = await items('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dweb');
      const addrs = slices.flatMap((s) => (s.endpoints ?? []).filter((e: any) => e.conditions?.ready).flatMap((e: any) => e.addresses)).sort();
      return JSON.stringify(addrs) === JSON.stringify(ips) ? true : undefined;
    });
    expect(await k('describe', 'svc', 'web')).toMatch(/Endpoints:\s+\S+:80/);
  });

  it('15.3 scale to 5 and down to 2', async () => {
    await k('scale', 'deployment', 'web', '--replicas=5');
    expect(await k('rollout', 'status', 'deployment/web', '--timeout=60s')).toContain('successfully rolled out');
    await waitFor('5 ready pods', async () => ((await webPods()).filter(ready).length === 5 ? true : undefined));
    await k('scale', 'deployment', 'web', '--replicas=2');
    await waitFor('2 web pods left', async () => ((await webPods()).length === 2 ? true : undefined));
  });

  it('15.4 set image → a new ReplicaSet rolls out; rollout undo goes back', async () => {
    await k('scale', 'deployment', 'web', '--replicas=3');
    await k('set', 'image', 'deployment/web', 'nginx=nginx:1.27');
    expect(await k('rollout', 'status', 'deployment/web', '--timeout=90s')).toContain('successfully rolled out');
    const images = async () => (await webPods()).map((p) => p.spec.containers[0].image);
    await waitFor('3 pods on nginx:1.27', async () => ((await images()).filter((i) => i === 'nginx:1.27').length === 3 ? true : undefined));
    expect((await items('/apis/apps/v1/namespaces/default/replicasets')).length).toBe(2);
    await k('rollout', 'undo', 'deployment/web');
    expect(await k('rollout', 'status', 'deployment/web', '--timeout=90s')).toContain('successfully rolled out');
    await waitFor('3 pods back on nginx', async () => {
      const i = await images();
      return i.length === 3 && i.every((x) => x === 'nginx') ? true : undefined;
    });
    const describe = await k('describe', 'deployment', 'web');
    expect(describe).toContain('StrategyType:');
    expect(describe).toMatch(/ScalingReplicaSet\s+.*Scaled (up|down) replica set web-/);
  });

  it('a Job runs to Complete', async () => {
    await k('create', 'job', 'hello', '--image=busybox');
    expect(await k('wait', '--for=condition=complete', 'job/hello', '--timeout=60s')).toContain('condition met');
  });

  it('15.6 cordon and drain node-1: its pods move to the other nodes', async () => {
    expect(await k('cordon', 'node-1')).toContain('cordoned');
    expect(await k('get', 'node', 'node-1', '--no-headers')).toContain('SchedulingDisabled');
    const out = await k('drain', 'node-1', '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=60s');
    expect(out).toContain('drained');
    await waitFor('3 ready web pods off node-1', async () => {
      const p = await webPods();
      return p.length === 3 && p.every(ready) && p.every((x) => x.spec.nodeName !== 'node-1') ? true : undefined;
    }, 60_000);
    await k('uncordon', 'node-1');
  });

  it('15.7 node loss: node-3 stops, goes NotReady, its pods are rescheduled', async () => {
    const before = (await webPods()).filter((p) => p.spec.nodeName === 'node-3').length;
    expect((await http(r, 'POST', '/_edgeplane/nodes/node-3/stop')).status).toBeLessThan(300);
    await waitFor('node-3 NotReady', async () => (/\sNotReady/.test(await k('get', 'node', 'node-3', '--no-headers')) ? true : undefined));
    await waitFor('3 ready web pods on node-1 and node-2', async () => {
      const p = (await webPods()).filter((x) => x.spec.nodeName !== 'node-3');
      return p.length === 3 && p.every(ready) ? true : undefined;
    }, 60_000);
    expect(before).toBeGreaterThanOrEqual(0);
    expect((await http(r, 'POST', '/_edgeplane/nodes/node-3/start')).status).toBeLessThan(300);
    await waitFor('node-3 Ready again', async () => (/\sReady\s/.test(await k('get', 'node', 'node-3', '--no-headers')) ? true : undefined));
  });

  it('15.5 delete --cascade=orphan keeps the ReplicaSets; a cascading delete removes them and their pods', async () => {
    await k('delete', 'deployment', 'web', '--cascade=orphan');
    const rs = await items('/apis/apps/v1/namespaces/default/replicasets');
    expect(rs.length).toBe(2);
    await waitFor('orphaned ReplicaSets without owner', async () =>
      ((await items('/apis/apps/v1/namespaces/default/replicasets')).every((x) => !x.metadata.ownerReferences?.length) ? true : undefined));
    await k('create', 'deployment', 'api', '--image=nginx', '--replicas=2');
    await k('rollout', 'status', 'deployment/api', '--timeout=60s');
    await k('delete', 'deployment', 'api');
    await waitFor('api ReplicaSet and pods gone', async () => {
      const sets = (await items('/apis/apps/v1/namespaces/default/replicasets')).filter((x) => x.metadata.name.startsWith('api-'));
      const pods = (await items('/api/v1/namespaces/default/pods?labelSelector=app%3Dapi'));
      return sets.length === 0 && pods.length === 0 ? true : undefined;
    }, 60_000);
  });
});
