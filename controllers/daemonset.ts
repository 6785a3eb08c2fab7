// Controllers: the DaemonSet controller (kubernetes pkg/controller/daemon): one pod per eligible node,
// created with a node affinity to that node for the scheduler to bind, kept on its ControllerRevision
// (pod label controller-revision-hash), replaced by RollingUpdate within maxUnavailable/maxSurge, with
// expectations like kube's so a sync never acts on a cache that has not seen its own creates. The
// decisions are in daemonset-plan.ts. Creates go in slow-start batches (at most MAX_BATCH at a time, as the
// ReplicaSet controller's) and stop at the first refusal, which fails the sync: the key backs off.

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { ApiError } from '../client/types';
import { isNotFound, RESOURCES, type Api, errorText } from './api-client';
import type { Clock } from './clock';
import { controllerClient, type ClientRateLimit } from './client-throttle';
import { CONTROLLER_REVISION_HASH, ensureUpdateRevision, hashOf, truncateHistory } from './controller-history';
import type { EventRecorder } from './events';
import { Expectations } from './expectations';
import type { SharedInformer } from './informers';
import { adoptPatch, claimDecision, controllerOf, isDeleting, labelsOf, selectorMatcher } from './owner-refs';
import { dsSpec, dsStatusOf, hashOfPod, planDaemonSet, podForNode, viewNodes, type DsStatus } from './daemonset-plan';
import { BURST_REPLICAS, inBatches, MAX_BATCH, SLOW_START_INITIAL_BATCH, slowStartBatches } from './replicaset';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

export const COMPONENT = 'daemonset-controller';

export interface DaemonSetDeps {
  // client-go's client-side rate limit of this controller's requests (default kube-controller-manager's 20 qps, burst 30)
  clientRateLimit?: ClientRateLimit | false;
  api: Api;
  daemonSets: SharedInformer;
  pods: SharedInformer;
  nodes: SharedInformer;
  revisions: SharedInformer;
  recorder: EventRecorder;
  clock: Clock;
}

export class DaemonSetController {
  readonly queue: WorkQueue;
  readonly expectations: Expectations;

  private readonly api: Api;

  constructor(private readonly d: DaemonSetDeps) {
    this.api = controllerClient(d.api, d.clock, d.clientRateLimit);
    this.queue = new WorkQueue(d.clock);
    this.expectations = new Expectations(d.clock);
    const enqueue = (ds: KubeObject) => this.queue.add(objectKey(ds));
    d.daemonSets.addHandlers({
      add: enqueue, update: enqueue,
      delete: (ds) => { this.expectations.deleteExpectations(objectKey(ds)); enqueue(ds); },
    });
    const ownerKey = (p: KubeObject) => {
      const ref = controllerOf(p);
      return ref?.kind === 'DaemonSet' ? `${p.metadata.namespace}/${ref.name}` : undefined;
    };
    d.pods.addHandlers({
      add: (p) => {
        const key = ownerKey(p);
        if (key) { this.expectations.creationObserved(key); this.queue.add(key); }
      },
      update: (p, old) => {
        const key = ownerKey(p);
        if (!key) return;
        if (isDeleting(p) && !isDeleting(old)) this.expectations.deletionObserved(key, objectKey(p));
        this.queue.add(key);
      },
      delete: (p) => {
        const key = ownerKey(p);
        if (!key) return;
        this.expectations.deletionObserved(key, objectKey(p));
        this.queue.add(key);
      },
    });
    // A node added, relabelled or tainted may change where every DaemonSet runs.
    const all = () => { for (const ds of d.daemonSets.list()) enqueue(ds); };
    d.nodes.addHandlers({ add: all, update: (n, old) => { if (JSON.stringify([n.metadata.labels, n.spec]) !== JSON.stringify([old.metadata.labels, old.spec])) all(); }, delete: all });
  }

