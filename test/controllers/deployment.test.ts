// The Deployment controller driven against an in-memory cluster: every write lands in the informers, and
// a kubelet step makes each ReplicaSet's pods exist and be available. Checks kube's rollout invariants at
// every step (never more than replicas + maxSurge pods, never fewer than replicas - maxUnavailable available).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { RESOURCES } from '../../controllers/api-client';
import { DeploymentController } from '../../controllers/deployment';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder } from './fakes';

function deployment(replicas: number, image: string, strategy: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name: 'web', namespace: 'ns', uid: 'd-uid', generation: 1, resourceVersion: '1' },
    spec: {
      replicas, strategy, revisionHistoryLimit: 10, progressDeadlineSeconds: 600,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image }] } },
    },
  };
}

class Cluster {
  clock = new FakeClock();
  api = new FakeApi();
  deployments = new FakeInformer();
  replicaSets = new FakeInformer();
  pods = new FakeInformer();
  recorder = new FakeRecorder();
  controller = new DeploymentController({ api: this.api, deployments: this.deployments, replicaSets: this.replicaSets, pods: this.pods, recorder: this.recorder, clock: this.clock });

  constructor(d: KubeObject) {
    this.api.put(RESOURCES.deployments, d);
    this.refresh();
  }

  /** The informers catch up with the API. */
  refresh(): void {
    for (const [key, obj] of this.api.objects) {
      const inf = key.startsWith('deployments/') ? this.deployments : key.startsWith('replicasets/') ? this.replicaSets : undefined;
      const cur = inf?.get(`${obj.metadata.namespace}/${obj.metadata.name}`);
      if (inf && cur?.metadata.resourceVersion !== obj.metadata.resourceVersion) inf.add(structuredClone(obj));
    }
    for (const rs of this.replicaSets.list()) {
      if (!this.api.objects.has(`replicasets/ns/${rs.metadata.name}`)) this.replicaSets.delete(rs);
    }
  }

  /** Pods follow each ReplicaSet's size and are available at once (the ReplicaSet controller and kubelets). */
  kubelet(): void {
    for (const [key, rs] of this.api.objects) {
      if (!key.startsWith('replicasets/')) continue;
      const n = (rs.spec as any).replicas;
      rs.status = { replicas: n, readyReplicas: n, availableReplicas: n, observedGeneration: rs.metadata.generation ?? 0 };
      rs.metadata.resourceVersion = `${rs.metadata.resourceVersion}k`;
    }
  }

  rss(): KubeObject[] {
    return [...this.api.objects].filter(([k]) => k.startsWith('replicasets/')).map(([, v]) => v);
  }

  async sync(): Promise<void> {
    await this.controller.sync('ns/web');
    this.refresh();
  }

  deployment(): KubeObject {
    return this.api.objects.get('deployments/ns/web')!;
  }

  setImage(image: string): void {
    const d = structuredClone(this.deployment());
    (d.spec as any).template.spec.containers[0].image = image;
    d.metadata.generation = (d.metadata.generation as number) + 1;
    d.metadata.resourceVersion = `${d.metadata.resourceVersion}u`;
    this.api.put(RESOURCES.deployments, d);
    this.refresh();
  }
}

async function rollOut(c: Cluster, replicas: number, surge: number, unavailable: number, update = false): Promise<number> {
  for (let step = 1; step <= 50; step++) {
    await c.sync();
    const rss = c.rss();
    const total = rss.reduce((n, rs) => n + (rs.spec as any).replicas, 0);
    const available = rss.reduce((n, rs) => n + Math.min((rs.status as any)?.availableReplicas ?? 0, (rs.spec as any).replicas), 0);
    expect(total, `step ${step}: pods`).toBeLessThanOrEqual(replicas + surge);
    // During an update the running replicas stay available; a first rollout starts from none.
    if (update) expect(available, `step ${step}: available`).toBeGreaterThanOrEqual(replicas - unavailable);
    c.kubelet();
    c.refresh();
    const s = c.deployment().status as any;
    if (s?.conditions?.some((x: any) => x.type === 'Progressing' && x.reason === 'NewReplicaSetAvailable') && s.updatedReplicas === replicas && s.replicas === replicas) return step;
  }
  throw new Error('rollout did not complete in 50 steps');
}

