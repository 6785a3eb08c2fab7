// Controllers: the pure part of the Job controller (kubernetes pkg/controller/job/job_controller.go,
// 1.32): which pods count as succeeded/failed, how many pods should run, the conditions a Job finishes
// with, and the pods it creates (NonIndexed and Indexed). No I/O; controllers/job.ts runs it.

import type { KubeObject } from '../client/types';
import { countIndexes, firstPendingIndexes, parseIndexes, withIndexes, type Interval } from '../core/job-indexes';
import { kubeTime } from './events';
import { newControllerRef } from './owner-refs';
import { isPodReady, podStatus } from './pods';

export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
export const COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index'; // annotation and label
export const DEFAULT_BACKOFF_MS = 10_000; // DefaultJobPodFailureBackOff
export const MAX_BACKOFF_MS = 600_000; // MaxJobPodFailureBackOff
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;

export interface JobSpec {
  parallelism?: number;
  completions?: number | null;
  backoffLimit?: number;
  activeDeadlineSeconds?: number;
  completionMode?: 'NonIndexed' | 'Indexed';
  suspend?: boolean;
  ttlSecondsAfterFinished?: number;
  podReplacementPolicy?: 'TerminatingOrFailed' | 'Failed';
  selector?: import('../core/selectors/label-selector').LabelSelectorSpec;
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[] }; spec?: Record<string, unknown> };
}

export interface JobCondition {
  type: string;
  status: 'True' | 'False';
  lastProbeTime: string;
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

export interface JobStatus {
  conditions?: JobCondition[];
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number;
  ready?: number;
  completedIndexes?: string;
  uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] };
}

export const jobSpec = (job: KubeObject): JobSpec => (job.spec as JobSpec | undefined) ?? {};
export const jobStatus = (job: KubeObject): JobStatus => (job.status as JobStatus | undefined) ?? {};

