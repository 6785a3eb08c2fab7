// Controllers: the StatefulSet controller (kubernetes pkg/controller/statefulset): keeps the set's
// ControllerRevisions (current and update revision), creates and deletes pods <set>-<ordinal> as
// statefulset-plan.ts decides, and writes status. Like kube's it keeps no expectations: pod names are
// stable, so a create the informer has not shown yet answers AlreadyExists and a repeated delete 404.
// volumeClaimTemplates: the claims of an ordinal are created before its pod (which names them as volumes);
// persistentVolumeClaimRetentionPolicy Delete makes the set (whenDeleted) or a condemned pod (whenScaled) their
// owner, so the garbage collector deletes them. Parallel creates at most MAX_STATEFUL_CREATES_PER_SYNC a sync (statefulset-plan.ts), in
// slow-start batches.

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { ApiError } from '../client/types';
import { isAlreadyExists, isNotFound, RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';
import { controllerClient, type ClientRateLimit } from './client-throttle';
import { ensureUpdateRevision, truncateHistory } from './controller-history';
import type { EventRecorder } from './events';
import type { SharedInformer } from './informers';
import { adoptPatch, claimDecision, controllerOf, isDeleting, labelsOf, selectorMatcher } from './owner-refs';
import { claimsForOrdinal, ordinalOf, planStatefulSet, podForOrdinal, retentionPolicy, revisionForOrdinal, revisionOfPod, stsSpec, stsStatusOf, type StsStatus } from './statefulset-plan';
import { newControllerRef } from './owner-refs';
import { BURST_REPLICAS, MAX_BATCH, SLOW_START_INITIAL_BATCH, slowStartBatches } from './replicaset';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

export const COMPONENT = 'statefulset-controller';

export interface StatefulSetDeps {
  // client-go's client-side rate limit of this controller's requests (default kube-controller-manager's 20 qps, burst 30)
  clientRateLimit?: ClientRateLimit | false;
  api: Api;
  sets: SharedInformer;
  pods: SharedInformer;
  revisions: SharedInformer;
  claims?: SharedInformer; // persistentvolumeclaims (volumeClaimTemplates)
  recorder: EventRecorder;
  clock: Clock;
}

export class StatefulSetController {
  readonly queue: WorkQueue;

  private readonly api: Api;

  constructor(private readonly d: StatefulSetDeps) {
    this.api = controllerClient(d.api, d.clock, d.clientRateLimit);
    this.queue = new WorkQueue(d.clock);
    const enqueueSet = (s: KubeObject) => this.queue.add(objectKey(s));
    d.sets.addHandlers({ add: enqueueSet, update: enqueueSet, delete: enqueueSet });
    const enqueueOwner = (p: KubeObject) => {
      const ref = controllerOf(p);
      if (ref?.kind === 'StatefulSet') this.queue.add(`${p.metadata.namespace}/${ref.name}`);
      else if (!ref) {
        for (const s of d.sets.byNamespace(p.metadata.namespace ?? '')) if (selectorMatcher(stsSpec(s).selector)(labelsOf(p))) this.queue.add(objectKey(s));
      }
    };
    d.pods.addHandlers({ add: enqueueOwner, update: enqueueOwner, delete: enqueueOwner });
  }

  run(workers = 5): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(COMPONENT) }));
  }

  private owned(set: KubeObject, informer: SharedInformer): KubeObject[] {
    return informer.byNamespace(set.metadata.namespace ?? '').filter((o) => controllerOf(o)?.uid === set.metadata.uid);
  }

  async sync(key: string): Promise<void> {
    const set = this.d.sets.get(key);
    if (!set || isDeleting(set)) return;
    const matches = selectorMatcher(stsSpec(set).selector);
    const pods: KubeObject[] = [];
    let claims = 0;
    for (const p of this.d.pods.byNamespace(set.metadata.namespace ?? '')) {
      const decision = claimDecision(set, p, matches(labelsOf(p)));
      if (decision === 'keep') pods.push(p);
      else if (decision === 'adopt') {
        // Orphans are adopted BURST_REPLICAS per sync (the rest next time, after other keys' turns); nothing
        // is managed on a partial claim.
        if (claims++ >= BURST_REPLICAS) return this.queue.add(key);
        try {
          pods.push(await this.api.patch(RESOURCES.pods, p.metadata.namespace!, p.metadata.name!, 'strategic', adoptPatch(set, p)));
        } catch (e) {
          if (!(e instanceof ApiError && (e.code === 404 || e.code === 422))) throw e;
        }
      }
    }
    const prior = (set.status as StsStatus | undefined) ?? { replicas: 0, availableReplicas: 0 };
    const { update, revisions } = await ensureUpdateRevision(this.api, set, this.owned(set, this.d.revisions), prior.collisionCount ?? 0);
    const current = revisions.find((r) => r.metadata.name === prior.currentRevision) ?? update;

    const plan = planStatefulSet(set, pods, update.metadata.name!);
    const deleted = new Set<unknown>();
    // updateStatefulSet: a refused create or delete still lets the status be written, then fails the sync.
    let manageError: unknown;
    try {
      await this.createPods(set, plan.create, pods, current, update);
      for (const pod of plan.delete) {
        await this.claimsFollowCondemned(set, pod);
        try {
          await this.api.delete(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!, { preconditions: { uid: pod.metadata.uid as string } });
          this.d.recorder.event(set, 'Normal', 'SuccessfulDelete', `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`);
        } catch (e) {
          if (!isNotFound(e) && !(e instanceof ApiError && e.code === 409)) {
            this.d.recorder.event(set, 'Warning', 'FailedDelete', `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${(e as Error).message}`);
            throw e;
          }
        }
        deleted.add(pod.metadata.uid);
      }
    } catch (e) {
      manageError = e;
    }
    const remaining = pods.filter((p) => !deleted.has(p.metadata.uid));
    const status = stsStatusOf(set, remaining, current.metadata.name!, update.metadata.name!, this.d.clock.now());
    if (JSON.stringify(set.status ?? {}) !== JSON.stringify(status)) {
      await this.api.update(RESOURCES.statefulsets, { ...set, status: status as unknown as Record<string, unknown> }, 'status');
    }
    const live = new Set([status.currentRevision!, status.updateRevision!, ...remaining.map(revisionOfPod)]);
    await truncateHistory(this.api, set, revisions, live);
    if (manageError) throw manageError;
    const minReady = stsSpec(set).minReadySeconds ?? 0;
    if (minReady > 0 && (status.readyReplicas ?? 0) !== status.availableReplicas) this.queue.addAfter(key, minReady * 1000);
  }

  /** createPersistentVolumeClaims: the ordinal's claims that do not exist yet. */
  private async createClaims(set: KubeObject, pod: KubeObject, ordinal: number): Promise<void> {
    for (const { claim } of claimsForOrdinal(set, ordinal)) {
      const name = claim.metadata.name!;
      if (this.d.claims?.get(`${set.metadata.namespace}/${name}`)) continue;
      try {
        await this.api.create(RESOURCES.persistentvolumeclaims, set.metadata.namespace!, claim);
        this.d.recorder.event(set, 'Normal', 'SuccessfulCreate', `create Claim ${name} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} success`);
      } catch (e) {
        if (isAlreadyExists(e)) continue;
        this.d.recorder.event(set, 'Warning', 'FailedCreate', `create Claim ${name} for Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${(e as Error).message}`);
        throw new Error(`failed to create PVC ${name}: ${(e as Error).message}`);
      }
    }
  }

  /** whenScaled: Delete — a pod removed by a scale-down becomes the owner of its claims, which then go with it. */
  private async claimsFollowCondemned(set: KubeObject, pod: KubeObject): Promise<void> {
    if (retentionPolicy(set).whenScaled !== 'Delete' || !this.d.claims) return;
    const ord = ordinalOf(set, pod);
    if (ord === undefined || ord < (stsSpec(set).replicas ?? 1)) return;
    for (const { claim } of claimsForOrdinal(set, ord)) {
      const live = this.d.claims.get(`${set.metadata.namespace}/${claim.metadata.name}`);
      if (!live) continue;
      const refs = (live.metadata.ownerReferences as { uid?: string }[] | undefined) ?? [];
      if (refs.some((r) => r.uid === pod.metadata.uid)) continue;
      try {
        await this.api.update(RESOURCES.persistentvolumeclaims, { ...live, metadata: { ...live.metadata, ownerReferences: [...refs, { ...newControllerRef(pod), controller: false }] } });
      } catch (e) {
        if (!isNotFound(e) && !(e instanceof ApiError && e.code === 409)) throw e;
      }
    }
  }

  /**
   * Parallel creates in slow-start batches like kube's, at most MAX_BATCH at a time, stopping at the first
   * refusal (quota's 403 or any error), which fails the sync so the key backs off; OrderedReady plans one.
   */
  private async createPods(set: KubeObject, ordinals: number[], pods: KubeObject[], current: KubeObject, update: KubeObject): Promise<void> {
    let next = 0;
    for (const size of slowStartBatches(ordinals.length, SLOW_START_INITIAL_BATCH, MAX_BATCH)) {
      const batchOrdinals = ordinals.slice(next, next + size);
      const batch = batchOrdinals.map((ord) => podForOrdinal(set, revisionForOrdinal(set, ord) === 'current' ? current : update, ord));
      next += size;
      for (let i = 0; i < batch.length; i++) await this.createClaims(set, batch[i]!, batchOrdinals[i]!);
      const results = await Promise.allSettled(batch.map((pod) => this.api.create(RESOURCES.pods, set.metadata.namespace!, pod)));
      let failed: unknown;
      results.forEach((r, i) => {
        const pod = batch[i]!;
        if (r.status === 'fulfilled') {
          pods.push(r.value);
          this.d.recorder.event(set, 'Normal', 'SuccessfulCreate', `create Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`);
        } else if (!isAlreadyExists(r.reason)) {
          failed ??= r.reason;
          this.d.recorder.event(set, 'Warning', 'FailedCreate', `create Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${(r.reason as Error).message}`);
        }
      });
      if (failed) throw failed;
    }
  }
}
