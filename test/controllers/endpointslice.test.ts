import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { EndpointSliceController, EndpointsController } from '../../controllers/endpointslice';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder } from './fakes';

const svc: KubeObject = {
  apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'ns', uid: 'svc-uid', labels: { app: 'web' } },
  spec: { selector: { app: 'web' }, clusterIP: '10.96.0.10', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] },
};
const pod = (i: number, labels = { app: 'web' }): KubeObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: `web-${i}`, namespace: 'ns', uid: `uid-${i}`, labels },
  spec: { nodeName: 'node-1', containers: [{ name: 'c' }] },
  status: { phase: 'Running', podIP: `10.244.1.${i}`, podIPs: [{ ip: `10.244.1.${i}` }], conditions: [{ type: 'Ready', status: 'True' }] },
});

function setup() {
  const clock = new FakeClock();
  const [services, pods, nodes, slices, endpoints] = [new FakeInformer(), new FakeInformer(), new FakeInformer(), new FakeInformer(), new FakeInformer()];
  const api = new FakeApi();
  const c = new EndpointSliceController({ api, services, pods, nodes, slices, clock, recorder: new FakeRecorder() });
  const e = new EndpointsController({ api, services, pods, endpoints, clock });
  return { clock, services, pods, slices, endpoints, api, c, e };
}

describe('EndpointSlice controller', () => {
  it('creates one slice, writes nothing more when nothing changed, and waits for its own writes to reach the informer', async () => {
    const t = setup();
    t.services.add(svc);
    for (const i of [1, 2, 3]) t.pods.add(pod(i));
    t.pods.add(pod(9, { app: 'other' } as any));
    await t.c.sync('ns/web');
    const creates = t.api.writes('create', 'endpointslices');
    expect(creates).toHaveLength(1);
    expect((creates[0].body as any).endpoints.map((x: any) => x.addresses[0]).sort()).toEqual(['10.244.1.1', '10.244.1.2', '10.244.1.3']);

    // The informer has not seen the slice yet: a sync now must not create a second one.
    t.pods.add(pod(4));
    await t.c.sync('ns/web');
    expect(t.api.writes('create', 'endpointslices')).toHaveLength(1);
    expect(t.api.writes('update', 'endpointslices')).toHaveLength(0);

    // It arrives; the sync then adds pod 4 in place.
    const stored = [...t.api.objects.values()].find((o) => o.kind === 'EndpointSlice')!;
    t.slices.add(structuredClone(stored));
    await t.c.sync('ns/web');
    const updates = t.api.writes('update', 'endpointslices');
    expect(updates).toHaveLength(1);
    expect((updates[0].body as any).endpoints).toHaveLength(4);
    t.slices.add(structuredClone(t.api.objects.get(`endpointslices/ns/${stored.metadata.name}`)!));
    const before = t.api.calls.length;
    await t.c.sync('ns/web');
    expect(t.api.calls.length).toBe(before); // no churn
  });

  it('wakes the service for a pod whose labels stop matching, not for unrelated pods', async () => {
    const t = setup();
    t.services.add(svc);
    t.pods.add(pod(1));
    const drain = async () => {
      while (t.c.queue.len()) t.c.queue.done((await t.c.queue.get())!);
    };
    await drain();
    t.pods.add(pod(5, { app: 'other' } as any));
    expect(t.c.queue.len()).toBe(0);
    t.pods.add(pod(1, { app: 'gone' } as any));
    expect(t.c.queue.len()).toBe(1);
    expect(await t.c.queue.get()).toBe('ns/web');
  });
});

describe('Endpoints controller', () => {
  it('creates Endpoints with the ready addresses, then updates only on change, and deletes them with the service', async () => {
    const t = setup();
    t.services.add(svc);
    t.pods.add(pod(2));
    t.pods.add(pod(1));
    await t.e.sync('ns/web');
    const [created] = t.api.writes('create', 'endpoints');
    expect(created.body).toMatchObject({ metadata: { name: 'web', namespace: 'ns', labels: { app: 'web' } }, subsets: [{ addresses: [{ ip: '10.244.1.1' }, { ip: '10.244.1.2' }], ports: [{ port: 80, protocol: 'TCP' }] }] });
    t.endpoints.add(structuredClone(t.api.objects.get('endpoints/ns/web')!));
    const before = t.api.calls.length;
    await t.e.sync('ns/web');
    expect(t.api.calls.length).toBe(before);
    t.services.delete(svc);
    await t.e.sync('ns/web');
    expect(t.api.writes('delete', 'endpoints').map((c) => c.name)).toEqual(['web']);
  });
});
