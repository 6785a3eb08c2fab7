// Core: the batch/v1 Job rules about indexes and counts, with kube-apiserver's (v1.32) messages and order
// (pkg/apis/batch/validation/validation.go; the options pkg/registry/batch/job/strategy.go passes with
// JobManagedBy, JobSuccessPolicy and JobBackoffLimitPerIndex on, as in 1.32): backoffLimitPerIndex and
// maxFailedIndexes, successPolicy, podReplacementPolicy, the longest pod hostname an Indexed Job makes, the
// update rule for completions, and the status — counters, uncountedTerminatedPods, conditions and the
// completedIndexes / failedIndexes lists against spec.completions. Index lists are read as intervals
// (core/job-indexes.ts): the work follows the text's length, never the numbers in it.
import { checkIndexesFormat, overlapError } from '../job-indexes';
import { duplicate, goQuote, invalidValue, isDNS1123Label, notSupported, required, tooLong, tooMany, GoLiteral, type FieldCause } from './names';
import { isObj, type Causes, type Obj } from './shape';

const MAX_PARALLELISM_FOR_INDEXED_JOB = 100_000; // maxParallelismForIndexedJob
const MAX_FAILED_INDEXES_FOR_INDEXED_JOB = 100_000; // maxFailedIndexesForIndexedJob
const COMPLETIONS_SOFT_LIMIT = 100_000; // completionsSoftLimit
const PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS = 10_000;
const MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS = 10_000;
const MAX_SUCCESS_POLICY_SUCCEEDED_INDEXES = 64 * 1024; // maxJobSuccessPolicySucceededIndexesLimit
const MAX_SUCCESS_POLICY_RULES = 20; // maxSuccessPolicyRule

const present = (x: unknown): boolean => x !== undefined && x !== null;
const nonNegative = (v: Causes, value: number | undefined, path: string) => {
  if (value !== undefined && value < 0) v.add(invalidValue(path, value, 'must be greater than or equal to 0'));
};

/** field.Invalid with field.OmitValue(): `Invalid value: <detail>`. */
const invalidOmitted = (field: string, detail: string): FieldCause => ({ reason: 'FieldValueInvalid', message: `Invalid value: ${detail}`, field });

export interface JobNumbers {
  parallelism: number | undefined;
  completions: number | undefined;
  mode: string | undefined;
}

/**
 * validateJobSpec from backoffLimitPerIndex to the completion mode's limits (after the counters, before
 * podFailurePolicy): the bounds that keep an Indexed Job's index lists short.
 */
