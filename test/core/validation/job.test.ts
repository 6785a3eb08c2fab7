// Unit tests: Job validation on indexes and counts (core/validation/job.ts) with kube-apiserver's 1.32 messages —
// backoffLimitPerIndex / maxFailedIndexes limits, successPolicy, podReplacementPolicy, the Indexed hostname, the
// completions update rule, and status updates (counters, uncountedTerminatedPods, conditions, index lists).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../core/object-meta';
import { validateTypedStatus } from '../../../core/validation/typed';
import { causesOf, inv, mutated, req, unsup, type Any } from './helpers';
import { job } from './manifests';

const tooLong = (field: string, max: number) => ({ reason: 'FieldValueTooLong', field, message: `Too long: may not be more than ${max} bytes` });
const omitted = (field: string, detail: string) => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${detail}` });
const indexed = (spec: Any = {}) => mutated(job, (j: Any) => { Object.assign(j.spec, { completionMode: 'Indexed', completions: 10, parallelism: 10 }, spec); });

describe('Job spec: indexes and counts', () => {
  const cases: [string, () => Any, Any[]][] = [
    ['backoffLimitPerIndex and maxFailedIndexes need Indexed mode', () => mutated(job, (j: Any) => { j.spec.completionMode = 'NonIndexed'; j.spec.backoffLimitPerIndex = 1; j.spec.maxFailedIndexes = 1; }), [
      inv('spec.backoffLimitPerIndex', '1', 'requires indexed completion mode'),
      inv('spec.maxFailedIndexes', '1', 'requires indexed completion mode'),
    ]],
    ['maxFailedIndexes needs backoffLimitPerIndex, both non-negative', () => indexed({ maxFailedIndexes: -1 }), [
      inv('spec.maxFailedIndexes', '-1', 'must be greater than or equal to 0'),
      req('spec.backoffLimitPerIndex', 'when maxFailedIndexes is specified'),
    ]],
    ['Indexed parallelism at most 100000, maxFailedIndexes at most completions and 100000', () => indexed({ parallelism: 100_001, backoffLimitPerIndex: 1, maxFailedIndexes: 100_001 }), [
      inv('spec.parallelism', '100001', 'must be less than or equal to 100000 when completion mode is Indexed'),
      inv('spec.maxFailedIndexes', '100001', 'must be less than or equal to completions'),
      inv('spec.maxFailedIndexes', '100001', 'must be less than or equal to 100000'),
    ]],
    ['above 100000 completions with a per-index limit, maxFailedIndexes is required and parallelism capped', () => indexed({ completions: 100_000_000, parallelism: 10_001, backoffLimitPerIndex: 1 }), [
      req('spec.maxFailedIndexes', 'must be specified when completions is above 100000'),
      inv('spec.parallelism', '10001', 'must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index'),
    ]],
    ['above 100000 completions, maxFailedIndexes at most 10000', () => indexed({ completions: 100_000_000, backoffLimitPerIndex: 1, maxFailedIndexes: 10_001 }), [
      inv('spec.maxFailedIndexes', '10001', 'must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index'),
    ]],
    ['10^8 completions alone are fine', () => indexed({ completions: 100_000_000, parallelism: 100_000 }), []],
    ['the highest index must still make a DNS label of a hostname', () => mutated(() => indexed({ completions: 100_000_000 }), (j: Any) => { j.metadata.name = 'a'.repeat(55); }), [
      inv('metadata.name', `"${'a'.repeat(55)}"`, `will not able to create pod with invalid DNS label: ${'a'.repeat(55)}-99999999`),
    ]],
    ['successPolicy needs Indexed mode', () => mutated(job, (j: Any) => { j.spec.successPolicy = { rules: [{ succeededCount: 1 }] }; }), [
      inv('spec.successPolicy', 'batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{batch.SuccessPolicyRule{SucceededIndexes:(*string)(nil), SucceededCount:(*int32)(0xc000000000)}}}', 'requires indexed completion mode'),
    ]],
    ['successPolicy rules: some, at most 20, each with a count or indexes', () => indexed({ successPolicy: { rules: [] } }), [
      req('spec.successPolicy.rules', 'at least one rules must be specified when the successPolicy is specified'),
    ]],
    ['successPolicy rule limits', () => indexed({ successPolicy: { rules: [{}, { succeededIndexes: '0-10', succeededCount: 11 }, { succeededIndexes: '1-3', succeededCount: 4 }] } }), [
      req('spec.successPolicy.rules[0]', 'at least one of succeededCount or succeededIndexes must be specified'),
      inv('spec.successPolicy.rules[1].succeededIndexes', '"0-10"', 'error parsing succeededIndexes: too large index: "10"'),
      inv('spec.successPolicy.rules[1].succeededCount', '11', 'must be less than or equal to 10 (the number of specified completions)'),
      inv('spec.successPolicy.rules[1].succeededCount', '11', 'must be less than or equal to 0 (the number of indexes in the specified succeededIndexes field)'),
      inv('spec.successPolicy.rules[2].succeededCount', '4', 'must be less than or equal to 3 (the number of indexes in the specified succeededIndexes field)'),
    ]],
    ['succeededIndexes at most 64 KiB', () => indexed({ completions: 100_000_000, successPolicy: { rules: [{ succeededIndexes: Array.from({ length: 20_000 }, (_, i) => String(2 * i)).join(',') }] } }), [
      tooLong('spec.successPolicy.rules[0].succeededIndexes', 65536),
    ]],
    ['more than 20 rules', () => indexed({ successPolicy: { rules: Array.from({ length: 21 }, () => ({ succeededCount: 1 })) } }), [
      { reason: 'FieldValueTooMany', field: 'spec.successPolicy.rules', message: 'Too many: 21: must have at most 20 items' },
    ]],
    ['podReplacementPolicy values', () => mutated(job, (j: Any) => { j.spec.podReplacementPolicy = 'Sometimes'; }), [
      unsup('spec.podReplacementPolicy', '"Sometimes"', ['Failed', 'TerminatingOrFailed']),
    ]],
    ['podReplacementPolicy is Failed with a podFailurePolicy', () => mutated(job, (j: Any) => { j.spec.podReplacementPolicy = 'TerminatingOrFailed'; j.spec.podFailurePolicy = { rules: [] }; }), [
      unsup('spec.podReplacementPolicy', '"TerminatingOrFailed"', ['Failed']),
    ]],
  ];
  it.each(cases)('%s', (_name, make, expected) => {
    expect(causesOf(make())).toEqual(expected);
  });

  it('lets completions change only on an Indexed Job, together with parallelism; backoffLimitPerIndex never', () => {
    const old = mutated(job, (j: Any) => { j.spec.completionMode = 'NonIndexed'; });
    expect(causesOf(mutated(job, (j: Any) => { j.spec.completionMode = 'NonIndexed'; j.spec.completions = 5; }), old)).toEqual([inv('spec.completions', '5', 'field is immutable')]);
    const oldIndexed = indexed({ backoffLimitPerIndex: 1 });
    expect(causesOf(indexed({ completions: 20, parallelism: 20, backoffLimitPerIndex: 1 }), oldIndexed)).toEqual([]);
    expect(causesOf(indexed({ completions: 20, backoffLimitPerIndex: 2 }), oldIndexed)).toEqual([
      inv('spec.completions', '20', 'can only be modified in tandem with spec.parallelism'),
      inv('spec.backoffLimitPerIndex', '2', 'field is immutable'),
    ]);
  });
});

// --- status ----------------------------------------------------------------------------------------------

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:01:00Z';
const cond = (type: string, status = 'True') => ({ type, status, lastProbeTime: T0, lastTransitionTime: T0 });

function withStatus(spec: Any, status: Any): KubeObject {
  const j = mutated(job, (x: Any) => { Object.assign(x.spec, spec); });
  return { ...j, status } as unknown as KubeObject;
}

const INDEXED = { completionMode: 'Indexed', completions: 100_000_000, parallelism: 1 };
const statusCauses = (spec: Any, before: Any, after: Any) => validateTypedStatus('batch', 'Job', withStatus(spec, after), withStatus(spec, before));

describe('Job status updates', () => {
  it('accepts 16,000,000 completed indexes of 10^8 as one interval', () => {
    expect(statusCauses(INDEXED, { startTime: T0 }, { startTime: T0, completedIndexes: '0-15999999' })).toEqual([]);
  });

  it('refuses index lists that do not parse, are out of order or reach completions, in kube\'s words', () => {
    const refused = (completedIndexes: string) => statusCauses(INDEXED, { startTime: T0 }, { startTime: T0, completedIndexes });
    expect(refused('0-100000000')).toEqual([inv('status.completedIndexes', '"0-100000000"', 'error parsing completedIndexes: too large index: "100000000"')]);
    expect(refused('5,1')).toEqual([inv('status.completedIndexes', '"5,1"', 'error parsing completedIndexes: non-increasing order, previous: 5, current: 1')]);
    expect(refused('1-2-3')).toEqual([inv('status.completedIndexes', '"1-2-3"', 'error parsing completedIndexes: the fragment "1-2-3" violates the requirement that an index interval can have at most two parts separated by \'-\'')]);
    expect(refused('x')).toEqual([inv('status.completedIndexes', '"x"', 'error parsing completedIndexes: cannot convert string to integer for index: "x"')]);
  });

  it('checks a list only when it changed, so the controller can still write a Job scaled below it', () => {
    const scaledDown = { ...INDEXED, completions: 5, parallelism: 5 };
    expect(statusCauses(scaledDown, { startTime: T0, completedIndexes: '0-9' }, { startTime: T0, completedIndexes: '0-9', active: 1 })).toEqual([]);
  });

  it('keeps completedIndexes to Indexed Jobs and failedIndexes to Jobs with a per-index backoff, apart', () => {
    expect(statusCauses({ completionMode: 'NonIndexed' }, {}, { completedIndexes: '0' })).toEqual([
      inv('status.completedIndexes', '"0"', 'cannot set non-empty completedIndexes when non-indexed completion mode'),
    ]);
    expect(statusCauses(INDEXED, {}, { failedIndexes: '1' })).toEqual([
      inv('status.failedIndexes', '"1"', 'cannot set non-null failedIndexes when backoffLimitPerIndex is null'),
    ]);
    const perIndex = { ...INDEXED, backoffLimitPerIndex: 1, maxFailedIndexes: 10 };
    expect(statusCauses(perIndex, {}, { completedIndexes: '0-3,9', failedIndexes: '4-8,9' })).toEqual([
      inv('status.failedIndexes', '"4-8,9"', 'failedIndexes and completedIndexes overlap at index: 9'),
    ]);
    expect(statusCauses(perIndex, {}, { failedIndexes: '100000000' })).toEqual([
      inv('status.failedIndexes', '"100000000"', 'error parsing failedIndexes: too large index: "100000000"'),
    ]);
  });

  it('checks counters and uncounted UIDs on every update, in linear time', () => {
    const uids = Array.from({ length: 50_000 }, (_, i) => `uid-${i}`);
    expect(statusCauses({}, {}, { active: -1, ready: -2, uncountedTerminatedPods: { succeeded: [...uids, ''], failed: ['uid-7'] } })).toEqual([
      inv('status.active', '-1', 'must be greater than or equal to 0'),
      inv('status.ready', '-2', 'must be greater than or equal to 0'),
      inv('status.uncountedTerminatedPods.succeeded[50000]', '""', 'must not be empty'),
      { reason: 'FieldValueDuplicate', field: 'status.uncountedTerminatedPods.failed[0]', message: 'Duplicate value: "uid-7"' },
    ]);
  });

  it('holds the terminal conditions and their times to kube\'s rules', () => {
    const finished = { startTime: T0, completionTime: T1, conditions: [cond('SuccessCriteriaMet'), cond('Complete')] };
    expect(statusCauses({}, { startTime: T0 }, finished)).toEqual([]);
    expect(statusCauses({}, { startTime: T0 }, { ...finished, active: 1, uncountedTerminatedPods: { failed: ['a'] }, completionTime: '2025-12-31T23:59:59Z' })).toEqual([
      inv('status.completionTime', '2025-12-31 23:59:59 +0000 UTC', 'completionTime cannot be set before startTime'),
      inv('status.active', '1', 'active>0 is invalid for finished job'),
      inv('status.uncountedTerminatedPods', 'batch.UncountedTerminatedPods{Succeeded:[]types.UID(nil), Failed:[]types.UID{"a"}}', 'uncountedTerminatedPods needs to be empty for finished job'),
    ]);
    expect(statusCauses({}, { startTime: T0 }, { startTime: T0, conditions: [cond('FailureTarget'), cond('Complete'), cond('Failed')] })).toEqual([
      omitted('status.conditions', 'cannot set Complete=True and Failed=true conditions'),
      omitted('status.conditions', 'cannot set Complete=True and FailureTarget=true conditions'),
      req('status.completionTime', 'completionTime is required for Complete jobs'),
    ]);
    expect(statusCauses({}, {}, { completionTime: T1, conditions: [cond('Failed')] })).toEqual([
      inv('status.completionTime', '2026-01-01 00:01:00 +0000 UTC', 'cannot set completionTime when there is no Complete=True condition'),
      req('status.startTime', 'startTime is required for finished job'),
    ]);
  });

  it('refuses transitions kube refuses: terminal conditions kept, counters only up, times fixed', () => {
    const before = { startTime: T0, succeeded: 3, failed: 2, completionTime: T1, conditions: [cond('SuccessCriteriaMet'), cond('Complete')] };
    expect(statusCauses({}, before, { startTime: T1, succeeded: 1, failed: 1, completionTime: '2026-01-01T00:02:00Z', conditions: [] })).toEqual([
      inv('status.completionTime', '2026-01-01 00:02:00 +0000 UTC', 'cannot set completionTime when there is no Complete=True condition'),
      omitted('status.conditions', 'cannot disable the terminal Complete=True condition'),
      inv('status.failed', '1', 'cannot decrease the failed counter'),
      inv('status.succeeded', '1', 'cannot decrease the succeeded counter'),
      inv('status.completionTime', '2026-01-01 00:02:00 +0000 UTC', 'completionTime cannot be mutated'),
      req('status.startTime', 'startTime cannot be removed for unsuspended job'),
      omitted('status.conditions', 'cannot disable the SuccessCriteriaMet=True condition'),
    ]);
    // An elastic Indexed Job (completions = parallelism) may count fewer successes after a scale-down; a suspended
    // Job may lose its startTime.
    expect(statusCauses({ ...INDEXED, completions: 3, parallelism: 3, suspend: true }, { startTime: T0, succeeded: 3 }, { succeeded: 2 })).toEqual([]);
  });

  it('leaves custom resources that happen to be called Job alone', () => {
    expect(validateTypedStatus('example.com', 'Job', withStatus({}, { active: -1 }), withStatus({}, {}))).toEqual([]);
  });
});
