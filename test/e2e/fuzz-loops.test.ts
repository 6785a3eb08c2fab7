// Fuzzing the control loops (issue 18): request sequences from a limited tenant (a ServiceAccount bound to `edit` in
// its namespace; the cluster admin writes what kube keeps from `edit` — CRDs and status) through the real gateway
// with the loops on: ownerReference graphs with cycles, self-owners and dangling or foreign owners, deleted with
// every propagation policy; Jobs, Deployments and StatefulSets with extreme numbers in spec, scale and status; CRDs
// with random patterns and CEL rules, written with adversarial values. Properties: every answer is a success or a
// Status below 500 (and `edit` never writes a status); a victim tenant's read, write and /readyz keep within
// max(1.5 s, 25× their median) while each case runs AND for a settle period after it (the loops react after the
// request returns); at the end the loops go quiet (no queue keeps syncing or backing off a hot key), every watcher
// is complete and ordered, and nothing outside the fuzzed namespace changed.
//
// Bounded and seeded: FUZZ_LOOPS_RUNS cases (default 40, split over the sections) in batches of BATCH seeded
// FUZZ_LOOPS_SEED, FUZZ_LOOPS_SEED + 1, ... per section; a failure names its section, batch seed and case. Rerun one
// section with FUZZ_LOOPS_SECTIONS=crds FUZZ_LOOPS_SEED=<seed>. `npm run fuzz:loops` is the long mode (400 cases, a
// random seed).
import fc from 'fast-check';
import { loadavg } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, TOKEN, waitFor, type Running } from './fixtures';
import { as, limitedTenant, restOfRound, Victim, workerdStats, type Reply, type Tenant } from './hostile';
import { httpWatch, wsWatch } from './watch-streams';
import { answerProblem, assertInBatches, expectWatchersConsistent, slimWatchLogs, type Watched } from './fuzz-harness';
import {
  CRD_GROUP, crdCase, LOOPS_NS, ownershipCase, workloadCase,
  type CrdCase, type Json, type OwnershipCase, type OwnKind, type RefSpec, type Workload, type WorkloadCase,
} from '../fuzz/loops';

const RUNS = Number(process.env.FUZZ_LOOPS_RUNS ?? 40);
const SEED = Number(process.env.FUZZ_LOOPS_SEED ?? 20261201);
const SECTIONS = (process.env.FUZZ_LOOPS_SECTIONS ?? 'ownership,workloads,crds').split(',');
// The victim keeps probing this long after each case's last request: what the loops do in reaction is measured too.
const SETTLE_MS = Number(process.env.FUZZ_LOOPS_SETTLE_MS ?? 1000);
const BATCH_SETTLE_MS = 3000;
// Pod counts a tenant may ask for: unbounded by default (2^31−1 replicas is fair input). With no ResourceQuota to
// bound a namespace (issue 18, class 7), such a workload creates pods for as long as it exists; a cap (e.g.
// FUZZ_LOOPS_REPLICAS_CAP=50) clamps replicas and parallelism as they are sent, to fuzz everything else meanwhile.
const REPLICAS_CAP = process.env.FUZZ_LOOPS_REPLICAS_CAP ? Number(process.env.FUZZ_LOOPS_REPLICAS_CAP) : undefined;
const LONG = RUNS > 100;
const BATCH = 20;
const PER_SECTION = Math.max(1, Math.round(RUNS / 3));
const REQUEST_TIMEOUT_MS = 20_000;
// Every request has its timeout; this bounds a case whatever else it waits on, so a hang fails, naming its step.
const CASE_DEADLINE_MS = 120_000;
// A work queue's syncs over this window (longer than the 5 s a hot key waits at most) tell a quiet loop from a
// hot one.
const QUIET_WINDOW_MS = 6000;

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const ADMIN: Tenant = { namespace: '', user: 'cluster-admin', token: TOKEN };
const CASE_LABEL = 'fuzz-case';

let r: Running;
let tenant: Tenant;
let victim: Victim;
let watchdog: Watchdog;
const watched: Watched[] = [];
let clusterSnapshot = '';
let victimBaselineMs = 0;
let idleSyncs = new Map<string, number>();
/** uids outside the namespace the tenant's ownerReferences may name (as if leaked). */
const outsideOwners: Record<'victim' | 'namespace' | 'node', { apiVersion: string; kind: string; name: string; uid: string }> = {} as never;
let caseNo = 0;
/** Answers per status code in the running section (printed with its figures: how much got past validation). */
let answers = new Map<number, number>();
const VERBOSE = process.env.FUZZ_LOOPS_VERBOSE === '1';

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

/** `work`, or a rejection with `what()` once `ms` have passed. */
async function withDeadline<T>(work: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(what())), ms); });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `cleanup` after `body` succeeds; after a failure the case has failed anyway, so its error stands alone
 * (a cleanup against a stalled gateway would only wait out its own timeouts). */
