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
    // A name carrying selector syntax finds nothing rather than another pod.
    for (const name of ['web%2Cmetadata.name!%3Dx', 'a%5C', '%3D%3D']) {
      const res = await http(r, 'GET', `/apis/metrics.k8s.io/v1beta1/namespaces/${NS}/pods/${name}`);
      expect(res.status, name).toBe(404);
      expect(res.json.reason).toBe('NotFound');
    }
  }, 90_000);

  it('lists kube\'s local APIServices as Available, and marks one whose Service is missing Available=False', async () => {
    const table = await waitFor('local APIServices Available', async () => {
      const out = await must(r, ['get', 'apiservices']);
      return /v1\.apps\s+Local\s+True/.test(out) && /v1beta1\.metrics\.k8s\.io\s+Local\s+True/.test(out) ? out : undefined;
    });
    expect(table).toMatch(/^NAME\s+SERVICE\s+AVAILABLE\s+AGE/);
    expect(table).toMatch(/^v1\.\s+Local\s+True\s/m);
    expect(table).toMatch(/^v2\.autoscaling\s+Local\s+True\s/m);
    const core = await get(r, '/apis/apiregistration.k8s.io/v1/apiservices/v1.');
    expect(core.spec).toEqual({ group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    expect(core.status.conditions[0]).toMatchObject({ type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' });

    await must(r, ['apply', '-f', '-'], `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.custom.metrics.k8s.io}
spec:
  service: {name: custom-metrics-apiserver, namespace: ${NS}}
  group: custom.metrics.k8s.io
  version: v1beta1
  insecureSkipTLSVerify: true
  groupPriorityMinimum: 100
  versionPriority: 100
`);
    const missing = await waitFor('ServiceNotFound', async () => {
      const a = await get(r, '/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.custom.metrics.k8s.io');
      return a.status?.conditions?.[0]?.reason === 'ServiceNotFound' ? a : undefined;
    });
    expect(missing.status.conditions[0]).toMatchObject({ status: 'False', message: `service/custom-metrics-apiserver in "${NS}" is not present` });
    expect(await must(r, ['get', 'apiservice', 'v1beta1.custom.metrics.k8s.io'])).toMatch(new RegExp(`${NS}/custom-metrics-apiserver\\s+False \\(ServiceNotFound\\)`));
    // The aggregator answers for the group while it is unavailable: 503, Go's http.Error text.
    const res = await http(r, 'GET', `/apis/custom.metrics.k8s.io/v1beta1/namespaces/${NS}/pods/*/requests`);
    expect(res.status).toBe(503);
    expect(res.text).toBe('service unavailable\n');
    // A Service without ready endpoints: MissingEndpoints.
    await must(r, ['apply', '-f', '-'], `apiVersion: v1
kind: Service
metadata: {name: custom-metrics-apiserver, namespace: ${NS}}
spec:
  selector: {app: nobody}
  ports: [{name: https, port: 443, targetPort: 6443}]
`);
    const noEndpoints = await waitFor('MissingEndpoints', async () => {
      const a = await get(r, '/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.custom.metrics.k8s.io');
      return a.status?.conditions?.[0]?.reason === 'MissingEndpoints' ? a : undefined;
    });
    expect(noEndpoints.status.conditions[0].message).toBe(`endpoints for service/custom-metrics-apiserver in "${NS}" have no addresses with port name "https"`);
  }, 90_000);

  it('metrics-server\'s own manifests: its APIService passes once its pods are ready, and kubectl top keeps working', async () => {
    // The parts of metrics-server's components.yaml the aggregator looks at (v0.7: Service, Deployment, APIService).
    await must(r, ['apply', '-f', '-'], `apiVersion: v1
kind: Service
metadata: {name: metrics-server, namespace: kube-system, labels: {k8s-app: metrics-server}}
spec:
  selector: {k8s-app: metrics-server}
  ports: [{name: https, port: 443, protocol: TCP, targetPort: https}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: metrics-server, namespace: kube-system, labels: {k8s-app: metrics-server}}
spec:
  selector: {matchLabels: {k8s-app: metrics-server}}
  template:
    metadata: {labels: {k8s-app: metrics-server}}
    spec:
      containers:
      - name: metrics-server
        image: registry.k8s.io/metrics-server/metrics-server:v0.7.2
        ports: [{containerPort: 10250, name: https, protocol: TCP}]
        resources: {requests: {cpu: 100m, memory: 200Mi}}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.metrics.k8s.io, labels: {k8s-app: metrics-server}}
spec:
  service: {name: metrics-server, namespace: kube-system}
  group: metrics.k8s.io
  version: v1beta1
  insecureSkipTLSVerify: true
  groupPriorityMinimum: 100
  versionPriority: 100
`);
    const passed = await waitFor('v1beta1.metrics.k8s.io Passed', async () => {
      const a = await get(r, '/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io');
      return a.status?.conditions?.[0]?.reason === 'Passed' ? a : undefined;
    }, 60_000);
    expect(passed.status.conditions[0]).toMatchObject({ type: 'Available', status: 'True', message: 'all checks passed' });
    expect(await must(r, ['get', 'apiservice', 'v1beta1.metrics.k8s.io'])).toMatch(/kube-system\/metrics-server\s+True\s/);
    expect(await must(r, ['top', 'pods', '-n', 'kube-system'])).toMatch(/metrics-server-\S+\s+10m\s+100Mi/);
  }, 90_000);

  it('an HPA scales a Deployment up on synthetic CPU and back down', async () => {
    await must(r, ['apply', '-f', '-'], deployment('busy', 'cpu=20m'));
    await must(r, ['apply', '-f', '-'], `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: busy, namespace: ${NS}}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: busy}
  minReplicas: 1
  maxReplicas: 4
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
  behavior:
    scaleDown: {stabilizationWindowSeconds: 0}
`);
    const hpaPath = `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers/busy`;
    // The first rounds: the pod's 20m of its 100m request is 20%, below the target but at minReplicas.
    const steady = await waitFor('the HPA computing 20% utilization', async () => {
      const hpa = await get(r, hpaPath);
      return hpa.status?.currentMetrics?.[0]?.resource?.current?.averageUtilization === 20 ? hpa : undefined;
    }, 60_000);
    expect(steady.status.currentReplicas).toBe(1);
    expect(steady.status.desiredReplicas).toBe(1);
    const active = steady.status.conditions.find((c: any) => c.type === 'ScalingActive');
    expect(active).toMatchObject({ status: 'True', reason: 'ValidMetricFound',
      message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)' });
    expect(steady.status.conditions.find((c: any) => c.type === 'ScalingLimited')).toMatchObject({ status: 'False', reason: 'DesiredWithinRange' });

    // Load: the running pod now uses 150m (150%), so the HPA wants ceil(150/50 × 1) = 3.
    await must(r, ['annotate', 'pods', '-n', NS, '-l', 'app=busy', '--overwrite', 'edgeplane.dev/simulated-usage=cpu=150m']);
    const up = await waitFor('a scale-up', async () => {
      const d = await get(r, `/apis/apps/v1/namespaces/${NS}/deployments/busy`);
      return d.spec.replicas > 1 ? d : undefined;
    }, 60_000);
    expect(up.spec.replicas).toBe(3);
    const events = (await get(r, `/api/v1/namespaces/${NS}/events?fieldSelector=${encodeURIComponent('involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=busy')}`)).items;
    const rescale = events.find((e: any) => e.reason === 'SuccessfulRescale');
    expect(rescale).toMatchObject({ type: 'Normal', message: 'New size: 3; reason: cpu resource utilization (percentage of request) above target' });
    expect(rescale.source.component).toBe('horizontal-pod-autoscaler');
    const table = await must(r, ['get', 'hpa', 'busy', '-n', NS]);
    expect(table).toMatch(/busy\s+Deployment\/busy\s+cpu: \d+%\/50%\s+1\s+4\s+\d/);

    // Load gone: every pod at 5m; with no scale-down stabilization window, back to minReplicas.
    await must(r, ['annotate', 'pods', '-n', NS, '-l', 'app=busy', '--overwrite', 'edgeplane.dev/simulated-usage=cpu=5m']);
    await must(r, ['patch', 'deployment', 'busy', '-n', NS, '-p', '{"spec":{"template":{"metadata":{"annotations":{"edgeplane.dev/simulated-usage":"cpu=5m"}}}}}']);
    await waitFor('a scale-down to 1', async () => {
      const d = await get(r, `/apis/apps/v1/namespaces/${NS}/deployments/busy`);
      return d.spec.replicas === 1 || undefined;
    }, 90_000);
    const after = (await get(r, `/api/v1/namespaces/${NS}/events?fieldSelector=${encodeURIComponent('involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=busy')}`)).items;
    expect(after.some((e: any) => e.reason === 'SuccessfulRescale' && e.message === 'New size: 1; reason: All metrics below target')).toBe(true);
  }, 240_000);
});
