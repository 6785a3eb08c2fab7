// Fuzzing: fast-check generators of request sequences that drive the control loops (issue 18): objects with random
// ownerReferences (themselves, A↔B and longer cycles, dangling uids, owners of other kinds and outside the
// namespace) deleted with random propagation policies; Jobs, Deployments and StatefulSets with extreme numbers in
// their specs, scale and status; CRDs with random `pattern`s and CEL rules (catastrophic-backtracking shapes, syntax
// RE2 refuses) and adversarial values for them. A case is data only: which objects, which steps, which values; the
// e2e runner (test/e2e/fuzz-loops.test.ts) names the objects per case and resolves uids as it goes.
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export const LOOPS_NS = 'fuzz-loops';
export const CRD_GROUP = 'loops.fuzz.example.com';

// ---- numbers a user writes ----

const INT32_MAX = 2 ** 31 - 1;
/** The numbers that broke loops before: 0, negatives, the int32 and int64 edges, 2^53, fractions, overflow. */
const EXTREME = [0, -1, -2147483648, INT32_MAX, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 53, 2 ** 63, 1e15, 1.5, 1e308, 100_000, 100_001];
export const extremeInt: fc.Arbitrary<number> = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 5 }), weight: 3 },
  { arbitrary: fc.constantFrom(...EXTREME), weight: 3 },
  { arbitrary: fc.integer({ min: -(2 ** 31), max: INT32_MAX }), weight: 1 },
);
/** Mostly numbers validation accepts at their edges (so the loops get them), sometimes any extreme one. */
const VALID_EXTREME = [0, 1, 2, 3, 5, 10, 100_000, INT32_MAX - 1, INT32_MAX];
export const edgeInt: fc.Arbitrary<number> = fc.oneof(
  { arbitrary: fc.constantFrom(...VALID_EXTREME), weight: 4 },
  { arbitrary: extremeInt, weight: 1 },
);
/** Absent (often) or a number at an edge. */
const optInt = sometimes(edgeInt, 50);
const intOrPercent: fc.Arbitrary<Json> = fc.oneof(edgeInt,
  fc.constantFrom('0%', '1%', '25%', '100%', '101%', '1000000%', '2147483648%', '-5%', '%', 'abc', '50.5%', '99999999999999999999%'));

/** `arb` in `percent` of the values, else absent (fc.option's `freq` counts the other way: nil is 1 in freq). */
export function sometimes<T>(arb: fc.Arbitrary<T>, percent: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: arb, weight: percent }, { arbitrary: fc.constant(undefined), weight: 100 - percent });
}

/** Drops the keys whose value is undefined, so a generated spec is plain JSON. */
function defined(o: Record<string, Json | undefined>): Record<string, Json> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Record<string, Json>;
}

// ---- section 1: ownership ----

export const OWN_KINDS = ['ConfigMap', 'Secret', 'Pod', 'Deployment', 'Job'] as const;
export type OwnKind = (typeof OWN_KINDS)[number];

/** Whom an ownerReference points at: another object of the case (by index), itself, a uid nobody has, or something
 * outside the namespace whose uid leaked (the victim's ConfigMap, the namespace itself, a Node). */
export type RefTarget = { obj: number } | { self: true } | { dangling: string } | { outside: 'victim' | 'namespace' | 'node' };

export interface RefSpec {
  target: RefTarget;
  /** Claims another kind than the target's (the uid is the target's). */
  claim?: { apiVersion: string; kind: string };
  wrongName?: boolean;
  block?: boolean;
  controller?: boolean;
}

export type OwnStep =
  | { op: 'own'; obj: number; refs: RefSpec[]; via: 'merge' | 'json' | 'put' | 'apply' }
  | { op: 'delete'; obj: number; policy?: string; via: 'body' | 'query' | 'orphanDependents'; dryRun: boolean }
  | { op: 'deleteCollection'; kind: OwnKind; policy?: string }
  | { op: 'dropFinalizers'; obj: number }
  | { op: 'pause'; ms: number };

export interface OwnershipCase {
  section: 'ownership';
  objects: { kind: OwnKind; refs: RefSpec[] }[]; // refs set at creation (those resolvable then)
  steps: OwnStep[];
}