async function thenCleanUp(body: () => Promise<void>, cleanup: () => Promise<void>): Promise<void> {
  await body();
  await cleanup();
}

/** The victim probing without pause; failures are collected and handed to the case that was running. */
class Watchdog {
  private failures: string[] = [];
  private inflight: Promise<void> = Promise.resolve();
  private stopped = false;
  private loop: Promise<void> = Promise.resolve();
  latencies: number[] = [];

  constructor(private readonly victim: Victim) {}

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        this.inflight = this.once();
        await this.inflight;
      }
    })();
  }

  private async once(): Promise<void> {
    // A round at most every PROBE_EVERY_MS, as Victim.during paces it: unpaced, on a quiet machine the victim's
    // three requests a round reached the per-user rate limit (200/s) and got its 429s (CI, seed 20261201).
    const roundStart = performance.now();
    await this.round();
    await restOfRound(roundStart, () => this.stopped);
  }

  private async round(): Promise<void> {
    // What workerd spent meanwhile and the machine's load tell a busy gateway from a starved one (tests share cores).
    const cpuBefore = workerdStats().cpuMs;
    const context = () => {
      const l = r.gateway.listener();
      return `; workerd CPU ${workerdStats().cpuMs - cpuBefore} ms meanwhile, load ${loadavg()[0]!.toFixed(1)}, `
        + `listener ${l.open} open of ${l.maxConnections} (${l.opening} opening, ${l.refused} refused so far)`;
    };
    try {
      const ms = await this.victim.probe();
      this.latencies.push(ms);
      if (ms > this.victim.boundMs) this.failures.push(`victim probe took ${ms.toFixed(0)} ms (bound ${this.victim.boundMs.toFixed(0)} ms${context()})`);
    } catch (e) {
      this.failures.push(`victim probe failed: ${(e as Error).message}${context()}`);
      // A probe that fails at once must not turn this loop into one that never yields to the event loop.
      await sleep(100);
    }
  }

  /** Failures since the last call, once the probe in flight has finished (a stall the last step caused shows here). */
  async take(): Promise<string[]> {
    await withDeadline(this.inflight, 4 * this.victim.boundMs + 5000, () => 'the victim probe in flight never finished');
    return this.failures.splice(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}

/** One case: its object names, the uids it made, and a compact log of its requests for a failure message. */
class CaseRun {
  readonly steps: string[] = [];
  readonly uids: (string | undefined)[] = [];

  constructor(readonly n: number) {}

  name(local: string | number): string {
    return `c${this.n}-${local}`;
  }

  get labels(): Record<string, string> {
    return { [CASE_LABEL]: `c${this.n}` };
  }

  /** A request as `actor`; the answer must be a success or a Status below 500. */
  async send(actor: Tenant, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Reply> {
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    const what = `${actor === ADMIN ? 'admin' : 'tenant'} ${method} ${path}${text ? ` ${text.length > 160 ? `${text.slice(0, 160)}… (${text.length} chars)` : text}` : ''}`;
    this.steps.push(what);
    let res: Reply;
    try {
      res = await as(r, actor, method, path, text || undefined, { 'content-type': contentType }, REQUEST_TIMEOUT_MS);
    } catch (e) {
      throw new Error(`transport failure (${String((e as { cause?: unknown }).cause ?? e)}) for ${what}`);
    }
    this.steps[this.steps.length - 1] += ` → ${res.status}${VERBOSE && res.status >= 400 ? ` (${String(res.json?.message).slice(0, 200)})` : ''}`;
    answers.set(res.status, (answers.get(res.status) ?? 0) + 1);
    const problem = answerProblem(res.status, res.text, res.headers.get('content-type') ?? '', what);
    if (problem) throw new Error(problem);
    return res;
  }

  summary(): string {
    const all = this.steps.join(' | ');
    return all.length > 1500 ? `${all.slice(0, 700)} … ${all.slice(-700)}` : all;
  }
}

// ---- section 1: ownership ----

const KIND_INFO: Record<OwnKind, { apiVersion: string; base: string; plural: string }> = {
  ConfigMap: { apiVersion: 'v1', base: `/api/v1/namespaces/${LOOPS_NS}`, plural: 'configmaps' },
  Secret: { apiVersion: 'v1', base: `/api/v1/namespaces/${LOOPS_NS}`, plural: 'secrets' },
  Pod: { apiVersion: 'v1', base: `/api/v1/namespaces/${LOOPS_NS}`, plural: 'pods' },
  Deployment: { apiVersion: 'apps/v1', base: `/apis/apps/v1/namespaces/${LOOPS_NS}`, plural: 'deployments' },
  Job: { apiVersion: 'batch/v1', base: `/apis/batch/v1/namespaces/${LOOPS_NS}`, plural: 'jobs' },
};
const QUICK = { 'edgeplane.dev/simulate-run-seconds': '1', 'edgeplane.dev/simulate-termination-seconds': '0' };
const CONTAINER = { name: 'main', image: 'busybox' };

/** A small valid object of `kind` (a Deployment of one pod, a Job of one short pod). */
function ownedObject(kind: OwnKind, name: string, labels: Record<string, string>, ownerReferences: Json[]): Record<string, unknown> {
  const metadata = { name, labels, ...(ownerReferences.length ? { ownerReferences } : {}) };
  const head = { apiVersion: KIND_INFO[kind].apiVersion, kind, metadata };
  const template = { metadata: { labels: { ...labels, app: name }, annotations: QUICK }, spec: { containers: [CONTAINER] } };
  switch (kind) {
    case 'ConfigMap': return { ...head, data: { k: name } };
    case 'Secret': return { ...head, data: { k: 'dmFsdWU=' } };
    case 'Pod': return { ...head, metadata: { ...metadata, annotations: QUICK }, spec: { containers: [CONTAINER], terminationGracePeriodSeconds: 1 } };
    case 'Deployment': return { ...head, spec: { replicas: 1, selector: { matchLabels: { app: name } }, template } };
    case 'Job': return { ...head, spec: { template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } } } };
  }
}

