// Controllers: the Deployment controller (kubernetes pkg/controller/deployment: deployment_controller.go,
// sync.go, rolling.go, recreate.go, progress.go). Each sync claims the Deployment's ReplicaSets, finds or
// creates the new one (named <deployment>-<template hash>, with the next revision), then scales, rolls
// (RollingUpdate with maxSurge/maxUnavailable, or Recreate) and writes status with kube's conditions.

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { ApiError } from '../client/types';
import { isAlreadyExists, isNotFound, RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';
import { kubeTime, type EventRecorder } from './events';
import type { SharedInformer } from './informers';
import { adoptPatch, claimDecision, controllerOf, isDeleting, labelsOf, newControllerRef, releasePatch, selectorMatcher } from './owner-refs';
import { isPodActive } from './pods';
import { logSyncError, runWorker, WorkQueue } from './workqueue';
import {
  availableReplicas, byCreation, calculateStatus, computeHash, deploymentComplete, deploymentProgressing, deploymentTimedOut,
  dSpec, dStatus, equalIgnoreHash, findActiveOrLatest, findNewReplicaSet, getCondition, isRollingUpdate, isSaturated,
  maxRevision, maxSurge, maxUnavailable, newCondition, newReplicaSetAnnotations, newRSNewReplicas, POD_TEMPLATE_HASH,
  PROGRESSING, proportionalSizes, REPLICA_FAILURE, replicasAnnotations, replicasOf, removeCondition, REVISION,
  revisionOf, setCondition, specReplicas, statusReplicas, sum, updatedRevisionAnnotations, DESIRED_REPLICAS,
  type DeploymentStatus,
} from './deployment-util';

export const COMPONENT = 'deployment-controller';
export const MAX_RETRIES = 15; // deployment_controller.go maxRetries

export interface DeploymentDeps {
  api: Api;
  deployments: SharedInformer;
  replicaSets: SharedInformer;
  pods: SharedInformer;
  recorder: EventRecorder;
  clock: Clock;
}

export class DeploymentController {
  readonly queue: WorkQueue;

  constructor(private readonly d: DeploymentDeps) {
    this.queue = new WorkQueue(d.clock);
    const enqueue = (o: KubeObject) => this.queue.add(objectKey(o));
    d.deployments.addHandlers({ add: enqueue, update: enqueue, delete: enqueue });
    d.replicaSets.addHandlers({
      add: (rs) => this.enqueueForReplicaSet(rs),
      update: (rs, old) => {
        const oldRef = controllerOf(old);
        if (oldRef && oldRef.uid !== controllerOf(rs)?.uid) this.queue.add(`${old.metadata.namespace}/${oldRef.name}`);
        this.enqueueForReplicaSet(rs);
      },
      delete: (rs) => this.enqueueForReplicaSet(rs),
    });
    // Recreate waits for old pods to go: a pod deletion may unblock it.
    d.pods.addHandlers({
      delete: (pod) => {
        const ref = controllerOf(pod);
        if (!ref || ref.kind !== 'ReplicaSet') return;
        const rs = d.replicaSets.get(`${pod.metadata.namespace}/${ref.name}`);
        const dref = rs && controllerOf(rs);
        if (dref?.kind === 'Deployment') this.queue.add(`${pod.metadata.namespace}/${dref.name}`);
      },
    });
  }

  run(workers = 5): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), {
      maxRetries: MAX_RETRIES,
      onError: logSyncError(COMPONENT),
    }));
  }

  private enqueueForReplicaSet(rs: KubeObject): void {
    const ref = controllerOf(rs);
    if (ref) {
      if (ref.kind === 'Deployment') this.queue.add(`${rs.metadata.namespace}/${ref.name}`);
      return;
    }
    for (const d of this.d.deployments.byNamespace(rs.metadata.namespace ?? '')) {
      if (selectorMatcher(dSpec(d).selector)(labelsOf(rs))) this.queue.add(objectKey(d));
    }
  }

  private now(): string {
    return kubeTime(this.d.clock.now());
  }

  async sync(key: string): Promise<void> {
    const cached = this.d.deployments.get(key);
    if (!cached) return;
    const d = structuredClone(cached);
    const selector = dSpec(d).selector;
    if (!selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)) {
      this.d.recorder.event(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if ((dStatus(d).observedGeneration ?? 0) < ((d.metadata.generation as number) ?? 0)) {
        await this.updateStatus(d, { ...dStatus(d), observedGeneration: d.metadata.generation as number });
      }
      return;
    }
    const rsList = await this.claimReplicaSets(d);
    if (isDeleting(d)) return this.syncStatusOnly(d, rsList);
    await this.checkPausedConditions(d);
    if (dSpec(d).paused) return this.syncScaleOnly(d, rsList);
    if (this.isScalingEvent(d, rsList)) return this.syncScaleOnly(d, rsList);
    return isRollingUpdate(d) ? this.rolloutRolling(d, rsList) : this.rolloutRecreate(d, rsList);
  }

  /** getReplicaSetsForDeployment: adopt matching orphans, release owned ones that stopped matching. */
  private async claimReplicaSets(d: KubeObject): Promise<KubeObject[]> {
    const matches = selectorMatcher(dSpec(d).selector);
    const owned: KubeObject[] = [];
    for (const rs of this.d.replicaSets.byNamespace(d.metadata.namespace ?? '')) {
      const decision = claimDecision(d, rs, matches(labelsOf(rs)));
      if (decision === 'keep') owned.push(rs);
      else if (decision === 'adopt') {
        try {
          const fresh = await this.d.api.get(RESOURCES.deployments, d.metadata.namespace!, d.metadata.name!);
          if (fresh.metadata.uid !== d.metadata.uid || isDeleting(fresh)) continue;
          owned.push(await this.d.api.patch(RESOURCES.replicasets, rs.metadata.namespace!, rs.metadata.name!, 'strategic', adoptPatch(d, rs)));
        } catch (e) {
          if (!(e instanceof ApiError && (e.code === 404 || e.code === 422))) throw e;
        }
      } else if (decision === 'release') {
        await this.d.api.patch(RESOURCES.replicasets, rs.metadata.namespace!, rs.metadata.name!, 'strategic', releasePatch(d.metadata.uid as string, rs))
          .catch((e) => { if (!(e instanceof ApiError && (e.code === 404 || e.code === 422))) throw e; });
      }
    }
    return owned;
  }

  private isScalingEvent(d: KubeObject, rsList: KubeObject[]): boolean {
    const { newRS, oldRSs } = this.split(d, rsList);
    const active = [...(newRS ? [newRS] : []), ...oldRSs.filter((rs) => specReplicas(rs) > 0)];
    return active.some((rs) => {
      const desired = (rs.metadata.annotations as Record<string, string> | undefined)?.[DESIRED_REPLICAS];
      return desired !== undefined && Number(desired) !== replicasOf(d);
    });
  }

  private split(d: KubeObject, rsList: KubeObject[]): { newRS: KubeObject | undefined; oldRSs: KubeObject[] } {
    const newRS = findNewReplicaSet(d, rsList);
    return { newRS, oldRSs: rsList.filter((rs) => rs !== newRS) };
  }

  /**
   * getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created when `create` and missing), its revision
   * brought up to date, and the Deployment's revision annotation and Progressing condition with it.
   */
  private async newAndOld(d: KubeObject, rsList: KubeObject[], create: boolean): Promise<{ newRS: KubeObject | undefined; oldRSs: KubeObject[] }> {
    const { newRS: existing, oldRSs } = this.split(d, rsList);
    const newRevision = maxRevision(oldRSs) + 1;
    let newRS = existing;
    if (existing) {
      const annotations = updatedRevisionAnnotations(existing, newRevision);
      const minReady = dSpec(d).minReadySeconds ?? 0;
      const rsMinReady = (existing.spec as { minReadySeconds?: number }).minReadySeconds ?? 0;
      if (annotations || rsMinReady !== minReady) {
        const next = structuredClone(existing);
        if (annotations) next.metadata.annotations = annotations;
        (next.spec as { minReadySeconds?: number }).minReadySeconds = minReady;
        newRS = await this.d.api.update(RESOURCES.replicasets, next);
        return { newRS, oldRSs };
      }
      await this.syncRevision(d, revisionOf(existing));
      if (dSpec(d).progressDeadlineSeconds !== undefined && !getCondition(dStatus(d), PROGRESSING)) {
        const status = structuredClone(dStatus(d));
        setCondition(status, newCondition(PROGRESSING, 'True', 'FoundNewReplicaSet', `Found new replica set "${existing.metadata.name}"`, this.now()));
        await this.updateStatus(d, status);
      }
    } else if (create) {
      newRS = await this.createNewReplicaSet(d, oldRSs, newRevision);
    }
    return { newRS, oldRSs };
  }

  /** SetDeploymentRevision: the Deployment's revision annotation follows its new ReplicaSet's. */
  private async syncRevision(d: KubeObject, revision: number): Promise<void> {
    const ann = (d.metadata.annotations as Record<string, string> | undefined) ?? {};
    if (revision === 0 || ann[REVISION] === String(revision)) return;
    const next = structuredClone(d);
    next.metadata.annotations = { ...ann, [REVISION]: String(revision) };
    const updated = await this.d.api.update(RESOURCES.deployments, next);
    d.metadata = updated.metadata;
  }

  private async createNewReplicaSet(d: KubeObject, oldRSs: KubeObject[], revision: number): Promise<KubeObject> {
    const spec = dSpec(d);
    const collisionCount = dStatus(d).collisionCount;
    const template = structuredClone(spec.template ?? {});
    const hash = computeHash(template, collisionCount);
    template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH]: hash } };
    const selector = structuredClone(spec.selector ?? {});
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH]: hash };
    const rs: KubeObject = {
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata.name}-${hash}`, namespace: d.metadata.namespace, labels: { ...template.metadata.labels },
        annotations: newReplicaSetAnnotations(d, revision), ownerReferences: [newControllerRef(d)],
      },
      spec: { replicas: 0, minReadySeconds: spec.minReadySeconds ?? 0, selector, template },
    };
    const size = newRSNewReplicas(d, [...oldRSs, rs], rs);
    (rs.spec as { replicas: number }).replicas = size;
    let created: KubeObject;
    try {
      created = await this.d.api.create(RESOURCES.replicasets, d.metadata.namespace!, rs);
    } catch (e) {
      if (!isAlreadyExists(e)) {
        const status = structuredClone(dStatus(d));
        setCondition(status, newCondition(PROGRESSING, 'False', 'ReplicaSetCreateError', `Failed to create new replica set "${rs.metadata.name}": ${(e as Error).message}`, this.now()));
        await this.updateStatus(d, status);
        this.d.recorder.event(d, 'Warning', 'FailedCreate', `Failed to create new replica set "${rs.metadata.name}": ${(e as Error).message}`);
        throw e;
      }
      // Ours already (the informer lagged): use it. Anyone else's: a hash collision, retry with another hash.
      const found = await this.d.api.get(RESOURCES.replicasets, d.metadata.namespace!, rs.metadata.name!);
      if (controllerOf(found)?.uid === d.metadata.uid && equalIgnoreHash((found.spec as { template?: unknown }).template, spec.template)) return found;
      await this.updateStatus(d, { ...dStatus(d), collisionCount: (collisionCount ?? 0) + 1 });
      throw new Error(`hash collision for replica set "${rs.metadata.name}"`);
    }
    if (size > 0) this.d.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata.name} from 0 to ${size}`);
    await this.syncRevision(d, revision);
    if (spec.progressDeadlineSeconds !== undefined) {
      const status = structuredClone(dStatus(d));
      setCondition(status, newCondition(PROGRESSING, 'True', 'NewReplicaSetCreated', `Created new replica set "${created.metadata.name}"`, this.now()));
      await this.updateStatus(d, status);
    }
    return created;
  }

  /** scaleReplicaSetAndRecordEvent: resize, refresh the replica annotations, record ScalingReplicaSet. */
  private async scaleReplicaSet(rs: KubeObject, size: number, d: KubeObject): Promise<KubeObject> {
    const current = specReplicas(rs);
    const annotations = replicasAnnotations(rs, replicasOf(d), replicasOf(d) + maxSurge(d));
    if (current === size && !annotations) return rs;
    const next = structuredClone(rs);
    (next.spec as { replicas: number }).replicas = size;
    if (annotations) next.metadata.annotations = annotations;
    const updated = await this.d.api.update(RESOURCES.replicasets, next);
    if (current !== size) {
      this.d.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${size > current ? 'up' : 'down'} replica set ${rs.metadata.name} from ${current} to ${size}`);
    }
    return updated;
  }

  /** scale (sync.go): resize the active ReplicaSets after spec.replicas changed. */
  private async scale(d: KubeObject, newRS: KubeObject | undefined, oldRSs: KubeObject[]): Promise<void> {
    const only = findActiveOrLatest(newRS, oldRSs);
    if (only) {
      await this.scaleReplicaSet(only, replicasOf(d), d);
      return;
    }
    if (isSaturated(d, newRS)) {
      for (const old of oldRSs.filter((rs) => specReplicas(rs) > 0)) await this.scaleReplicaSet(old, 0, d);
      return;
    }
    if (!isRollingUpdate(d)) return;
    const active = [...oldRSs, ...(newRS ? [newRS] : [])].filter((rs) => specReplicas(rs) > 0);
    const sizes = proportionalSizes(d, active);
    for (const rs of active) {
      const size = sizes.get(rs.metadata.name!);
      await this.scaleReplicaSet(rs, size ?? specReplicas(rs), d);
    }
  }

  /** sync (sync.go): paused Deployments and scaling events: scale, clean up, status. */
  private async syncScaleOnly(d: KubeObject, rsList: KubeObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.newAndOld(d, rsList, false);
    await this.scale(d, newRS, oldRSs);
    if (dSpec(d).paused && deploymentComplete(d, dStatus(d))) await this.cleanup(d, oldRSs);
    await this.syncStatusOnly(d, await this.fresh(d));
  }

  /** The Deployment's ReplicaSets as the API has them after this sync's writes. */
  private async fresh(d: KubeObject): Promise<KubeObject[]> {
    return this.d.replicaSets.byNamespace(d.metadata.namespace ?? '').filter((rs) => controllerOf(rs)?.uid === d.metadata.uid);
  }

  private async syncStatusOnly(d: KubeObject, rsList: KubeObject[]): Promise<void> {
    const { newRS } = this.split(d, rsList);
    const status = calculateStatus(d, rsList, newRS, this.now());
    await this.updateStatus(d, status);
  }

  private async checkPausedConditions(d: KubeObject): Promise<void> {
    if (dSpec(d).progressDeadlineSeconds === undefined) return;
    const cond = getCondition(dStatus(d), PROGRESSING);
    if (cond?.reason === 'ProgressDeadlineExceeded') return;
    const pausedCond = cond?.reason === 'DeploymentPaused';
    const status = structuredClone(dStatus(d));
    if (dSpec(d).paused && !pausedCond) {
      setCondition(status, newCondition(PROGRESSING, 'Unknown', 'DeploymentPaused', 'Deployment is paused', this.now()));
    } else if (!dSpec(d).paused && pausedCond) {
      setCondition(status, newCondition(PROGRESSING, 'Unknown', 'DeploymentResumed', 'Deployment is resumed', this.now()));
    } else return;
    await this.updateStatus(d, status);
  }

  private async rolloutRolling(d: KubeObject, rsList: KubeObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.newAndOld(d, rsList, true);
    const all = [...oldRSs, ...(newRS ? [newRS] : [])];
    // reconcileNewReplicaSet
    if (newRS && specReplicas(newRS) !== replicasOf(d)) {
      const size = specReplicas(newRS) > replicasOf(d) ? replicasOf(d) : newRSNewReplicas(d, all, newRS);
      if (size !== specReplicas(newRS)) {
        await this.scaleReplicaSet(newRS, size, d);
        return this.syncRolloutStatus(d, await this.fresh(d));
      }
    }
    if (await this.reconcileOldReplicaSets(d, all, oldRSs.filter((rs) => specReplicas(rs) > 0), newRS)) {
      return this.syncRolloutStatus(d, await this.fresh(d));
    }
    if (deploymentComplete(d, dStatus(d))) await this.cleanup(d, oldRSs);
    return this.syncRolloutStatus(d, await this.fresh(d));
  }

  private async reconcileOldReplicaSets(d: KubeObject, all: KubeObject[], activeOld: KubeObject[], newRS: KubeObject | undefined): Promise<boolean> {
    if (sum(activeOld, specReplicas) === 0) return false;
    const minAvailable = replicasOf(d) - maxUnavailable(d);
    const newUnavailable = specReplicas(newRS) - availableReplicas(newRS);
    const maxScaledDown = sum(all, specReplicas) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    // cleanupUnhealthyReplicas: old ReplicaSets' unavailable replicas go first, oldest first.
    let cleaned = 0;
    const olds = [...activeOld].sort(byCreation);
    for (let i = 0; i < olds.length && cleaned < maxScaledDown; i++) {
      const rs = olds[i];
      const unhealthy = specReplicas(rs) - availableReplicas(rs);
      if (specReplicas(rs) === 0 || unhealthy <= 0) continue;
      const n = Math.min(maxScaledDown - cleaned, unhealthy);
      olds[i] = await this.scaleReplicaSet(rs, specReplicas(rs) - n, d);
      cleaned += n;
    }
    // scaleDownOldReplicaSetsForRollingUpdate: only as far as availability allows.
    const allNow = [...olds, ...(newRS ? [newRS] : [])];
    const availableNow = sum(allNow, availableReplicas);
    let scaled = 0;
    if (availableNow > minAvailable) {
      const total = availableNow - minAvailable;
      for (const rs of olds) {
        if (scaled >= total) break;
        if (specReplicas(rs) === 0) continue;
        const n = Math.min(specReplicas(rs), total - scaled);
        await this.scaleReplicaSet(rs, specReplicas(rs) - n, d);
        scaled += n;
      }
    }
    return cleaned + scaled > 0;
  }

  private async rolloutRecreate(d: KubeObject, rsList: KubeObject[]): Promise<void> {
    let { newRS, oldRSs } = await this.newAndOld(d, rsList, false);
    let scaledDown = false;
    for (const rs of oldRSs.filter((r) => specReplicas(r) > 0)) {
      await this.scaleReplicaSet(rs, 0, d);
      scaledDown = true;
    }
    if (scaledDown) return this.syncRolloutStatus(d, await this.fresh(d));
    // oldPodsRunning: wait until no pod of an old ReplicaSet is left running.
    const oldUids = new Set(oldRSs.map((rs) => rs.metadata.uid));
    const running = this.d.pods.byNamespace(d.metadata.namespace ?? '').some((p) => oldUids.has(controllerOf(p)?.uid ?? '') && isPodActive(p))
      || sum(oldRSs, statusReplicas) > 0;
    if (running) return this.syncRolloutStatus(d, await this.fresh(d));
    if (!newRS) ({ newRS, oldRSs } = await this.newAndOld(d, await this.fresh(d), true));
    if (newRS) await this.scaleReplicaSet(newRS, replicasOf(d), d);
    if (deploymentComplete(d, dStatus(d))) await this.cleanup(d, oldRSs);
    return this.syncRolloutStatus(d, await this.fresh(d));
  }

  /** cleanupDeployment: delete the oldest scaled-down ReplicaSets beyond revisionHistoryLimit. */
  private async cleanup(d: KubeObject, oldRSs: KubeObject[]): Promise<void> {
    const limit = dSpec(d).revisionHistoryLimit;
    if (limit === undefined) return;
    const cleanable = oldRSs.filter((rs) => specReplicas(rs) === 0 && statusReplicas(rs) === 0 && !isDeleting(rs)
      && ((rs.status as { observedGeneration?: number } | undefined)?.observedGeneration ?? 0) >= ((rs.metadata.generation as number) ?? 0));
    const excess = cleanable.length - limit;
    if (excess <= 0) return;
    cleanable.sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
    for (const rs of cleanable.slice(0, excess)) {
      await this.d.api.delete(RESOURCES.replicasets, rs.metadata.namespace!, rs.metadata.name!).catch((e) => { if (!isNotFound(e)) throw e; });
    }
  }

  /** syncRolloutStatus (progress.go): counts plus the Progressing condition's reasons. */
  private async syncRolloutStatus(d: KubeObject, rsList: KubeObject[]): Promise<void> {
    const { newRS } = this.split(d, rsList);
    const now = this.d.clock.now();
    const status = calculateStatus(d, rsList, newRS, kubeTime(now));
    if (dSpec(d).progressDeadlineSeconds === undefined) removeCondition(status, PROGRESSING);
    const current = getCondition(dStatus(d), PROGRESSING);
    const complete = status.replicas === status.updatedReplicas && current?.reason === 'NewReplicaSetAvailable';
    if (dSpec(d).progressDeadlineSeconds !== undefined && !complete) {
      if (deploymentComplete(d, status)) {
        const msg = newRS ? `ReplicaSet "${newRS.metadata.name}" has successfully progressed.` : 'Deployment has successfully progressed.';
        setCondition(status, newCondition(PROGRESSING, 'True', 'NewReplicaSetAvailable', msg, kubeTime(now)));
      } else if (deploymentProgressing(d, status)) {
        const msg = newRS ? `ReplicaSet "${newRS.metadata.name}" is progressing.` : 'Deployment is progressing.';
        const cond = newCondition(PROGRESSING, 'True', 'ReplicaSetUpdated', msg, kubeTime(now));
        if (current?.status === 'True') cond.lastTransitionTime = current.lastTransitionTime;
        removeCondition(status, PROGRESSING);
        setCondition(status, cond);
      } else if (deploymentTimedOut(d, status, now)) {
        const msg = newRS ? `ReplicaSet "${newRS.metadata.name}" has timed out progressing.` : `Deployment "${d.metadata.name}" has timed out progressing.`;
        setCondition(status, newCondition(PROGRESSING, 'False', 'ProgressDeadlineExceeded', msg, kubeTime(now)));
      }
    }
    const failure = rsList.map((rs) => ((rs.status as { conditions?: { type: string; status: string; reason?: string; message?: string }[] })?.conditions ?? [])
      .find((c) => c.type === REPLICA_FAILURE)).find(Boolean);
    if (failure) setCondition(status, newCondition(REPLICA_FAILURE, failure.status, failure.reason ?? '', failure.message ?? '', kubeTime(now)));
    else removeCondition(status, REPLICA_FAILURE);
    await this.updateStatus(d, status);
    // requeueStuckDeployment: look again when the progress deadline would pass.
    const cond = getCondition(status, PROGRESSING);
    const deadline = dSpec(d).progressDeadlineSeconds;
    if (deadline !== undefined && cond && cond.reason !== 'NewReplicaSetAvailable' && cond.reason !== 'ProgressDeadlineExceeded' && !deploymentComplete(d, status)) {
      const at = (Date.parse(cond.lastUpdateTime ?? '') || now) + deadline * 1000;
      this.queue.addAfter(objectKey(d), Math.max(1000, at - now + 1000));
    }
  }

  private async updateStatus(d: KubeObject, status: DeploymentStatus): Promise<void> {
    if (JSON.stringify(dStatus(d)) === JSON.stringify(status)) return;
    const updated = await this.d.api.update(RESOURCES.deployments, { ...d, status }, 'status');
    d.metadata = updated.metadata;
    d.status = updated.status;
  }
}
