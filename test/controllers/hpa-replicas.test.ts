// The HPA's replica calculator (controllers/hpa-replicas.ts) against cases from kube's replica_calculator_test.go:
// the tolerance, unready pods on a scale-up, missing metrics on a scale-up and a scale-down, ignored pods, and
// AverageValue targets.
import { describe, expect, it } from 'vitest';
import { milliValue } from '../../core/quantity';
import { MetricError, rawResourceReplicas, resourceReplicas, type PodMetrics } from '../../controllers/hpa-replicas';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const LONG_AGO = new Date(NOW - 3600_000).toISOString();

function pod(name: string, opts: { cpu?: string; phase?: string; ready?: boolean; started?: string; readySince?: string; deleting?: boolean } = {}) {
  return {
    metadata: { name, ...(opts.deleting ? { deletionTimestamp: LONG_AGO } : {}) },
    spec: { containers: [{ name: 'main', resources: { requests: { cpu: opts.cpu ?? '1' } } }] },
    status: {
      phase: opts.phase ?? 'Running', startTime: opts.started ?? LONG_AGO,
      conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True', lastTransitionTime: opts.readySince ?? LONG_AGO }],
    },
  };
}

const metrics = (values: Record<string, number>): PodMetrics =>
  new Map(Object.entries(values).map(([n, value]) => [n, { value, timestamp: NOW - 1000, windowMs: 15_000 }]));

const utilization = (pods: object[], values: Record<string, number>, target: number, current = pods.length) =>
  resourceReplicas({ currentReplicas: current, targetUtilization: target, resource: 'cpu', container: '', pods, metrics: metrics(values), now: NOW, milli: milliValue });

describe('resourceReplicas (Utilization)', () => {
  it('scales up in proportion: 3 pods at 90% of a 1-core request against 30% → 9', () => {
    const r = utilization([pod('a'), pod('b'), pod('c')], { a: 900, b: 900, c: 900 }, 30);
    expect(r).toMatchObject({ replicas: 9, utilization: 90, rawValue: 900 });
  });

  it('scales down: 4 pods at 10% against 50% → ceil(0.2 × 4) = 1', () => {
    const r = utilization([pod('a'), pod('b'), pod('c'), pod('d')], { a: 100, b: 100, c: 100, d: 100 }, 50);
    expect(r.replicas).toBe(1);
  });

  it('keeps the count within the 0.1 tolerance', () => {
    expect(utilization([pod('a'), pod('b')], { a: 540, b: 540 }, 50).replicas).toBe(2); // 54% vs 50%: ratio 1.08
    expect(utilization([pod('a'), pod('b')], { a: 560, b: 560 }, 50).replicas).toBe(3); // ratio 1.12
  });

  it('counts unready pods as 0 on a scale-up (a pod still starting cannot inflate the count)', () => {
    const starting = pod('c', { ready: false, started: new Date(NOW - 10_000).toISOString(), readySince: new Date(NOW - 10_000).toISOString() });
    // Without c: 2 pods at 100% vs 50% → ratio 2; with c at 0: 200/300 = 66% → ceil(1.33 × 3) = 4.
    expect(utilization([pod('a'), pod('b'), starting], { a: 1000, b: 1000, c: 1000 }, 50).replicas).toBe(4);
  });

  it('treats missing pods as 100% of their request on a scale-down and 0 on a scale-up', () => {
    // Down: a, b at 10% of 50%; c missing counts 100% → (100+100+1000)/3000 = 40% → ratio 0.8 → ceil(2.4) = 3: no change.
    expect(utilization([pod('a'), pod('b'), pod('c')], { a: 100, b: 100 }, 50).replicas).toBe(3);
    // Up: a, b at 150%; c missing counts 0 → 100% vs 50% → ceil(2 × 3) = 6.
    expect(utilization([pod('a'), pod('b'), pod('c')], { a: 1500, b: 1500 }, 50).replicas).toBe(6);
  });

  it('ignores pods that are deleted, failed or pending', () => {
    const r = utilization([pod('a'), pod('b', { deleting: true }), pod('c', { phase: 'Failed' }), pod('d', { phase: 'Pending' })], { a: 1000, b: 5000, c: 5000, d: 5000 }, 50, 4);
    expect(r.utilization).toBe(100);
    expect(r.replicas).toBe(2);
  });

  it('fails as kube does: no pods, no metrics for ready pods, a container without a request', () => {
    expect(() => utilization([], {}, 50)).toThrow(new MetricError('no pods returned by selector while calculating replica count'));
    const starting = pod('a', { ready: false, started: new Date(NOW - 10_000).toISOString() });
    expect(() => utilization([starting], { a: 100 }, 50)).toThrow('did not receive metrics for targeted pods (pods might be unready)');
    const bare = { ...pod('a'), spec: { containers: [{ name: 'main' }] } };
    expect(() => utilization([bare], { a: 100 }, 50)).toThrow('missing request for cpu in container main of Pod a');
  });
});

describe('rawResourceReplicas (AverageValue)', () => {
  it('divides the average by the target: 2 pods averaging 300m against 100m → 6', () => {
    const r = rawResourceReplicas({ currentReplicas: 2, targetAverage: 100, resource: 'cpu', pods: [pod('a'), pod('b')], metrics: metrics({ a: 200, b: 400 }), now: NOW });
    expect(r).toMatchObject({ replicas: 6, rawValue: 300 });
  });

  it('keeps the count within the tolerance', () => {
    const r = rawResourceReplicas({ currentReplicas: 2, targetAverage: 100, resource: 'memory', pods: [pod('a'), pod('b')], metrics: metrics({ a: 105, b: 95 }), now: NOW });
    expect(r.replicas).toBe(2);
  });
});