describe('DeploymentController', () => {
  it('creates revision 1 at full size, then rolls a new image within maxSurge 1 / maxUnavailable 0', async () => {
    const c = new Cluster(deployment(3, 'nginx', { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }));
    await c.sync();
    const [first] = c.rss();
    expect((first.spec as any).replicas).toBe(3);
    expect(first.metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4' });
    expect(c.deployment().metadata.annotations).toEqual({ 'deployment.kubernetes.io/revision': '1' });
    expect((c.deployment().status as any).conditions).toEqual(expect.arrayContaining([
      expect.objectContaining({ type: 'Progressing', status: 'True', reason: 'NewReplicaSetCreated', message: `Created new replica set "${first.metadata.name}"` }),
      expect.objectContaining({ type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' }),
    ]));
    expect(c.recorder.events).toEqual([{ name: 'web', type: 'Normal', reason: 'ScalingReplicaSet', message: `Scaled up replica set ${first.metadata.name} from 0 to 3` }]);
    await rollOut(c, 3, 1, 0);

    c.recorder.events.length = 0;
    c.setImage('nginx:1.27');
    const steps = await rollOut(c, 3, 1, 0, true);
    expect(steps).toBeGreaterThan(3);
    const second = c.rss().find((x) => x.metadata.name !== first.metadata.name)!;
    expect((second.metadata.annotations as Record<string, string>)['deployment.kubernetes.io/revision']).toBe('2');
    expect(c.recorder.events.map((e) => e.message)).toEqual([
      `Scaled up replica set ${second.metadata.name} from 0 to 1`,
      `Scaled down replica set ${first.metadata.name} from 3 to 2`,
      `Scaled up replica set ${second.metadata.name} from 1 to 2`,
      `Scaled down replica set ${first.metadata.name} from 2 to 1`,
      `Scaled up replica set ${second.metadata.name} from 2 to 3`,
      `Scaled down replica set ${first.metadata.name} from 1 to 0`,
    ]);
    const status = c.deployment().status as any;
    expect(status).toMatchObject({ observedGeneration: 2, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(status.conditions.find((x: any) => x.type === 'Progressing')).toMatchObject({ reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${second.metadata.name}" has successfully progressed.` });
  });

  it('keeps the invariants with 10 replicas, maxSurge 3 and maxUnavailable 2', async () => {
    const c = new Cluster(deployment(10, 'nginx', { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }));
    await rollOut(c, 10, 3, 2);
    c.setImage('nginx:2');
    await rollOut(c, 10, 3, 2, true);
    expect(c.rss().map((rs) => (rs.spec as any).replicas).sort()).toEqual([0, 10]);
  });

  it('Recreate: scales the old ReplicaSet to 0 before the new one appears', async () => {
    const c = new Cluster(deployment(2, 'nginx', { type: 'Recreate' }));
    await rollOut(c, 2, 0, 2);
    c.setImage('nginx:2');
    await c.sync();
    expect(c.rss().map((rs) => (rs.spec as any).replicas)).toEqual([0]); // old scaled down, no new yet
    c.kubelet();
    c.refresh();
    await c.sync();
    expect(c.rss().map((rs) => (rs.spec as any).replicas).sort()).toEqual([0, 2]);
  });

  it('deletes the oldest scaled-down ReplicaSets beyond revisionHistoryLimit', async () => {
    const d = deployment(1, 'v0', { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
    (d.spec as any).revisionHistoryLimit = 1;
    const c = new Cluster(d);
    await rollOut(c, 1, 1, 0);
    for (const image of ['v1', 'v2', 'v3']) {
      c.setImage(image);
      await rollOut(c, 1, 1, 0, true);
      await c.sync(); // complete: cleanup runs
      c.refresh();
    }
    const revisions = c.rss().map((rs) => (rs.metadata.annotations as Record<string, string>)['deployment.kubernetes.io/revision']).sort();
    expect(revisions).toEqual(['3', '4']);
    expect(c.api.writes('delete', 'replicasets')).toHaveLength(2);
  });
});
