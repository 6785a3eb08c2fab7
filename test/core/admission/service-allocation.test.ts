// Service clusterIP and nodePort allocation (issue 18 class 9): members of kube's default ranges, one holder each,
// refused with kube-apiserver's 422 when taken or out of range, freed by deleting or changing the holder; the
// index the Services store keeps, and the run-skipping search for a free member.
import { describe, expect, it } from 'vitest';
import { executeWrite, type WriteStore } from '../../../core/writes';
import { lookupGroupResource } from '../../../core/registry';
import type { KubeObject } from '../../../core/object-meta';
import { RangeHoldings, ServiceAllocations, clusterIPMember, memberIP } from '../../../core/admission/service-ranges';
import { objectKey } from '../../../core/object-key';
import { statusOf } from '../status-of';
import { memoryStore } from '../memory-store';

const services = lookupGroupResource('core/services')!;
let uid = 0;
const env = () => ({ type: services, now: Date.UTC(2026, 0, 1), newUid: () => `uid-${++uid}`, randomSuffix: () => 'abcde' });

/** A store that keeps the index as the Durable Object does: updated from every commit. */
function indexedStore() {
  const { store, objects } = memoryStore();
  const index = new ServiceAllocations();
  const indexed: WriteStore = {
    ...store,
    serviceAllocations: index,
    commit: (type, key, object) => {
      const out = store.commit(type, key, object);
      index.track(key, type === 'DELETED' ? undefined : structuredClone(out));
      return out;
    },
  };
  return { store: indexed, objects, index };
}

const create = (store: WriteStore, name: string, spec: Record<string, unknown>) =>
  executeWrite(store, env(), { verb: 'create', namespace: 'ns', body: JSON.stringify({ metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } }) }).body as KubeObject;
const patch = (store: WriteStore, name: string, spec: Record<string, unknown>) =>
  executeWrite(store, env(), { verb: 'patch', namespace: 'ns', name, subresource: '', patchType: 'application/merge-patch+json', body: JSON.stringify({ spec }) }).body as KubeObject;
const del = (store: WriteStore, name: string) => executeWrite(store, env(), { verb: 'delete', namespace: 'ns', name, body: '', query: {} });
const spec = (o: KubeObject) => o.spec as Record<string, any>;
const causes = (fn: () => unknown) => {
  const s = statusOf(fn);
  return { code: s.code, message: s.message, causes: s.details?.causes };
};