const CLAIMS = [
  { apiVersion: 'v1', kind: 'ConfigMap' }, { apiVersion: 'v1', kind: 'Secret' }, { apiVersion: 'v1', kind: 'Pod' },
  { apiVersion: 'apps/v1', kind: 'Deployment' }, { apiVersion: 'apps/v1', kind: 'ReplicaSet' }, { apiVersion: 'batch/v1', kind: 'Job' },
  { apiVersion: 'v1', kind: 'Namespace' }, { apiVersion: 'v1', kind: 'Node' }, { apiVersion: 'example.com/v1', kind: 'Bogus' },
  { apiVersion: 'apps/v1beta1', kind: 'Deployment' }, { apiVersion: `${CRD_GROUP}/v1`, kind: 'F0' },
];
const POLICIES = ['Foreground', 'Background', 'Orphan', undefined, 'bogus'];

const refSpec = (objects: number): fc.Arbitrary<RefSpec> => fc.record({
  target: fc.oneof(
    { arbitrary: fc.nat({ max: objects - 1 }).map((obj) => ({ obj })), weight: 6 },
    { arbitrary: fc.constant({ self: true as const }), weight: 3 },
    { arbitrary: fc.uuid().map((dangling) => ({ dangling })), weight: 2 },
    { arbitrary: fc.constantFrom('victim', 'namespace', 'node').map((outside) => ({ outside: outside as 'victim' | 'namespace' | 'node' })), weight: 1 },
  ),
  claim: sometimes(fc.constantFrom(...CLAIMS), 25),
  wrongName: sometimes(fc.constant(true as const), 12),
  block: sometimes(fc.boolean(), 75),
  controller: sometimes(fc.boolean(), 33),
}, { requiredKeys: ['target'] });

/** An ownership graph over 1–5 objects, then owner changes, deletes in every propagation policy, finalizers dropped. */
export const ownershipCase: fc.Arbitrary<OwnershipCase> = fc.integer({ min: 1, max: 5 }).chain((n) => {
  const obj = fc.nat({ max: n - 1 });
  const refs = fc.array(refSpec(n), { maxLength: 3 });
  const step: fc.Arbitrary<OwnStep> = fc.oneof(
    { arbitrary: fc.record({ op: fc.constant('own' as const), obj, refs, via: fc.constantFrom('merge' as const, 'json' as const, 'put' as const, 'apply' as const) }), weight: 3 },
    { arbitrary: fc.record({ op: fc.constant('delete' as const), obj, policy: fc.constantFrom(...POLICIES), via: fc.constantFrom('body' as const, 'query' as const, 'orphanDependents' as const), dryRun: fc.constantFrom(false, false, false, true) }), weight: 5 },
    { arbitrary: fc.record({ op: fc.constant('deleteCollection' as const), kind: fc.constantFrom(...OWN_KINDS), policy: fc.constantFrom(...POLICIES) }), weight: 1 },
    { arbitrary: fc.record({ op: fc.constant('dropFinalizers' as const), obj }), weight: 1 },
    { arbitrary: fc.record({ op: fc.constant('pause' as const), ms: fc.constantFrom(0, 200, 800) }), weight: 1 },
  );
  // Cycles are the point: make every object own another (a ring, the order shuffled) half the time.
  const ring = fc.shuffledSubarray(Array.from({ length: n }, (_, i) => i), { minLength: n, maxLength: n })
    .chain((order) => fc.tuple(fc.constant(order), fc.array(fc.boolean(), { minLength: n, maxLength: n })))
    .map(([order, blocks]) => order.map((o, i) => ({
      op: 'own' as const, obj: o, via: 'merge' as const, refs: [{ target: { obj: order[(i + 1) % n]! }, block: blocks[i] }],
    })));
  // Most cases end by deleting one object in the foreground: what waits on what is then up to the collector.
  const foreground = fc.record({
    op: fc.constant('delete' as const), obj, policy: fc.constant('Foreground'), via: fc.constantFrom('body' as const, 'query' as const), dryRun: fc.constant(false),
  });
  // Owners given at creation are fewer, so that graphs are not mostly collected (a dangling owner) before they close.
  const initialRefs = sometimes(fc.array(refSpec(n), { minLength: 1, maxLength: 2 }), 40).map((r) => r ?? []);
  return fc.record({
    section: fc.constant('ownership' as const),
    objects: fc.array(fc.record({ kind: fc.constantFrom(...OWN_KINDS), refs: initialRefs }), { minLength: n, maxLength: n }),
    steps: fc.tuple(sometimes(ring, 50), fc.array(step, { minLength: 1, maxLength: 8 }), sometimes(foreground, 60))
      .map(([r, rest, last]) => [...(r ?? []), ...rest, ...(last ? [last] : [])]),
  });
});