const objectPath = (c: OwnershipCase, run: CaseRun, i: number) => `${KIND_INFO[c.objects[i]!.kind].base}/${KIND_INFO[c.objects[i]!.kind].plural}/${run.name(i)}`;

/** The ownerReference `spec` of object `self` describes, or undefined when it names an object not made yet. */
function ownerRef(c: OwnershipCase, run: CaseRun, self: number, spec: RefSpec, creating: boolean): Json | undefined {
  const t = spec.target;
  let owner: { apiVersion: string; kind: string; name: string; uid: string };
  if ('outside' in t) owner = outsideOwners[t.outside];
  else if ('dangling' in t) owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', uid: t.dangling };
  else {
    const i = 'self' in t ? self : t.obj;
    if (creating && i >= self) return undefined; // its uid is not known yet
    const kind = c.objects[i]!.kind;
    // An object that was refused still gets a reference: a uid nobody has.
    owner = { apiVersion: KIND_INFO[kind].apiVersion, kind, name: run.name(i), uid: run.uids[i] ?? `00000000-0000-4000-8000-${String(run.n).padStart(6, '0')}${String(i).padStart(6, '0')}` };
  }
  return {
    apiVersion: spec.claim?.apiVersion ?? owner.apiVersion, kind: spec.claim?.kind ?? owner.kind,
    name: spec.wrongName ? `${owner.name}-x` : owner.name, uid: owner.uid,
    ...(spec.block === undefined ? {} : { blockOwnerDeletion: spec.block }),
    ...(spec.controller === undefined ? {} : { controller: spec.controller }),
  };
}

function deleteOptions(policy: string | undefined, dryRun: boolean): Record<string, unknown> {
  return { kind: 'DeleteOptions', apiVersion: 'v1', ...(policy ? { propagationPolicy: policy } : {}), ...(dryRun ? { dryRun: ['All'] } : {}) };
}

async function runOwnership(run: CaseRun, c: OwnershipCase): Promise<void> {
  // Pods and what makes pods go at the case's end (a long run would fill the simulated nodes); ConfigMaps and
  // Secrets stay, finalizers and all, for later cases' collector to live with.
  await thenCleanUp(() => ownershipSteps(run, c), () => deletePodMakers(run));
}

const POD_MAKERS = [[`/apis/batch/v1/namespaces/${LOOPS_NS}`, 'jobs'], [`/apis/apps/v1/namespaces/${LOOPS_NS}`, 'deployments'],
  [`/apis/apps/v1/namespaces/${LOOPS_NS}`, 'statefulsets'], [`/apis/apps/v1/namespaces/${LOOPS_NS}`, 'replicasets'], [`/api/v1/namespaces/${LOOPS_NS}`, 'pods']];

/** The tenant deletes the case's workloads and pods, orphans included (an orphaned ReplicaSet keeps making pods). */
async function deletePodMakers(run: CaseRun): Promise<void> {
  for (const [base, plural] of POD_MAKERS) {
    await run.send(tenant, 'DELETE', `${base}/${plural}?labelSelector=${CASE_LABEL}%3Dc${run.n}&propagationPolicy=Background`);
  }
}

