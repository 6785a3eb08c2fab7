// Controllers: the Job controller (kubernetes pkg/controller/job/job_controller.go, 1.32 behaviour):
// claims the Job's pods, runs min(completions − succeeded, parallelism) of them (NonIndexed or Indexed),
// counts finished pods through status.uncountedTerminatedPods and the batch.kubernetes.io/job-tracking
// finalizer, and finishes the Job: FailureTarget (backoffLimit, activeDeadlineSeconds) or
// SuccessCriteriaMet first, then — once no pod is left running — Failed or Complete. Suspend deletes the
// pods and keeps the Suspended condition. The pure decisions live in job-status.ts.

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { ApiError } from '../client/types';
import { formatIndexes } from '../core/job-indexes';
import { isNotFound, RESOURCES, type Api, errorText } from './api-client';
import type { Clock } from './clock';
import { kubeTime, type EventRecorder } from './events';
import { Expectations } from './expectations';
import type { SharedInformer } from './informers';
import { adoptPatch, claimDecision, controllerOf, isDeleting, labelsOf, releasePatch, selectorMatcher } from './owner-refs';
import { compareForDeletion } from './pods';
import { slowStartBatches } from './replicaset';
import {
  condition, findCondition, finishedCondition, indexesToCreate, isJobFinished, JOB_TRACKING_FINALIZER,
  jobSpec, jobStatus, MAX_POD_CREATE_DELETE_PER_SYNC, podBackoffMs, podForJob, untilDeadline, viewJob, wantActive, withCondition,
  hasTrackingFinalizer, type JobStatus,
} from './job-status';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

export const COMPONENT = 'job-controller';

const ORPHAN = 'orphan-pod:'; // queue keys of pods to release, beside the Jobs' namespace/name keys
const REMOVE_FINALIZER = { metadata: { [`$deleteFromPrimitiveList/finalizers`]: [JOB_TRACKING_FINALIZER] } };

export interface JobDeps {
  api: Api;
  jobs: SharedInformer;
  pods: SharedInformer;
  recorder: EventRecorder;
  clock: Clock;
}

export class JobController {
  readonly queue: WorkQueue;
  readonly expectations: Expectations;
  private readonly lastFailure = new Map<string, number>(); // job key → when a failed pod was last recorded (pod backoff)

  constructor(private readonly d: JobDeps) {
    this.queue = new WorkQueue(d.clock);
    this.expectations = new Expectations(d.clock);
    d.jobs.addHandlers({
      add: (j) => this.queue.add(objectKey(j)),
      update: (j) => this.queue.add(objectKey(j)),
      delete: (j) => {
        this.expectations.deleteExpectations(objectKey(j));
        this.lastFailure.delete(objectKey(j));
        this.queue.add(objectKey(j));
        // Its pods lose the tracking finalizer (the garbage collector deletes them in the background).
        for (const p of d.pods.byNamespace(j.metadata.namespace ?? '')) if (controllerOf(p)?.uid === j.metadata.uid && hasTrackingFinalizer(p)) this.queue.add(ORPHAN + objectKey(p));
      },
    });
    d.pods.addHandlers({
      add: (p) => {
        this.checkOrphan(p);
        const key = this.ownerKey(p);
        if (key) {
          this.expectations.creationObserved(key);
          this.queue.add(key);
        } else if (!controllerOf(p)) this.enqueueMatching(p);
      },
      update: (p, old) => {
        this.checkOrphan(p);
        const key = this.ownerKey(p);
        if (key && isDeleting(p) && !isDeleting(old)) this.expectations.deletionObserved(key, objectKey(p));
        if (key) this.queue.add(key);
        else if (!controllerOf(p)) this.enqueueMatching(p);
      },
      delete: (p) => {
        const key = this.ownerKey(p);
        if (!key) return;
        this.expectations.deletionObserved(key, objectKey(p));
        this.queue.add(key);
      },
    });
  }