  run(workers = 2): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(COMPONENT) }));
  }

  async sync(key: string): Promise<void> {
    const ds = this.d.daemonSets.get(key);
    if (!ds) {
      this.expectations.deleteExpectations(key);
      return;
    }
    if (isDeleting(ds)) return;
    const matches = selectorMatcher(dsSpec(ds).selector);
    const pods: KubeObject[] = [];
    let claims = 0;
    for (const p of this.d.pods.byNamespace(ds.metadata.namespace ?? '')) {
      const decision = claimDecision(ds, p, matches(labelsOf(p)));
      if (decision === 'keep') pods.push(p);
      else if (decision === 'adopt') {
        // Orphans are adopted BURST_REPLICAS per sync (the rest next time, after other keys' turns); nothing
        // is managed on a partial claim.
        if (claims++ >= BURST_REPLICAS) return this.queue.add(key);
        try {
          pods.push(await this.api.patch(RESOURCES.pods, p.metadata.namespace!, p.metadata.name!, 'strategic', adoptPatch(ds, p)));
        } catch (e) {
          if (!(e instanceof ApiError && (e.code === 404 || e.code === 422))) throw e;
        }
      }
    }
    const owned = this.d.revisions.byNamespace(ds.metadata.namespace ?? '').filter((r) => controllerOf(r)?.uid === ds.metadata.uid);
    const { update, revisions } = await ensureUpdateRevision(this.api, ds, owned, (ds.status as DsStatus | undefined)?.collisionCount ?? 0,
      (hash) => ({ [CONTROLLER_REVISION_HASH]: hash }));
    const hash = hashOf(update);
    const now = this.d.clock.now();
    const { views, orphans } = viewNodes(ds, this.d.nodes.list(), pods);
    // syncDaemonSet: a refused create or delete still lets the status be written, then fails the sync.
    let manageError: unknown;
    if (this.expectations.satisfied(key)) {
      const plan = planDaemonSet(ds, views, orphans, hash, now);
      try {
        await this.deletePods(key, ds, plan.delete);
        await this.createPods(key, ds, plan.create, hash);
      } catch (e) {
        manageError = e;
      }
    }
    const status = dsStatusOf(ds, views, hash, now);
    if (JSON.stringify(ds.status ?? {}) !== JSON.stringify(status)) {
      await this.api.update(RESOURCES.daemonsets, { ...ds, status: status as unknown as Record<string, unknown> }, 'status');
    }
    if (manageError) throw manageError;
    const liveHashes = new Set(pods.map(hashOfPod));
    await truncateHistory(this.api, ds, revisions, new Set(revisions.filter((r) => r === update || liveHashes.has(hashOf(r))).map((r) => r.metadata.name!)));
    const minReady = dsSpec(ds).minReadySeconds ?? 0;
    if (minReady > 0 && (status.numberAvailable ?? 0) < status.numberReady) this.queue.addAfter(key, minReady * 1000);
  }

  private async createPods(key: string, ds: KubeObject, nodes: string[], hash: string): Promise<void> {
    if (!nodes.length) return;
    this.expectations.expectCreations(key, nodes.length);
    let next = 0;
    for (const size of slowStartBatches(nodes.length, SLOW_START_INITIAL_BATCH, MAX_BATCH)) {
      const batch = nodes.slice(next, next + size);
      next += size;
      const results = await Promise.allSettled(batch.map((n) => this.api.create(RESOURCES.pods, ds.metadata.namespace!, podForNode(ds, n, hash))));
      let failed: unknown;
      for (const r of results) {
        if (r.status === 'fulfilled') this.d.recorder.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${r.value.metadata.name}`);
        else {
          failed ??= r.reason;
          this.expectations.lowerCreations(key);
          this.d.recorder.event(ds, 'Warning', 'FailedCreate', `Error creating: ${errorText(r.reason)}`);
        }
      }
      if (failed) {
        this.expectations.lowerCreations(key, nodes.length - next);
        throw failed;
      }
    }
  }

  private async deletePods(key: string, ds: KubeObject, victims: KubeObject[]): Promise<void> {
    if (!victims.length) return;
    this.expectations.expectDeletions(key, victims.map(objectKey));
    let failed: unknown;
    await inBatches(victims, MAX_BATCH, async (pod) => {
      try {
        await this.api.delete(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!);
        this.d.recorder.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
      } catch (e) {
        this.expectations.deletionObserved(key, objectKey(pod));
        if (!isNotFound(e)) {
          this.d.recorder.event(ds, 'Warning', 'FailedDelete', `Error deleting: ${(e as Error).message}`);
          failed ??= e;
        }
      }
    });
    if (failed) throw failed;
  }
}