async function ownershipSteps(run: CaseRun, c: OwnershipCase): Promise<void> {
  for (let i = 0; i < c.objects.length; i++) {
    const { kind, refs } = c.objects[i]!;
    const owners = refs.map((s) => ownerRef(c, run, i, s, true)).filter((x): x is Json => x !== undefined);
    const made = await run.send(tenant, 'POST', `${KIND_INFO[kind].base}/${KIND_INFO[kind].plural}`, ownedObject(kind, run.name(i), run.labels, owners));
    run.uids[i] = made.status === 201 ? made.json.metadata.uid : undefined;
  }
  for (const step of c.steps) {
    switch (step.op) {
      case 'own': {
        const path = objectPath(c, run, step.obj);
        const refs = step.refs.map((s) => ownerRef(c, run, step.obj, s, false)!);
        if (step.via === 'merge') await run.send(tenant, 'PATCH', path, { metadata: { ownerReferences: refs } }, 'application/merge-patch+json');
        else if (step.via === 'json') await run.send(tenant, 'PATCH', path, [{ op: 'add', path: '/metadata/ownerReferences', value: refs }], 'application/json-patch+json');
        else if (step.via === 'apply') {
          const kind = c.objects[step.obj]!.kind;
          await run.send(tenant, 'PATCH', `${path}?fieldManager=fuzz&force=true`,
            { apiVersion: KIND_INFO[kind].apiVersion, kind, metadata: { name: run.name(step.obj), ownerReferences: refs } }, 'application/apply-patch+yaml');
        } else {
          const got = await run.send(tenant, 'GET', path);
          if (got.status === 200) await run.send(tenant, 'PUT', path, { ...got.json, metadata: { ...got.json.metadata, ownerReferences: refs } });
        }
        break;
      }
      case 'delete': {
        const path = objectPath(c, run, step.obj);
        const dry = step.dryRun ? 'dryRun=All' : '';
        if (step.via === 'body') await run.send(tenant, 'DELETE', path, deleteOptions(step.policy, step.dryRun));
        else if (step.via === 'query') await run.send(tenant, 'DELETE', `${path}?${[step.policy ? `propagationPolicy=${step.policy}` : '', dry].filter(Boolean).join('&')}`);
        else await run.send(tenant, 'DELETE', `${path}?orphanDependents=${step.policy === 'Orphan'}${dry ? `&${dry}` : ''}`);
        break;
      }
      case 'deleteCollection': {
        const info = KIND_INFO[step.kind];
        await run.send(tenant, 'DELETE', `${info.base}/${info.plural}?labelSelector=${CASE_LABEL}%3Dc${run.n}${step.policy ? `&propagationPolicy=${step.policy}` : ''}`);
        break;
      }
      case 'dropFinalizers':
        await run.send(tenant, 'PATCH', objectPath(c, run, step.obj), { metadata: { finalizers: null } }, 'application/merge-patch+json');
        break;
      case 'pause':
        await sleep(step.ms);
        break;
    }
  }
}

// ---- section 2: workloads ----

const WORKLOAD_INFO: Record<Workload['kind'], { base: string; plural: string; apiVersion: string }> = {
  Job: { base: `/apis/batch/v1/namespaces/${LOOPS_NS}`, plural: 'jobs', apiVersion: 'batch/v1' },
  Deployment: { base: `/apis/apps/v1/namespaces/${LOOPS_NS}`, plural: 'deployments', apiVersion: 'apps/v1' },
  StatefulSet: { base: `/apis/apps/v1/namespaces/${LOOPS_NS}`, plural: 'statefulsets', apiVersion: 'apps/v1' },
};

/** `spec` with its pod counts clamped to REPLICAS_CAP (when set). */
function capped(spec: Record<string, Json>): Record<string, Json> {
  if (REPLICAS_CAP === undefined) return spec;
  const out = { ...spec };
  for (const k of ['replicas', 'parallelism']) if (typeof out[k] === 'number' && (out[k] as number) > REPLICAS_CAP) out[k] = REPLICAS_CAP;
  return out;
}

function workloadObject(w: Workload, name: string, labels: Record<string, string>): Record<string, unknown> {
  const t = w.template;
  const podSpec = {
    containers: [{ ...CONTAINER, ...(t.resources ? { resources: t.resources } : {}) }],
    ...(w.kind === 'Job' ? { restartPolicy: t.annotations['edgeplane.dev/simulate-exit-code'] === '137' ? 'OnFailure' : 'Never' } : {}),
    ...(t.terminationGracePeriodSeconds === undefined ? {} : { terminationGracePeriodSeconds: t.terminationGracePeriodSeconds }),
    // kube refuses a pod deadline in a ReplicaSet's or StatefulSet's template: only Jobs get one.
    ...(t.activeDeadlineSeconds === undefined || w.kind !== 'Job' ? {} : { activeDeadlineSeconds: t.activeDeadlineSeconds }),
    ...(t.unschedulable ? { nodeSelector: { 'fuzz.example.com/none': 'x' } } : {}),
  };
  const template = { metadata: { labels: { ...labels, app: name }, annotations: t.annotations }, spec: podSpec };
  const selector = w.kind === 'Job' ? {} : { selector: { matchLabels: { app: name } } };
  const service = w.kind === 'StatefulSet' ? { serviceName: name } : {};
  return { apiVersion: WORKLOAD_INFO[w.kind].apiVersion, kind: w.kind, metadata: { name, labels }, spec: { ...capped(w.spec), ...service, ...selector, template } };
}

