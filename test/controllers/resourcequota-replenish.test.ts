// The ResourceQuota controller's replenishment (kubernetes pkg/controller/resourcequota resource_quota_monitor.go):
// the namespace's quotas are recounted when a Service or claim is deleted or changes what it uses — a Service's
// type, a claim's request — and not for changes quota does not see.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { ResourceQuotaController } from '../../controllers/resourcequota';
import { FakeApi, FakeClock, FakeInformer } from './fakes';

const quota: KubeObject = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'ns', resourceVersion: '1' }, spec: { hard: { 'services.nodeports': '2' } } };
const svc = (type: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'ns', resourceVersion: '1', labels }, spec: { type, ports: [{ port: 80 }] },
});
const claim = (storage: string): KubeObject => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'ns', resourceVersion: '1' }, spec: { resources: { requests: { storage } } },
});

describe('ResourceQuota controller replenishment', () => {
  it('recounts on a Service\'s type change and delete and a claim\'s size change, not on other updates', () => {
    const quotas = new FakeInformer(), services = new FakeInformer(), claims = new FakeInformer();
    quotas.add(quota);
    const c = new ResourceQuotaController({ api: new FakeApi(), quotas, pods: new FakeInformer(), services, claims, clock: new FakeClock(), list: async () => [] });
    const queued: string[] = [];
    c.queue.add = (k: string) => void queued.push(k);
    services.add(svc('NodePort'));
    services.add(svc('NodePort', { a: 'b' }));
    expect(queued).toEqual([]);
    services.add(svc('ClusterIP'));
    expect(queued).toEqual(['ns/q']);
    services.delete(svc('ClusterIP'));
    claims.add(claim('2Gi'));
    claims.add(claim('1Gi'));
    expect(queued).toEqual(['ns/q', 'ns/q', 'ns/q']);
  });
});