// ---- section 2: workloads with extreme numbers ----

export const WORKLOAD_KINDS = ['Job', 'Deployment', 'StatefulSet'] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

export interface PodTemplateChoice {
  annotations: Record<string, string>;
  resources?: Json;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  unschedulable?: boolean;
  restartPolicy?: string;
}

export interface Workload {
  kind: WorkloadKind;
  spec: Record<string, Json>; // without selector and template: the runner adds them
  template: PodTemplateChoice;
}

export type WorkloadStep =
  | { op: 'patch'; w: number; patch: Record<string, Json> } // tenant merge patch of the spec
  | { op: 'scale'; w: number; replicas: Json; via: 'put' | 'patch' }
  | { op: 'status'; w: number; status: Record<string, Json>; actor: 'admin' | 'tenant' }
  | { op: 'delete'; w: number; policy?: string }
  | { op: 'pause'; ms: number };

export interface WorkloadCase {
  section: 'workloads';
  workloads: Workload[];
  steps: WorkloadStep[];
}

const SIM = 'edgeplane.dev/simulate-';
const template: fc.Arbitrary<PodTemplateChoice> = fc.record({
  annotations: fc.record({
    [`${SIM}run-seconds`]: fc.constantFrom('0', '1', '2', '5', '3600', '-1', '1e300', 'x'),
    [`${SIM}exit-code`]: fc.constantFrom('0', '0', '1', '137'),
    [`${SIM}termination-seconds`]: fc.constantFrom('0', '1', '2', '1e300'),
  }, { requiredKeys: [] }) as fc.Arbitrary<Record<string, string>>,
  resources: sometimes(fc.constantFrom<Json>(
    { requests: { cpu: '1000', memory: '1Ei' } }, { requests: { cpu: '0' } }, { limits: { cpu: '9223372036854775807' } },
    { requests: { cpu: '-1' } }, { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '1' } },
  ), 20),
  terminationGracePeriodSeconds: sometimes(edgeInt, 20),
  activeDeadlineSeconds: sometimes(edgeInt, 17),
  unschedulable: sometimes(fc.constant(true), 15),
}, { requiredKeys: ['annotations'] });