async function runWorkloads(run: CaseRun, c: WorkloadCase): Promise<void> {
  const path = (i: number) => `${WORKLOAD_INFO[c.workloads[i]!.kind].base}/${WORKLOAD_INFO[c.workloads[i]!.kind].plural}/${run.name(i)}`;
  await thenCleanUp(async () => {
    for (let i = 0; i < c.workloads.length; i++) {
      const w = c.workloads[i]!;
      await run.send(tenant, 'POST', `${WORKLOAD_INFO[w.kind].base}/${WORKLOAD_INFO[w.kind].plural}`, workloadObject(w, run.name(i), run.labels));
    }
    for (const step of c.steps) {
      switch (step.op) {
        case 'patch':
          await run.send(tenant, 'PATCH', path(step.w), { spec: capped(step.patch) }, 'application/merge-patch+json');
          break;
        case 'scale': {
          const { replicas } = capped({ replicas: step.replicas });
          if (step.via === 'patch') await run.send(tenant, 'PATCH', `${path(step.w)}/scale`, { spec: { replicas } }, 'application/merge-patch+json');
          else {
            await run.send(tenant, 'PUT', `${path(step.w)}/scale`, {
              apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: run.name(step.w), namespace: LOOPS_NS }, spec: { replicas },
            });
          }
          break;
        }
        case 'status':
          if (step.actor === 'tenant') {
            // `edit` may not write a status (kube 1.32's bootstrap policy): never a success.
            const res = await run.send(tenant, 'PATCH', `${path(step.w)}/status`, { status: step.status }, 'application/merge-patch+json');
            if (res.status < 300) throw new Error(`the edit tenant wrote a status: ${run.steps.at(-1)}`);
          } else {
            const got = await run.send(ADMIN, 'GET', path(step.w));
            if (got.status === 200) await run.send(ADMIN, 'PUT', `${path(step.w)}/status`, { ...got.json, status: { ...got.json.status, ...step.status } });
          }
          break;
        case 'delete':
          await run.send(tenant, 'DELETE', path(step.w), deleteOptions(step.policy, false));
          break;
        case 'pause':
          await sleep(step.ms);
          break;
      }
    }
  }, () => deletePodMakers(run)); // extreme replica counts live for one case
}

// ---- section 3: CRDs and CEL ----

function crdObject(run: CaseRun, c: CrdCase): Record<string, unknown> {
  const rules = (at: string) => {
    const mine = c.schema.rules.filter((x) => x.at === at).map(({ at: _, ...rule }) => rule);
    return mine.length ? { 'x-kubernetes-validations': mine } : {};
  };
  const s = c.schema;
  const spec = {
    type: 'object',
    properties: {
      s: { type: 'string', ...(s.sPattern === undefined ? {} : { pattern: s.sPattern }), ...(s.sMaxLength === undefined ? {} : { maxLength: s.sMaxLength }), ...rules('s') },
      items: {
        type: 'array', ...(s.maxItems === undefined ? {} : { maxItems: s.maxItems }), ...rules('items'),
        items: { type: 'string', ...(s.itemPattern === undefined ? {} : { pattern: s.itemPattern }), ...rules('item') },
      },
      re: { type: 'string' },
      m: { type: 'object', additionalProperties: { type: 'string', ...(s.mapPattern === undefined ? {} : { pattern: s.mapPattern }) } },
    },
    ...rules('spec'),
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `f${run.n}s.${CRD_GROUP}` },
    spec: {
      group: CRD_GROUP, scope: 'Namespaced', names: { plural: `f${run.n}s`, singular: `f${run.n}`, kind: `F${run.n}` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
    },
  };
}

async function runCrds(run: CaseRun, c: CrdCase): Promise<void> {
  const made = await run.send(ADMIN, 'POST', CRDS, crdObject(run, c));
  if (made.status !== 201) return; // refused (a pattern RE2 refuses, a rule that does not compile): nothing to write
  const base = `/apis/${CRD_GROUP}/v1/namespaces/${LOOPS_NS}/f${run.n}s`;
  await thenCleanUp(async () => {
    // An accepted CRD is served: the tenant's list succeeds within a bounded wait.
    await waitFor(`the type of CRD f${run.n}s to be served`, async () => ((await as(r, tenant, 'GET', base)).status === 200 ? true : undefined), 20_000, 100);
    for (const w of c.writes) {
      const name = run.name(w.obj);
      const object = { apiVersion: `${CRD_GROUP}/v1`, kind: `F${run.n}`, metadata: { name }, spec: w.spec };
      if (w.op === 'create') await run.send(tenant, 'POST', base, object);
      else if (w.op === 'patch') await run.send(tenant, 'PATCH', `${base}/${name}`, { spec: w.spec }, 'application/merge-patch+json');
      else {
        const got = await run.send(tenant, 'GET', `${base}/${name}`);
        if (got.status === 200) await run.send(tenant, 'PUT', `${base}/${name}`, { ...got.json, spec: w.spec });
      }
    }
  }, async () => {
    await run.send(ADMIN, 'DELETE', `${CRDS}/f${run.n}s.${CRD_GROUP}`);
  });
}