export function validateIndexLimits(v: Causes, spec: Obj, path: string, n: JobNumbers): void {
  const perIndex = spec.backoffLimitPerIndex === undefined ? undefined : v.int(spec.backoffLimitPerIndex, `${path}.backoffLimitPerIndex`);
  nonNegative(v, perIndex, `${path}.backoffLimitPerIndex`);
  const maxFailed = spec.maxFailedIndexes === undefined ? undefined : v.int(spec.maxFailedIndexes, `${path}.maxFailedIndexes`);
  if (maxFailed !== undefined) {
    nonNegative(v, maxFailed, `${path}.maxFailedIndexes`);
    if (!present(spec.backoffLimitPerIndex)) v.add(required(`${path}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
  }
  if (n.mode === undefined) return;
  if (n.mode !== 'NonIndexed' && n.mode !== 'Indexed') v.add(notSupported(`${path}.completionMode`, n.mode, ['NonIndexed', 'Indexed']));
  if (n.mode === 'Indexed') {
    if (!present(spec.completions)) v.add(required(`${path}.completions`, 'when completion mode is Indexed'));
    if (n.parallelism !== undefined && n.parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB) {
      v.add(invalidValue(`${path}.parallelism`, n.parallelism, `must be less than or equal to ${MAX_PARALLELISM_FOR_INDEXED_JOB} when completion mode is Indexed`));
    }
    if (n.completions !== undefined && maxFailed !== undefined && maxFailed > n.completions) {
      v.add(invalidValue(`${path}.maxFailedIndexes`, maxFailed, 'must be less than or equal to completions'));
    }
    if (maxFailed !== undefined && maxFailed > MAX_FAILED_INDEXES_FOR_INDEXED_JOB) {
      v.add(invalidValue(`${path}.maxFailedIndexes`, maxFailed, `must be less than or equal to ${MAX_FAILED_INDEXES_FOR_INDEXED_JOB}`));
    }
    if (n.completions !== undefined && n.completions > COMPLETIONS_SOFT_LIMIT && present(spec.backoffLimitPerIndex)) {
      const high = `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`;
      if (maxFailed === undefined && !present(spec.maxFailedIndexes)) v.add(required(`${path}.maxFailedIndexes`, `must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}`));
      if (n.parallelism !== undefined && n.parallelism > PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS) {
        v.add(invalidValue(`${path}.parallelism`, n.parallelism, `must be less than or equal to ${PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS} ${high}`));
      }
      if (maxFailed !== undefined && maxFailed > MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS) {
        v.add(invalidValue(`${path}.maxFailedIndexes`, maxFailed, `must be less than or equal to ${MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS} ${high}`));
      }
    }
  } else {
    if (perIndex !== undefined) v.add(invalidValue(`${path}.backoffLimitPerIndex`, perIndex, 'requires indexed completion mode'));
    if (maxFailed !== undefined) v.add(invalidValue(`${path}.maxFailedIndexes`, maxFailed, 'requires indexed completion mode'));
  }
}

/** validateSuccessPolicy and validatePodReplacementPolicy (after podFailurePolicy, before the template). */
export function validateSuccessAndReplacement(v: Causes, spec: Obj, path: string, n: JobNumbers): void {
  const policy = v.obj(spec.successPolicy, `${path}.successPolicy`);
  if (policy) {
    if (n.mode !== 'Indexed') v.add(invalidValue(`${path}.successPolicy`, goSuccessPolicy(policy), 'requires indexed completion mode'));
    else validateSuccessPolicy(v, policy, `${path}.successPolicy`, n.completions ?? 0);
  }
  const replacement = v.str(spec.podReplacementPolicy, `${path}.podReplacementPolicy`);
  if (replacement !== undefined) {
    if (present(spec.podFailurePolicy)) {
      if (replacement !== 'Failed') v.add(notSupported(`${path}.podReplacementPolicy`, replacement, ['Failed']));
    } else if (replacement !== 'Failed' && replacement !== 'TerminatingOrFailed') {
      v.add(notSupported(`${path}.podReplacementPolicy`, replacement, ['Failed', 'TerminatingOrFailed']));
    }
  }
}

function validateSuccessPolicy(v: Causes, policy: Obj, path: string, completions: number): void {
  const rules = v.objs(policy.rules, `${path}.rules`);
  if (rules.length === 0) v.add(required(`${path}.rules`, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_SUCCESS_POLICY_RULES) v.add(tooMany(`${path}.rules`, rules.length, MAX_SUCCESS_POLICY_RULES));
  rules.forEach((rule, i) => {
    const p = `${path}.rules[${i}]`;
    const indexes = v.str(rule.succeededIndexes, `${p}.succeededIndexes`);
    const count = rule.succeededCount === undefined ? undefined : v.int(rule.succeededCount, `${p}.succeededCount`);
    if (!present(rule.succeededIndexes) && !present(rule.succeededCount)) {
      v.add(required(p, 'at least one of succeededCount or succeededIndexes must be specified'));
    }
    let total = 0;
    if (indexes !== undefined) {
      if (indexes.length > MAX_SUCCESS_POLICY_SUCCEEDED_INDEXES) v.add(tooLong(`${p}.succeededIndexes`, MAX_SUCCESS_POLICY_SUCCEEDED_INDEXES));
      const parsed = checkIndexesFormat(indexes, completions);
      if ('error' in parsed) v.add(invalidValue(`${p}.succeededIndexes`, indexes, `error parsing succeededIndexes: ${parsed.error}`));
      else total = parsed.total;
    }
    if (count !== undefined) {
      nonNegative(v, count, `${p}.succeededCount`);
      if (count > completions) v.add(invalidValue(`${p}.succeededCount`, count, `must be less than or equal to ${completions} (the number of specified completions)`));
      if (indexes !== undefined && count > total) {
        v.add(invalidValue(`${p}.succeededCount`, count, `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`));
      }
    }
  });
}

/** batch.SuccessPolicy as %#v (pointers print as an opaque address, as they would from Go). */
function goSuccessPolicy(policy: Obj): GoLiteral {
  const ptr = (x: unknown, type: string) => `(*${type})(${present(x) ? '0xc000000000' : 'nil'})`;
  const rules = Array.isArray(policy.rules)
    ? `[]batch.SuccessPolicyRule{${policy.rules.map((r: Obj) => `batch.SuccessPolicyRule{SucceededIndexes:${ptr(r?.succeededIndexes, 'string')}, SucceededCount:${ptr(r?.succeededCount, 'int32')}}`).join(', ')}}`
    : '[]batch.SuccessPolicyRule(nil)';
  return new GoLiteral(`batch.SuccessPolicy{Rules:${rules}}`);
}

/**
 * ValidateJob's last check: an Indexed Job names its pods' hosts <name>-<index>, so the highest index must still
 * make a DNS label.
 */
export function validateIndexedHostname(v: Causes, name: unknown, n: JobNumbers): void {
  if (n.mode !== 'Indexed' || n.completions === undefined || n.completions <= 0 || typeof name !== 'string') return;
  const hostname = `${name}-${n.completions - 1}`;
  if (isDNS1123Label(hostname).length) v.add(invalidValue('metadata.name', name, `will not able to create pod with invalid DNS label: ${hostname}`));
}

/**
 * ValidateJobSpecUpdate's rules on numbers: completions may change only for an Indexed Job and only together
 * with parallelism (elastic Indexed Jobs, GA); backoffLimitPerIndex never changes.
 */
export function validateJobSpecUpdate(v: Causes, spec: Obj, oldSpec: Obj, n: JobNumbers): void {
  const path = 'spec.completions';
  const same = (spec.completions ?? null) === (oldSpec.completions ?? null);
  if (n.mode !== 'Indexed') {
    if (!same) v.add(invalidValue(path, spec.completions ?? null, 'field is immutable'));
  } else if (!same && present(spec.completions) && spec.completions !== spec.parallelism) {
    v.add(invalidValue(path, spec.completions, 'can only be modified in tandem with spec.parallelism'));
  }
  if ((spec.backoffLimitPerIndex ?? null) !== (oldSpec.backoffLimitPerIndex ?? null)) {
    v.add(invalidValue('spec.backoffLimitPerIndex', spec.backoffLimitPerIndex ?? null, 'field is immutable'));
  }
}

// --- status ---------------------------------------------------------------------------------------------

interface Condition { type?: unknown; status?: unknown }

function conditionTrue(status: Obj, type: string): boolean {
  return Array.isArray(status.conditions) && status.conditions.some((c: Condition) => isObj(c) && c.type === type && c.status === 'True');
}

interface JobState {
  status: Obj;
  complete: boolean;
  failed: boolean;
  failureTarget: boolean;
  successCriteriaMet: boolean;
  finished: boolean;
}

function stateOf(job: Obj): JobState {
  const status = isObj(job.status) ? job.status : {};
  const complete = conditionTrue(status, 'Complete'), failed = conditionTrue(status, 'Failed');
  return {
    status, complete, failed, finished: complete || failed,
    failureTarget: conditionTrue(status, 'FailureTarget'), successCriteriaMet: conditionTrue(status, 'SuccessCriteriaMet'),
  };
}

const num = (x: unknown): number => (typeof x === 'number' ? x : 0);
const text = (x: unknown): string => (typeof x === 'string' ? x : '');
const uidList = (x: unknown): string[] => (Array.isArray(x) ? x.filter((u): u is string => typeof u === 'string') : []);

/** Semantic.DeepEqual of two *UncountedTerminatedPods: nil differs from {}, a nil list equals an empty one. */
function sameUncounted(a: unknown, b: unknown): boolean {
  if (!present(a) || !present(b)) return present(a) === present(b);
  const same = (x: string[], y: string[]) => x.length === y.length && x.every((u, i) => u === y[i]);
  const ao = a as Obj, bo = b as Obj;
  return same(uidList(ao.succeeded), uidList(bo.succeeded)) && same(uidList(ao.failed), uidList(bo.failed));
}

/** metav1.Time as ErrorBody prints it: time.Time's String(), in the apiserver's UTC. */
function goTime(t: string): GoLiteral {
  const ms = Date.parse(t);
  if (Number.isNaN(ms)) return new GoLiteral(goQuote(t));
  const iso = new Date(ms).toISOString(); // 2006-01-02T15:04:05.000Z
  const frac = iso.slice(20, 23).replace(/0+$/, '');
  return new GoLiteral(`${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? `.${frac}` : ''} +0000 UTC`);
}

/** *batch.UncountedTerminatedPods, dereferenced, as %#v. */
function goUncounted(u: Obj): GoLiteral {
  const list = (x: unknown) => (Array.isArray(x) ? `[]types.UID{${uidList(x).map(goQuote).join(', ')}}` : '[]types.UID(nil)');
  return new GoLiteral(`batch.UncountedTerminatedPods{Succeeded:${list(u.succeeded)}, Failed:${list(u.failed)}}`);
}

/**
 * ValidateJobStatusUpdate with getStatusValidationOptions (JobManagedBy on): the counters and UID lists always;
 * the rules on conditions, times and index lists only when the fields they read changed, so a status that was
 * valid under an older spec (a scaled-down elastic Job) can still be updated by the controller.
 */
export function validateJobStatusUpdate(v: Causes, job: Obj, old: Obj): void {
  const spec = isObj(job.spec) ? job.spec : {};
  const now = stateOf(job), before = stateOf(old);
  const s = now.status, o = before.status;
  const path = 'status';
  const indexed = spec.completionMode === 'Indexed';
  const completions = typeof spec.completions === 'number' ? spec.completions : undefined;
  const perIndex = present(spec.backoffLimitPerIndex);

  const changed = {
    finished: before.finished !== now.finished,
    complete: before.complete !== now.complete,
    failed: before.failed !== now.failed,
    failureTarget: before.failureTarget !== now.failureTarget,
    completedIndexes: text(o.completedIndexes) !== text(s.completedIndexes),
    failedIndexes: (o.failedIndexes ?? null) !== (s.failedIndexes ?? null),
    active: num(o.active) !== num(s.active),
    startTime: (o.startTime ?? null) !== (s.startTime ?? null),
    completionTime: (o.completionTime ?? null) !== (s.completionTime ?? null),
    uncounted: !sameUncounted(o.uncountedTerminatedPods, s.uncountedTerminatedPods),
  };

  // validateJobStatus
  for (const field of ['active', 'succeeded', 'failed']) nonNegative(v, v.int(s[field], `${path}.${field}`), `${path}.${field}`);
  for (const field of ['ready', 'terminating']) nonNegative(v, v.int(s[field], `${path}.${field}`), `${path}.${field}`);
  const uncounted = v.obj(s.uncountedTerminatedPods, `${path}.uncountedTerminatedPods`);
  if (uncounted) {
    const seen = new Set<string>(); // one Set over both lists: linear however many UIDs a writer sends
    for (const list of ['succeeded', 'failed'] as const) {
      v.strs(uncounted[list], `${path}.uncountedTerminatedPods.${list}`).forEach((uid, i) => {
        const p = `${path}.uncountedTerminatedPods.${list}[${i}]`;
        if (uid === '') v.add(invalidValue(p, uid, 'must not be empty'));
        else if (seen.has(uid)) v.add(duplicate(p, uid));
        else seen.add(uid);
      });
    }
  }
  const conditions = `${path}.conditions`;
  if ((changed.complete || changed.failed) && now.complete && now.failed) v.add(invalidOmitted(conditions, 'cannot set Complete=True and Failed=true conditions'));
  if ((changed.complete || changed.failureTarget) && now.complete && now.failureTarget) {
    v.add(invalidOmitted(conditions, 'cannot set Complete=True and FailureTarget=true conditions'));
  }
  const completionTime = typeof s.completionTime === 'string' ? s.completionTime : undefined;
  const startTime = typeof s.startTime === 'string' ? s.startTime : undefined;
  if ((changed.complete || changed.completionTime) && completionTime !== undefined && !now.complete) {
    v.add(invalidValue(`${path}.completionTime`, goTime(completionTime), 'cannot set completionTime when there is no Complete=True condition'));
  }
  if ((changed.complete || changed.completionTime) && completionTime === undefined && now.complete) {
    v.add(required(`${path}.completionTime`, 'completionTime is required for Complete jobs'));
  }
  if ((changed.startTime || changed.completionTime) && startTime !== undefined && completionTime !== undefined && Date.parse(completionTime) < Date.parse(startTime)) {
    v.add(invalidValue(`${path}.completionTime`, goTime(completionTime), 'completionTime cannot be set before startTime'));
  }
  if ((changed.finished || changed.active) && num(s.active) > 0 && now.finished) v.add(invalidValue(`${path}.active`, num(s.active), 'active>0 is invalid for finished job'));
  if ((changed.finished || changed.startTime) && startTime === undefined && now.finished) v.add(required(`${path}.startTime`, 'startTime is required for finished job'));
  if ((changed.finished || changed.uncounted) && now.finished && uncounted && uidList(uncounted.succeeded).length + uidList(uncounted.failed).length > 0) {
    v.add(invalidValue(`${path}.uncountedTerminatedPods`, goUncounted(uncounted), 'uncountedTerminatedPods needs to be empty for finished job'));
  }
  const completedIndexes = text(s.completedIndexes);
  const failedIndexes = typeof s.failedIndexes === 'string' ? s.failedIndexes : undefined;
  if (changed.completedIndexes && completions !== undefined) {
    const parsed = checkIndexesFormat(completedIndexes, completions);
    if ('error' in parsed) v.add(invalidValue(`${path}.completedIndexes`, completedIndexes, `error parsing completedIndexes: ${parsed.error}`));
  }
  if (changed.failedIndexes && completions !== undefined && perIndex && failedIndexes !== undefined) {
    const parsed = checkIndexesFormat(failedIndexes, completions);
    if ('error' in parsed) v.add(invalidValue(`${path}.failedIndexes`, failedIndexes, `error parsing failedIndexes: ${parsed.error}`));
  }
  if (changed.completedIndexes && completedIndexes.length !== 0 && !indexed) {
    v.add(invalidValue(`${path}.completedIndexes`, completedIndexes, 'cannot set non-empty completedIndexes when non-indexed completion mode'));
  }
  if (changed.failedIndexes && !perIndex && failedIndexes !== undefined) {
    v.add(invalidValue(`${path}.failedIndexes`, failedIndexes, 'cannot set non-null failedIndexes when backoffLimitPerIndex is null'));
  }
  if ((changed.failedIndexes || changed.completedIndexes) && completions !== undefined && failedIndexes !== undefined) {
    const overlap = overlapError(completedIndexes, failedIndexes, completions);
    if (overlap) v.add(invalidValue(`${path}.failedIndexes`, failedIndexes, overlap));
  }
  if (now.successCriteriaMet && now.failed) v.add(invalidOmitted(conditions, 'cannot set SuccessCriteriaMet=True and Failed=true conditions'));
  if (now.successCriteriaMet && now.failureTarget) v.add(invalidOmitted(conditions, 'cannot set SuccessCriteriaMet=True and FailureTarget=true conditions'));
  if (present(spec.successPolicy) && !now.successCriteriaMet && now.complete) {
    v.add(invalidOmitted(conditions, 'cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True'));
  }

  // ValidateJobStatusUpdate's transitions
  for (const [type, was, is] of [['Failed', before.failed, now.failed], ['Complete', before.complete, now.complete], ['FailureTarget', before.failureTarget, now.failureTarget]] as const) {
    if (was && !is) v.add(invalidOmitted(conditions, `cannot disable the terminal ${type}=True condition`));
  }
  if (num(s.failed) < num(o.failed)) v.add(invalidValue(`${path}.failed`, num(s.failed), 'cannot decrease the failed counter'));
  const elastic = indexed && (spec.completions ?? null) === (spec.parallelism ?? null);
  if (!elastic && num(s.succeeded) < num(o.succeeded)) v.add(invalidValue(`${path}.succeeded`, num(s.succeeded), 'cannot decrease the succeeded counter'));
  const oldCompletion = typeof o.completionTime === 'string' ? o.completionTime : undefined;
  if (completionTime !== undefined && oldCompletion !== undefined && completionTime !== oldCompletion) {
    v.add(invalidValue(`${path}.completionTime`, goTime(completionTime), 'completionTime cannot be mutated'));
  }
  if (present(o.startTime) && changed.startTime && spec.suspend !== true) v.add(required(`${path}.startTime`, 'startTime cannot be removed for unsuspended job'));
  if (before.successCriteriaMet && !now.successCriteriaMet) v.add(invalidOmitted(conditions, 'cannot disable the SuccessCriteriaMet=True condition'));
  if (before.complete && !before.successCriteriaMet && now.successCriteriaMet) {
    v.add(invalidOmitted(conditions, 'cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions'));
  }
}
