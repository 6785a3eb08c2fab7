// The aggregator's availability loop (controllers/apiservice.ts over apiservice-plan.ts) with fakes: local
// APIServices Available ("Local"), a service-backed one judged by its Service and Endpoints with kube's reasons
// and messages, metrics.k8s.io passing once metrics-server's pods are ready, and a Service change requeueing it.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { ApiServiceAvailabilityController, APISERVICES } from '../../controllers/apiservice';
import { availability } from '../../controllers/apiservice-plan';
import { FakeApi, FakeClock, FakeInformer } from './fakes';

type Obj = Record<string, any>;

const apiService = (group: string, version: string, service?: Obj): KubeObject => ({
  apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: `${version}.${group}` },
  spec: { group, version, groupPriorityMinimum: 100, versionPriority: 100, ...(service ? { service } : {}) }, status: {},
} as KubeObject);

const svc = (ports: Obj[] = [{ name: 'https', port: 443 }]) => ({ metadata: { name: 'm', namespace: 'kube-system' }, spec: { type: 'ClusterIP', ports } });
const eps = (ready: boolean) => ({
  metadata: { name: 'm', namespace: 'kube-system' },
  subsets: ready ? [{ addresses: [{ ip: '10.244.1.5' }], ports: [{ name: 'https', port: 10250 }] }] : [{ notReadyAddresses: [{ ip: '10.244.1.5' }], ports: [{ name: 'https', port: 10250 }] }],
});

describe('APIService availability', () => {
  const ref = { namespace: 'kube-system', name: 'm', port: 443 };

  it('judges a service-backed APIService as kube\'s available controller does', () => {
    const a = apiService('custom.metrics.k8s.io', 'v1beta1', ref);
    expect(availability(apiService('apps', 'v1'), undefined, undefined)).toEqual({ type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' });
    expect(availability(a, undefined, undefined)).toMatchObject({ status: 'False', reason: 'ServiceNotFound', message: 'service/m in "kube-system" is not present' });
    expect(availability(a, svc([{ name: 'x', port: 80 }]), undefined)).toMatchObject({ reason: 'ServicePortError', message: 'service/m in "kube-system" is not listening on port 443' });
    expect(availability(a, svc(), undefined)).toMatchObject({ reason: 'EndpointsNotFound', message: 'cannot find endpoints for service/m in "kube-system"' });
    expect(availability(a, svc(), eps(false))).toMatchObject({ reason: 'MissingEndpoints', message: 'endpoints for service/m in "kube-system" have no addresses with port name "https"' });
    expect(availability(a, svc(), eps(true))).toMatchObject({
      status: 'False', reason: 'FailedDiscoveryCheck',
      message: 'failing or missing response from https://10.244.1.5:10250/apis/custom.metrics.k8s.io/v1beta1: Get "https://10.244.1.5:10250/apis/custom.metrics.k8s.io/v1beta1": dial tcp 10.244.1.5:10250: connect: connection refused',
    });
    // metrics-server's manifests: the built-in metrics.k8s.io answers for its pods once they are ready.
    expect(availability(apiService('metrics.k8s.io', 'v1beta1', ref), svc(), eps(true))).toEqual({ type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' });
  });

  it('writes the condition only when it changes, and requeues an APIService when its Service changes', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    const apiServices = new FakeInformer(), services = new FakeInformer(), endpoints = new FakeInformer();
    const c = new ApiServiceAvailabilityController({ api, apiServices, services, endpoints, clock });
    const a = apiService('metrics.k8s.io', 'v1beta1', ref);
    api.put(APISERVICES, a);
    apiServices.add(a);
    await c.sync(a.metadata.name!);
    let stored = api.objects.get(`apiservices//${a.metadata.name}`) as Obj;
    expect(stored.status.conditions).toEqual([{ type: 'Available', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'ServiceNotFound', message: 'service/m in "kube-system" is not present' }]);
    apiServices.add(stored as KubeObject);
    const writes = api.writes().length;
    await c.sync(a.metadata.name!);
    expect(api.writes()).toHaveLength(writes);
    // The Service and its ready endpoints arrive: the APIService is queued again and passes.
    while (c.queue.len()) c.queue.done((await c.queue.get())!);
    services.add(svc() as KubeObject);
    endpoints.add(eps(true) as unknown as KubeObject);
    expect(c.queue.len()).toBe(1);
    clock.advance(5000);
    await c.sync(a.metadata.name!);
    stored = api.objects.get(`apiservices//${a.metadata.name}`) as Obj;
    expect(stored.status.conditions[0]).toMatchObject({ status: 'True', reason: 'Passed', lastTransitionTime: '2026-01-01T00:00:05Z' });
  });
});