// ---- the run ----

/** A generated case as JSON with long strings and lists abbreviated (for FUZZ_LOOPS_VERBOSE). */
function compact(c: unknown): string {
  return JSON.stringify(c, (_k, v) => {
    if (typeof v === 'string' && v.length > 80) return `${v.slice(0, 40)}…(${v.length} chars)`;
    if (Array.isArray(v) && v.length > 12) return [...v.slice(0, 4), `…(${v.length} items)`];
    return v;
  });
}

const RUNNERS = {
  ownership: { arb: ownershipCase as fc.Arbitrary<unknown>, run: (run: CaseRun, c: unknown) => runOwnership(run, c as OwnershipCase) },
  workloads: { arb: workloadCase as fc.Arbitrary<unknown>, run: (run: CaseRun, c: unknown) => runWorkloads(run, c as WorkloadCase) },
  crds: { arb: crdCase as fc.Arbitrary<unknown>, run: (run: CaseRun, c: unknown) => runCrds(run, c as CrdCase) },
};

/** Syncs and hot-key delays per work queue, from /metrics. */
async function queueCounters(): Promise<Map<string, { syncs: number; hot: number }>> {
  const text = (await as(r, ADMIN, 'GET', '/metrics', undefined, {}, REQUEST_TIMEOUT_MS)).text;
  const out = new Map<string, { syncs: number; hot: number }>();
  for (const line of text.split('\n')) {
    const m = /^edgeplane_workqueue_(syncs_total|hot_delays_total)\{name="([^"]+)"\} (\d+)/.exec(line);
    if (!m) continue;
    const q = out.get(m[2]!) ?? { syncs: 0, hot: 0 };
    if (m[1] === 'syncs_total') q.syncs = Number(m[3]);
    else q.hot = Number(m[3]);
    out.set(m[2]!, q);
  }
  return out;
}

/** Each queue's syncs and hot-key delays over one quiet window. */
async function windowDeltas(): Promise<Map<string, { syncs: number; hot: number }>> {
  const before = await queueCounters();
  await sleep(QUIET_WINDOW_MS);
  const after = await queueCounters();
  return new Map([...after].map(([q, a]) => [q, { syncs: a.syncs - (before.get(q)?.syncs ?? 0), hot: a.hot - (before.get(q)?.hot ?? 0) }]));
}

/** What an outsider can see of the cluster beyond the fuzzed namespace, as one comparable string. */
async function outside(): Promise<string> {
  const parts: string[] = [];
  const list = async (path: string, keep: (o: any) => boolean, show: (o: any) => string) => {
    const res = await http(r, 'GET', path);
    if (res.status !== 200) throw new Error(`list ${path}: ${res.status}`);
    parts.push(`${path}: ${res.json.items.filter(keep).map(show).sort().join(' ')}`);
  };
  const at = (o: any) => `${o.metadata.namespace ?? ''}/${o.metadata.name}@${o.metadata.resourceVersion}`;
  const notFuzzed = (o: any) => o.metadata.namespace !== LOOPS_NS && !(o.metadata.namespace === victim.tenant.namespace && /^probe-/.test(o.metadata.name));
  for (const path of ['/api/v1/namespaces', `${RBAC}/clusterroles`, `${RBAC}/clusterrolebindings`]) await list(path, () => true, at);
  await list(CRDS, (o) => !o.metadata.name.endsWith(`.${CRD_GROUP}`), at);
  // Nodes' statuses move with every heartbeat; what a tenant could change is the rest.
  await list('/api/v1/nodes', () => true, (o) => `${o.metadata.name}:${o.metadata.uid}:${JSON.stringify(o.spec)}:${JSON.stringify(o.metadata.labels)}`);
  for (const path of ['/api/v1/configmaps', '/api/v1/secrets', '/api/v1/serviceaccounts', '/api/v1/pods', '/api/v1/services',
    `${RBAC}/roles`, `${RBAC}/rolebindings`, '/apis/batch/v1/jobs', '/apis/apps/v1/deployments', '/apis/apps/v1/replicasets',
    '/apis/apps/v1/statefulsets', '/apis/apps/v1/controllerrevisions']) await list(path, notFuzzed, at);
  return parts.join('\n');
}

/** What the run left in the fuzzed namespace, per kind (a few names, whether deleting, and their owners). */
async function leftovers(): Promise<string> {
  const out: string[] = [];
  const collections = [...(Object.keys(KIND_INFO) as OwnKind[]).map((k) => [KIND_INFO[k].base, KIND_INFO[k].plural]), ...POD_MAKERS.slice(2, 4)];
  for (const [base, plural] of collections) {
    const items = (await http(r, 'GET', `${base}/${plural}?labelSelector=${CASE_LABEL}`)).json.items as any[];
    const some = items.slice(0, 5).map((o) => `${o.metadata.name}${o.metadata.deletionTimestamp ? ' deleting' : ''}`
      + `${(o.metadata.ownerReferences ?? []).map((ref: any) => ` ←${ref.kind}/${ref.name}`).join('')}`);
    out.push(`${items.length} ${plural}${some.length ? ` [${some.join(', ')}${items.length > 5 ? ', …' : ''}]` : ''}`);
  }
  return out.join(', ');
}

