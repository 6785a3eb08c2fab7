// LoadBalancer Services end to end: the service-controller stand-in hands out addresses from the
// LOAD_BALANCER_POOL CIDR (here a /30: two addresses), honours spec.loadBalancerIP, reports an exhausted pool
// with kube's SyncLoadBalancerFailed event, and takes an address back when the Service stops being one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';

async function must(r: Running, args: string[], stdin?: string) {
  const res = await kubectl(r, args, stdin);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

const ingress = async (r: Running, name: string): Promise<any[] | undefined> => {
  const s = (await http(r, 'GET', `/api/v1/namespaces/default/services/${name}`)).json;
  const i = s.status?.loadBalancer?.ingress;
  return i?.length ? i : undefined;
};

describe('LoadBalancer Services', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '1', LOAD_BALANCER_POOL: '203.0.113.8/30' } });
  });
  afterAll(() => stopTestGateway(r));

  it('gives LoadBalancer Services addresses from the pool', async () => {
    await must(r, ['apply', '-f', '-'], `apiVersion: v1
kind: Service
metadata: {name: pinned}
spec:
  type: LoadBalancer
  loadBalancerIP: 203.0.113.10
  selector: {app: x}
  ports: [{port: 80}]
`);
    expect(await waitFor('the pinned address', () => ingress(r, 'pinned'))).toEqual([{ ip: '203.0.113.10', ipMode: 'VIP' }]);
    await must(r, ['create', 'service', 'loadbalancer', 'first', '--tcp=80:8080']);
    expect(await waitFor('an address', () => ingress(r, 'first'))).toEqual([{ ip: '203.0.113.9', ipMode: 'VIP' }]);
    expect(await must(r, ['get', 'service', 'first'])).toMatch(/first\s+LoadBalancer\s+\S+\s+203\.0\.113\.9\s+80:\d+\/TCP/);
    const events = (await http(r, 'GET', `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent('involvedObject.name=first')}`)).json.items;
    expect(events.map((e: any) => [e.reason, e.message, e.source.component])).toEqual(expect.arrayContaining([
      ['EnsuringLoadBalancer', 'Ensuring load balancer', 'service-controller'], ['EnsuredLoadBalancer', 'Ensured load balancer', 'service-controller'],
    ]));

    // The pool is used up: a third waits, with kube's warning.
    await must(r, ['create', 'service', 'loadbalancer', 'third', '--tcp=80:8080']);
    const failed = await waitFor('SyncLoadBalancerFailed', async () => {
      const ev = (await http(r, 'GET', `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent('involvedObject.name=third,reason=SyncLoadBalancerFailed')}`)).json.items;
      return ev.length ? ev[0] : undefined;
    });
    expect(failed.message).toBe('Error syncing load balancer: failed to ensure load balancer: no addresses left in the load balancer pool');

    // A Service that stops being a load balancer gives its address back, and the waiting one gets it.
    await must(r, ['patch', 'service', 'first', '-p', '{"spec":{"type":"ClusterIP"}}']);
    await waitFor('first to lose its address', async () => ((await ingress(r, 'first')) ? undefined : true));
    expect(await waitFor('third to get the freed address', () => ingress(r, 'third'))).toEqual([{ ip: '203.0.113.9', ipMode: 'VIP' }]);
  }, 60_000);
});
