// Controllers: the disruption controller (kubernetes pkg/controller/disruption, run as disruption-controller):
// keeps each PodDisruptionBudget's status — expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed,
// the DisruptionAllowed condition and the disruptedPods the eviction subresource records — from the pods its
// selector matches and the replicas their controllers (Deployment through its ReplicaSet, ReplicaSet,
// ReplicationController, StatefulSet) want. A pod event requeues the budgets of its namespace that select it:
// linear in those budgets; a budget's sync is linear in its namespace's pods.

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { isConflict, isNotFound, RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';
import type { EventRecorder } from './events';
import type { SharedInformer } from './informers';
import { controllerOf } from './owner-refs';
import { computePdbStatus, pdbMatcher, pdbStatus, withAllowedCondition, type ScaleLookup } from './disruption-plan';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

export const COMPONENT = 'controllermanager'; // kube's disruption controller records events as "controllermanager"

export interface DisruptionDeps {
  api: Api;
  pdbs: SharedInformer;
  pods: SharedInformer;
  replicaSets: SharedInformer;
  deployments: SharedInformer;
  replicationControllers: SharedInformer;
  statefulSets: SharedInformer;
  recorder: EventRecorder;
  clock: Clock;
}

const replicasOf = (o: KubeObject): number => (o.spec as { replicas?: number } | undefined)?.replicas ?? 1;

export class DisruptionController {
  readonly queue: WorkQueue;
  private readonly scale: ScaleLookup;

  constructor(private readonly d: DisruptionDeps) {
    this.queue = new WorkQueue(d.clock);
    const enqueue = (p: KubeObject) => this.queue.add(objectKey(p));
    d.pdbs.addHandlers({ add: enqueue, update: enqueue });
    const onPod = (pod: KubeObject) => {
      for (const pdb of d.pdbs.byNamespace(pod.metadata.namespace ?? '')) if (pdbMatcher(pdb)(pod)) this.queue.add(objectKey(pdb));
    };
    d.pods.addHandlers({ add: onPod, update: onPod, delete: onPod });
    // A controller's replicas feed expectedPods (finders in disruption.go).
    const onController = (o: KubeObject) => {
      for (const pdb of d.pdbs.byNamespace(o.metadata.namespace ?? '')) this.queue.add(objectKey(pdb));
    };
    for (const i of [d.deployments, d.statefulSets, d.replicationControllers]) i.addHandlers({ update: onController });
    const find = (informer: SharedInformer, ns: string, name: string, uid: string) => {
      const o = informer.get(`${ns}/${name}`);
      return o && o.metadata.uid === uid ? o : undefined;
    };
    this.scale = {
      replicas: (kind, ns, name, uid) => {
        if (kind === 'ReplicaSet') {
          const rs = find(d.replicaSets, ns, name, uid);
          if (!rs) return undefined;
          const owner = controllerOf(rs);
          if (owner?.kind === 'Deployment') {
            const dep = find(d.deployments, ns, owner.name, owner.uid);
            return dep ? { key: `Deployment/${dep.metadata.uid}`, replicas: replicasOf(dep) } : undefined;
          }
          return { key: `ReplicaSet/${uid}`, replicas: replicasOf(rs) };
        }
        const informer = kind === 'ReplicationController' ? d.replicationControllers : kind === 'StatefulSet' ? d.statefulSets : undefined;
        const o = informer && find(informer, ns, name, uid);
        return o ? { key: `${kind}/${uid}`, replicas: replicasOf(o) } : undefined;
      },
    };
  }

  run(workers = 1): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError('disruption') }));
  }

  async sync(key: string): Promise<void> {
    const pdb = this.d.pdbs.get(key);
    if (!pdb || pdb.metadata.deletionTimestamp) return;
    const matches = pdbMatcher(pdb);
    const pods = this.d.pods.byNamespace(pdb.metadata.namespace ?? '').filter(matches);
    const now = this.d.clock.now();
    if (!pods.length) this.d.recorder.event(pdb, 'Normal', 'NoPods', 'No matching pods found');
    const r = computePdbStatus(pdb, pods, this.scale, now);
    let status: Record<string, unknown>;
    if ('error' in r) {
      // failSafe: nothing may be disrupted while the budget cannot be computed.
      this.d.recorder.event(pdb, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${r.error}`);
      const prior = pdbStatus(pdb);
      status = {
        ...(pdb.metadata.generation !== undefined ? { observedGeneration: pdb.metadata.generation } : {}),
        ...(prior.disruptedPods ? { disruptedPods: prior.disruptedPods } : {}),
        disruptionsAllowed: 0, currentHealthy: prior.currentHealthy ?? 0, desiredHealthy: prior.desiredHealthy ?? 0, expectedPods: prior.expectedPods ?? 0,
        conditions: [withAllowedCondition(pdb, 'False', 'SyncFailed', r.error, now)],
      };
    } else {
      status = r.status as unknown as Record<string, unknown>;
      if (r.recheckMs !== undefined) this.queue.addAfter(key, r.recheckMs);
    }
    if (JSON.stringify(pdb.status ?? {}) === JSON.stringify(status)) return;
    try {
      await this.d.api.update(RESOURCES.poddisruptionbudgets, { ...pdb, status }, 'status');
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e; // changed meanwhile: the informer requeues it
    }
  }
}
