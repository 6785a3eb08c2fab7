// core/writes/patch.ts: a patch through a view whose conversion is structural (autoscaling/v1 HPA over the v2
// store) is applied to the object as the view shows it, then stored in the store's version.
import { describe, expect, it } from 'vitest';
import { lookupGroupResource } from '../../../core/registry';
import { executeWrite } from '../../../core/writes';
import type { KubeObject } from '../../../core/object-meta';
import { memoryStore } from '../memory-store';

describe('patch through the autoscaling/v1 HPA view', () => {
  it('merges targetCPUUtilizationPercentage into the stored cpu metric and answers in v1', () => {
    const type = lookupGroupResource('autoscaling/horizontalpodautoscalers')!;
    const { store } = memoryStore();
    const env = { type, now: Date.UTC(2026, 0, 1), newUid: () => 'uid-1', randomSuffix: () => 'abcde' };
    const hpa = {
      apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, maxReplicas: 3, targetCPUUtilizationPercentage: 50 },
    };
    const made = executeWrite(store, env, { verb: 'create', namespace: 'ns', body: JSON.stringify(hpa), view: 'autoscaling/v1' });
    expect(made.code).toBe(201);
    const patched = executeWrite(store, env, {
      verb: 'patch', namespace: 'ns', name: 'h', subresource: '', patchType: 'application/merge-patch+json',
      body: JSON.stringify({ spec: { targetCPUUtilizationPercentage: 70 } }), view: 'autoscaling/v1',
    });
    expect(patched.code).toBe(200);
    const answer = patched.body as KubeObject & { spec: { targetCPUUtilizationPercentage?: number } };
    expect(answer.apiVersion).toBe('autoscaling/v1');
    expect(answer.spec.targetCPUUtilizationPercentage).toBe(70);
    const stored = store.get('ns/h') as KubeObject & { spec: { metrics: { resource: { target: { averageUtilization: number } } }[] } };
    expect(stored.apiVersion).toBe('autoscaling/v2');
    expect(stored.spec.metrics.map((m) => m.resource.target.averageUtilization)).toEqual([70]);
  });
});