const indexes = fc.oneof(
  fc.constantFrom('0-2147483646', '0-2147483647', `0-${2 ** 53}`, '0-15999999', '0,1,2', '5-3', '', '1,1', '0-1,1-2', 'x', '-1', '0-99999,100001',
    '0-99999'),
  fc.array(fc.nat({ max: 200_000 }), { maxLength: 50 }).map((xs) => xs.sort((a, b) => a - b).join(',')),
);
const uids = fc.oneof(
  fc.array(fc.uuid(), { maxLength: 5 }),
  fc.integer({ min: 100, max: 6000 }).map((n) => Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`)),
);
const condition = fc.record({
  type: fc.constantFrom('Complete', 'Failed', 'SuccessCriteriaMet', 'FailureTarget', 'Suspended', 'Available', 'Progressing', 'Bogus'),
  status: fc.constantFrom('True', 'False', 'Unknown', 'maybe'),
  reason: fc.constantFrom('Fuzz', 'DeadlineExceeded', 'BackoffLimitExceeded', ''),
  lastTransitionTime: fc.constantFrom('2026-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '0001-01-01T00:00:00Z', 'x'),
}, { requiredKeys: ['type', 'status'] });
const time = fc.constantFrom('2026-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '0001-01-01T00:00:00Z', '1970-01-01T00:00:00Z', 'never');

/** Index lists for a Job of `completions`: the edges of its own range (valid) or anything. */
const indexesFor = (completions: Json | undefined) => (typeof completions === 'number' && completions > 0 && completions <= INT32_MAX
  ? fc.oneof(fc.constantFrom(`0-${completions - 1}`, `${completions - 1}`, `0,${completions - 1}`, completions > 2 ? `1-${completions - 2}` : '0'), indexes)
  : indexes);
const jobStatusFor = (spec: Record<string, Json>) => fc.record({
  active: edgeInt, succeeded: edgeInt, failed: edgeInt, ready: edgeInt, terminating: edgeInt,
  completedIndexes: indexesFor(spec.completions), failedIndexes: indexesFor(spec.completions),
  uncountedTerminatedPods: fc.record({ succeeded: uids, failed: uids }, { requiredKeys: [] }),
  conditions: fc.array(condition, { maxLength: 3 }), startTime: time, completionTime: time,
}, { requiredKeys: [] }) as fc.Arbitrary<Record<string, Json>>;
const deploymentStatus = fc.record({
  replicas: edgeInt, updatedReplicas: edgeInt, readyReplicas: edgeInt, availableReplicas: edgeInt, unavailableReplicas: edgeInt,
  terminatingReplicas: edgeInt, observedGeneration: edgeInt, collisionCount: edgeInt, conditions: fc.array(condition, { maxLength: 2 }),
}, { requiredKeys: [] }) as fc.Arbitrary<Record<string, Json>>;
const statefulSetStatus = fc.record({
  replicas: edgeInt, readyReplicas: edgeInt, currentReplicas: edgeInt, updatedReplicas: edgeInt, availableReplicas: edgeInt,
  observedGeneration: edgeInt, collisionCount: edgeInt, currentRevision: fc.constantFrom('x', '', 'a'.repeat(300)),
  updateRevision: fc.constantFrom('x', '', 'a'.repeat(300)),
}, { requiredKeys: [] }) as fc.Arbitrary<Record<string, Json>>;

const successPolicy = fc.record({
  rules: fc.array(fc.record({ succeededIndexes: indexes, succeededCount: edgeInt }, { requiredKeys: [] }), { minLength: 1, maxLength: 3 }),
});
const podFailurePolicy = fc.record({
  rules: fc.array(fc.record({
    action: fc.constantFrom('FailJob', 'FailIndex', 'Ignore', 'Count'),
    onExitCodes: fc.record({ operator: fc.constantFrom('In', 'NotIn'), values: fc.array(fc.constantFrom(1, 2, 137, 255, 0), { minLength: 1, maxLength: 4 }) }),
  }), { minLength: 1, maxLength: 3 }),
});

/** Any field, any number: mostly refused, which is the point of this half (validation answers, never a 500). */
const hostileJobSpec = fc.record({
  completionMode: fc.constantFrom<string | undefined>(undefined, 'NonIndexed', 'Indexed', 'Indexed', 'Bogus'),
  completions: optInt, parallelism: optInt, backoffLimit: optInt, backoffLimitPerIndex: optInt, maxFailedIndexes: optInt,
  activeDeadlineSeconds: optInt, ttlSecondsAfterFinished: optInt, suspend: sometimes(fc.boolean(), 30),
  podReplacementPolicy: fc.constantFrom<string | undefined>(undefined, 'Failed', 'TerminatingOrFailed'),
  successPolicy: sometimes(successPolicy, 20),
  podFailurePolicy: sometimes(podFailurePolicy, 20),
}).map((s) => defined(s as Record<string, Json | undefined>));

const validInt = fc.constantFrom(...VALID_EXTREME);
const maybe = <T>(a: fc.Arbitrary<T>) => sometimes(a, 50);

/** The other half: specs shaped to pass validation with edge numbers in every field, so the loops act on them. */
const validJobSpec = fc.record({
  indexed: fc.boolean(), completions: maybe(validInt), parallelism: maybe(validInt), backoffLimit: maybe(validInt),
  backoffLimitPerIndex: maybe(fc.constantFrom(0, 1, 3, 100_000, INT32_MAX)), maxFailedIndexes: maybe(validInt),
  activeDeadlineSeconds: maybe(fc.constantFrom(1, 2, 5, 3600, INT32_MAX, 2 ** 53 - 1)), ttlSecondsAfterFinished: maybe(validInt),
  suspend: maybe(fc.boolean()), succeededCount: maybe(validInt), allIndexes: fc.boolean(),
}).map((v) => {
  const completions = v.indexed ? v.completions ?? 5 : v.completions;
  const indexed = v.indexed ? {
    completionMode: 'Indexed', completions,
    ...(v.backoffLimitPerIndex === undefined ? {} : {
      backoffLimitPerIndex: v.backoffLimitPerIndex,
      maxFailedIndexes: v.maxFailedIndexes === undefined ? undefined : Math.min(v.maxFailedIndexes, completions!, 100_000),
    }),
    successPolicy: v.succeededCount === undefined || !completions ? undefined : {
      rules: [{ succeededCount: Math.max(1, Math.min(v.succeededCount, completions)), ...(v.allIndexes ? { succeededIndexes: `0-${completions - 1}` } : {}) }],
    },
  } : { completions };
  return defined({
    ...indexed, parallelism: v.parallelism, backoffLimit: v.backoffLimit, activeDeadlineSeconds: v.activeDeadlineSeconds,
    ttlSecondsAfterFinished: v.ttlSecondsAfterFinished, suspend: v.suspend,
  } as Record<string, Json | undefined>);
});

const hostileDeploymentSpec = fc.record({
  replicas: optInt, minReadySeconds: optInt, progressDeadlineSeconds: optInt, revisionHistoryLimit: optInt,
  paused: sometimes(fc.boolean(), 25),
  strategy: sometimes(fc.oneof(
    fc.constant<Json>({ type: 'Recreate' }),
    fc.record({ type: fc.constant('RollingUpdate'), rollingUpdate: fc.record({ maxSurge: intOrPercent, maxUnavailable: intOrPercent }, { requiredKeys: [] }) }),
  ), 50),
}).map((s) => defined(s as Record<string, Json | undefined>));

const surge = fc.oneof(validInt, fc.constantFrom('0%', '1%', '25%', '100%', '1000000%'));
const unavailable = fc.oneof(validInt, fc.constantFrom('0%', '1%', '25%', '100%'));
const validDeploymentSpec = fc.record({
  replicas: maybe(validInt), minReadySeconds: maybe(validInt), progressDeadlineSeconds: maybe(validInt), revisionHistoryLimit: maybe(validInt),
  paused: maybe(fc.boolean()), recreate: fc.boolean(), maxSurge: maybe(surge), maxUnavailable: maybe(unavailable),
}).map((v) => {
  // kube: progressDeadlineSeconds > minReadySeconds, and maxSurge and maxUnavailable not both 0.
  const minReady = v.minReadySeconds === undefined ? undefined : Math.min(v.minReadySeconds, INT32_MAX - 1);
  const deadline = v.progressDeadlineSeconds === undefined ? undefined : Math.max(v.progressDeadlineSeconds, (minReady ?? 0) + 1);
  const zero = (x: Json | undefined) => x === 0 || x === '0%';
  const rolling = { maxSurge: v.maxSurge, maxUnavailable: zero(v.maxSurge) && zero(v.maxUnavailable) ? 1 : v.maxUnavailable };
  return defined({
    replicas: v.replicas, minReadySeconds: minReady, progressDeadlineSeconds: deadline, revisionHistoryLimit: v.revisionHistoryLimit, paused: v.paused,
    strategy: v.recreate ? { type: 'Recreate' } : { type: 'RollingUpdate', rollingUpdate: defined(rolling as Record<string, Json | undefined>) },
  } as Record<string, Json | undefined>);
});

const hostileStatefulSetSpec = fc.record({
  replicas: optInt, minReadySeconds: optInt, revisionHistoryLimit: optInt,
  podManagementPolicy: fc.constantFrom<string | undefined>(undefined, 'OrderedReady', 'Parallel'),
  updateStrategy: sometimes(fc.oneof(
    fc.constant<Json>({ type: 'OnDelete' }),
    fc.record({ type: fc.constant('RollingUpdate'), rollingUpdate: fc.record({ partition: edgeInt, maxUnavailable: intOrPercent }, { requiredKeys: [] }) }),
  ), 50),
  ordinals: sometimes(fc.record({ start: edgeInt }), 25),
  persistentVolumeClaimRetentionPolicy: sometimes(fc.record({
    whenDeleted: fc.constantFrom('Retain', 'Delete'), whenScaled: fc.constantFrom('Retain', 'Delete'),
  }), 15),
}).map((s) => defined(s as Record<string, Json | undefined>));

const validStatefulSetSpec = fc.record({
  replicas: maybe(validInt), minReadySeconds: maybe(validInt), revisionHistoryLimit: maybe(validInt),
  podManagementPolicy: maybe(fc.constantFrom('OrderedReady', 'Parallel')), onDelete: fc.boolean(), partition: maybe(validInt),
  maxUnavailable: maybe(fc.oneof(fc.constantFrom(1, 2, 100_000, INT32_MAX), fc.constantFrom('1%', '50%', '100%'))), start: maybe(validInt),
}).map((v) => defined({
  replicas: v.replicas, minReadySeconds: v.minReadySeconds, revisionHistoryLimit: v.revisionHistoryLimit, podManagementPolicy: v.podManagementPolicy,
  updateStrategy: v.onDelete ? { type: 'OnDelete' } : { type: 'RollingUpdate', rollingUpdate: defined({ partition: v.partition, maxUnavailable: v.maxUnavailable }) },
  ordinals: v.start === undefined ? undefined : { start: v.start },
} as Record<string, Json | undefined>));

const either = (valid: fc.Arbitrary<Record<string, Json>>, hostile: fc.Arbitrary<Record<string, Json>>) =>
  fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: hostile, weight: 1 });
const jobSpec = either(validJobSpec, hostileJobSpec);
const deploymentSpec = either(validDeploymentSpec, hostileDeploymentSpec);
const statefulSetSpec = either(validStatefulSetSpec, hostileStatefulSetSpec);

const SPEC_BY_KIND: Record<WorkloadKind, fc.Arbitrary<Record<string, Json>>> = { Job: jobSpec, Deployment: deploymentSpec, StatefulSet: statefulSetSpec };
const statusFor = (w: Workload): fc.Arbitrary<Record<string, Json>> =>
  (w.kind === 'Job' ? jobStatusFor(w.spec) : w.kind === 'Deployment' ? deploymentStatus : statefulSetStatus);

const workload: fc.Arbitrary<Workload> = fc.constantFrom(...WORKLOAD_KINDS).chain((kind) => fc.record({
  kind: fc.constant(kind), spec: SPEC_BY_KIND[kind], template,
}));

/** A spec change a tenant may write: numbers again, a suspend or pause flip, a template change (a rollout). */
const specPatch = (kind: WorkloadKind): fc.Arbitrary<Record<string, Json>> => fc.oneof(
  SPEC_BY_KIND[kind],
  fc.record({ suspend: fc.boolean() }),
  fc.record({ paused: fc.boolean() }),
  fc.nat().map((n) => ({ template: { metadata: { annotations: { 'fuzz/rev': String(n) } } } })),
);

/** 1–3 workloads of random kinds, then spec changes, scale, status writes and deletes among them. */
export const workloadCase: fc.Arbitrary<WorkloadCase> = fc.array(workload, { minLength: 1, maxLength: 3 }).chain((workloads) => {
  const w = fc.nat({ max: workloads.length - 1 });
  const step: fc.Arbitrary<WorkloadStep> = w.chain((i) => {
    const kind = workloads[i]!.kind;
    return fc.oneof(
      { arbitrary: specPatch(kind).map((patch) => ({ op: 'patch' as const, w: i, patch })), weight: 3 },
      { arbitrary: fc.record({ op: fc.constant('scale' as const), w: fc.constant(i), replicas: edgeInt as fc.Arbitrary<Json>, via: fc.constantFrom('put' as const, 'patch' as const) }), weight: kind === 'Job' ? 0 : 2 },
      { arbitrary: fc.record({ op: fc.constant('status' as const), w: fc.constant(i), status: statusFor(workloads[i]!), actor: fc.constantFrom('admin' as const, 'admin' as const, 'tenant' as const) }), weight: 3 },
      { arbitrary: fc.record({ op: fc.constant('delete' as const), w: fc.constant(i), policy: fc.constantFrom(...POLICIES) }), weight: 1 },
      { arbitrary: fc.record({ op: fc.constant('pause' as const), ms: fc.constantFrom(0, 300, 1000) }), weight: 1 },
    );
  });
  return fc.record({ section: fc.constant('workloads' as const), workloads: fc.constant(workloads), steps: fc.array(step, { maxLength: 6 }) });
});

// ---- section 3: CRD patterns and CEL rules ----

/** Shapes a backtracking engine takes exponential time on (the dotted-name pattern is kube's own idiom). */
export const CATASTROPHIC = [
  '^(a+)+$', '^([a-z0-9]+[-.]?)*[a-z0-9]$', '(a|aa)+$', '^(a|a?)+$', '(x+x+)+y', '^(\\w+\\s?)*$', '^(.*a){20}$', '^(a*)*b$',
  '([a-zA-Z]+)*[0-9]', '^(([a-z])+.)+[A-Z]([a-z])+$', '^(a|b|ab)*c$', '(.*){1,32000}[bc]',
];
/** Syntax JavaScript accepts and RE2 refuses: backreferences, lookarounds, possessive and atomic groups. */
export const RE2_REFUSES = ['(a)\\1', '^(?=a)a', 'a(?!b)', '(?<=a)b', '(?<!a)b', 'a++', '(?>a+)b', '(?<n>a)\\k<n>', '\\Z', 'a{2,1}',
  '\\p{Foo}', 'x**', '(', '[', '\\', '(?i', '*a', 'a{1001}', '(?P<n>a)(?P=n)', '[[:foo:]]'];
/** Valid in RE2, some odd: classes, flags, big counted repetitions, empty. */
export const ODD_VALID = ['', '.*', '^$', '(?i)^abc$', '\\p{L}+', '[[:alpha:]]+', '(?P<name>a+)b', '\\Aa\\z', '[^\\x00-\\x7F]', '\\d{1,1000}',
  '(?s).', '.{0,1000}', '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', '(?:a{100}){10}', '\\bword\\b'];

const FRAGMENTS = ['a', 'b', '+', '*', '?', '(', ')', '|', '[a-z]', '\\w', '\\s', '{2,5}', '{1000}', '.', '^', '$', '\\1', '(?=', '(?:', '[^', ']', '\\d'];
// A CRD carries several patterns and any refused one refuses it: refused syntax is rare enough per pattern that
// about half the CRDs are accepted and their objects reach the regexes.
export const pattern: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...CATASTROPHIC), weight: 8 },
  { arbitrary: fc.constantFrom(...ODD_VALID), weight: 4 },
  { arbitrary: fc.constantFrom(...RE2_REFUSES), weight: 1 },
  { arbitrary: fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 12 }).map((f) => f.join('')), weight: 1 },
);

/** Values that make the catastrophic shapes backtrack: a long run the pattern almost matches, then a mismatch. */
const SHAPES: ((n: number) => string)[] = [
  (n) => `${'a'.repeat(n)}!`, (n) => `${'a-'.repeat(n >> 1)}-!`, (n) => `${'a.'.repeat(n >> 1)}.`, (n) => 'x'.repeat(n),
  (n) => `${'a '.repeat(n >> 1)}!`, (n) => `${'ab'.repeat(n >> 1)}!`, (n) => `${'é'.repeat(n)}!`, (n) => `${'a'.repeat(n)}`,
  (n) => `${'0'.repeat(n)}A`, (n) => 'abc-def.ghi'.repeat(Math.max(1, n >> 4)),
];
const SIZES = [0, 1, 5, 16, 24, 27, 32, 64, 1000, 100_000];
export const adversarialString: fc.Arbitrary<string> = fc.tuple(fc.nat({ max: SHAPES.length - 1 }), fc.constantFrom(...SIZES))
  .map(([shape, n]) => SHAPES[shape]!(n));
const shortAdversarial = fc.tuple(fc.nat({ max: SHAPES.length - 1 }), fc.constantFrom(1, 16, 24, 27, 32))
  .map(([shape, n]) => SHAPES[shape]!(n));
/** Lists: a few adversarial items, or thousands of them (quadratic rules over items). */
const adversarialList: fc.Arbitrary<string[]> = fc.oneof(
  fc.array(adversarialString, { maxLength: 5 }),
  fc.tuple(fc.integer({ min: 100, max: 3000 }), shortAdversarial).map(([n, s]) => Array.from({ length: n }, (_, i) => (i % 2 ? s : `${s}${i}`))),
);

/** A CEL string literal holding `p`: raw or escaped. */
const celLiteral = (p: string, raw: boolean): string => (raw && !p.includes("'") ? `r'${p}'` : `'${p.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);

const N = fc.constantFrom(0, 1, 5, 100, 2 ** 31, 2 ** 53);
/** A rule at the spec level over the string `s`, the list `items`, and `re`, a pattern the object supplies. */
const specRule: fc.Arbitrary<string> = fc.tuple(pattern, fc.boolean(), N, fc.nat({ max: 13 })).map(([p, raw, n, which]) => {
  const P = celLiteral(p, raw);
  return [
    `!has(self.s) || self.s.matches(${P})`,
    `!has(self.s) || self.s.find(${P}) == ''`,
    `!has(self.s) || self.s.findAll(${P}).size() < ${n}`,
    `!has(self.s) || self.s.findAll(${P}, ${n}).size() >= 0`,
    `!has(self.items) || self.items.all(x, x.matches(${P}))`,
    `!has(self.items) || self.items.exists(x, x.find(${P}) != '')`,
    `!has(self.items) || self.items.all(x, self.items.exists(y, y.matches(${P})))`,
    `!has(self.re) || !has(self.s) || self.s.matches(self.re)`,
    `!has(self.re) || !has(self.items) || self.items.exists(x, x.matches(self.re))`,
    `!has(self.s) || size(self.s) <= ${n}`,
    `!has(self.items) || self.items.all(x, size(x) < ${n})`,
    `!has(self.items) || self.items.map(x, x.findAll(${P})).all(l, l.size() < ${n})`,
    `!has(self.m) || self.m.all(k, k.matches(${P}) && self.m[k].find(${P}) != '')`,
    `self.s.matches(${P}) || self.s.matches(${P} + ${P})`,
  ][which]!;
});
/** A rule on the string `s` itself (self is the string). */
const stringRule: fc.Arbitrary<string> = fc.tuple(pattern, fc.boolean(), fc.nat({ max: 2 })).map(([p, raw, which]) => {
  const P = celLiteral(p, raw);
  return [`self.matches(${P})`, `self.find(${P}) == self`, `self.findAll(${P}).size() == 0`][which]!;
});

export interface CelRule {
  at: 'spec' | 's' | 'items' | 'item';
  rule: string;
  message?: string;
  messageExpression?: string;
}

export interface CrdCase {
  section: 'crds';
  schema: {
    sPattern?: string;
    sMaxLength?: number;
    itemPattern?: string;
    maxItems?: number;
    mapPattern?: string;
    rules: CelRule[];
  };
  writes: { op: 'create' | 'patch' | 'put'; obj: number; spec: Record<string, Json> }[];
}

const celRule: fc.Arbitrary<CelRule> = fc.oneof(
  fc.record({ at: fc.constant('spec' as const), rule: specRule, message: sometimes(fc.constant('refused by a fuzzed rule'), 50),
    messageExpression: sometimes(fc.constantFrom("'s is ' + self.s", "'found ' + self.s.find('a+')", "self.s.findAll('(a+)+$').join(',')"), 25) },
  { requiredKeys: ['at', 'rule'] }),
  fc.record({ at: fc.constantFrom('s' as const, 'item' as const), rule: stringRule }),
  fc.record({ at: fc.constant('items' as const), rule: fc.tuple(pattern, fc.boolean()).map(([p, raw]) => `self.all(x, x.matches(${celLiteral(p, raw)}))`) }),
);

const crSpec: fc.Arbitrary<Record<string, Json>> = fc.record({
  s: adversarialString, items: adversarialList, re: pattern,
  m: fc.dictionary(shortAdversarial, adversarialString, { maxKeys: 5 }),
}, { requiredKeys: [] }) as fc.Arbitrary<Record<string, Json>>;

/** A CRD with random patterns and CEL rules, then creates, patches and replacements of objects with adversarial values. */
export const crdCase: fc.Arbitrary<CrdCase> = fc.record({
  section: fc.constant('crds' as const),
  schema: fc.record({
    sPattern: sometimes(pattern, 80),
    sMaxLength: sometimes(fc.constantFrom(0, 10, 64, 1000, 2 ** 31, 2 ** 53), 33),
    itemPattern: sometimes(pattern, 40),
    maxItems: sometimes(fc.constantFrom(0, 5, 1000, 2 ** 31), 33),
    mapPattern: sometimes(pattern, 30),
    rules: fc.array(celRule, { maxLength: 3 }),
  }, { requiredKeys: ['rules'] }),
  // The first write creates an object, so the later ones have something to change.
  writes: fc.tuple(crSpec, fc.array(fc.record({
    op: fc.constantFrom('create' as const, 'create' as const, 'patch' as const, 'put' as const), obj: fc.nat({ max: 2 }), spec: crSpec,
  }), { maxLength: 4 })).map(([first, rest]) => [{ op: 'create' as const, obj: 0, spec: first }, ...rest]),
});

export type LoopsCase = OwnershipCase | WorkloadCase | CrdCase;
