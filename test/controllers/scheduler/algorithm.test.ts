import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../client/types';
import { filterNode, fitErrorMessage, scoreNodes, selectHost } from '../../../controllers/scheduler/algorithm';
import { NodeUsageCache } from '../../../controllers/scheduler/node-info';
import { requirementMatches } from '../../../controllers/scheduler/node-affinity';
import { milliValue, value } from '../../../core/quantity';
import { podRequests } from '../../../controllers/scheduler/resources';
import { firstUntolerated, tolerates } from '../../../controllers/scheduler/taints';
import { addDefaultTolerations } from '../../../core/pods/default-tolerations';

function node(name: string, o: { cpu?: string; memory?: string; pods?: string; labels?: Record<string, string>; taints?: object[]; unschedulable?: boolean } = {}): KubeObject {
  const alloc = { cpu: o.cpu ?? '4', memory: o.memory ?? '8Gi', pods: o.pods ?? '110' };
  return {
    apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...o.labels } },
    spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
    status: { allocatable: alloc, capacity: alloc },
  };
}

function pod(name: string, o: { cpu?: string; memory?: string; node?: string; owner?: string; spec?: Record<string, unknown> } = {}): KubeObject {
  const requests = { ...(o.cpu ? { cpu: o.cpu } : {}), ...(o.memory ? { memory: o.memory } : {}) };
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: 'ns', uid: `${name}-uid`, ...(o.owner ? { ownerReferences: [{ kind: 'ReplicaSet', name: 'rs', uid: o.owner, controller: true }] } : {}) },
    spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests } }], ...(o.node ? { nodeName: o.node } : {}), ...o.spec },
    status: { phase: 'Pending' },
  };
}

const cache = new NodeUsageCache();
const empty = cache.get('none');

describe('quantities and requests', () => {
  it('parses cpu and memory as kube does', () => {
    expect(milliValue('100m')).toBe(100);
    expect(milliValue('1.5')).toBe(1500);
    expect(milliValue('2')).toBe(2000);
    expect(value('8Gi')).toBe(8 * 2 ** 30);
    expect(value('500M')).toBe(500e6);
    expect(value('1e3')).toBe(1000);
    expect(milliValue('1u')).toBe(1); // rounded up
  });

  it('sums containers, takes the largest init container, and fills non-zero defaults for scoring', () => {
    const p = pod('p', { cpu: '200m' });
    (p.spec as any).containers.push({ name: 'd', image: 'x', resources: { requests: { cpu: '300m', memory: '1Gi' } } });
    (p.spec as any).initContainers = [{ name: 'i', image: 'x', resources: { requests: { cpu: '800m' } } }];
    expect(podRequests(p)).toEqual({ cpu: 800, memory: 2 ** 30, ephemeral: 0 });
    expect(podRequests(pod('none'))).toEqual({ cpu: 0, memory: 0, ephemeral: 0 });
    expect(podRequests(pod('none'), true)).toEqual({ cpu: 100, memory: 200 * 2 ** 20, ephemeral: 0 });
  });
});

