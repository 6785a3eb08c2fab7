// The HorizontalPodAutoscaler controller (controllers/hpa.ts over hpa-plan.ts) with fakes: a scale-up through
// /scale with kube's event, status and conditions; the default 5-minute scale-down stabilization; behavior
// policies limiting a scale-up; min/max brought back; a missing target (FailedGetScale); and the 15 s resync.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { HorizontalPodAutoscalerController, HPAS, type MetricsClient, type ScaleClient } from '../../controllers/hpa';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder } from './fakes';

const NS = 'default';
type Obj = Record<string, any>;

function hpa(spec: Obj = {}): KubeObject {
  return {
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: NS, uid: 'hpa-uid', resourceVersion: '1' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 10,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }], ...spec,
    },
  };
}

const LONG_AGO = '2025-12-31T00:00:00Z';
function pod(name: string): KubeObject {
  return {
    metadata: { name, namespace: NS, labels: { app: 'web' } },
    spec: { containers: [{ name: 'main', resources: { requests: { cpu: '100m' } } }] },
    status: { phase: 'Running', startTime: LONG_AGO, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: LONG_AGO }] },
  } as KubeObject;
}

function setup(h: KubeObject, replicas: number, cpuMillis: number) {
  const clock = new FakeClock();
  const api = new FakeApi();
  const hpas = new FakeInformer();
  const pods = new FakeInformer();
  const recorder = new FakeRecorder();
  const state = { replicas, cpu: cpuMillis, missing: false, selector: 'app=web' };
  const scaleWrites: number[] = [];
  const scales: ScaleClient = {
    async get(_ns, target) {
      if (state.missing) throw new Error(`deployments.apps "${target.name}" not found`);
      return {
        scale: { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'web', namespace: NS }, spec: { replicas: state.replicas }, status: { replicas: state.replicas, selector: state.selector } },
        resource: { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true },
      };
    },
    async update(_ns, _r, scale) {
      scaleWrites.push(scale.spec.replicas);
      state.replicas = scale.spec.replicas;
      return scale;
    },
  };
  const metrics: MetricsClient = {
    async podMetrics() {
      return pods.list().map((p) => ({
        metadata: { name: p.metadata.name, namespace: NS }, timestamp: new Date(clock.now()).toISOString(), window: '15s',
        containers: [{ name: 'main', usage: { cpu: `${state.cpu}m`, memory: '10Mi' } }],
      }));
    },
  };
  const setPods = (n: number) => {
    for (const p of pods.list()) pods.delete(p);
    for (let i = 0; i < n; i++) pods.add(pod(`web-${i}`));
  };
  setPods(replicas);
  api.put(HPAS, h);
  hpas.add(h);
  const c = new HorizontalPodAutoscalerController({ api, hpas, pods, scales, metrics, recorder, clock });
  // The stored HPA follows the controller's status writes, as the informer would.
  const sync = async () => {
    await c.sync(`${NS}/web`);
    const stored = api.objects.get(`horizontalpodautoscalers/${NS}/web`)!;
    hpas.add(stored);
    return stored as Obj;
  };
  return { clock, api, recorder, state, scaleWrites, c, sync, setPods, hpas };
}

const condition = (h: Obj, type: string) => h.status.conditions.find((c: Obj) => c.type === type);