describe('clusterIP allocation', () => {
  it('allocates distinct addresses from the upper block of 10.96.0.0/12 and fills the address fields', () => {
    const { store } = indexedStore();
    const ips = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const s = spec(create(store, `s${i}`, {}));
      expect(s).toMatchObject({ clusterIPs: [s.clusterIP], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' });
      expect(clusterIPMember(s.clusterIP)).toBeGreaterThanOrEqual(256);
      ips.add(s.clusterIP);
    }
    expect(ips.size).toBe(200);
  });

  it('refuses a taken address, one outside the range, the network, broadcast and kubernetes addresses, with kube\'s messages', () => {
    const { store } = indexedStore();
    create(store, 'a', { clusterIP: '10.96.5.5' });
    expect(causes(() => create(store, 'b', { clusterIP: '10.96.5.5' }))).toEqual({
      code: 422,
      message: 'Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.5.5"}: failed to allocate IP 10.96.5.5: provided IP is already allocated',
      causes: [{ reason: 'FieldValueInvalid', field: 'spec.clusterIPs', message: 'Invalid value: []string{"10.96.5.5"}: failed to allocate IP 10.96.5.5: provided IP is already allocated' }],
    });
    // Leading zeros parse as the same address (ParseIPSloppy); the range error prints it canonically.
    expect(causes(() => create(store, 'c', { clusterIP: '010.096.005.005' })).message).toContain('provided IP is already allocated');
    expect(causes(() => create(store, 'd', { clusterIP: '008.8.8.8' })).message).toBe('Service "d" is invalid: spec.clusterIPs: Invalid value: []string{"008.8.8.8"}: '
      + 'failed to allocate IP 008.8.8.8: the provided IP (8.8.8.8) is not in the valid range. The range of valid IPs is 10.96.0.0/12');
    for (const ip of ['10.96.0.0', '10.111.255.255', '10.112.0.1']) expect(causes(() => create(store, 'e', { clusterIP: ip })).message).toContain('is not in the valid range');
    expect(causes(() => create(store, 'f', { clusterIP: '10.96.0.1' })).message).toContain('provided IP is already allocated');
    expect(create(store, 'g', { clusterIP: '10.111.255.254' }).spec).toMatchObject({ clusterIP: '10.111.255.254' });
  });

  it('gives 10.96.0.1 to default/kubernetes alone, and its delete never frees it', () => {
    const { store, index } = indexedStore();
    const kubernetes = executeWrite(store, env(), {
      verb: 'create', namespace: 'default', body: JSON.stringify({ metadata: { name: 'kubernetes' }, spec: { clusterIP: '10.96.0.1', ports: [{ port: 443 }] } }),
    }).body as KubeObject;
    expect(spec(kubernetes).clusterIPs).toEqual(['10.96.0.1']);
    expect(causes(() => create(store, 'kubernetes', { clusterIP: '10.96.0.1' })).message).toContain('provided IP is already allocated');
    executeWrite(store, env(), { verb: 'delete', namespace: 'default', name: 'kubernetes', body: '', query: {} });
    expect(index.ips.has(0)).toBe(true);
    expect(causes(() => create(store, 'other', { clusterIP: '10.96.0.1' })).message).toContain('provided IP is already allocated');
  });

  it('checks the address fields first, as initIPFamilyFields does', () => {
    const { store } = indexedStore();
    expect(causes(() => create(store, 'a', { clusterIP: 'nope' })).message).toBe(
      'Service "a" is invalid: spec.clusterIPs[0]: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)');
    expect(causes(() => create(store, 'a', { clusterIP: '10.96.0.9', clusterIPs: ['10.96.0.8'] })).message).toBe(
      'Service "a" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.8"}: first value must match `clusterIP`');
    expect(causes(() => create(store, 'a', { clusterIPs: ['10.96.0.8'] })).message).toBe(
      'Service "a" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.8"}: must be empty when `clusterIP` is not specified');
    expect(causes(() => create(store, 'a', { clusterIP: 'fd00::1' })).message).toBe(
      'Service "a" is invalid: spec.clusterIPs[0]: Invalid value: []string{"fd00::1"}: IPv6 is not configured on this cluster');
    expect(causes(() => create(store, 'a', { ipFamilyPolicy: 'RequireDualStack' })).message).toBe(
      'Service "a" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services');
    expect(causes(() => create(store, 'a', { ipFamilies: ['IPv6'] })).message).toBe(
      'Service "a" is invalid: spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster');
    // Headless and ExternalName services hold nothing.
    expect(spec(create(store, 'h', { clusterIP: 'None' }))).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'] });
    expect(spec(create(store, 'x', { type: 'ExternalName', externalName: 'example.com', ports: [] })).clusterIP).toBeUndefined();
  });

  it('frees an address when its Service is deleted or becomes ExternalName, and allocates one when it stops being one', () => {
    const { store, index } = indexedStore();
    create(store, 'a', { clusterIP: '10.96.5.5' });
    del(store, 'a');
    expect(spec(create(store, 'b', { clusterIP: '10.96.5.5' })).clusterIP).toBe('10.96.5.5');
    const ext = spec(patch(store, 'b', { type: 'ExternalName', externalName: 'example.com' }));
    expect(ext.clusterIP).toBeUndefined();
    expect(ext.clusterIPs).toBeUndefined();
    expect(index.ips.has(clusterIPMember('10.96.5.5'))).toBe(false);
    expect(spec(create(store, 'c', { clusterIP: '10.96.5.5' })).clusterIP).toBe('10.96.5.5');
    expect(causes(() => patch(store, 'b', { type: 'ClusterIP', externalName: null, clusterIP: '10.96.5.5' })).message).toContain('provided IP is already allocated');
    const back = spec(patch(store, 'b', { type: 'ClusterIP', externalName: null }));
    expect(back.clusterIP).toMatch(/^10\./);
    expect(back.clusterIP).not.toBe('10.96.5.5');
  });

  it('keeps an allocated address across updates that leave it out, and refuses a change with kube\'s message', () => {
    const { store } = indexedStore();
    const ip = spec(create(store, 'a', {})).clusterIP;
    const put = executeWrite(store, env(), { verb: 'update', namespace: 'ns', name: 'a', subresource: '', body: JSON.stringify({ metadata: { name: 'a' }, spec: { ports: [{ port: 80 }] } }) });
    expect(spec(put.body as KubeObject).clusterIP).toBe(ip);
    expect(causes(() => patch(store, 'a', { clusterIP: '10.96.7.7' })).message).toBe(
      'Service "a" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.7.7"}: may not change once set');
  });

  it('works over a store without an index (scanned), as the unit-test stores are', () => {
    const { store } = memoryStore();
    create(store, 'a', { clusterIP: '10.96.5.5' });
    expect(causes(() => create(store, 'b', { clusterIP: '10.96.5.5' })).message).toContain('provided IP is already allocated');
  });
});

describe('nodePort allocation', () => {
  it('allocates one nodePort per service port number for NodePort and LoadBalancer services, none for ClusterIP', () => {
    const { store } = indexedStore();
    const np = spec(create(store, 'np', { type: 'NodePort', ports: [{ name: 'a', port: 53, protocol: 'TCP' }, { name: 'b', port: 53, protocol: 'UDP' }, { name: 'c', port: 80 }] }));
    const [a, b, c] = np.ports.map((p: { nodePort: number }) => p.nodePort);
    expect(a).toBe(b); // one number for TCP and UDP of one port (initNodePorts' svcPortToNodePort)
    expect(c).not.toBe(a);
    for (const n of [a, c]) expect(n - 30000).toBeGreaterThanOrEqual(86);
    expect(spec(create(store, 'lb', { type: 'LoadBalancer' })).ports[0].nodePort).toBeGreaterThanOrEqual(30000);
    expect(spec(create(store, 'lb0', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false })).ports[0].nodePort).toBeUndefined();
    expect(spec(create(store, 'cip', {})).ports[0].nodePort).toBeUndefined();
  });

  it('refuses a taken or out-of-range nodePort, and a port taken twice within one service', () => {
    const { store } = indexedStore();
    create(store, 'a', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] });
    expect(causes(() => create(store, 'b', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }))).toEqual({
      code: 422,
      message: 'Service "b" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
      causes: [{ reason: 'FieldValueInvalid', field: 'spec.ports[0].nodePort', message: 'Invalid value: 30080: provided port is already allocated' }],
    });
    expect(causes(() => create(store, 'c', { type: 'NodePort', ports: [{ port: 80, nodePort: 29999 }] })).message).toBe(
      'Service "c" is invalid: spec.ports[0].nodePort: Invalid value: 29999: provided port is not in the valid range. The range of valid ports is 30000-32767');
    expect(causes(() => create(store, 'd', { type: 'NodePort', ports: [{ name: 'x', port: 80, nodePort: 30090 }, { name: 'y', port: 81, protocol: 'UDP', nodePort: 30090 }] })).message).toBe(
      'Service "d" is invalid: spec.ports[1].nodePort: Invalid value: 30090: provided port is already allocated');
    expect(spec(create(store, 'd', { type: 'NodePort', ports: [{ port: 80, nodePort: 30090 }] })).ports[0].nodePort).toBe(30090);
  });

  it('gives a LoadBalancer with externalTrafficPolicy Local a health check nodePort, refused with kube\'s 500 when taken', () => {
    const { store } = indexedStore();
    const lb = spec(create(store, 'lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local' }));
    expect(lb.healthCheckNodePort).toBeGreaterThanOrEqual(30000);
    expect(lb.healthCheckNodePort).not.toBe(lb.ports[0].nodePort);
    const s = statusOf(() => create(store, 'lb2', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: lb.healthCheckNodePort }));
    expect([s.code, s.message]).toEqual([500, `Internal error occurred: failed to allocate requested HealthCheck NodePort ${lb.healthCheckNodePort}: provided port is already allocated`]);
  });

  it('keeps nodePorts an update leaves out, frees them on a change to ClusterIP, and checks new ones', () => {
    const { store, index } = indexedStore();
    const n = spec(create(store, 'a', { type: 'NodePort' })).ports[0].nodePort;
    const put = executeWrite(store, env(), { verb: 'update', namespace: 'ns', name: 'a', subresource: '', body: JSON.stringify({ metadata: { name: 'a' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } }) });
    expect(spec(put.body as KubeObject).ports[0].nodePort).toBe(n);
    const cip = spec(patch(store, 'a', { type: 'ClusterIP' }));
    expect(cip.ports[0].nodePort).toBeUndefined();
    expect(cip.externalTrafficPolicy).toBeUndefined();
    expect(index.ports.has(n - 30000)).toBe(false);
    create(store, 'b', { type: 'NodePort', ports: [{ port: 80, nodePort: n }] });
    expect(causes(() => patch(store, 'a', { type: 'NodePort', ports: [{ port: 80, nodePort: n }] })).message).toContain('provided port is already allocated');
    expect(spec(patch(store, 'a', { type: 'NodePort' })).ports[0].nodePort).not.toBe(n);
  });
});

