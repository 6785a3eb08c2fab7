// Controllers: the CronJob controller (kubernetes pkg/controller/cronjob/cronjob_controllerv2.go, 1.32): for
// each CronJob, the Jobs it controls are reconciled with status.active (finished ones leave it, missing ones
// are dropped), finished Jobs beyond the history limits are deleted, and — unless suspended, or the time zone
// or schedule is bad — the most recent missed start makes a Job named <cronjob>-<minutes>, honouring
// startingDeadlineSeconds and concurrencyPolicy (Forbid skips, Replace deletes the running Jobs first). The key
// is then queued again for a little after the next start. Each sync is linear in the CronJob's Jobs: the
// schedule search is bounded (core/cron/schedule.ts), never proportional to the starts a deadline spans.

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { ApiError } from '../client/types';
import { isAlreadyExists, isNotFound, RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';
import { kubeTime, type EventRecorder } from './events';
import type { SharedInformer } from './informers';
import {
  cronSpec, cronStatus, finishedConditionType, finishedType, formatSchedule, jobFromTemplate, jobNameFor, jobRef, jobsBeyondHistory,
  mostRecentScheduleTime, untilNextSchedule, type CronJobStatus,
} from './cronjob-plan';
import { parseSchedule, type Schedule } from '../core/cron/schedule';
import { timeZoneError } from '../core/cron/time-zone';
import { controllerOf } from './owner-refs';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

export const COMPONENT = 'cronjob-controller';

export interface CronJobDeps {
  api: Api;
  cronJobs: SharedInformer;
  jobs: SharedInformer;
  recorder: EventRecorder;
  clock: Clock;
}

const rfc1123z = (t: number): string => {
  // Go's time.RFC1123Z in UTC: "Mon, 02 Jan 2006 15:04:05 +0000"
  const d = new Date(t);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()];
  const mon = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
  const p = (n: number) => String(n).padStart(2, '0');
  return `${day}, ${p(d.getUTCDate())} ${mon} ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
};

export class CronJobController {
  readonly queue: WorkQueue;

  constructor(private readonly d: CronJobDeps) {
    this.queue = new WorkQueue(d.clock);
    d.cronJobs.addHandlers({
      add: (cj) => this.queue.add(objectKey(cj)),
      update: (cj, old) => this.updated(cj, old),
      delete: (cj) => this.queue.add(objectKey(cj)),
    });
    const enqueueOwner = (job: KubeObject) => {
      const ref = controllerOf(job);
      if (ref?.kind === 'CronJob') this.queue.add(`${job.metadata.namespace}/${ref.name}`);
    };
    d.jobs.addHandlers({ add: enqueueOwner, update: enqueueOwner, delete: enqueueOwner });
  }

  run(workers = 5): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(COMPONENT) }));
  }

  /** updateCronJob: a changed schedule or zone requeues for the new next start; anything else syncs now. */
  private updated(cj: KubeObject, old: KubeObject): void {
    const spec = cronSpec(cj), prior = cronSpec(old);
    if (spec.schedule === prior.schedule && (spec.timeZone ?? null) === (prior.timeZone ?? null)) return this.queue.add(objectKey(cj));
    let s: Schedule;
    try {
      s = parseSchedule(formatSchedule(cj).text);
    } catch {
      this.d.recorder.event(cj, 'Warning', 'UnParseableCronJobSchedule', `unparseable schedule for cronjob: ${spec.schedule}`);
      return;
    }
    const wait = untilNextSchedule(cj, this.d.clock.now(), s);
    if (wait !== undefined) this.queue.addAfter(objectKey(cj), Math.max(0, wait));
  }

  /** getJobsToBeReconciled: the Jobs in the namespace whose controller is a CronJob of this name. */
  private jobsOf(cj: KubeObject): KubeObject[] {
    return this.d.jobs.byNamespace(cj.metadata.namespace ?? '').filter((j) => {
      const ref = controllerOf(j);
      return ref?.kind === 'CronJob' && ref.name === cj.metadata.name;
    });
  }

  async sync(key: string): Promise<void> {
    const cached = this.d.cronJobs.get(key);
    if (!cached) return;
    const cj = structuredClone(cached);
    const status: CronJobStatus = structuredClone(cronStatus(cached));
    cj.status = status as Record<string, unknown>;
    const jobs = this.jobsOf(cj);
    let update = await this.cleanupFinished(cj, status, jobs);
    let requeue: number | undefined;
    let syncError: unknown;
    try {
      const r = await this.syncCronJob(cj, jobs);
      requeue = r.requeueMs;
      update = r.update || update;
    } catch (e) {
      syncError = e;
    }
    if (update) {
      const fresh = cj.status as CronJobStatus;
      if (!fresh.active?.length) delete fresh.active;
      await this.d.api.update(RESOURCES.cronjobs, cj, 'status');
    }
    if (requeue !== undefined) {
      this.queue.addAfter(key, Math.max(0, requeue));
      return;
    }
    if (syncError) throw syncError;
  }

  private async cleanupFinished(cj: KubeObject, status: CronJobStatus, jobs: KubeObject[]): Promise<boolean> {
    let update = false;
    for (const job of jobsBeyondHistory(cj, jobs)) if (await this.deleteJob(cj, status, job)) update = true;
    return update;
  }

  /** deleteJob: background deletion of the Job (its pods follow), and its entry out of status.active. */
  private async deleteJob(cj: KubeObject, status: CronJobStatus, job: KubeObject): Promise<boolean> {
    try {
      await this.d.api.delete(RESOURCES.jobs, job.metadata.namespace!, job.metadata.name!, { propagationPolicy: 'Background' });
    } catch (e) {
      this.d.recorder.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${(e as Error).message}`);
      return false;
    }
    status.active = (status.active ?? []).filter((r) => r.uid !== job.metadata.uid);
    this.d.recorder.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`);
    return true;
  }

  private async syncCronJob(cronJob: KubeObject, jobs: KubeObject[]): Promise<{ requeueMs?: number; update: boolean }> {
    const now = this.d.clock.now();
    let cj = cronJob;
    let status = cj.status as CronJobStatus;
    let update = false;
    const inActive = (uid: unknown) => (status.active ?? []).some((r) => r.uid === uid);
    const children = new Set<unknown>();
    let fresh: KubeObject | undefined;
    for (const job of jobs) {
      children.add(job.metadata.uid);
      const finished = finishedType(job);
      if (!inActive(job.metadata.uid) && !finished) {
        // Read afresh at most once a sync (kube reads it per such Job): the cache may lag our own status write.
        fresh ??= await this.d.api.get(RESOURCES.cronjobs, cj.metadata.namespace!, cj.metadata.name!);
        if ((cronStatus(fresh).active ?? []).some((r) => r.uid === job.metadata.uid)) {
          // The cache lagged behind our own status write: carry on from the fresh object.
          Object.assign(cronJob, structuredClone(fresh));
          cj = cronJob;
          status = cronStatus(cj);
          cj.status = status as Record<string, unknown>;
          continue;
        }
        this.d.recorder.event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${job.metadata.name}`);
      } else if (finished) {
        if (inActive(job.metadata.uid)) {
          status.active = (status.active ?? []).filter((r) => r.uid !== job.metadata.uid);
          this.d.recorder.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata.name}, condition: ${finishedConditionType(job)}`);
          update = true;
        }
        const completion = (job.status as { completionTime?: string } | undefined)?.completionTime;
        if (finished === 'Complete' && completion) {
          if (!status.lastSuccessfulTime || Date.parse(completion) > Date.parse(status.lastSuccessfulTime)) {
            status.lastSuccessfulTime = completion;
            update = true;
          }
        }
      }
    }
    // Active entries whose Job is gone: asked of the API first, as the cache may lag.
    for (const ref of [...(status.active ?? [])]) {
      if (children.has(ref.uid)) continue;
      try {
        await this.d.api.get(RESOURCES.jobs, ref.namespace ?? cj.metadata.namespace!, ref.name!);
      } catch (e) {
        if (!isNotFound(e)) throw e;
        this.d.recorder.event(cj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
        status.active = (status.active ?? []).filter((r) => r.uid !== ref.uid);
        update = true;
      }
    }
    if (cj.metadata.deletionTimestamp) return { update };
    const spec = cronSpec(cj);
    if (spec.timeZone != null) {
      const err = timeZoneError(spec.timeZone);
      if (err) {
        this.d.recorder.event(cj, 'Warning', 'UnknownTimeZone', `invalid timeZone: "${spec.timeZone}": ${err}`);
        return { update };
      }
    }
    if (spec.suspend) return { update };
    const formatted = formatSchedule(cj);
    if (formatted.unsupportedTZ) {
      this.d.recorder.event(cj, 'Warning', 'UnsupportedSchedule',
        `CRON_TZ or TZ used in schedule "${spec.schedule}" is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`);
    }
    let s: Schedule;
    try {
      s = parseSchedule(formatted.text);
    } catch (e) {
      this.d.recorder.event(cj, 'Warning', 'UnparseableSchedule', `unparseable schedule: "${spec.schedule}" : ${(e as Error).message}`);
      return { update };
    }
    const recent = mostRecentScheduleTime(cj, now, s, true);
    if (recent.error) {
      this.d.recorder.event(cj, 'Warning', 'InvalidSchedule', `invalid schedule: ${spec.schedule} : ${recent.error}`);
      return { update };
    }
    const requeue = () => untilNextSchedule(cj, now, s);
    const scheduled = recent.mostRecent;
    if (scheduled === undefined || scheduled > now) return { requeueMs: requeue(), update };
    if (recent.missed === 'many') {
      this.d.recorder.event(cj, 'Warning', 'TooManyMissedTimes', 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
    }
    if (spec.startingDeadlineSeconds != null && scheduled + spec.startingDeadlineSeconds * 1000 < now) {
      this.d.recorder.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`);
      return { requeueMs: requeue(), update };
    }
    const name = jobNameFor(cj, scheduled);
    const last = status.lastScheduleTime ? Date.parse(status.lastScheduleTime) : undefined;
    if ((status.active ?? []).some((r) => r.name === name && r.namespace === cj.metadata.namespace) || last === Math.floor(scheduled / 1000) * 1000) {
      return { requeueMs: requeue(), update };
    }
    if (spec.concurrencyPolicy === 'Forbid' && (status.active ?? []).length > 0) {
      this.d.recorder.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return { requeueMs: requeue(), update };
    }
    if (spec.concurrencyPolicy === 'Replace') {
      for (const ref of [...(status.active ?? [])]) {
        let job: KubeObject;
        try {
          job = await this.d.api.get(RESOURCES.jobs, ref.namespace ?? cj.metadata.namespace!, ref.name!);
        } catch (e) {
          this.d.recorder.event(cj, 'Warning', 'FailedGet', `Get job: ${(e as Error).message}`);
          throw e;
        }
        if (!(await this.deleteJob(cj, status, job))) throw new Error(`could not replace job ${job.metadata.namespace}/${job.metadata.name}`);
        update = true;
      }
    }
    const request = jobFromTemplate(cj, scheduled);
    let created: KubeObject;
    let existed = false;
    try {
      created = await this.d.api.create(RESOURCES.jobs, cj.metadata.namespace!, request);
    } catch (e) {
      if (isAlreadyExists(e)) {
        existed = true;
        created = await this.d.api.get(RESOURCES.jobs, cj.metadata.namespace!, request.metadata.name!);
        // Someone else's Job of that name: assume they keep the status. Ours but not active: record it again.
        if (controllerOf(created)?.uid !== cj.metadata.uid || inActive(created.metadata.uid)) return { update };
      } else {
        if (!(e instanceof ApiError && (e.status?.details as { causes?: { type?: string }[] } | undefined)?.causes?.some((c) => c.type === 'NamespaceTerminating'))) {
          this.d.recorder.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${(e as Error).message}`);
        }
        throw e;
      }
    }
    if (!existed) this.d.recorder.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata.name}`);
    status.active = [...(status.active ?? []), jobRef(created)];
    status.lastScheduleTime = kubeTime(scheduled);
    return { requeueMs: requeue(), update: true };
  }
}