  run(workers = 5): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(COMPONENT) }));
  }

  /** A pod holding the tracking finalizer whose Job is gone (or another) is released (kube's orphanQueue). */
  private checkOrphan(pod: KubeObject): void {
    if (!hasTrackingFinalizer(pod)) return;
    const ref = controllerOf(pod);
    const job = ref?.kind === 'Job' ? this.d.jobs.get(`${pod.metadata.namespace}/${ref.name}`) : undefined;
    if (!job || job.metadata.uid !== ref?.uid) this.queue.add(ORPHAN + objectKey(pod));
  }

  private async syncOrphan(podKey: string): Promise<void> {
    const pod = this.d.pods.get(podKey);
    if (!pod || !hasTrackingFinalizer(pod)) return;
    const ref = controllerOf(pod);
    const job = ref?.kind === 'Job' ? this.d.jobs.get(`${pod.metadata.namespace}/${ref.name}`) : undefined;
    if (job && job.metadata.uid === ref?.uid) return; // its Job counts it
    await this.removeFinalizers([pod]);
  }

  private ownerKey(pod: KubeObject): string | undefined {
    const ref = controllerOf(pod);
    return ref && ref.kind === 'Job' ? `${pod.metadata.namespace}/${ref.name}` : undefined;
  }

  private enqueueMatching(pod: KubeObject): void {
    for (const job of this.d.jobs.byNamespace(pod.metadata.namespace ?? '')) {
      if (selectorMatcher(jobSpec(job).selector)(labelsOf(pod))) this.queue.add(objectKey(job));
    }
  }

  /** The Job's pods, finished ones included (they carry the tracking finalizer until counted). */
  private async claim(job: KubeObject): Promise<KubeObject[]> {
    const matches = selectorMatcher(jobSpec(job).selector);
    const owned: KubeObject[] = [];
    for (const pod of this.d.pods.byNamespace(job.metadata.namespace ?? '')) {
      const decision = claimDecision(job, pod, matches(labelsOf(pod)));
      if (decision === 'keep') owned.push(pod);
      else if (decision === 'adopt') {
        try {
          owned.push(await this.d.api.patch(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!, 'strategic', adoptPatch(job, pod)));
        } catch (e) {
          if (!(e instanceof ApiError && (e.code === 404 || e.code === 422))) throw e;
        }
      } else if (decision === 'release') {
        await this.d.api.patch(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!, 'strategic', releasePatch(job.metadata.uid as string, pod))
          .catch((e) => { if (!(e instanceof ApiError && (e.code === 404 || e.code === 422))) throw e; });
      }
    }
    return owned;
  }

  async sync(key: string): Promise<void> {
    if (key.startsWith(ORPHAN)) return this.syncOrphan(key.slice(ORPHAN.length));
    const job = this.d.jobs.get(key);
    if (!job) {
      this.expectations.deleteExpectations(key);
      this.lastFailure.delete(key);
      return;
    }
    const pods = await this.claim(job);
    if (isJobFinished(job)) {
      // A finished Job lets go of every pod it still holds.
      await this.removeFinalizers(pods.filter(hasTrackingFinalizer));
      this.scheduleDeadline(key, job);
      return;
    }
    const now = this.d.clock.now();
    const spec = jobSpec(job);
    const prior = jobStatus(job);
    const status: JobStatus = structuredClone(prior);
    const events: [type: 'Normal' | 'Warning', reason: string, message: string][] = [];

    // Suspend / resume (the Suspended condition; a resumed Job's startTime restarts).
    const suspendedCond = findCondition(job, 'Suspended');
    if (spec.suspend && !suspendedCond) {
      status.conditions = withCondition(status.conditions, condition('Suspended', 'True', 'JobSuspended', 'Job suspended', now));
      events.push(['Normal', 'Suspended', 'Job suspended']);
    } else if (!spec.suspend && suspendedCond) {
      status.conditions = withCondition(status.conditions, condition('Suspended', 'False', 'JobResumed', 'Job resumed', now));
      status.startTime = kubeTime(now);
      events.push(['Normal', 'Resumed', 'Job resumed']);
    }
    // Suspending resets startTime (batch/v1 JobSpec.suspend); status validation refuses a changed startTime on a
    // running Job, so a resumed Job gets its new one from nil.
    if (spec.suspend) delete status.startTime;
    else if (!status.startTime) status.startTime = kubeTime(now);
    const withStart = { ...job, status } as KubeObject;

    let view = viewJob(withStart, pods, undefined);
    const fin = finishedCondition(withStart, view, now);
    if (fin) {
      view = viewJob(withStart, pods, { success: fin.type === 'SuccessCriteriaMet' });
      status.conditions = withCondition(status.conditions, condition(fin.type, 'True', fin.reason, fin.message, now));
    }
    const priorFailed = new Set(prior.uncountedTerminatedPods?.failed ?? []); // a Set: the list may hold thousands of UIDs
    const newlyFailed = [...view.uncountedFailed].some((uid) => !priorFailed.has(uid));
    if (newlyFailed) this.lastFailure.set(key, now);

    // manageJob: delete what must not run, create what is missing.
    let active = view.active.length;
    if (fin || spec.suspend) {
      const deleted = await this.deletePods(key, job, view.active);
      active -= deleted;
      view.terminating += deleted; // trackTerminatingPods: the terminal condition waits for them to go
    } else if (this.expectations.satisfied(key)) {
      const want = wantActive(withStart, view);
      const running = active + (spec.podReplacementPolicy === 'Failed' ? view.terminating : 0);
      if (running > want) {
        active -= await this.deletePods(key, job, [...view.active].sort(compareForDeletion).slice(0, Math.min(running - want, MAX_POD_CREATE_DELETE_PER_SYNC)));
      } else if (running < want) {
        const wait = podBackoffMs(view.failed) - (now - (this.lastFailure.get(key) ?? -Infinity));
        if (view.failed > 0 && wait > 0) this.queue.addAfter(key, wait);
        else active += await this.createPods(key, job, view, Math.min(want - running, MAX_POD_CREATE_DELETE_PER_SYNC));
      }
    }

    // active, succeeded and failed are omitempty in batch/v1; ready and terminating are pointers (0 shows).
    if (active > 0) status.active = active;
    else delete status.active;
    status.ready = view.ready;
    status.terminating = view.terminating;
    if (spec.completionMode === 'Indexed') {
      const ci = formatIndexes(view.completedIndexes);
      if (ci) status.completedIndexes = ci;
    }
    // Phase 1: record the newly finished pods before their finalizers come off.
    status.uncountedTerminatedPods = uncountedOf(view.uncountedSucceeded, view.uncountedFailed);
    let current = job;
    if (view.newlyUncounted) current = await this.writeStatus(current, status);

    // Phase 2: release the pods, then move what was released from uncounted into the counters.
    const released = await this.removeFinalizers(view.finalizersToRemove);
    const present = new Map(pods.map((p) => [p.metadata.uid as string, p]));
    const counted = (uid: string) => released.has(uid) || !present.has(uid) || !hasTrackingFinalizer(present.get(uid)!);
    for (const uid of [...view.uncountedSucceeded]) if (counted(uid)) { view.uncountedSucceeded.delete(uid); status.succeeded = (status.succeeded ?? 0) + 1; }
    for (const uid of [...view.uncountedFailed]) if (counted(uid)) { view.uncountedFailed.delete(uid); status.failed = (status.failed ?? 0) + 1; }
    status.uncountedTerminatedPods = uncountedOf(view.uncountedSucceeded, view.uncountedFailed);

    // The terminal condition once nothing is left running or uncounted.
    const settled = fin && active === 0 && view.terminating === 0 && view.uncountedSucceeded.size === 0 && view.uncountedFailed.size === 0;
    if (fin && settled) {
      status.startTime ??= kubeTime(now); // a finished Job has one (status validation), even one that failed while suspended
      if (fin.type === 'SuccessCriteriaMet') {
        status.conditions = withCondition(status.conditions, condition('Complete', 'True', fin.reason, fin.message, now));
        status.completionTime = kubeTime(now);
        events.push(['Normal', 'Completed', 'Job completed']);
      } else {
        status.conditions = withCondition(status.conditions, condition('Failed', 'True', fin.reason, fin.message, now));
        events.push(['Warning', fin.reason, fin.message]);
      }
    }
    if (JSON.stringify(current.status ?? {}) !== JSON.stringify(status)) current = await this.writeStatus(current, status);
    for (const [type, reason, message] of events) this.d.recorder.event(job, type, reason, message);
    if (!fin) this.scheduleDeadline(key, { ...job, status } as KubeObject);
  }

  private scheduleDeadline(key: string, job: KubeObject): void {
    if (isJobFinished(job) || jobSpec(job).suspend) return;
    const wait = untilDeadline(job, this.d.clock.now());
    if (wait !== undefined) this.queue.addAfter(key, wait);
  }

  private async createPods(key: string, job: KubeObject, view: ReturnType<typeof viewJob>, n: number): Promise<number> {
    const indexed = jobSpec(job).completionMode === 'Indexed';
    const indexes = indexed ? indexesToCreate(job, view, n) : undefined;
    const count = indexes ? indexes.length : n;
    if (count <= 0) return 0;
    this.expectations.expectCreations(key, count);
    let created = 0, next = 0;
    for (const size of slowStartBatches(count)) {
      const batch = Array.from({ length: size }, () => podForJob(job, indexes?.[next++]));
      const results = await Promise.allSettled(batch.map((p) => this.d.api.create(RESOURCES.pods, job.metadata.namespace!, p)));
      let failed: unknown;
      for (const r of results) {
        if (r.status === 'fulfilled') {
          created++;
          this.d.recorder.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${r.value.metadata.name}`);
        } else {
          failed ??= r.reason;
          this.expectations.lowerCreations(key);
          this.d.recorder.event(job, 'Warning', 'FailedCreate', `Error creating: ${errorText(r.reason)}`);
        }
      }
      if (failed) {
        this.expectations.lowerCreations(key, count - next);
        throw failed;
      }
    }
    return created;
  }

  /** Deletes active pods; returns how many are gone. */
  private async deletePods(key: string, job: KubeObject, victims: KubeObject[]): Promise<number> {
    if (!victims.length) return 0;
    this.expectations.expectDeletions(key, victims.map(objectKey));
    let deleted = 0;
    await Promise.all(victims.map(async (pod) => {
      try {
        await this.d.api.delete(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!);
        deleted++;
        this.d.recorder.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
      } catch (e) {
        this.expectations.deletionObserved(key, objectKey(pod));
        if (isNotFound(e)) deleted++;
        else this.d.recorder.event(job, 'Warning', 'FailedDelete', `Error deleting: ${(e as Error).message}`);
      }
    }));
    return deleted;
  }

  /** Removes the tracking finalizer; returns the UIDs it is now off (or the pod is gone). */
  private async removeFinalizers(pods: KubeObject[]): Promise<Set<string>> {
    const done = new Set<string>();
    await Promise.all(pods.map(async (pod) => {
      try {
        await this.d.api.patch(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!, 'strategic', REMOVE_FINALIZER);
        done.add(pod.metadata.uid as string);
      } catch (e) {
        if (isNotFound(e)) done.add(pod.metadata.uid as string);
        else throw e;
      }
    }));
    return done;
  }

  private async writeStatus(job: KubeObject, status: JobStatus): Promise<KubeObject> {
    return this.d.api.update(RESOURCES.jobs, { ...job, status: structuredClone(status) as Record<string, unknown> }, 'status');
  }
}

function uncountedOf(succeeded: Set<string>, failed: Set<string>): JobStatus['uncountedTerminatedPods'] {
  const u: NonNullable<JobStatus['uncountedTerminatedPods']> = {};
  if (succeeded.size) u.succeeded = [...succeeded];
  if (failed.size) u.failed = [...failed];
  return u;
}