/** Who refused requests so far: flow control's rejections by level and reason, and the local listener's cap. */
async function rejections(): Promise<string> {
  const text = (await http(r, 'GET', '/metrics').catch(() => ({ text: '' }))).text;
  const apf = text.split('\n').filter((l) => l.startsWith('apiserver_flowcontrol_rejected_requests_total{') && !l.endsWith(' 0'))
    .map((l) => l.replace(/^apiserver_flowcontrol_rejected_requests_total/, '').replace(/flow_schema=|priority_level=|reason=|"/g, ''));
  const l = r.gateway.listener();
  return `flow control rejected ${apf.length ? apf.join(' ') : 'none'}; listener ${l.open} open of ${l.maxConnections}, ${l.refused} refused`;
}

const mb = (b: number) => (b / 1048576).toFixed(0);
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;

beforeAll(async () => {
  r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '2' } });
  tenant = await limitedTenant(r, LOOPS_NS, 'edit');
  // The custom resources the CRD section defines, writable by the tenant in its namespace (kube's edit role reaches
  // them through aggregation).
  for (const [what, body] of [
    ['roles', { metadata: { name: 'fuzzed-crds' }, rules: [{ apiGroups: [CRD_GROUP], resources: ['*'], verbs: ['*'] }] }],
    ['rolebindings', {
      metadata: { name: 'fuzzed-crds' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'fuzzed-crds' },
      subjects: [{ kind: 'ServiceAccount', name: 'tenant', namespace: LOOPS_NS }],
    }],
  ] as const) {
    const res = await http(r, 'POST', `${RBAC}/namespaces/${LOOPS_NS}/${what}`, body);
    expect(res.status, res.text).toBe(201);
  }
  victim = await Victim.create(r);
  // The loops run once the ServiceAccount controller has given the tenant's namespace its `default`, and the
  // simulated nodes have registered.
  await waitFor('the controllers to run', async () => ((await http(r, 'GET', `/api/v1/namespaces/${LOOPS_NS}/serviceaccounts/default`)).status === 200 ? true : undefined), 60_000, 200);
  const node = await waitFor('a simulated node', async () => (await http(r, 'GET', '/api/v1/nodes')).json?.items?.[0], 60_000, 200);
  const sentinel = (await http(r, 'GET', `/api/v1/namespaces/${victim.tenant.namespace}/configmaps/sentinel`)).json;
  const ns = (await http(r, 'GET', `/api/v1/namespaces/${LOOPS_NS}`)).json;
  outsideOwners.victim = { apiVersion: 'v1', kind: 'ConfigMap', name: 'sentinel', uid: sentinel.metadata.uid };
  outsideOwners.namespace = { apiVersion: 'v1', kind: 'Namespace', name: LOOPS_NS, uid: ns.metadata.uid };
  outsideOwners.node = { apiVersion: 'v1', kind: 'Node', name: node.metadata.name, uid: node.metadata.uid };
  // Watchers of the fuzzed types over both transports, from the current state.
  for (const [path, transport] of [['/api/v1/configmaps', 'http'], ['/api/v1/pods', 'ws'], ['/apis/batch/v1/jobs', 'http'],
    ['/apis/apps/v1/deployments', 'ws'], ['/apis/apps/v1/statefulsets', 'http'], ['/apis/apps/v1/replicasets', 'http']] as const) {
    const list = (await http(r, 'GET', path)).json;
    const rv = list.metadata.resourceVersion;
    const initial = new Map<string, string>(list.items.map((o: any) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion]));
    const url = `${path}?watch=true&resourceVersion=${rv}`;
    watched.push({ path, startRv: Number(rv), initial, watch: transport === 'http' ? await httpWatch(r, url) : await wsWatch(r, url, { ping: true }) });
  }
  idleSyncs = new Map([...(await windowDeltas())].map(([q, d]) => [q, d.syncs]));
  victimBaselineMs = await victim.baseline();
  clusterSnapshot = await outside();
  watchdog = new Watchdog(victim);
  watchdog.start();
}, 180_000);

afterAll(async () => {
  await watchdog?.stop();
  for (const w of watched) w.watch.close();
  await stopTestGateway(r);
});

