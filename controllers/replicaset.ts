// Controllers: the ReplicaSet controller (kubernetes pkg/controller/replicaset/replica_set.go): keeps
// spec.replicas active pods per ReplicaSet, claiming (adopting/releasing) pods by selector, creating in
// slow-start batches and deleting the least valuable pods first, with expectations so it never acts on a
// cache that has not yet seen its own writes; then writes status. A refused create (quota's 403, or any
// error) stops the burst at that batch, sets ReplicaFailure and fails the sync, so the key comes back with
// the work queue's per-key exponential backoff.
//
// Bounded per sync, for many tenants on one isolate: kube creates up to burstReplicas (500) per sync in
// batches as wide as they grow; here a sync creates or deletes at most BURST_REPLICAS (100), at most
// MAX_BATCH (2) requests at a time, and every request waits for the controller client's token
// (client-throttle.ts: 20 a second, burst 30, as kube-controller-manager's --kube-api-qps). A 1,500-replica
// ReplicaSet then holds one worker, has at most 2 requests ahead of anyone else's, and adds at most 20 pods a
// second to what the scheduler and kubelets must do; its next burst waits until the informer has shown the
// last one (expectations), while other keys get the other workers.
//
// Pod changes that can only move status are batched, as kube's Job controller batches its pod updates
// (job_controller.go syncJobBatchPeriod, 1 s): one status write per window instead of one per pod. Issue 20
// measured 1.02 ReplicaSet and 1.02 Deployment status writes per pod of a 1,000-replica rollout without it.
// A pod that became ready or stopped being active wakes a ReplicaSet that had no such wake in the last
// POD_UPDATE_BATCH_MS at once (a quiet ReplicaSet reports it without delay), else at the end of that
// window, together with every other one meanwhile; other status-only changes (a pod bound, a create observed
// while the burst's other creates are still unseen) wake it POD_UPDATE_BATCH_MS later. What needs action
// wakes it at once: the create that satisfies the expectations (the next burst), a pod deleted or being
// deleted (its replacement), a pod whose labels or controller changed (adoption, release).

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { ApiError } from '../client/types';
import { isNotFound, RESOURCES, type Api, type ResourceRef, errorText } from './api-client';
import type { LabelSelectorSpec } from '../core/selectors/label-selector';
import type { Clock } from './clock';
import { controllerClient, type ClientRateLimit } from './client-throttle';
import type { EventRecorder } from './events';
import { Expectations } from './expectations';
import type { SharedInformer } from './informers';
import {
  adoptPatch, claimDecision, controllerOf, isDeleting, labelsOf, newControllerRef, releasePatch, selectorMatcher,
} from './owner-refs';
import { compareForDeletion, isPodActive, isPodAvailable, isPodReady } from './pods';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

export const BURST_REPLICAS = 100; // kube's burstReplicas is 500; see the header
export const SLOW_START_INITIAL_BATCH = 1; // SlowStartInitialBatchSize
export const MAX_BATCH = 2; // requests a sync has in flight at once
export const COMPONENT = 'replicaset-controller';

interface RsSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: { matchLabels?: Record<string, string> };
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[] }; spec?: unknown };
}

export interface RsStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
}

export const rsSpec = (rs: KubeObject): RsSpec => (rs.spec as RsSpec | undefined) ?? {};

/**
 * The kind this controller manages: kube runs the same ReplicaSet controller for ReplicationControllers
 * (pkg/controller/replication wraps replicaset.NewBaseController with the RC's GroupVersionKind and a
 * conversion of its map selector), under its own name and ServiceAccount.
 */
export interface ReplicaKind {
  kind: string;
  ref: ResourceRef;
  component: string;
  selector: (owner: KubeObject) => LabelSelectorSpec | undefined;
}

export const REPLICA_SET_KIND: ReplicaKind = {
  kind: 'ReplicaSet', ref: RESOURCES.replicasets, component: 'replicaset-controller', selector: (rs) => rsSpec(rs).selector,
};

export const REPLICATION_CONTROLLER_KIND: ReplicaKind = {
  kind: 'ReplicationController', ref: RESOURCES.replicationcontrollers, component: 'replication-controller',
  // An RC's selector is a plain label map; an empty one selects nothing here (validation forbids it).
  selector: (rc) => {
    const m = (rc.spec as { selector?: Record<string, string> } | undefined)?.selector;
    return m && Object.keys(m).length ? { matchLabels: m } : { matchExpressions: [{ key: 'edgeplane.dev/none', operator: 'Exists' }] };
  },
};

/** How many pods to create (positive) or delete (negative), capped by burstReplicas. */
export function replicaDiff(active: number, wanted: number, burst = BURST_REPLICAS): number {
  const diff = wanted - active;
  return Math.sign(diff) * Math.min(Math.abs(diff), burst);
}