describe('HorizontalPodAutoscaler controller', () => {
  it('scales up through /scale with kube\'s event, status and conditions', async () => {
    const { sync, scaleWrites, recorder } = setup(hpa(), 2, 100); // 2 pods at 100% of 100m vs 50%
    const h = await sync();
    expect(scaleWrites).toEqual([4]);
    expect(recorder.events).toEqual([{ name: 'web', type: 'Normal', reason: 'SuccessfulRescale', message: 'New size: 4; reason: cpu resource utilization (percentage of request) above target' }]);
    expect(h.status).toMatchObject({
      currentReplicas: 2, desiredReplicas: 4, lastScaleTime: '2026-01-01T00:00:00Z',
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 100, averageValue: '100m' } } }],
    });
    expect(h.status.conditions.map((c: Obj) => [c.type, c.status, c.reason])).toEqual([
      ['AbleToScale', 'True', 'SucceededRescale'], ['ScalingActive', 'True', 'ValidMetricFound'], ['ScalingLimited', 'False', 'DesiredWithinRange'],
    ]);
    expect(condition(h, 'AbleToScale').message).toBe('the HPA controller was able to update the target scale to 4');
  });

  it('holds a scale-down for the default 5-minute stabilization window, then applies it', async () => {
    const { sync, scaleWrites, state, clock, setPods } = setup(hpa(), 4, 50); // at target: 4 stays
    await sync();
    expect(scaleWrites).toEqual([]);
    state.cpu = 10; // 20%: kube would want ceil(0.2 × 4) = 1
    clock.advance(15_000);
    let h = await sync();
    expect(scaleWrites).toEqual([]);
    expect(h.status.desiredReplicas).toBe(4);
    expect(condition(h, 'AbleToScale')).toMatchObject({ reason: 'ScaleDownStabilized',
      message: 'recent recommendations were higher than current one, applying the highest recent recommendation' });
    clock.advance(300_000);
    h = await sync();
    expect(scaleWrites).toEqual([1]);
    setPods(1);
    expect(h.status.desiredReplicas).toBe(1);
  });

  it('limits a scale-up by its behavior policies (ScaleUpLimit) and a scale-down by maxReplicas', async () => {
    const behavior = { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
      scaleDown: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] } };
    const { sync, scaleWrites, clock, setPods } = setup(hpa({ behavior }), 2, 250); // 500%: wants 10
    let h = await sync();
    expect(scaleWrites).toEqual([3]);
    expect(condition(h, 'ScalingLimited')).toMatchObject({ status: 'True', reason: 'ScaleUpLimit',
      message: 'the desired replica count is increasing faster than the maximum scale rate' });
    setPods(3);
    clock.advance(15_000);
    h = await sync();
    expect(scaleWrites).toEqual([3]); // the one-pod-per-minute budget is spent
    expect(h.status.desiredReplicas).toBe(3);
    clock.advance(60_000);
    await sync();
    expect(scaleWrites).toEqual([3, 4]);
  });

  it('brings a target above maxReplicas back, with kube\'s reason', async () => {
    const { sync, scaleWrites, recorder } = setup(hpa({ maxReplicas: 3 }), 5, 50);
    await sync();
    expect(scaleWrites).toEqual([3]);
    expect(recorder.events[0]!.message).toBe('New size: 3; reason: Current number of replicas above Spec.MaxReplicas');
  });

  it('reports a target it cannot read (FailedGetScale) and scales nothing', async () => {
    const { sync, state, recorder, scaleWrites, api } = setup(hpa(), 2, 100);
    state.missing = true;
    await expect(sync()).rejects.toThrow('failed to query scale subresource for Deployment/default/web');
    expect(scaleWrites).toEqual([]);
    expect(recorder.events).toEqual([{ name: 'web', type: 'Warning', reason: 'FailedGetScale', message: 'deployments.apps "web" not found' }]);
    const stored = api.objects.get(`horizontalpodautoscalers/${NS}/web`) as Obj;
    expect(condition(stored, 'AbleToScale')).toMatchObject({ status: 'False', reason: 'FailedGetScale',
      message: 'the HPA controller was unable to get the target\'s current scale: deployments.apps "web" not found' });
  });

  it('resyncs every HPA each 15 s', async () => {
    const { c, clock, hpas } = setup(hpa(), 2, 50);
    hpas.add(hpa()); // seen by the controller's handlers
    expect(c.queue.len()).toBe(0); // an add waits for the next round, as kube's rate-limited queue makes it
    clock.advance(15_000);
    expect(c.queue.len()).toBe(1);
    const key = await c.queue.get();
    await c.sync(key!);
    c.queue.done(key!);
    expect(c.queue.len()).toBe(0);
    clock.advance(15_000);
    expect(c.queue.len()).toBe(1);
  });

  it('refuses to scale pods another HPA also controls (AmbiguousSelector), and scales again once that HPA is gone', async () => {
    const { sync, scaleWrites, recorder, api, hpas, c, state } = setup(hpa(), 2, 100);
    const other = { ...hpa(), metadata: { name: 'web-too', namespace: NS, uid: 'hpa-2', resourceVersion: '1' } } as KubeObject;
    api.put(HPAS, other);
    hpas.add(other);
    await c.sync(`${NS}/web-too`); // learns web-too's selector (the same target, so the same pods); it scales alone
    recorder.events.length = 0;
    scaleWrites.length = 0;
    state.replicas = 2;
    await expect(c.sync(`${NS}/web`)).rejects.toThrow('failed to compute desired number of replicas');
    const h = api.objects.get(`horizontalpodautoscalers/${NS}/web`) as Obj;
    hpas.add(h as KubeObject);
    expect(scaleWrites).toEqual([]);
    const message = 'pods by selector app=web are controlled by multiple HPAs: [default/web default/web-too]';
    expect(recorder.events).toEqual([
      { name: 'web', type: 'Warning', reason: 'AmbiguousSelector', message },
      { name: 'web', type: 'Warning', reason: 'FailedComputeMetricsReplicas', message },
    ]);
    expect(condition(h, 'ScalingActive')).toMatchObject({ status: 'False', reason: 'AmbiguousSelector', message });
    hpas.delete(other);
    await sync();
    expect(scaleWrites).toEqual([4]);
  });

  it('refuses a selector that does not parse (InvalidSelector)', async () => {
    const { sync, state, recorder, scaleWrites } = setup(hpa(), 2, 100);
    state.selector = 'app in (web';
    await expect(sync()).rejects.toThrow('failed to compute desired number of replicas');
    expect(scaleWrites).toEqual([]);
    expect(recorder.events.map((e) => e.reason)).toEqual(['InvalidSelector', 'FailedComputeMetricsReplicas']);
    expect(recorder.events[0]!.message).toMatch(/^couldn't convert selector into a corresponding internal selector object: /);
  });
});
