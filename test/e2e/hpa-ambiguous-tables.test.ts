// Two HPAs on one Deployment and the tables kube 1.32 prints for bindings and ControllerRevisions, end to end with
// /usr/bin/kubectl and the controller manager running: both HPAs end with ScalingActive=False AmbiguousSelector and
// kube's message (kubectl describe shows it), and scale again once one is deleted; `kubectl get rolebindings -o
// wide` and `kubectl get controllerrevisions` print printers.go's columns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';

const NS = 'ambiguous';

async function must(r: Running, args: string[], stdin?: string) {
  const res = await kubectl(r, args, stdin);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

const hpa = (name: string) => `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: ${name}, namespace: ${NS}}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 3
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]
`;

describe('HPA AmbiguousSelector and printers.go tables', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '1' } });
    await must(r, ['create', 'namespace', NS]);
  });
  afterAll(async () => {
    await stopTestGateway(r);
  });

  it('marks two HPAs over the same pods AmbiguousSelector, as kube does', async () => {
    await must(r, ['create', 'deployment', 'web', '-n', NS, '--image=nginx']);
    await must(r, ['set', 'resources', 'deployment/web', '-n', NS, '--requests=cpu=100m']);
    await must(r, ['apply', '-f', '-'], hpa('first') + '---\n' + hpa('second'));
    const message = `pods by selector app=web are controlled by multiple HPAs: [${NS}/first ${NS}/second]`;
    for (const name of ['first', 'second']) {
      const c = await waitFor(`${name} AmbiguousSelector`, async () => {
        const o = (await http(r, 'GET', `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers/${name}`)).json;
        return o?.status?.conditions?.find((x: any) => x.type === 'ScalingActive' && x.reason === 'AmbiguousSelector');
      }, 90_000, 500);
      expect(c).toMatchObject({ status: 'False', message });
    }
    expect(await must(r, ['describe', 'hpa', 'first', '-n', NS])).toContain('AmbiguousSelector');
    // One HPA left: it computes replicas again.
    await must(r, ['delete', 'hpa', 'second', '-n', NS]);
    const active = await waitFor('first ScalingActive again', async () => {
      const o = (await http(r, 'GET', `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers/first`)).json;
      const c = o?.status?.conditions?.find((x: any) => x.type === 'ScalingActive');
      return c && c.reason !== 'AmbiguousSelector' ? c : undefined;
    }, 90_000, 500);
    expect(active.reason).not.toBe('AmbiguousSelector');
  }, 200_000);

  it('prints RoleBindings and ControllerRevisions with printers.go\'s columns', async () => {
    await must(r, ['create', 'rolebinding', 'readers', '-n', NS, '--clusterrole=view', '--user=alice', '--group=devs', `--serviceaccount=${NS}:robot`]);
    const wide = await must(r, ['get', 'rolebinding', 'readers', '-n', NS, '-o', 'wide']);
    expect(wide).toMatch(/^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS\n/);
    expect(wide).toMatch(new RegExp(`^readers\\s+ClusterRole/view\\s+\\S+\\s+alice\\s+devs\\s+${NS}/robot$`, 'm'));
    await must(r, ['apply', '-f', '-'], `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: ${NS}}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: main, image: busybox}]}
`);
    const revisions = await waitFor('a ControllerRevision', async () => {
      const out = await must(r, ['get', 'controllerrevisions', '-n', NS]);
      return /daemonset\.apps\/agent/.test(out) ? out : undefined;
    });
    expect(revisions).toMatch(/^NAME\s+CONTROLLER\s+REVISION\s+AGE\n/);
    expect(revisions).toMatch(/^agent-\S+\s+daemonset\.apps\/agent\s+1\s+\S+$/m);
  });
});