describe(`fuzzing the control loops (${PER_SECTION} cases per section, seed ${SEED})`, () => {
  for (const section of ['ownership', 'workloads', 'crds'] as const) {
    it.skipIf(!SECTIONS.includes(section))(`${section}: every answer a success or a Status below 500, the victim within its bound during and after each case`, async () => {
      const { arb, run: runCase } = RUNNERS[section];
      const before = workerdStats();
      const started = performance.now();
      const from = watchdog.latencies.length;
      let peakRss = before.rssBytes;
      answers = new Map();
      const property = fc.asyncProperty(arb, async (c) => {
        const run = new CaseRun(++caseNo);
        let failure: string | undefined;
        try {
          await withDeadline(runCase(run, c), CASE_DEADLINE_MS, () => `case did not finish within ${CASE_DEADLINE_MS} ms (at: ${run.steps.at(-1)})`);
        } catch (e) {
          failure = (e as Error).message;
        }
        // The loops react after the requests return: the victim keeps probing through a settle period.
        await sleep(SETTLE_MS);
        const probes = await watchdog.take();
        if (VERBOSE) console.log(`[fuzz-loops] case #${run.n}: ${compact(c)}\n  ${run.summary()}`);
        peakRss = Math.max(peakRss, workerdStats().rssBytes);
        slimWatchLogs(watched.map((w) => w.watch));
        if (failure || probes.length) {
          throw new Error(`case #${run.n}: ${[failure, ...probes.slice(0, 3)].filter(Boolean).join('; ')} — steps: ${run.summary()}`);
        }
      });
      try {
        await assertInBatches(property, {
          runs: PER_SECTION, seed: SEED, batch: BATCH, label: section,
          afterBatch: async () => {
            await sleep(BATCH_SETTLE_MS);
            const probes = await watchdog.take();
            if (probes.length) throw new Error(`victim after the batch settled: ${probes.slice(0, 3).join('; ')}`);
          },
        });
      } finally {
        const after = workerdStats();
        const wallMs = performance.now() - started;
        const lat = watchdog.latencies.slice(from);
        console.log(`[fuzz-loops] ${section}: ${PER_SECTION} cases in ${(wallMs / 1000).toFixed(1)} s; victim ${lat.length} probes, baseline `
          + `${victimBaselineMs.toFixed(0)} ms, p50 ${percentile(lat, 0.5).toFixed(0)} ms, p99 ${percentile(lat, 0.99).toFixed(0)} ms, `
          + `max ${Math.max(...lat).toFixed(0)} ms (bound ${victim.boundMs.toFixed(0)} ms); workerd RSS ${mb(before.rssBytes)} → ${mb(after.rssBytes)} MB `
          + `(peak ${mb(peakRss)} MB), CPU ${((after.cpuMs - before.cpuMs) / wallMs * 100).toFixed(0)}% of a core; answers `
          + `${[...answers].sort(([a], [b]) => a - b).map(([code, n]) => `${code}×${n}`).join(' ')}; ${await rejections()}`);
      }
    }, LONG ? 3_600_000 : 600_000);
  }

  it('then the loops go quiet, every watcher is complete and ordered, and nothing outside the fuzzed namespace changed', async () => {
    // A gateway a section left stalled fails here at once rather than at this test's timeout.
    expect((await as(r, undefined, 'GET', '/readyz', undefined, {}, REQUEST_TIMEOUT_MS).catch((e) => ({ status: String(e) }))).status).toBe(200);
    // Converged: over one quiet window no queue delays a hot key, and none syncs much more than it did idle before
    // the run (the simulated nodes' heartbeats keep a few loops ticking).
    let last = new Map<string, { syncs: number; hot: number }>();
    const busy = () => [...last].filter(([q, d]) => d.hot > 0 || d.syncs > 2 * (idleSyncs.get(q) ?? 0) + 6);
    await waitFor('the loops to go quiet', async () => {
      last = await windowDeltas();
      return busy().length === 0 ? true : undefined;
    }, 90_000, 0).catch((e) => {
      throw new Error(`${(e as Error).message}; still busy over ${QUIET_WINDOW_MS} ms: ${busy().map(([q, d]) => `${q} ${d.syncs} syncs (idle ${idleSyncs.get(q) ?? 0}), ${d.hot} hot delays`).join(', ')}`);
    });
    console.log(`[fuzz-loops] quiet window: ${[...last].filter(([, d]) => d.syncs > 0).map(([q, d]) => `${q} ${d.syncs}`).join(', ') || 'no syncs'}; `
      + `left in ${LOOPS_NS}: ${await leftovers()}`);
    // Every CRD a case deleted is gone: its objects were cleaned up and its finalizer removed.
    await waitFor('the fuzzed CRDs to be gone', async () => {
      const left = (await http(r, 'GET', CRDS)).json.items.filter((o: any) => o.metadata.name.endsWith(`.${CRD_GROUP}`));
      return left.length === 0 ? true : undefined;
    }, 30_000, 200);
    expect(await watchdog.take()).toEqual([]);
    expect(await outside()).toBe(clusterSnapshot);
    await expectWatchersConsistent(r, watched, (k) => k.startsWith(`${LOOPS_NS}/`));
  }, 300_000);
});
