import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { chainHash, computeRules, probability } from '../../controllers/proxy-rules';

const svc = (name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default', labels }, spec: { clusterIP: '10.96.0.10', ...spec },
});
const ep = (ip: string, node: string, c: Record<string, boolean> = {}) => ({ addresses: [ip], nodeName: node, conditions: { ready: true, serving: true, terminating: false, ...c } });
const slice = (svcName: string, ports: unknown[], endpoints: unknown[]): KubeObject => ({
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
  metadata: { name: `${svcName}-abc`, namespace: 'default', labels: { 'kubernetes.io/service-name': svcName } },
  addressType: 'IPv4', ports, endpoints,
} as KubeObject);

describe('proxy rules', () => {
  it('hashes chain names as kube-proxy (base32 of sha256, 16 characters)', async () => {
    const h = await chainHash('default/webtcp');
    expect(h).toMatch(/^[A-Z2-7]{16}$/);
    expect(await chainHash('default/webtcp')).toBe(h);
    expect(await chainHash('default/webudp')).not.toBe(h);
    expect([probability(3), probability(2)]).toEqual(['0.3333333333', '0.5000000000']);
  });

  it('maps clusterIP:port to the ready endpoints with kube probabilities, ports matched by name', async () => {
    const rules = await computeRules('node-1', [svc('web', { ports: [{ port: 80, protocol: 'TCP', targetPort: 8080, nodePort: 30080 }] })], [
      slice('web', [{ name: '', port: 8080, protocol: 'TCP' }], [ep('10.244.1.3', 'node-1'), ep('10.244.2.2', 'node-2'), ep('10.244.3.2', 'node-3'), ep('10.244.9.9', 'node-1', { ready: false, serving: false })]),
    ]);
    expect(rules).toHaveLength(1);
    const r = rules[0];
    expect(r).toMatchObject({ service: 'default/web', port: { name: '', protocol: 'TCP', port: 80 }, clusterIP: '10.96.0.10', nodePort: 30080, chain: `KUBE-SVC-${await chainHash('default/webtcp')}` });
    expect(r.endpoints.map((e) => [e.ip, e.port, e.probability])).toEqual([
      ['10.244.1.3', 8080, '0.3333333333'], ['10.244.2.2', 8080, '0.5000000000'], ['10.244.3.2', 8080, null],
    ]);
    expect(r.endpoints[0].chain).toBe(`KUBE-SEP-${await chainHash('default/webtcp10.244.1.3:8080')}`);
  });

  it('falls back to serving terminating endpoints, honours internalTrafficPolicy Local, skips headless and proxy-name services', async () => {
    const slices = [slice('web', [{ name: 'http', port: 8080, protocol: 'TCP' }], [
      ep('10.244.1.3', 'node-1', { ready: false, terminating: true }), ep('10.244.2.2', 'node-2', { ready: false, serving: false, terminating: true }),
    ]), slice('local', [{ name: '', port: 80, protocol: 'TCP' }], [ep('10.244.1.4', 'node-1'), ep('10.244.2.4', 'node-2')])];
    const services = [
      svc('web', { ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }),
      svc('local', { ports: [{ port: 80, protocol: 'TCP' }], internalTrafficPolicy: 'Local', clusterIP: '10.96.0.11' }),
      svc('headless', { ports: [{ port: 80 }], clusterIP: 'None' }),
      svc('other', { ports: [{ port: 80 }] }, { 'service.kubernetes.io/service-proxy-name': 'x' }),
    ];
    const rules = await computeRules('node-2', services, slices);
    expect(rules.map((r) => [r.service, r.port.name, r.endpoints.map((e) => e.ip)])).toEqual([
      ['default/local', '', ['10.244.2.4']],
      ['default/web', 'http', ['10.244.1.3']],
    ]);
    // No endpoints at all: the rule stays, with none (REJECT).
    const empty = await computeRules('node-1', [svc('web', { ports: [{ port: 80 }] })], []);
    expect(empty[0].endpoints).toEqual([]);
  });

  it('programs only addresses in the service ranges, each for its oldest claimant (state stored before allocation)', async () => {
    const aged = (name: string, ts: string, spec: Record<string, unknown>) => {
      const s = svc(name, spec);
      s.metadata.creationTimestamp = ts;
      return s;
    };
    const services = [
      aged('victim', '2026-01-01T00:00:00Z', { ports: [{ port: 80, nodePort: 30080 }], type: 'NodePort' }),
      aged('squatter', '2026-01-02T00:00:00Z', { ports: [{ port: 80, nodePort: 30080 }], type: 'NodePort' }),
      aged('dns', '2026-01-01T00:00:00Z', { ports: [{ port: 53 }], clusterIP: '8.8.8.8' }),
      aged('far', '2026-01-01T00:00:00Z', { ports: [{ port: 81, nodePort: 80 }], clusterIP: '10.96.0.12', type: 'NodePort' }),
    ];
    const rules = await computeRules('node-1', services, []);
    expect(rules.map((r) => [r.service, r.clusterIP, r.nodePort])).toEqual([
      ['default/far', '10.96.0.12', null],
      ['default/victim', '10.96.0.10', 30080],
    ]);
  });
});