/** The pods to delete for a scale-down of `count`: the first `count` by kube's victim order. */
export function podsToDelete(pods: KubeObject[], count: number): KubeObject[] {
  return [...pods].sort(compareForDeletion).slice(0, count);
}

/** Batch sizes of slowStartBatch: 1, 2, 4, ... (at most `maxBatch`) until `count` is reached. */
export function slowStartBatches(count: number, initial = SLOW_START_INITIAL_BATCH, maxBatch = Infinity): number[] {
  const out: number[] = [];
  let remaining = count;
  for (let size = Math.min(remaining, initial, maxBatch); size > 0; size = Math.min(2 * size, remaining, maxBatch)) {
    out.push(size);
    remaining -= size;
  }
  return out;
}

/** Runs `fn` over `items`, at most `size` at a time (each batch awaited before the next starts). */
export async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

/** calculateStatus (replica_set_utils.go) over the pods this ReplicaSet owns and that are active. */
export function calculateRsStatus(rs: KubeObject, pods: KubeObject[], now: number, manageError?: { reason: string; message: string }): RsStatus {
  const spec = rsSpec(rs);
  const templateLabels = spec.template?.metadata?.labels ?? {};
  let fully = 0, ready = 0, available = 0;
  for (const p of pods) {
    const labels = labelsOf(p);
    if (Object.entries(templateLabels).every(([k, v]) => labels[k] === v)) fully++;
    if (isPodReady(p)) {
      ready++;
      if (isPodAvailable(p, spec.minReadySeconds ?? 0, now)) available++;
    }
  }
  const status: RsStatus = { replicas: pods.length };
  if (fully) status.fullyLabeledReplicas = fully;
  if (ready) status.readyReplicas = ready;
  if (available) status.availableReplicas = available;
  if (rs.metadata.generation !== undefined) status.observedGeneration = rs.metadata.generation as number;
  const prior = ((rs.status as RsStatus | undefined)?.conditions ?? []).filter((c) => c.type !== 'ReplicaFailure');
  const failure = ((rs.status as RsStatus | undefined)?.conditions ?? []).find((c) => c.type === 'ReplicaFailure');
  if (manageError) {
    // SetCondition keeps a condition whose status and reason are unchanged, message and all: a refusal naming
    // each attempt's generated pod name must not rewrite status (and so resync the key) on every retry.
    if (failure && failure.status === 'True' && failure.reason === manageError.reason) prior.push(failure);
    else prior.push({ type: 'ReplicaFailure', status: 'True', reason: manageError.reason, message: manageError.message, lastTransitionTime: failure?.lastTransitionTime ?? new Date(Math.floor(now / 1000) * 1000).toISOString().replace('.000Z', 'Z') });
  }
  if (prior.length) status.conditions = prior;
  return status;
}

function namespaceTerminating(e: unknown): boolean {
  return e instanceof ApiError && e.code === 403 && !!e.status?.details
    && ((e.status.details as { causes?: { reason?: string }[] }).causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
}

/** GetPodFromTemplate: the pod a ReplicaSet creates. */
export function podFromTemplate(rs: KubeObject): KubeObject {
  const t = rsSpec(rs).template ?? {};
  const metadata: Record<string, unknown> = {
    generateName: `${rs.metadata.name}-`,
    namespace: rs.metadata.namespace,
    labels: { ...(t.metadata?.labels ?? {}) },
    ownerReferences: [newControllerRef(rs)],
  };
  if (t.metadata?.annotations) metadata.annotations = { ...t.metadata.annotations };
  if (t.metadata?.finalizers) metadata.finalizers = [...t.metadata.finalizers];
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: structuredClone(t.spec ?? {}) };
}

export interface ReplicaSetDeps {
  // client-go's client-side rate limit of this controller's requests (default kube-controller-manager's 20 qps, burst 30)
  clientRateLimit?: ClientRateLimit | false;
  api: Api;
  replicaSets: SharedInformer;
  pods: SharedInformer;
  recorder: EventRecorder;
  clock: Clock;
  kind?: ReplicaKind; // REPLICA_SET_KIND unless given
}

export const POD_UPDATE_BATCH_MS = 1000;

export class ReplicaSetController {
  private readonly k: ReplicaKind;
  readonly queue: WorkQueue;
  readonly expectations: Expectations;
  private readonly statusWake = new Map<string, number>(); // ReplicaSet key → when its last (or next) readiness wake runs

  private readonly api: Api;

