// The aggregation layer's CRD APIServices and discovery end to end, with /usr/bin/kubectl and the controller
// manager running: a CRD's served versions get kube's automanaged local APIServices (Available, Local), removed with
// the CRD; metrics-server's APIService taking over metrics.k8s.io while its Service is missing makes that version
// Stale in aggregated discovery and its documents answer 503, so `kubectl top` fails as on kube; and a group only a
// service-backed APIService names is listed in /apis, Stale, which kubectl leaves out of api-resources.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';

async function must(r: Running, args: string[], stdin?: string) {
  const res = await kubectl(r, args, stdin);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

const get = async (r: Running, path: string): Promise<any> => (await http(r, 'GET', path)).json;
const AGGREGATED = { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' };
const aggregatedGroup = async (r: Running, name: string) => ((await http(r, 'GET', '/apis', undefined, AGGREGATED)).json.items as any[]).find((i) => i.metadata.name === name);

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
  - {name: v1beta1, served: false, storage: false, schema: {openAPIV3Schema: {type: object}}}
`;

const apiService = (group: string, service: string) => `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.${group}}
spec:
  service: {name: ${service}, namespace: kube-system}
  group: ${group}
  version: v1beta1
  insecureSkipTLSVerify: true
  groupPriorityMinimum: 100
  versionPriority: 100
`;

describe('APIServices for CRDs, and discovery of unavailable ones', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '1' } });
  });
  afterAll(async () => {
    await stopTestGateway(r);
  });

  it('registers a CRD\'s served versions as local APIServices and removes them with the CRD', async () => {
    await must(r, ['apply', '-f', '-'], CRD);
    const a = await waitFor('v1.example.com Available', async () => {
      const o = await get(r, '/apis/apiregistration.k8s.io/v1/apiservices/v1.example.com');
      return o?.status?.conditions?.[0]?.status === 'True' ? o : undefined;
    });
    expect(a.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'true' });
    expect(a.spec).toEqual({ group: 'example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    expect(a.status.conditions[0]).toMatchObject({ reason: 'Local' });
    expect(await must(r, ['get', 'apiservice', 'v1.example.com'])).toMatch(/^v1\.example\.com\s+Local\s+True\s/m);
    expect((await http(r, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.example.com')).status).toBe(404); // not served
    await must(r, ['delete', 'crd', 'widgets.example.com']);
    await waitFor('v1.example.com deleted', async () => ((await http(r, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.example.com')).status === 404 ? true : undefined));
  });

  it('shows metrics.k8s.io Stale while metrics-server\'s APIService is unavailable, and kubectl top fails as on kube', async () => {
    expect((await aggregatedGroup(r, 'metrics.k8s.io')).versions[0]).toMatchObject({ version: 'v1beta1', freshness: 'Current' });
    await must(r, ['apply', '-f', '-'], apiService('metrics.k8s.io', 'metrics-server'));
    await waitFor('ServiceNotFound', async () => ((await get(r, '/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io')).status?.conditions?.[0]?.reason === 'ServiceNotFound' ? true : undefined));
    const stale = await waitFor('metrics.k8s.io Stale', async () => {
      const g = await aggregatedGroup(r, 'metrics.k8s.io');
      return g?.versions?.[0]?.freshness === 'Stale' ? g : undefined;
    });
    expect(stale.versions).toEqual([{ version: 'v1beta1', freshness: 'Stale' }]);
    const doc = await http(r, 'GET', '/apis/metrics.k8s.io/v1beta1');
    expect([doc.status, doc.text]).toEqual([503, 'service unavailable\n']);
    expect((await get(r, '/apis')).groups.some((g: any) => g.name === 'metrics.k8s.io')).toBe(true);
    const top = await kubectl(r, ['top', 'nodes']);
    expect(top.code).not.toBe(0);
    // The built-in local APIService back: metrics served again.
    await must(r, ['delete', 'apiservice', 'v1beta1.metrics.k8s.io']);
    await must(r, ['apply', '-f', '-'], `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.metrics.k8s.io}
spec: {group: metrics.k8s.io, version: v1beta1, groupPriorityMinimum: 100, versionPriority: 100}
`);
    await waitFor('metrics.k8s.io Current', async () => ((await aggregatedGroup(r, 'metrics.k8s.io'))?.versions?.[0]?.freshness === 'Current' ? true : undefined));
    expect((await http(r, 'GET', '/apis/metrics.k8s.io/v1beta1')).status).toBe(200);
  }, 90_000);

  it('lists a group only a service-backed APIService names, which kubectl leaves out', async () => {
    await must(r, ['apply', '-f', '-'], apiService('custom.metrics.k8s.io', 'custom-metrics'));
    const group = await waitFor('custom.metrics.k8s.io listed', async () => aggregatedGroup(r, 'custom.metrics.k8s.io'));
    expect(group.versions).toEqual([{ version: 'v1beta1', freshness: 'Stale' }]);
    expect((await get(r, '/apis')).groups.find((g: any) => g.name === 'custom.metrics.k8s.io')).toEqual({
      name: 'custom.metrics.k8s.io', versions: [{ groupVersion: 'custom.metrics.k8s.io/v1beta1', version: 'v1beta1' }],
      preferredVersion: { groupVersion: 'custom.metrics.k8s.io/v1beta1', version: 'v1beta1' },
    });
    // kubectl 1.32 drops a Stale version from api-resources without failing (client-go's StaleGroupVersionError).
    const res = await kubectl(r, ['api-resources']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^deployments\s/m);
    expect(res.stdout).not.toContain('custom.metrics.k8s.io');
    const raw = await kubectl(r, ['get', '--raw', '/apis/custom.metrics.k8s.io/v1beta1']);
    expect(raw.code).not.toBe(0);
    expect(raw.stderr).toContain('the server is currently unable to handle the request');
  }, 60_000);
});
