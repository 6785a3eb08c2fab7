import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { RESOURCES } from '../../controllers/api-client';
import { SimulatedNodes } from '../../controllers/kubelet/simulated-nodes';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder } from './fakes';

function setup() {
  const clock = new FakeClock();
  const api = new FakeApi();
  const [pods, nodes] = [new FakeInformer(), new FakeInformer()];
  const recorder = new FakeRecorder();
  const sim = new SimulatedNodes({ apiFor: () => api, recorderFor: () => recorder, pods, nodes, clock, count: 2, startupMs: 500 });
  nodes.add({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'n1' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
  const put = (p: KubeObject) => {
    pods.add(p);
    api.put(RESOURCES.pods, p);
  };
  return { clock, api, pods, nodes, recorder, sim, put };
}

function pod(o: { annotations?: Record<string, string>; job?: boolean; status?: Record<string, unknown> } = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: 'p', namespace: 'ns', uid: 'u1', resourceVersion: '1', annotations: o.annotations,
      ...(o.job ? { ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'j1', controller: true }] } : {}),
    },
    spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }] },
    status: o.status ?? { phase: 'Pending' },
  };
}

const lastStatus = (api: FakeApi) => (api.writes('patch', 'pods').at(-1)!.body as any).status;

describe('simulated kubelet', () => {
  it('takes a bound pod to Running and Ready in one status write after the startup delay, with no container events (kwok\'s fast stage)', async () => {
    const { clock, api, recorder, sim, put } = setup();
    put(pod());
    await sim.sync('ns/p');
    expect(api.writes()).toEqual([]); // starting up: nothing to report yet
    clock.advance(499);
    await sim.sync('ns/p');
    expect(api.writes()).toEqual([]);
    clock.advance(1);
    await sim.sync('ns/p');
    expect(api.writes().map((w) => `${w.verb} ${w.resource} ${w.subresource}`)).toEqual(['patch pods status']);
    const running = lastStatus(api);
    expect(running).toMatchObject({ phase: 'Running', hostIP: '10.0.1.1', podIP: '10.244.1.2', podIPs: [{ ip: '10.244.1.2' }], qosClass: 'BestEffort' });
    expect(running.conditions.map((c: any) => `${c.type}=${c.status}`)).toEqual(['PodReadyToStartContainers=True', 'Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True']);
    expect(running.containerStatuses).toMatchObject([{ name: 'c', ready: true, started: true, state: { running: {} } }]);
    await sim.sync('ns/p'); // the informer has not shown it yet: nothing written twice
    put(pod({ status: running }));
    await sim.sync('ns/p'); // Running and Ready: nothing more to write
    expect(api.writes()).toHaveLength(1);
    expect(recorder.events).toEqual([]);
  });

  it('takes a pod annotated simulate-kubelet=full through ContainerCreating to Running with a kubelet\'s events', async () => {
    const { clock, api, recorder, sim, put } = setup();
    put(pod({ annotations: { 'edgeplane.dev/simulate-kubelet': 'full' } }));
    await sim.sync('ns/p');
    expect(lastStatus(api)).toMatchObject({ phase: 'Pending', hostIP: '10.0.1.1', containerStatuses: [{ state: { waiting: { reason: 'ContainerCreating' } } }] });
    expect(recorder.events.map((e) => e.reason)).toEqual(['Pulling']);
    await sim.sync('ns/p'); // the informer has not shown it yet: nothing written twice
    expect(api.writes('patch', 'pods')).toHaveLength(1);
    put(pod({ annotations: { 'edgeplane.dev/simulate-kubelet': 'full' }, status: lastStatus(api) }));
    clock.advance(500);
    await sim.sync('ns/p');
    const running = lastStatus(api);
    expect(running).toMatchObject({ phase: 'Running', podIP: '10.244.1.2', podIPs: [{ ip: '10.244.1.2' }], qosClass: 'BestEffort' });
    expect(running.conditions.find((c: any) => c.type === 'Ready').status).toBe('True');
    expect(recorder.events.map((e) => `${e.reason}: ${e.message}`)).toEqual([
      'Pulling: Pulling image "nginx"', 'Pulled: Successfully pulled image "nginx" in 0.500s (0.500s including waiting). Image size: 0 bytes.',
      'Created: Created container: c', 'Started: Started container c',
    ]);
  });

  it('completes a Job\'s pod, or fails it with the annotated exit code', async () => {
    for (const [annotations, phase, exitCode] of [[{}, 'Succeeded', 0], [{ 'edgeplane.dev/simulate-exit-code': '1', 'edgeplane.dev/simulate-run-seconds': '3' }, 'Failed', 1]] as const) {
      const { clock, api, sim, put } = setup();
      const startedAt = new Date(clock.now()).toISOString().replace('.000Z', 'Z');
      put(pod({ job: true, annotations, status: { phase: 'Running', podIP: '10.244.1.9', startTime: startedAt, containerStatuses: [{ state: { running: { startedAt } } }] } }));
      await sim.sync('ns/p');
      expect(api.writes('patch', 'pods')).toHaveLength(0);
      clock.advance(Number((annotations as Record<string, string>)['edgeplane.dev/simulate-run-seconds'] ?? 1) * 1000);
      await sim.sync('ns/p');
      expect(lastStatus(api)).toMatchObject({ phase, containerStatuses: [{ state: { terminated: { exitCode } } }] });
    }
  });

  it('stops a deleted pod\'s containers, then deletes it with grace 0 (Killing with simulate-kubelet=full)', async () => {
    for (const full of [false, true]) {
      const { clock, api, recorder, sim, put } = setup();
      const p = pod({ status: { phase: 'Running' }, annotations: full ? { 'edgeplane.dev/simulate-kubelet': 'full' } : undefined });
      p.metadata.deletionTimestamp = '2026-01-01T00:00:30Z';
      p.metadata.deletionGracePeriodSeconds = 30;
      put(p);
      await sim.sync('ns/p');
      expect(recorder.events).toEqual(full ? [{ name: 'p', type: 'Normal', reason: 'Killing', message: 'Stopping container c' }] : []);
      expect(api.writes('delete')).toEqual([]);
      clock.advance(1000);
      await sim.sync('ns/p');
      expect(api.writes('delete')[0].options).toEqual({ gracePeriodSeconds: 0, preconditions: { uid: 'u1' } });
    }
  });

  it('leaves the pods of a stopped node alone', async () => {
    const { api, nodes, sim, put } = setup();
    nodes.add({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'n1', annotations: { 'edgeplane.dev/simulate': 'stopped' } } });
    put(pod());
    await sim.sync('ns/p');
    await sim.beat();
    // node-2, which runs, registers and renews its Lease; node-1 writes nothing.
    expect(api.writes().filter((w) => w.name !== 'node-2')).toEqual([]);
    expect(api.writes().map((w) => `${w.verb} ${w.resource} ${w.name}`)).toEqual(['create nodes node-2', 'patch nodes node-2', 'patch leases node-2', 'create leases node-2']);
  });
});
