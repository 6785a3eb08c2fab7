import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { NodeUsageCache } from '../../controllers/scheduler/node-info';
import { pickPreemption, victimsOnNode } from '../../controllers/scheduler/preemption';

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
