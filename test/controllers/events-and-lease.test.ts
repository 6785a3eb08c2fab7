import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { ApiError } from '../../client/types';
import { RESOURCES } from '../../controllers/api-client';
import { ApiEventRecorder } from '../../controllers/events';
import { LeaderElector, microTime } from '../../controllers/leader-election';
import { FakeApi, FakeClock } from './fakes';

const rs: KubeObject = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-abc', namespace: 'ns', uid: 'u1', resourceVersion: '5' } };

describe('ApiEventRecorder', () => {
  it('creates a core/v1 event, then counts repeats on it with a patch', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    const rec = new ApiEventRecorder(api, 'replicaset-controller', clock);
    rec.event(rs, 'Normal', 'SuccessfulCreate', 'Created pod: web-abc-x');
    clock.advance(2000);
    rec.event(rs, 'Normal', 'SuccessfulCreate', 'Created pod: web-abc-x');
    rec.event(rs, 'Normal', 'SuccessfulCreate', 'Created pod: web-abc-y'); // another message: another event
    await rec.flush();
    const [created, patched, other] = api.writes();
    expect(created.verb).toBe('create');
    expect(created.body).toMatchObject({
      apiVersion: 'v1', kind: 'Event', metadata: { namespace: 'ns', name: expect.stringMatching(/^web-abc\.[0-9a-f]+$/) },
      involvedObject: { kind: 'ReplicaSet', namespace: 'ns', name: 'web-abc', uid: 'u1', apiVersion: 'apps/v1', resourceVersion: '5' },
      reason: 'SuccessfulCreate', message: 'Created pod: web-abc-x', type: 'Normal', source: { component: 'replicaset-controller' },
      firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:00:00Z', count: 1,
    });
    expect(patched).toMatchObject({ verb: 'patch', name: created.name, body: { count: 2, lastTimestamp: '2026-01-01T00:00:02Z' } });
    expect(other.verb).toBe('create');
  });

  it('creates the event anew when the one it would count on is gone', async () => {
    const api = new FakeApi();
    const rec = new ApiEventRecorder(api, 'c', new FakeClock());
    rec.event(rs, 'Warning', 'FailedCreate', 'x');
    await rec.flush();
    api.objects.clear();
    rec.event(rs, 'Warning', 'FailedCreate', 'x');
    await rec.flush();
    expect(api.writes().map((c) => c.verb)).toEqual(['create', 'patch', 'create']);
  });
});

describe('LeaderElector', () => {
  const config = { namespace: 'kube-system', name: 'kube-controller-manager', identity: 'me', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

  it('creates the Lease when there is none and renews it', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    const e = new LeaderElector(api, clock, config);
    expect(await e.tryAcquireOrRenew()).toBe(true);
    const lease = api.objects.get('leases/kube-system/kube-controller-manager')!;
    expect(lease.spec).toEqual({ holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: microTime(clock.now()), renewTime: microTime(clock.now()), leaseTransitions: 0 });
    expect(microTime(clock.now())).toBe('2026-01-01T00:00:00.000000Z');
    clock.advance(2000);
    expect(await e.tryAcquireOrRenew()).toBe(true);
    expect(api.objects.get('leases/kube-system/kube-controller-manager')!.spec).toMatchObject({ renewTime: '2026-01-01T00:00:02.000000Z', acquireTime: '2026-01-01T00:00:00.000000Z', leaseTransitions: 0 });
  });

  it('waits out another holder\'s lease by its own clock, then takes over with a transition', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    api.put(RESOURCES.leases, {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'kube-controller-manager', namespace: 'kube-system', resourceVersion: '1' },
      spec: { holderIdentity: 'other', leaseDurationSeconds: 15, renewTime: '2020-01-01T00:00:00.000000Z', leaseTransitions: 4 },
    });
    const e = new LeaderElector(api, clock, config);
    expect(await e.tryAcquireOrRenew()).toBe(false); // an old renewTime does not matter: first seen now
    clock.advance(14_000);
    expect(await e.tryAcquireOrRenew()).toBe(false);
    clock.advance(1_001);
    expect(await e.tryAcquireOrRenew()).toBe(true);
    expect(api.objects.get('leases/kube-system/kube-controller-manager')!.spec).toMatchObject({ holderIdentity: 'me', leaseTransitions: 5 });
  });

  it('loses leadership when renewals fail for renewDeadline', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    const e = new LeaderElector(api, clock, config);
    await e.tryAcquireOrRenew();
    api.get = async () => { throw new ApiError(503); };
    clock.advance(9_000);
    expect(await e.tryAcquireOrRenew()).toBe(true); // still inside renewDeadline
    clock.advance(1_000);
    expect(await e.tryAcquireOrRenew()).toBe(false);
    expect(e.isLeader()).toBe(false);
  });
});

describe('ApiEventRecorder aggregation', () => {
  it('combines the 10th and later distinct messages into one counted event', async () => {
    const api = new FakeApi();
    const rec = new ApiEventRecorder(api, 'replicaset-controller', new FakeClock());
    for (let i = 0; i < 12; i++) rec.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: p${i}`);
    await rec.flush();
    const creates = api.writes('create');
    expect(creates).toHaveLength(10);
    expect(creates.slice(0, 9).map((c) => (c.body as any).message)).toEqual([...Array(9).keys()].map((i) => `Created pod: p${i}`));
    expect((creates[9].body as any).message).toBe('(combined from similar events): Created pod: p9');
    expect(api.writes('patch').map((c) => c.body)).toEqual([
      { count: 2, lastTimestamp: '2026-01-01T00:00:00Z', message: '(combined from similar events): Created pod: p10' },
      { count: 3, lastTimestamp: '2026-01-01T00:00:00Z', message: '(combined from similar events): Created pod: p11' },
    ]);
  });
});
