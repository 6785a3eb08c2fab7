// Controllers: the TTL-after-finished controller (kubernetes pkg/controller/ttlafterfinished): a Job that
// finished (Complete or Failed) with spec.ttlSecondsAfterFinished set is deleted, with its pods
// (propagationPolicy Foreground), once that many seconds have passed since it finished. Before deleting
// it reads the Job afresh, so a TTL changed meanwhile wins, and deletes with uid and resourceVersion
// preconditions.

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { ApiError } from '../client/types';
import { RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';
import type { SharedInformer } from './informers';
import { findCondition, isJobFinished, jobSpec, jobStatus } from './job-status';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

export const COMPONENT = 'ttl-after-finished-controller';

/** When the Job finished (its terminal condition's transition, as jobFinishTime reads it), or undefined. */
export function finishTime(job: KubeObject): number | undefined {
  const c = findCondition(job, 'Complete') ?? findCondition(job, 'Failed');
  const t = c?.lastTransitionTime ?? jobStatus(job).completionTime;
  return t ? Date.parse(t) : undefined;
}

/** ms until the Job expires (≤ 0: now), or undefined when it never does. */
export function timeLeft(job: KubeObject, now: number): number | undefined {
  const ttl = jobSpec(job).ttlSecondsAfterFinished;
  if (ttl == null || job.metadata.deletionTimestamp || !isJobFinished(job)) return undefined;
  const finished = finishTime(job);
  if (finished === undefined || Number.isNaN(finished)) return undefined;
  return finished + ttl * 1000 - now;
}

export class TtlAfterFinishedController {
  readonly queue: WorkQueue;

  constructor(private readonly api: Api, private readonly jobs: SharedInformer, private readonly clock: Clock) {
    this.queue = new WorkQueue(clock);
    const enqueue = (j: KubeObject) => {
      if (jobSpec(j).ttlSecondsAfterFinished != null && isJobFinished(j)) this.queue.add(objectKey(j));
    };
    jobs.addHandlers({ add: enqueue, update: enqueue });
  }

  run(workers = 1): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(COMPONENT) }));
  }

  async sync(key: string): Promise<void> {
    const cached = this.jobs.get(key);
    if (!cached) return;
    const left = timeLeft(cached, this.clock.now());
    if (left === undefined) return;
    if (left > 0) return this.queue.addAfter(key, left);
    let fresh: KubeObject;
    try {
      fresh = await this.api.get(RESOURCES.jobs, cached.metadata.namespace!, cached.metadata.name!);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return;
      throw e;
    }
    const freshLeft = timeLeft(fresh, this.clock.now());
    if (freshLeft === undefined) return;
    if (freshLeft > 0) return this.queue.addAfter(key, freshLeft);
    try {
      await this.api.delete(RESOURCES.jobs, fresh.metadata.namespace!, fresh.metadata.name!, {
        propagationPolicy: 'Foreground',
        preconditions: { uid: fresh.metadata.uid as string, resourceVersion: fresh.metadata.resourceVersion as string },
      });
    } catch (e) {
      if (e instanceof ApiError && (e.code === 404 || e.code === 409)) return; // gone, or changed: its update requeues it
      throw e;
    }
  }
}
