import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { NodeUsageCache } from '../../controllers/scheduler/node-info';
import { pickPreemption, victimsOnNode } from '../../controllers/scheduler/preemption';
import { admitPodPriority } from '../../core/scheduling/priority';
import { StatusError } from '../../core/status';

const node = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } });
const pod = (name: string, cpu: string, priority: number, nodeName?: string): KubeObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: name },
  spec: { priority, ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', resources: { requests: { cpu } } }] }, status: { phase: 'Running' },
});

describe('preemption', () => {
  it('picks the fewest, least important victims, reprieving the most important first', () => {
    const cache = new NodeUsageCache();
    for (const p of [pod('a', '1', 1, 'n1'), pod('b', '1', 5, 'n1'), pod('c', '2', 2, 'n1')]) cache.observe(`default/${p.metadata.name}`, p);
    const victims = victimsOnNode(pod('hi', '2', 10), node('n1'), cache.get('n1'), cache.podsOn('n1'));
    // Everything lower goes, then b (5) and a (1) come back while 2 cpu stay free; c (2 cpu) must go.
    expect(victims?.map((v) => v.key)).toEqual(['default/c']);
    expect(victimsOnNode(pod('lo', '2', 1), node('n1'), cache.get('n1'), cache.podsOn('n1'))).toBeUndefined(); // nothing lower than 1 frees 2 cpu
  });

  it('prefers the node whose highest victim is least important, and never preempts for preemptionPolicy Never', () => {
    const cache = new NodeUsageCache();
    for (const p of [pod('a', '4', 7, 'n1'), pod('b', '4', 3, 'n2')]) cache.observe(`default/${p.metadata.name}`, p);
    const nodes = ['n1', 'n2'].map((n) => ({ node: node(n), usage: cache.get(n), result: { reasons: ['Insufficient cpu'], unresolvable: false }, onNode: cache.podsOn(n) }));
    expect(pickPreemption(pod('hi', '2', 10), nodes)).toMatchObject({ node: 'n2', victims: [{ key: 'default/b' }] });
    const never = pod('hi', '2', 10);
    (never.spec as any).preemptionPolicy = 'Never';
    expect(pickPreemption(never, nodes)).toBeUndefined();
    expect(pickPreemption(pod('hi', '2', 10), nodes.map((n) => ({ ...n, result: { reasons: ['taint'], unresolvable: true } })))).toBeUndefined();
  });
});

describe('Priority admission', () => {
  const classes = [{ metadata: { name: 'high' }, value: 1000, preemptionPolicy: 'Never' }, { metadata: { name: 'base' }, value: 10, globalDefault: true }];

  it('sets priority and preemptionPolicy from the class, the global default, or 0', () => {
    const named: any = { metadata: { name: 'p' }, spec: { priorityClassName: 'high' } };
    admitPodPriority(named, classes);
    expect(named.spec).toEqual({ priorityClassName: 'high', priority: 1000, preemptionPolicy: 'Never' });
    const unnamed: any = { metadata: { name: 'p' }, spec: {} };
    admitPodPriority(unnamed, classes);
    expect(unnamed.spec).toEqual({ priorityClassName: 'base', priority: 10, preemptionPolicy: 'PreemptLowerPriority' });
    const none: any = { metadata: { name: 'p' }, spec: {} };
    admitPodPriority(none, []);
    expect(none.spec).toEqual({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
  });

  it('refuses an unknown class and a conflicting priority with kube\'s 403', () => {
    const fail = (p: any) => { try { admitPodPriority(p, classes); } catch (e) { return (e as StatusError).status; } return undefined; };
    expect(fail({ metadata: { name: 'p' }, spec: { priorityClassName: 'gone' } })).toMatchObject({ code: 403, message: 'pods "p" is forbidden: no PriorityClass with name gone was found' });
    expect(fail({ metadata: { name: 'p' }, spec: { priorityClassName: 'high', priority: 5 } })?.message)
      .toBe('pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name');
  });
});
