// Controllers: the pure part of the CronJob controller (kubernetes pkg/controller/cronjob utils.go,
// cronjob_controllerv2.go, 1.32): the schedule text with the CronJob's time zone, the most recent missed start
// (in bounded work: kube estimates how many starts were missed from the gap between two of them and walks
// from there; here the last start at or before now is searched for directly, so a `* * * * *` schedule with a
// startingDeadlineSeconds of years costs the same as one with a minute), when to look again, the Job made
// for a start, and which finished Jobs the history limits remove.

import type { KubeObject } from '../client/types';
import { nextAfter, parseSchedule, prevAtOrBefore, type Schedule } from '../core/cron/schedule';
import { rfc3339In, timeZoneError } from '../core/cron/time-zone';
import { findCondition } from './job-status';
import { newControllerRef } from './owner-refs';

export const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
export const NEXT_SCHEDULE_DELTA_MS = 100; // nextScheduleDelta: requeue a little after the start is due
export const MANY_MISSED = 100; // more missed starts than this: the TooManyMissedTimes warning

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
}

export interface CronJobSpec {
  schedule?: string;
  timeZone?: string | null;
  startingDeadlineSeconds?: number | null;
  concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
  suspend?: boolean;
  jobTemplate?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> };
  successfulJobsHistoryLimit?: number | null;
  failedJobsHistoryLimit?: number | null;
}

export interface CronJobStatus {
  active?: ObjectReference[];
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
}

export const cronSpec = (cj: KubeObject): CronJobSpec => (cj.spec as CronJobSpec | undefined) ?? {};
export const cronStatus = (cj: KubeObject): CronJobStatus => (cj.status as CronJobStatus | undefined) ?? {};

/**
 * formatSchedule: the schedule with spec.timeZone as a TZ= prefix (a loadable zone only); a schedule that names
 * its own zone (TZ/CRON_TZ anywhere in the text) is taken as written, with the UnsupportedSchedule warning.
 */
export function formatSchedule(cj: KubeObject): { text: string; unsupportedTZ: boolean } {
  const spec = cronSpec(cj);
  const schedule = spec.schedule ?? '';
  if (schedule.includes('TZ')) return { text: schedule, unsupportedTZ: true };
  if (spec.timeZone != null && !timeZoneError(spec.timeZone)) return { text: `TZ=${spec.timeZone} ${schedule}`, unsupportedTZ: false };
  return { text: schedule, unsupportedTZ: false };
}

export const parseCronJobSchedule = (cj: KubeObject): Schedule => parseSchedule(formatSchedule(cj).text);

const ms = (t: string | undefined): number | undefined => {
  const n = t ? Date.parse(t) : NaN;
  return Number.isNaN(n) ? undefined : n;
};

export interface MostRecent {
  earliest: number;
  mostRecent?: number;
  missed: 'none' | 'few' | 'many';
  missedCount: number;
  error?: string;
}

/**
 * mostRecentScheduleTime: from the last start (or the CronJob's creation), and with the deadline no earlier than
 * now − startingDeadlineSeconds when `withDeadline`, the latest start at or before `now`, and whether starts were
 * missed on the way (kube's estimate: elapsed time over the gap between the first two starts).
 */
export function mostRecentScheduleTime(cj: KubeObject, now: number, s: Schedule, withDeadline: boolean): MostRecent {
  const status = cronStatus(cj);
  let earliest = ms(status.lastScheduleTime) ?? ms(cj.metadata.creationTimestamp as string | undefined) ?? now;
  const sds = cronSpec(cj).startingDeadlineSeconds;
  if (withDeadline && sds != null) {
    const deadline = now - sds * 1000;
    if (deadline > earliest) earliest = deadline;
  }
  const none: MostRecent = { earliest, missed: 'none', missedCount: 0 };
  if (earliest > now) return none;
  const t1 = nextAfter(s, earliest);
  if (t1 === undefined || t1 > now) return none;
  const t2 = nextAfter(s, t1);
  if (t2 === undefined || now < t2) return { ...none, mostRecent: t1 };
  const gap = Math.round((t2 - t1) / 1000);
  if (gap < 1) return { ...none, error: 'time difference between two schedules is less than 1 second' };
  const missedCount = Math.trunc((now - t1) / 1000 / gap) + 1;
  const mostRecent = s.kind === 'every' ? t1 + Math.trunc((now - t1) / s.ms) * s.ms : prevAtOrBefore(s, now);
  return {
    earliest, missedCount, missed: missedCount > MANY_MISSED ? 'many' : 'few',
    ...(mostRecent !== undefined && mostRecent >= t1 ? { mostRecent } : {}),
  };
}