describe('filters', () => {
  it('rejects a pod asking for more cpu than is left, counting pods already bound', () => {
    const c = new NodeUsageCache();
    c.observe('ns/a', pod('a', { cpu: '3', node: 'n1' }));
    expect(filterNode(pod('p', { cpu: '2' }), node('n1'), c.get('n1'))).toEqual({ reasons: ['Insufficient cpu'], unresolvable: false, plugin: 'NodeResourcesFit' });
    expect(filterNode(pod('p', { cpu: '1' }), node('n1'), c.get('n1')).reasons).toEqual([]);
    expect(filterNode(pod('p', { cpu: '5', memory: '9Gi' }), node('n2'), empty).reasons).toEqual(['Insufficient cpu', 'Insufficient memory']);
    expect(filterNode(pod('p'), node('n1', { pods: '1' }), c.get('n1')).reasons).toEqual(['Too many pods']);
    // A terminated pod frees its room.
    const done = pod('a', { cpu: '3', node: 'n1' });
    (done.status as any).phase = 'Succeeded';
    c.observe('ns/a', done);
    expect(filterNode(pod('p', { cpu: '2' }), node('n1'), c.get('n1')).reasons).toEqual([]);
  });

  it('honours nodeSelector and required node affinity operators', () => {
    const labelled = node('n1', { labels: { disk: 'ssd', gen: '5' } });
    expect(filterNode(pod('p', { spec: { nodeSelector: { disk: 'ssd' } } }), labelled, empty).reasons).toEqual([]);
    expect(filterNode(pod('p', { spec: { nodeSelector: { disk: 'hdd' } } }), labelled, empty))
      .toEqual({ reasons: ["node(s) didn't match Pod's node affinity/selector"], unresolvable: true, plugin: 'NodeAffinity' });
    const affinity = (terms: object[]) => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
    const fits = (terms: object[]) => filterNode(pod('p', { spec: affinity(terms) }), labelled, empty).reasons.length === 0;
    expect(fits([{ matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['4'] }] }])).toBe(true);
    expect(fits([{ matchExpressions: [{ key: 'gen', operator: 'Lt', values: ['4'] }] }])).toBe(false);
    expect(fits([{ matchExpressions: [{ key: 'disk', operator: 'NotIn', values: ['ssd'] }] }, { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }])).toBe(true);
    expect(fits([{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }, { key: 'gen', operator: 'Exists' }] }])).toBe(true);
    expect(fits([{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }, { key: 'zone', operator: 'Exists' }] }])).toBe(false);
    expect(fits([{}])).toBe(false); // an empty term matches nothing
    expect(fits([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }])).toBe(true);
  });

  it('matches the affinity operators on their edges', () => {
    expect(requirementMatches({ key: 'a', operator: 'NotIn', values: ['x'] }, {})).toBe(true);
    expect(requirementMatches({ key: 'a', operator: 'Gt', values: ['x'] }, { a: '3' })).toBe(false);
    expect(requirementMatches({ key: 'a', operator: 'Gt', values: ['2'] }, { a: 'x' })).toBe(false);
    expect(requirementMatches({ key: 'a', operator: 'In', values: [''] }, { a: '' })).toBe(true);
  });

  it('rejects untolerated NoSchedule and NoExecute taints and cordoned nodes', () => {
    const tainted = node('n1', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] });
    expect(filterNode(pod('p'), tainted, empty)).toEqual({ reasons: ['node(s) had untolerated taint {dedicated: gpu}'], unresolvable: true, plugin: 'TaintToleration' });
    const tolerating = pod('p', { spec: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] } });
    expect(filterNode(tolerating, tainted, empty).reasons).toEqual([]);
    expect(filterNode(pod('p'), node('n1', { taints: [{ key: 'soft', effect: 'PreferNoSchedule' }] }), empty).reasons).toEqual([]);
    // The default tolerations (NoExecute, 300 s) do not tolerate the unreachable NoSchedule taint.
    const defaulted = pod('p');
    addDefaultTolerations(defaulted);
    const unreachable = node('n1', { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] });
    expect(filterNode(defaulted, unreachable, empty).reasons).toEqual(['node(s) had untolerated taint {node.kubernetes.io/unreachable: }']);
    expect(filterNode(pod('p'), node('n1', { unschedulable: true }), empty)).toEqual({ reasons: ['node(s) were unschedulable'], unresolvable: true, plugin: 'NodeUnschedulable' });
    const cordonTolerant = pod('p', { spec: { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] } });
    expect(filterNode(cordonTolerant, node('n1', { unschedulable: true }), empty).reasons).toEqual([]);
  });

  it('matches tolerations as core/v1 ToleratesTaint', () => {
    const taint = { key: 'k', value: 'v', effect: 'NoExecute' };
    expect(tolerates({ operator: 'Exists' }, taint)).toBe(true);
    expect(tolerates({ key: 'k', operator: 'Exists', effect: 'NoSchedule' }, taint)).toBe(false);
    expect(tolerates({ key: 'k', value: 'v' }, taint)).toBe(true);
    expect(tolerates({ key: 'k', value: 'w' }, taint)).toBe(false);
    expect(tolerates({ value: 'v' }, taint)).toBe(false); // an empty key needs Exists
    expect(firstUntolerated([{ key: 'a', effect: 'PreferNoSchedule' }, taint], [], ['NoSchedule', 'NoExecute'])).toBe(taint);
  });
});

