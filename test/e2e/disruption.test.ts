// PodDisruptionBudgets end to end: the disruption controller keeps a budget's status, and pods/eviction honours
// it, so `kubectl drain` is blocked by a budget that allows no disruption (429 with kube's message) and goes
// through once the budget allows one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';

const NS = 'pdb';

async function must(r: Running, args: string[], stdin?: string) {
  const res = await kubectl(r, args, stdin);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

const get = async (r: Running, path: string): Promise<any> => (await http(r, 'GET', path)).json;

describe('PodDisruptionBudgets', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '3' } });
    await must(r, ['create', 'namespace', NS]);
  });
  afterAll(() => stopTestGateway(r));

  it('keeps the budget status, refuses an eviction it does not allow, and blocks kubectl drain', async () => {
    await must(r, ['apply', '-f', '-'], `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ${NS}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: ${NS}}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
`);
    await must(r, ['-n', NS, 'rollout', 'status', 'deployment/web', '--timeout=60s']);
    const pdb = await waitFor('the budget to count two healthy pods', async () => {
      const o = await get(r, `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/web`);
      return o.status?.currentHealthy === 2 ? o : undefined;
    });
    expect(pdb.status).toMatchObject({ observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2, expectedPods: 2 });
    expect(pdb.status.conditions).toEqual([expect.objectContaining({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '' })]);
    expect(await must(r, ['-n', NS, 'get', 'pdb', 'web'])).toMatch(/web\s+2\s+N\/A\s+0\s+/);

    const pods = (await get(r, `/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dweb`)).items;
    const victim = pods[0];
    const refused = await http(r, 'POST', `/api/v1/namespaces/${NS}/pods/${victim.metadata.name}/eviction`,
      { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: victim.metadata.name, namespace: NS } });
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: 'TooManyRequests', details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 2 healthy pods and has 2 currently' }] }, code: 429,
    });

    const drain = await kubectl(r, ['drain', victim.spec.nodeName, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=8s']);
    expect(drain.code).not.toBe(0);
    expect(drain.stderr).toContain("Cannot evict pod as it would violate the pod's disruption budget.");
    expect((await get(r, `/api/v1/namespaces/${NS}/pods/${victim.metadata.name}`)).metadata.deletionTimestamp).toBeUndefined();

    // With room for one disruption, the drain evicts the pod and the budget records it.
    await must(r, ['-n', NS, 'patch', 'pdb', 'web', '--type=merge', '-p', '{"spec":{"minAvailable":1}}']);
    await waitFor('the budget to allow a disruption', async () => {
      const o = await get(r, `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/web`);
      return o.status?.disruptionsAllowed === 1 && o.status.observedGeneration === 2 ? o : undefined;
    });
    const out = await must(r, ['drain', victim.spec.nodeName, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=30s']);
    expect(out).toContain(`pod/${victim.metadata.name} evicted`);
    expect(out).toContain(`node/${victim.spec.nodeName} drained`);
    await must(r, ['uncordon', victim.spec.nodeName]);
  }, 120_000);
});
