// The simulated kubelets' usage (core/metrics-api/usage.ts) and metrics-server's objects and Table
// (core/metrics-api/objects.ts): defaults from requests, the annotation (every container, or one), bounds, the
// node's sum, and quantities as Quantity.String() writes them.
import { describe, expect, it } from 'vitest';
import { containerUsage, hasUsage, nodeUsage, parseSimulatedUsage, SIMULATED_USAGE_ANNOTATION } from '../../../core/metrics-api/usage';
import { cpuQuantity, memoryQuantity, metricsTable, nodeMetrics, podMetrics } from '../../../core/metrics-api/objects';
import { lookupType } from '../../../core/registry';

const pod = (annotation?: string, node = 'node-1') => ({
  metadata: { name: 'p', namespace: 'ns', labels: { app: 'a' }, ...(annotation === undefined ? {} : { annotations: { [SIMULATED_USAGE_ANNOTATION]: annotation } }) },
  spec: {
    nodeName: node,
    containers: [{ name: 'app', resources: { requests: { cpu: '200m', memory: '128Mi' } } }, { name: 'sidecar' }],
  },
  status: { phase: 'Running' },
});

describe('simulated usage', () => {
  it('defaults to a tenth of the CPU request and half the memory request, or an idle figure', () => {
    expect(containerUsage(pod())).toEqual([
      { name: 'app', cpuMillis: 20, memoryBytes: 64 * 1024 * 1024 },
      { name: 'sidecar', cpuMillis: 1, memoryBytes: 8 * 1024 * 1024 },
    ]);
  });

  it('takes the annotation for every container, and a container-specific entry over it', () => {
    const u = containerUsage(pod('cpu=250m,memory=64Mi, sidecar:cpu=1'));
    expect(u).toEqual([
      { name: 'app', cpuMillis: 250, memoryBytes: 64 * 1024 * 1024 },
      { name: 'sidecar', cpuMillis: 1000, memoryBytes: 64 * 1024 * 1024 },
    ]);
  });

  it('skips bad entries and bounds what it reports', () => {
    expect(parseSimulatedUsage('cpu=abc,memory=-1Mi,disk=5,=,cpu')).toEqual(new Map());
    const [app] = containerUsage(pod('cpu=99999999,memory=9Ei'));
    expect(app).toEqual({ name: 'app', cpuMillis: 1_000_000, memoryBytes: 2 ** 40 });
    // A huge annotation is read only so far.
    expect(parseSimulatedUsage(`${'x'.repeat(10_000)},cpu=5`).size).toBe(0);
  });

  it('reports running pods on a node only', () => {
    expect(hasUsage(pod())).toBe(true);
    expect(hasUsage({ ...pod(), status: { phase: 'Pending' } })).toBe(false);
    expect(hasUsage(pod(undefined, ''))).toBe(false);
  });

  it('sums a node\'s pods over its own daemons, CPU capped at its capacity', () => {
    const node = { metadata: { name: 'node-1' }, status: { capacity: { cpu: '1' } } };
    expect(nodeUsage(node, [pod('cpu=300m,memory=1Mi'), pod('cpu=300m', 'node-2')])).toEqual({ cpuMillis: 50 + 600, memoryBytes: 256 * 1024 * 1024 + 2 * 1024 * 1024 });
    expect(nodeUsage(node, [pod('cpu=2')]).cpuMillis).toBe(1000);
  });
});

describe('metrics objects', () => {
  it('writes quantities as Quantity.String() does', () => {
    expect([cpuQuantity(0), cpuQuantity(250), cpuQuantity(2000)]).toEqual(['0', '250m', '2']);
    expect([memoryQuantity(64 * 1024 * 1024), memoryQuantity(1536), memoryQuantity(1000)]).toEqual(['64Mi', '1536', '1000']);
    expect(memoryQuantity(3 * 1024)).toBe('3Ki');
  });

  it('builds PodMetrics and NodeMetrics as metrics-server does, and its Table', () => {
    const now = Date.parse('2026-01-01T00:00:07.500Z');
    const pm = podMetrics(pod('cpu=250m,memory=32Mi'), now);
    expect(pm).toEqual({
      kind: 'PodMetrics', apiVersion: 'metrics.k8s.io/v1beta1', metadata: { name: 'p', namespace: 'ns', creationTimestamp: null, labels: { app: 'a' } },
      timestamp: '2026-01-01T00:00:07Z', window: '15s',
      containers: [{ name: 'app', usage: { cpu: '250m', memory: '32Mi' } }, { name: 'sidecar', usage: { cpu: '250m', memory: '32Mi' } }],
    });
    const table = metricsTable(lookupType('metrics.k8s.io', 'v1beta1', 'pods')!, [pm], 'None');
    expect(table.columnDefinitions!.map((c) => c.name)).toEqual(['Name', 'cpu', 'memory', 'Window']);
    expect(table.rows).toEqual([{ cells: ['p', '500m', '64Mi', '15s'], object: null }]);
    expect(metricsTable(lookupType('metrics.k8s.io', 'v1beta1', 'nodes')!, [], 'None').columnDefinitions).toEqual([]);
    const nm = nodeMetrics({ metadata: { name: 'node-1' } }, [], now);
    expect(nm.usage).toEqual({ cpu: '50m', memory: '256Mi' });
  });
});