describe('DefaultTolerationSeconds admission', () => {
  it('adds the not-ready and unreachable tolerations a pod lacks', () => {
    const p = pod('p', { spec: { tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }] } });
    addDefaultTolerations(p, 300);
    expect((p.spec as any).tolerations).toEqual([
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 },
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
    const everything = pod('q', { spec: { tolerations: [{ operator: 'Exists' }] } });
    addDefaultTolerations(everything, 300);
    expect((everything.spec as any).tolerations).toEqual([{ operator: 'Exists' }]);
  });
});

describe('scores', () => {
  it('prefers the least allocated node and spreads pods of one owner', () => {
    const c = new NodeUsageCache();
    c.observe('ns/a', pod('a', { node: 'n1', owner: 'rs1' }));
    const nodes = [node('n1'), node('n2'), node('n3')];
    const scores = scoreNodes(pod('p', { owner: 'rs1' }), nodes.map((n) => ({ node: n, usage: c.get(n.metadata.name!) })));
    expect(scores[0]).toBeLessThan(scores[1]);
    expect(scores[1]).toBe(scores[2]);
  });

  it('places three pods without requests one per node', () => {
    const c = new NodeUsageCache();
    const nodes = [node('n1'), node('n2'), node('n3')];
    const placed: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      const p = pod(name, { owner: 'rs1' });
      const s = scoreNodes(p, nodes.map((n) => ({ node: n, usage: c.get(n.metadata.name!) })));
      const chosen = nodes[selectHost(s, () => 0.99)].metadata.name!;
      c.assume(`ns/${name}`, p, chosen);
      placed.push(chosen);
    }
    expect(new Set(placed).size).toBe(3);
  });

  it('avoids PreferNoSchedule taints', () => {
    const nodes = [node('n1', { taints: [{ key: 'soft', effect: 'PreferNoSchedule' }] }), node('n2')];
    const s = scoreNodes(pod('p'), nodes.map((n) => ({ node: n, usage: empty })));
    expect(selectHost(s)).toBe(1);
  });

  it('breaks ties uniformly', () => {
    expect(selectHost([5, 7, 7, 1], () => 0.99)).toBe(1);
    expect(selectHost([5, 7, 7, 1], () => 0)).toBe(2);
    expect(selectHost([])).toBe(-1);
  });
});

describe('FitError messages', () => {
  it('words a pod too big for every node as kube-scheduler 1.32', () => {
    const big = pod('p', { cpu: '64' });
    const results = ['n1', 'n2', 'n3'].map((n) => filterNode(big, node(n), empty));
    expect(fitErrorMessage(big, results)).toBe(
      '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.');
  });

  it('sorts the histogram and separates unresolvable nodes in the preemption part', () => {
    const big = pod('p', { cpu: '64' });
    const results = [
      filterNode(big, node('n1', { unschedulable: true }), empty),
      filterNode(big, node('n2'), empty),
      filterNode(big, node('n3', { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }] }), empty),
      filterNode(big, node('n4'), empty),
    ];
    expect(fitErrorMessage(big, results)).toBe(
      '0/4 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 1 node(s) were unschedulable, 2 Insufficient cpu. '
      + 'preemption: 0/4 nodes are available: 2 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.');
    expect(fitErrorMessage(pod('p', { spec: { preemptionPolicy: 'Never' } }), results.slice(0, 1))).toBe(
      '0/1 nodes are available: 1 node(s) were unschedulable. preemption: not eligible due to preemptionPolicy=Never.');
    expect(fitErrorMessage(big, [])).toBe('no nodes available to schedule pods');
  });
});