  constructor(private readonly d: ReplicaSetDeps) {
    this.api = controllerClient(d.api, d.clock, d.clientRateLimit);
    this.k = d.kind ?? REPLICA_SET_KIND;
    this.queue = new WorkQueue(d.clock);
    this.expectations = new Expectations(d.clock);
    d.replicaSets.addHandlers({
      add: (rs) => this.queue.add(objectKey(rs)),
      update: (rs) => this.queue.add(objectKey(rs)),
      delete: (rs) => {
        this.expectations.deleteExpectations(objectKey(rs));
        this.statusWake.delete(objectKey(rs));
        this.queue.add(objectKey(rs));
      },
    });
    d.pods.addHandlers({ add: (p) => this.addPod(p), update: (p, old) => this.updatePod(p, old), delete: (p) => this.deletePod(p) });
  }

  run(workers = 5): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), {
      onError: logSyncError(this.k.component),
    }));
  }

  private ownerKey(pod: KubeObject): string | undefined {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== this.k.kind) return undefined;
    const key = `${pod.metadata.namespace}/${ref.name}`;
    const rs = this.d.replicaSets.get(key);
    return rs && rs.metadata.uid === ref.uid ? key : undefined;
  }

  private enqueueMatching(pod: KubeObject): void {
    const labels = labelsOf(pod);
    for (const rs of this.d.replicaSets.byNamespace(pod.metadata.namespace ?? '')) {
      if (selectorMatcher(this.k.selector(rs))(labels)) this.queue.add(objectKey(rs));
    }
  }

  private addPod(pod: KubeObject): void {
    if (isDeleting(pod)) return this.deletePod(pod);
    const key = this.ownerKey(pod);
    if (key) {
      this.expectations.creationObserved(key);
      if (this.expectations.satisfied(key)) this.queue.add(key);
      else this.queue.addAfter(key, POD_UPDATE_BATCH_MS);
    } else if (!controllerOf(pod)) {
      this.enqueueMatching(pod);
    }
  }

  private updatePod(pod: KubeObject, old: KubeObject): void {
    const deleting = isDeleting(pod) && !isDeleting(old);
    if (deleting) {
      const key = this.ownerKey(pod);
      if (key) this.expectations.deletionObserved(key, objectKey(pod));
    }
    const oldRef = controllerOf(old);
    const ref = controllerOf(pod);
    if (oldRef && oldRef.uid !== ref?.uid) {
      const oldKey = `${old.metadata.namespace}/${oldRef.name}`;
      this.queue.add(oldKey);
    }
    const key = this.ownerKey(pod);
    if (key) {
      const labelsChanged = JSON.stringify(labelsOf(pod)) !== JSON.stringify(labelsOf(old));
      if (deleting || labelsChanged || oldRef?.uid !== ref?.uid) this.queue.add(key);
      else if (isPodReady(pod) !== isPodReady(old) || isPodActive(pod) !== isPodActive(old)) this.wakeForStatus(key);
      else this.queue.addAfter(key, POD_UPDATE_BATCH_MS);
    } else if (!ref && (JSON.stringify(labelsOf(pod)) !== JSON.stringify(labelsOf(old)) || oldRef)) this.enqueueMatching(pod);
  }

  /**
   * At once if the last readiness wake is a window old, else when that window ends (one wake covers all in it).
   * Always asked of the queue, never assumed: it keeps one timer per key, the earliest, so a wake planned
   * for later may have been folded into an earlier timer that has fired since.
   */
  private wakeForStatus(key: string): void {
    const now = this.d.clock.now();
    const last = this.statusWake.get(key);
    const next = last === undefined ? now : last > now ? last : Math.max(now, last + POD_UPDATE_BATCH_MS);
    this.statusWake.set(key, next);
    this.queue.addAfter(key, next - now);
  }

  private deletePod(pod: KubeObject): void {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== this.k.kind) return;
    const key = `${pod.metadata.namespace}/${ref.name}`;
    this.expectations.deletionObserved(key, objectKey(pod));
    this.queue.add(key);
  }

  async sync(key: string): Promise<void> {
    const rs = this.d.replicaSets.get(key);
    if (!rs) {
      this.expectations.deleteExpectations(key);
      return;
    }
    const needsSync = this.expectations.satisfied(key);
    const matches = selectorMatcher(this.k.selector(rs));
    const owned: KubeObject[] = [];
    let canAdopt: Promise<boolean> | undefined; // RecheckDeletionTimestamp, once per sync (kube's sync.Once)
    let claims = 0;
    for (const pod of this.d.pods.byNamespace(rs.metadata.namespace ?? '')) {
      if (!isPodActive(pod)) continue;
      const decision = claimDecision(rs, pod, matches(labelsOf(pod)));
      if (decision === 'keep') {
        owned.push(pod);
        continue;
      }
      if (decision !== 'adopt' && decision !== 'release') continue;
      // A namespace full of orphans is claimed BURST_REPLICAS at a time: the rest next sync, after other keys'
      // turns. Nothing is managed on a partial claim (it would count too few pods and create more).
      if (claims++ >= BURST_REPLICAS) return this.queue.add(key);
      if (decision === 'adopt') {
        if (await (canAdopt ??= this.canAdopt(rs)) && await this.adopt(rs, pod)) owned.push(pod);
      } else {
        await this.api.patch(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!, 'strategic', releasePatch(rs.metadata.uid as string, pod))
          .catch((e) => { if (!(e instanceof ApiError && (e.code === 404 || e.code === 422))) throw e; });
      }
    }
    let manageError: { reason: string; message: string } | undefined;
    if (needsSync && !isDeleting(rs)) {
      manageError = await this.manageReplicas(key, rs, owned);
    }
    const status = calculateRsStatus(rs, owned, this.d.clock.now(), manageError);
    await this.updateStatus(rs, status);
    const spec = rsSpec(rs);
    if (manageError) throw new Error(manageError.message);
    if ((spec.minReadySeconds ?? 0) > 0 && (status.readyReplicas ?? 0) === (spec.replicas ?? 1) && (status.availableReplicas ?? 0) !== (spec.replicas ?? 1)) {
      this.queue.addAfter(key, spec.minReadySeconds! * 1000);
    }
  }

  // RecheckDeletionTimestamp: adopt only while the live ReplicaSet is the same one and not being deleted.
  private async canAdopt(rs: KubeObject): Promise<boolean> {
    try {
      const fresh = await this.api.get(this.k.ref, rs.metadata.namespace!, rs.metadata.name!);
      return fresh.metadata.uid === rs.metadata.uid && !isDeleting(fresh);
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }

  private async adopt(rs: KubeObject, pod: KubeObject): Promise<boolean> {
    try {
      await this.api.patch(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!, 'strategic', adoptPatch(rs, pod));
      return true;
    } catch (e) {
      if (e instanceof ApiError && (e.code === 404 || e.code === 422)) return false;
      throw e;
    }
  }

  private async manageReplicas(key: string, rs: KubeObject, pods: KubeObject[]): Promise<{ reason: string; message: string } | undefined> {
    const diff = replicaDiff(pods.length, rsSpec(rs).replicas ?? 1);
    if (diff > 0) {
      this.expectations.expectCreations(key, diff);
      let created = 0;
      for (const size of slowStartBatches(diff, SLOW_START_INITIAL_BATCH, MAX_BATCH)) {
        const results = await Promise.allSettled(Array.from({ length: size }, () => this.api.create(RESOURCES.pods, rs.metadata.namespace!, podFromTemplate(rs))));
        let failed: unknown;
        for (const r of results) {
          if (r.status === 'fulfilled') {
            created++;
            this.d.recorder.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${r.value.metadata.name}`);
          } else {
            failed ??= r.reason;
            this.expectations.lowerCreations(key);
            // No event while the namespace is being deleted: nobody is left to read it (replica_set.go).
            if (!namespaceTerminating(r.reason)) this.d.recorder.event(rs, 'Warning', 'FailedCreate', `Error creating: ${errorText(r.reason)}`);
          }
        }
        if (failed) {
          // The batches not attempted will never be observed either.
          this.expectations.lowerCreations(key, diff - created - results.filter((r) => r.status === 'rejected').length);
          return { reason: 'FailedCreate', message: errorText(failed) };
        }
      }
    } else if (diff < 0) {
      const victims = podsToDelete(pods, -diff);
      this.expectations.expectDeletions(key, victims.map(objectKey));
      let failure: { reason: string; message: string } | undefined;
      await inBatches(victims, MAX_BATCH, async (pod) => {
        try {
          await this.api.delete(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!);
          this.d.recorder.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
        } catch (e) {
          this.expectations.deletionObserved(key, objectKey(pod));
          if (isNotFound(e)) return;
          this.d.recorder.event(rs, 'Warning', 'FailedDelete', `Error deleting: ${(e as Error).message}`);
          failure ??= { reason: 'FailedDelete', message: (e as Error).message };
        }
      });
      return failure;
    }
    return undefined;
  }

  private async updateStatus(rs: KubeObject, status: RsStatus): Promise<void> {
    if (JSON.stringify(rs.status ?? {}) === JSON.stringify(status)) return;
    try {
      await this.api.update(this.k.ref, { ...rs, status }, 'status');
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 409)) throw e;
      // One retry on a fresh copy (updateReplicaSetStatus).
      const fresh = await this.api.get(this.k.ref, rs.metadata.namespace!, rs.metadata.name!);
      await this.api.update(this.k.ref, { ...fresh, status }, 'status');
    }
  }
}
