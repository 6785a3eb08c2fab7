// The ReplicaSet controller run for ReplicationControllers: same algorithm, the RC's map selector, its
// own kind in ownerReferences and its own status endpoint.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { REPLICATION_CONTROLLER_KIND, ReplicaSetController } from '../../controllers/replicaset';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder } from './fakes';

const rc = (replicas: number): KubeObject => ({
  apiVersion: 'v1', kind: 'ReplicationController',
  metadata: { name: 'rc1', namespace: 'ns', uid: 'rc-uid', generation: 1, resourceVersion: '1' },
  spec: { replicas, selector: { app: 'rc1' }, template: { metadata: { labels: { app: 'rc1' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  status: { replicas: 0 },
});

const pod = (name: string, labels: Record<string, string>, owner?: string): KubeObject => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: {
    name, namespace: 'ns', uid: `${name}-uid`, creationTimestamp: '2026-01-01T00:00:00Z', labels,
    ...(owner ? { ownerReferences: [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'rc1', uid: owner, controller: true }] } : {}),
  },
  spec: {}, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
});

function setup() {
  const api = new FakeApi();
  const rcs = new FakeInformer();
  const pods = new FakeInformer();
  const recorder = new FakeRecorder();
  const c = new ReplicaSetController({ api, replicaSets: rcs, pods, recorder, clock: new FakeClock(), kind: REPLICATION_CONTROLLER_KIND });
  return { api, rcs, pods, recorder, c };
}

describe('ReplicationController controller', () => {
  it('creates pods owned by the RC and writes replicationcontrollers/status', async () => {
    const { api, rcs, c, recorder } = setup();
    rcs.add(rc(2));
    await c.sync('ns/rc1');
    const creates = api.writes('create', 'pods');
    expect(creates).toHaveLength(2);
    expect((creates[0].body as KubeObject).metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'ReplicationController', name: 'rc1', uid: 'rc-uid', controller: true, blockOwnerDeletion: true }]);
    // Status goes to the RC's own endpoint (the informer has not shown the pods yet).
    expect(api.writes('update').map((w) => [w.resource, w.subresource, (w.body as any).status])).toEqual([['replicationcontrollers', 'status', { replicas: 0, observedGeneration: 1 }]]);
    expect(recorder.events.map((e) => e.reason)).toEqual(['SuccessfulCreate', 'SuccessfulCreate']);
  });

  it('selects by the map selector: keeps its pods, adopts matching orphans, ignores other labels', async () => {
    const { api, rcs, pods, c } = setup();
    rcs.add(rc(2));
    api.put({ group: '', version: 'v1', resource: 'replicationcontrollers', namespaced: true }, rc(2));
    for (const p of [pod('mine', { app: 'rc1' }, 'rc-uid'), pod('orphan', { app: 'rc1' }), pod('other', { app: 'x' })]) {
      api.put({ group: '', version: 'v1', resource: 'pods', namespaced: true }, p);
      pods.add(p);
    }
    await c.sync('ns/rc1');
    expect(api.writes('patch', 'pods').map((w) => w.name)).toEqual(['orphan']);
    expect(api.writes('create', 'pods')).toHaveLength(0);
    const status = (api.writes('update', 'replicationcontrollers')[0].body as any).status;
    expect(status).toEqual({ replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 1 });
  });
});
