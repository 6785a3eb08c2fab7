import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { chooseAddress, parsePool, ServiceLoadBalancerController } from '../../controllers/service-lb';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder } from './fakes';

const svc = (name: string, spec: Record<string, unknown>, ip?: string): KubeObject => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default', uid: name, resourceVersion: '1' },
  spec: { type: 'LoadBalancer', ...spec }, ...(ip ? { status: { loadBalancer: { ingress: [{ ip, ipMode: 'VIP' }] } } } : {}),
});

describe('load balancer pool', () => {
  it('parses CIDRs without network and broadcast addresses', () => {
    expect(parsePool('10.0.0.0/24')).toEqual({ base: 167772161, size: 254 });
    expect(parsePool('10.0.0.7/32')).toEqual({ base: 167772167, size: 1 });
    expect(parsePool('10.0.0.0/33')).toBeUndefined();
    expect(parsePool('fd00::/64')).toBeUndefined();
  });

  it('keeps an address, honours a requested one, else takes the lowest free one in bounded work', () => {
    const pool = parsePool('10.0.0.0/8')!; // 16 million addresses: only in-use + 1 are looked at
    const used = new Set([pool.base, pool.base + 1]);
    expect(chooseAddress(svc('a', {}), used, pool)).toEqual({ ip: '10.0.0.3' });
    expect(chooseAddress(svc('a', {}, '10.0.0.2'), used, pool)).toEqual({ ip: '10.0.0.2' });
    expect(chooseAddress(svc('a', { loadBalancerIP: '10.9.9.9' }), used, pool)).toEqual({ ip: '10.9.9.9' });
    expect(chooseAddress(svc('a', { loadBalancerIP: '10.0.0.1' }), used, pool)).toEqual({ error: 'requested IP 10.0.0.1 is already in use' });
    expect(chooseAddress(svc('a', { loadBalancerIP: '192.168.0.1' }), used, pool)).toEqual({ error: 'requested IP 192.168.0.1 is not in the load balancer pool' });
    expect(chooseAddress(svc('a', {}), new Set([parsePool('10.0.0.0/30')!.base, parsePool('10.0.0.0/30')!.base + 1]), parsePool('10.0.0.0/30')!)).toEqual({ error: 'no addresses left in the load balancer pool' });
  });

  it('writes the ingress through services/status, skips classed Services, and releases a Service that stops being one', async () => {
    const api = new FakeApi();
    const services = new FakeInformer();
    const recorder = new FakeRecorder();
    services.add(svc('a', {}));
    services.add(svc('classed', { loadBalancerClass: 'example.com/lb' }));
    services.add(svc('was', { type: 'ClusterIP' }, '10.0.0.5'));
    const c = new ServiceLoadBalancerController(api, services, parsePool('10.0.0.0/24'), recorder, new FakeClock());
    await c.sync('default/a');
    await c.sync('default/classed');
    await c.sync('default/was');
    const writes = api.writes('update', 'services');
    expect(writes.map((w) => [w.name, w.subresource, (w.body as any).status.loadBalancer])).toEqual([
      ['a', 'status', { ingress: [{ ip: '10.0.0.1', ipMode: 'VIP' }] }], ['was', 'status', {}],
    ]);
    expect(recorder.events.map((e) => `${e.name} ${e.reason}`)).toEqual(['a EnsuringLoadBalancer', 'a EnsuredLoadBalancer', 'was DeletingLoadBalancer', 'was DeletedLoadBalancer']);
  });
});