/** nextScheduleTimeDuration: ms from now until a little after the next start (undefined: never). */
export function untilNextSchedule(cj: KubeObject, now: number, s: Schedule): number | undefined {
  const r = mostRecentScheduleTime(cj, now, s, false);
  if (r.error) return undefined;
  const next = nextAfter(s, r.mostRecent ?? r.earliest);
  return next === undefined ? undefined : next + NEXT_SCHEDULE_DELTA_MS - now;
}

/** getJobName: <cronjob>-<scheduled time in minutes since the epoch>. */
export const jobNameFor = (cj: KubeObject, scheduled: number): string => `${cj.metadata.name}-${Math.trunc(scheduled / 60_000)}`;

/** getJobFromTemplate2: the Job for a start. */
export function jobFromTemplate(cj: KubeObject, scheduled: number): KubeObject {
  const t = cronSpec(cj).jobTemplate ?? {};
  const annotations: Record<string, string> = { ...(t.metadata?.annotations ?? {}) };
  annotations[SCHEDULED_TIMESTAMP_ANNOTATION] = rfc3339In(scheduled, cronSpec(cj).timeZone ?? undefined);
  const metadata: Record<string, unknown> = {
    name: jobNameFor(cj, scheduled),
    labels: { ...(t.metadata?.labels ?? {}) },
    annotations,
    ownerReferences: [newControllerRef(cj)],
  };
  return { apiVersion: 'batch/v1', kind: 'Job', metadata, spec: structuredClone(t.spec ?? {}) };
}

/** getRef: the ObjectReference status.active holds (field order as the Go struct). */
export function jobRef(job: KubeObject): ObjectReference {
  return {
    kind: 'Job', namespace: job.metadata.namespace, name: job.metadata.name, uid: job.metadata.uid as string,
    apiVersion: 'batch/v1', resourceVersion: job.metadata.resourceVersion as string,
  };
}

/** getFinishedStatus: 'Complete' or 'Failed' when a terminal condition is True. */
export function finishedType(job: KubeObject): 'Complete' | 'Failed' | undefined {
  for (const c of ((job.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [])) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  }
  return undefined;
}

/** byJobStartTime: oldest start first; Jobs without a start last; names break ties. */
export function compareByStartTime(a: KubeObject, b: KubeObject): number {
  const sa = ms((a.status as { startTime?: string } | undefined)?.startTime);
  const sb = ms((b.status as { startTime?: string } | undefined)?.startTime);
  if (sa === undefined || sb === undefined) return sa === sb ? 0 : sa === undefined ? 1 : -1;
  if (sa === sb) return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0;
  return sa - sb;
}

/** cleanupFinishedJobs: the finished Jobs beyond the history limits, oldest first. n·log n in the Jobs. */
export function jobsBeyondHistory(cj: KubeObject, jobs: KubeObject[]): KubeObject[] {
  const spec = cronSpec(cj);
  if (spec.successfulJobsHistoryLimit == null && spec.failedJobsHistoryLimit == null) return [];
  const out: KubeObject[] = [];
  for (const [type, limit] of [['Complete', spec.successfulJobsHistoryLimit], ['Failed', spec.failedJobsHistoryLimit]] as const) {
    if (limit == null) continue;
    const finished = jobs.filter((j) => finishedType(j) === type);
    if (finished.length <= limit) continue;
    out.push(...finished.sort(compareByStartTime).slice(0, finished.length - limit));
  }
  return out;
}

/** The condition IsJobFinished found, as kube's event prints it ("Complete" / "Failed"). */
export const finishedConditionType = (job: KubeObject): string => (findCondition(job, 'Complete') ? 'Complete' : findCondition(job, 'Failed') ? 'Failed' : '');
