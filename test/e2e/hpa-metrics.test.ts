// The aggregation layer, metrics.k8s.io and the HorizontalPodAutoscaler end to end, with /usr/bin/kubectl and
// the controller manager running: `kubectl top nodes/pods` from the simulated kubelets' usage, kube's local
// APIServices Available, an APIService whose Service is missing Available=False (and its group answering 503),
// and an HPA scaling a Deployment up on synthetic CPU (the edgeplane.dev/simulated-usage annotation) and back down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';

const NS = 'autoscale';

async function must(r: Running, args: string[], stdin?: string) {
  const res = await kubectl(r, args, stdin);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

const get = async (r: Running, path: string): Promise<any> => (await http(r, 'GET', path)).json;

const deployment = (name: string, usage: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${NS}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata:
      labels: {app: ${name}}
      annotations: {edgeplane.dev/simulated-usage: "${usage}"}
    spec:
      containers:
      - name: main
        image: nginx
        resources: {requests: {cpu: 100m, memory: 64Mi}}
`;

describe('metrics.k8s.io, APIServices and the HorizontalPodAutoscaler', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '2' } });
    await must(r, ['create', 'namespace', NS]);
  });
  afterAll(() => stopTestGateway(r));

  it('kubectl top nodes and kubectl top pods show the simulated usage', async () => {
    await must(r, ['apply', '-f', '-'], deployment('web', 'cpu=250m,memory=32Mi'));
    await waitFor('a running web pod', async () => {
      const pods = (await get(r, `/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dweb`)).items ?? [];
      return pods.some((p: any) => p.status?.phase === 'Running') || undefined;
    });
    const nodes = await waitFor('kubectl top nodes', async () => {
      const res = await kubectl(r, ['top', 'nodes']);
      return res.code === 0 ? res.stdout : undefined;
    });
    expect(nodes).toMatch(/^NAME\s+CPU\(cores\)\s+CPU\(%\)\s+MEMORY\(bytes\)\s+MEMORY\(%\)/);
    expect(nodes).toMatch(/node-\d\s+300m\s+\d+%\s+288Mi\s+\d+%/); // 50m + 256Mi of its own, plus the pod's
    const pods = await must(r, ['top', 'pods', '-n', NS]);
    expect(pods).toMatch(/^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)/);
    expect(pods).toMatch(/web-[a-z0-9]+-[a-z0-9]+\s+250m\s+32Mi/);
    const containers = await must(r, ['top', 'pods', '-n', NS, '--containers', '-l', 'app=web']);
    expect(containers).toMatch(/web-\S+\s+main\s+250m\s+32Mi/);
    // A Table as metrics-server draws it, and its NotFound wording.
    const table = await must(r, ['get', 'podmetrics', '-n', NS]);
    expect(table).toMatch(/^NAME\s+CPU\s+MEMORY\s+WINDOW/);
    const missing = await kubectl(r, ['top', 'pod', 'nope', '-n', NS]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('podmetrics.metrics.k8s.io "autoscale/nope" not found');
  }, 90_000);
});