describe('the allocation index', () => {
  it('derives holdings from stored Services, counts shared members, and frees on delete', () => {
    const svc = (ip: string, extra: Record<string, unknown> = {}) => ({ metadata: { name: 'x' }, spec: { clusterIP: ip, clusterIPs: [ip], ...extra } }) as KubeObject;
    const index = ServiceAllocations.of([
      ['a', svc('10.96.0.5')], ['b', svc('10.96.0.5')], ['c', svc('8.8.8.8')],
      ['d', svc('10.96.0.6', { type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] })],
      ['e', svc('10.96.0.7', { type: 'ExternalName' })],
    ]);
    const m5 = clusterIPMember('10.96.0.5');
    expect(index.ips.has(m5)).toBe(true);
    index.track('a', undefined);
    expect(index.ips.has(m5)).toBe(true); // b still holds it
    index.track('b', undefined);
    expect(index.ips.has(m5)).toBe(false);
    expect(index.ports.has(5)).toBe(true);
    index.track('d', svc('10.96.0.6'));
    expect(index.ports.has(5)).toBe(false);
    expect(index.ips.has(clusterIPMember('10.96.0.7'))).toBe(false);
    expect(index.ips.held).toBe(2); // 10.96.0.1 (kubernetes) and 10.96.0.6
  });

  it('finds the first free member past a run of held ones, wrapping within the upper block, then the lower block', () => {
    const r = new RangeHoldings(100, 10);
    for (let m = 10; m < 60; m++) r.add(m);
    expect(r.next(0)).toBe(60); // the run 10..59 skipped in one search
    for (let m = 60; m < 100; m++) r.add(m);
    expect(r.next(0.5, 0.3)).toBe(3); // upper block full: the lower one, from its random start
    for (let m = 0; m < 10; m++) r.add(m);
    expect(r.next(0.5)).toBe(-1);
    r.remove(42);
    expect(r.next(0.99)).toBe(42); // wraps from the end of the upper block
  });

  it('allocates past an adversarial layout (every other member held) without walking it', () => {
    const r = new RangeHoldings(1 << 16, 256);
    // Every other member held, then runs: a walk would pass each holder; the search jumps runs whole.
    for (let m = 256; m < (1 << 16); m += 2) r.add(m);
    const got = new Set<number>();
    for (let i = 0; i < 2_000; i++) {
      const m = r.next(i / 2_000);
      expect(m).toBeGreaterThanOrEqual(256);
      expect(got.has(m)).toBe(false);
      got.add(m);
      r.add(m);
    }
    expect(r.held).toBe((1 << 15) - 128 + 2_000);
    expect(memberIP(0)).toBe('10.96.0.1');
  });
});

describe('through executeWrite over a store with objects keyed as the Durable Object keys them', () => {
  it('a racing pair of creates for one address: the second is refused', () => {
    const { store, objects } = indexedStore();
    create(store, 'one', { clusterIP: '10.100.200.200' });
    expect(objects.has(objectKey('ns', 'one'))).toBe(true);
    expect(causes(() => create(store, 'two', { clusterIP: '10.100.200.200' })).code).toBe(422);
    expect(objects.has(objectKey('ns', 'two'))).toBe(false);
  });
});
