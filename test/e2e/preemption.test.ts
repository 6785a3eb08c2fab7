// PriorityClasses end to end: pods get spec.priority and preemptionPolicy from their class (Priority admission;
// an unknown class is refused with kube's 403), and the scheduler preempts lower-priority pods when a pod of
// higher priority fits nowhere (DefaultPreemption): the victim gets DisruptionTarget and a Preempted event, the
// preemptor a nominatedNodeName, then runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';

async function must(r: Running, args: string[], stdin?: string) {
  const res = await kubectl(r, args, stdin);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}
const get = async (r: Running, path: string): Promise<any> => (await http(r, 'GET', path)).json;

describe('priority and preemption', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '1' } });
  });
  afterAll(() => stopTestGateway(r));

  it('resolves PriorityClasses onto pods and refuses an unknown one', async () => {
    const refused = await kubectl(r, ['run', 'nope', '--image=busybox', '--overrides={"spec":{"priorityClassName":"missing"}}']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('Error from server (Forbidden): pods "nope" is forbidden: no PriorityClass with name missing was found');
    await must(r, ['run', 'plain', '--image=busybox']);
    const plain = await get(r, '/api/v1/namespaces/default/pods/plain');
    expect(plain.spec).toMatchObject({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
    expect(plain.spec.priorityClassName).toBeUndefined();
    await must(r, ['run', 'critical', '-n', 'kube-system', '--image=busybox', '--overrides={"spec":{"priorityClassName":"system-cluster-critical"}}']);
    expect((await get(r, '/api/v1/namespaces/kube-system/pods/critical')).spec.priority).toBe(2000000000);
    await must(r, ['delete', 'pod', 'plain', '--wait=false']);
  });

  it('preempts a lower-priority pod for a higher-priority one that fits nowhere', async () => {
    await must(r, ['apply', '-f', '-'], `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: low, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: low}}
  template:
    metadata: {labels: {app: low}}
    spec: {containers: [{name: c, image: busybox, resources: {requests: {cpu: "1800m"}}}]}
`);
    await must(r, ['rollout', 'status', 'deployment/low', '--timeout=60s']);
    await must(r, ['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: important, namespace: default}
spec:
  priorityClassName: high
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "1800m"}}}]
`);
    const important = await waitFor('the preemptor to run', async () => {
      const p = await get(r, '/api/v1/namespaces/default/pods/important');
      return p.status?.phase === 'Running' ? p : undefined;
    }, 60_000);
    expect(important.spec).toMatchObject({ priority: 1000, preemptionPolicy: 'PreemptLowerPriority', nodeName: 'node-1' });
    expect(important.status.nominatedNodeName).toBe('node-1');
    const events = (await get(r, '/api/v1/namespaces/default/events')).items;
    const preempted = events.filter((e: any) => e.reason === 'Preempted');
    expect(preempted).toHaveLength(1);
    expect(preempted[0]).toMatchObject({ source: { component: 'default-scheduler' }, message: `Preempted by pod ${important.metadata.uid} on node node-1` });
    expect(preempted[0].involvedObject.name).toMatch(/^low-/);
    const failed = events.find((e: any) => e.reason === 'FailedScheduling' && e.involvedObject.name === 'important');
    expect(failed.message).toBe('0/1 nodes are available: 1 Insufficient cpu.');
    // The Deployment replaces its victim, which now fits nowhere and cannot preempt (priority 0).
    const pending = await waitFor('the replacement to be unschedulable', async () => {
      const ev = (await get(r, '/api/v1/namespaces/default/events')).items.filter((e: any) => e.reason === 'FailedScheduling' && e.involvedObject.name.startsWith('low-'));
      return ev.length ? ev[0] : undefined;
    });
    expect(pending.message).toBe('0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.');
  }, 120_000);
});