export const REASONS = {
  backoff: { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' },
  deadline: { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' },
  completions: { reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
} as const;

export function findCondition(job: KubeObject, type: string): JobCondition | undefined {
  return jobStatus(job).conditions?.find((c) => c.type === type && c.status === 'True');
}

/** IsJobFinished: a terminal Complete or Failed condition is True. */
export const isJobFinished = (job: KubeObject): boolean => !!(findCondition(job, 'Complete') ?? findCondition(job, 'Failed'));

export const hasTrackingFinalizer = (pod: KubeObject): boolean =>
  ((pod.metadata.finalizers as string[] | undefined) ?? []).includes(JOB_TRACKING_FINALIZER);

export function completionIndex(pod: KubeObject): number | undefined {
  const raw = (pod.metadata.annotations as Record<string, string> | undefined)?.[COMPLETION_INDEX];
  if (raw === undefined || !/^(0|[1-9][0-9]{0,8})$/.test(raw)) return undefined;
  return Number(raw);
}

/** isPodFailed with podReplacementPolicy: a deleted, unfinished pod counts as failed unless the policy is Failed. */
export function isPodFailed(pod: KubeObject, spec: JobSpec): boolean {
  const phase = podStatus(pod).phase;
  if (phase === 'Failed') return true;
  if (spec.podReplacementPolicy === 'Failed') return false;
  return !!pod.metadata.deletionTimestamp && phase !== 'Succeeded';
}

export const isTerminating = (pod: KubeObject): boolean => {
  const phase = podStatus(pod).phase;
  return !!pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed';
};

/** What one sync sees: the counters with the newly finished pods folded into uncountedTerminatedPods. */
export interface JobView {
  uncountedSucceeded: Set<string>;
  uncountedFailed: Set<string>;
  newlyUncounted: boolean; // status must be written before finalizers come off
  finalizersToRemove: KubeObject[];
  succeeded: number; // counted + uncounted
  failed: number;
  completedIndexes: Interval[]; // Indexed only: status.completedIndexes plus the succeeded pods' indexes, as intervals
  completedCount: number; // how many indexes completedIndexes holds
  active: KubeObject[];
  ready: number;
  terminating: number;
}

/**
 * trackJobStatusAndRemoveFinalizers' first half: every finished pod still holding the tracking finalizer
 * is recorded in uncountedTerminatedPods (its finalizer comes off only after that is written, so no pod is
 * lost or counted twice); once the Job is finishing, every pod's finalizer comes off.
 */
export function viewJob(job: KubeObject, pods: KubeObject[], finishing: { success: boolean } | undefined): JobView {
  const spec = jobSpec(job);
  const st = jobStatus(job);
  const indexed = spec.completionMode === 'Indexed';
  const completions = spec.completions ?? 0;
  const uncountedSucceeded = new Set(st.uncountedTerminatedPods?.succeeded ?? []);
  const uncountedFailed = new Set(st.uncountedTerminatedPods?.failed ?? []);
  const succeededIndexes: number[] = [];
  let newlyUncounted = false;
  const finalizersToRemove: KubeObject[] = [];
  const active: KubeObject[] = [];
  let ready = 0, terminating = 0;
  for (const pod of pods) {
    const phase = podStatus(pod).phase;
    const uid = pod.metadata.uid as string;
    if (isTerminating(pod)) terminating++;
    if (phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp) {
      active.push(pod);
      if (isPodReady(pod)) ready++;
    }
    const ix = completionIndex(pod);
    if (phase === 'Succeeded' && indexed && ix !== undefined && ix < completions) succeededIndexes.push(ix);
    if (!hasTrackingFinalizer(pod)) continue;
    const failed = isPodFailed(pod, spec);
    if (phase === 'Succeeded') {
      if ((!indexed || (ix !== undefined && ix < completions)) && !uncountedSucceeded.has(uid)) {
        uncountedSucceeded.add(uid);
        newlyUncounted = true;
      }
      finalizersToRemove.push(pod);
    } else if (failed || (finishing && !finishing.success)) {
      // When the Job is failing, every unfinished pod is considered failed.
      if (!uncountedFailed.has(uid)) {
        uncountedFailed.add(uid);
        newlyUncounted = true;
      }
      finalizersToRemove.push(pod);
    } else if (finishing) {
      finalizersToRemove.push(pod);
    }
  }
  // calculateSucceededIndexes: intervals, so the work follows the status text and the pods, not the numbers in them.
  const completedIndexes = indexed ? withIndexes(parseIndexes(st.completedIndexes, completions), succeededIndexes) : [];
  return {
    uncountedSucceeded, uncountedFailed, newlyUncounted, finalizersToRemove,
    succeeded: (st.succeeded ?? 0) + uncountedSucceeded.size,
    failed: (st.failed ?? 0) + uncountedFailed.size,
    completedIndexes, completedCount: countIndexes(completedIndexes), active, ready, terminating,
  };
}

/** The interim condition a Job finishes with, if it is due now: FailureTarget or SuccessCriteriaMet. */
export function finishedCondition(job: KubeObject, view: JobView, now: number): { type: 'FailureTarget' | 'SuccessCriteriaMet'; reason: string; message: string } | undefined {
  const failTarget = findCondition(job, 'FailureTarget');
  if (failTarget) return { type: 'FailureTarget', reason: failTarget.reason ?? '', message: failTarget.message ?? '' };
  const met = findCondition(job, 'SuccessCriteriaMet');
  if (met) return { type: 'SuccessCriteriaMet', reason: met.reason ?? '', message: met.message ?? '' };
  const spec = jobSpec(job);
  if (view.failed > (spec.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, view)) return { type: 'FailureTarget', ...REASONS.backoff };
  if (pastActiveDeadline(job, now)) return { type: 'FailureTarget', ...REASONS.deadline };
  const completions = spec.completions;
  const done = spec.completionMode === 'Indexed'
    ? view.completedCount >= (completions ?? 0)
    : completions == null ? view.succeeded > 0 && view.active.length === 0 : view.succeeded >= completions;
  return done ? { type: 'SuccessCriteriaMet', ...REASONS.completions } : undefined;
}

export function pastActiveDeadline(job: KubeObject, now: number): boolean {
  const deadline = jobSpec(job).activeDeadlineSeconds;
  const start = jobStatus(job).startTime;
  if (deadline == null || !start || jobSpec(job).suspend) return false;
  return now - Date.parse(start) >= deadline * 1000;
}

/** ms until the active deadline passes (to requeue), or undefined. */
export function untilDeadline(job: KubeObject, now: number): number | undefined {
  const deadline = jobSpec(job).activeDeadlineSeconds;
  const start = jobStatus(job).startTime;
  if (deadline == null || !start) return undefined;
  const left = Date.parse(start) + deadline * 1000 - now;
  return Number.isNaN(left) ? undefined : Math.max(0, left); // a NaN delay would make a timer fire at once, over and over
}

/** manageJob's wantActive: how many pods should be running now. */
export function wantActive(job: KubeObject, view: JobView): number {
  const spec = jobSpec(job);
  if (spec.suspend) return 0;
  const parallelism = spec.parallelism ?? 1;
  if (spec.completions == null) return view.succeeded > 0 ? view.active.length : parallelism;
  const remaining = spec.completionMode === 'Indexed' ? spec.completions - view.completedCount : spec.completions - view.succeeded;
  return Math.max(0, Math.min(remaining, parallelism));
}

/** firstPendingIndexes: the lowest indexes with neither a success nor an active pod (Indexed mode), at most `n`. */
export function indexesToCreate(job: KubeObject, view: JobView, n: number): number[] {
  const completions = jobSpec(job).completions ?? 0;
  const active: number[] = [];
  for (const p of view.active) {
    const ix = completionIndex(p);
    if (ix !== undefined) active.push(ix);
  }
  return firstPendingIndexes(withIndexes(view.completedIndexes, active), n, completions);
}

/** The pod re-creation backoff after `failures` failed pods: 10s·2^(n−1), at most 10 minutes. */
export function podBackoffMs(failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(MAX_BACKOFF_MS, DEFAULT_BACKOFF_MS * 2 ** Math.min(failures - 1, 30));
}

/** The pod a Job creates: its template, the tracking finalizer, and for Indexed mode the index. */
export function podForJob(job: KubeObject, index?: number): KubeObject {
  const t = jobSpec(job).template ?? {};
  const name = job.metadata.name!;
  const labels: Record<string, string> = { ...(t.metadata?.labels ?? {}) };
  const annotations: Record<string, string> = { ...(t.metadata?.annotations ?? {}) };
  const spec = structuredClone(t.spec ?? {}) as Record<string, unknown>;
  if (index !== undefined) {
    annotations[COMPLETION_INDEX] = String(index);
    labels[COMPLETION_INDEX] = String(index); // PodIndexLabel
    // addCompletionIndexEnvVariables / hostname: <job>-<index>, as the pods of an Indexed Job get.
    if (!spec.hostname) spec.hostname = `${name}-${index}`;
    for (const list of ['containers', 'initContainers'] as const) {
      for (const c of (spec[list] as { env?: unknown[] }[] | undefined) ?? []) {
        const env = (c.env ?? []) as { name: string }[];
        if (!env.some((e) => e.name === 'JOB_COMPLETION_INDEX')) {
          c.env = [...env, { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.labels['${COMPLETION_INDEX}']` } } }];
        }
      }
    }
  }
  const metadata: Record<string, unknown> = {
    generateName: index !== undefined ? `${name}-${index}-` : `${name}-`,
    namespace: job.metadata.namespace,
    labels,
    ownerReferences: [newControllerRef(job)],
    finalizers: [...(t.metadata?.finalizers ?? []), JOB_TRACKING_FINALIZER],
  };
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

export function condition(type: string, status: 'True' | 'False', reason: string, message: string, now: number): JobCondition {
  const t = kubeTime(now);
  return { type, status, lastProbeTime: t, lastTransitionTime: t, reason, message };
}

/** Sets (or replaces, keeping the transition time when the status is unchanged) one condition. */
export function withCondition(conditions: JobCondition[] | undefined, c: JobCondition): JobCondition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((x) => x.type === c.type);
  if (i < 0) list.push(c);
  else if (list[i].status !== c.status || list[i].reason !== c.reason) list[i] = c;
  return list;
}

/**
 * pastBackoffLimitOnFailure: with restartPolicy OnFailure the kubelet restarts failed containers in place,
 * so their restarts (of every active pod's containers and init containers) count against backoffLimit.
 */
export function pastBackoffLimitOnFailure(job: KubeObject, view: JobView): boolean {
  const spec = jobSpec(job);
  if ((spec.template?.spec as { restartPolicy?: string } | undefined)?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const pod of view.active) {
    const st = pod.status as { containerStatuses?: { restartCount?: number }[]; initContainerStatuses?: { restartCount?: number }[] } | undefined;
    for (const c of [...(st?.initContainerStatuses ?? []), ...(st?.containerStatuses ?? [])]) restarts += c.restartCount ?? 0;
  }
  const limit = spec.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}
