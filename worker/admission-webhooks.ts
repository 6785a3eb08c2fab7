// Front door: admission webhooks (kube's MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins) around
// one write. Only when some webhook's rules (or a mutating or validating stage) could match the request: the store
// first answers the write as a dry run, so webhooks see the final object (defaulted, admitted by the built-in
// plugins); the mutating stages (MutatingAdmissionPolicy), then the mutating webhooks patch it
// (core/admission/webhook/dispatch.ts); a mutated object is dry-run
// again, then the validating webhooks and stages judge it in parallel; and the write is sent with the final
// object — or the request as sent — under a precondition on the resourceVersion the webhooks saw, so nothing
// written in between is lost (a conflict we caused is retried). No webhook is called inside a store's write: a
// slow webhook delays only the requests it matches.

import { groupResource, lookupGroupResource, type ResourceType } from '../core/registry';
import type { KubeObject } from '../core/object-meta';
import { internalError, StatusError, type Result } from '../core/status';
import type { WriteRequest } from '../core/writes';
import type { StoreReply, WriteOptions } from '../contract/rpc';
import { isApplyPatch, parseApplyBody } from '../core/apply/apply-body';
import { patchTypeOf } from '../core/patch/patch-body';
import {
  admissionRequest, equivalentTypes, gvrOf, isExemptAdmissionConfiguration, kindOf, namespaceSelectorMatches, namespaceToRead, ruleAttributes, ruleMatches,
  type AdmissionOperation, type RequestAttributes,
} from '../core/admission/match';
import { criteriaOf, webhooksOf, type Webhook } from '../core/admission/webhook/config';
import { runMutating, runValidating, type CallResult, type DispatchDeps, type MutatingOutcome } from '../core/admission/webhook/dispatch';
import { mutateWithReinvocation, type MutatingStage } from '../core/admission/mutating-stage';
import type { ValidatingStage, ValidatingVerdict } from '../core/admission/validating-stage';
import { readCapped } from './body';
import type { Bindings } from './env';
import { storeFor } from './stores';
import { admissionCache } from './admission-cache';
import { namespaceObject } from './admission-inputs';
import { authorize } from './admission-policy';
import type { Settings } from '../core/settings';
import type { UserInfo } from '../core/rbac/authorize';
import type { Ctx, ResourceCall } from './handlers/call';

const MUTATING = lookupGroupResource('admissionregistration.k8s.io/mutatingwebhookconfigurations')!;
const VALIDATING = lookupGroupResource('admissionregistration.k8s.io/validatingwebhookconfigurations')!;
const SERVICES = lookupGroupResource('core/services')!;
const ENDPOINTS = lookupGroupResource('core/endpoints')!;

/** How long an isolate keeps the configurations it read (about an informer's lag, as worker/admission-cache.ts). */
export const WEBHOOK_CONFIG_TTL_MS = 1000;
/** The most configurations of each kind, and bytes, read per isolate: beyond either, writes are refused (fail closed). */
export const WEBHOOK_CONFIG_LIMIT = 500;
export const WEBHOOK_CONFIG_BYTES = 4 * 1024 * 1024;
/** The largest AdmissionReview answer read from a webhook. */
export const WEBHOOK_RESPONSE_BYTES = 3 * 1024 * 1024;
/** Our own precondition's conflicts retried (kube retries a conflicting patch within its update loop). */
const ATTEMPTS = 3;

interface Snapshot {
  at: number;
  mutating: Webhook[];
  validating: Webhook[];
}

let snapshot: Snapshot | undefined;
// Moves when the configurations are forgotten: a read begun before does not become the snapshot.
let generation = 0;
// Requests that find the snapshot old share one read (admissionCache.shared): each of 64 creates in flight made its
// own two list calls every second (bench/profile.ts writes-64: these reads 0.5% → 0.2% of the isolate's samples).
const SHARED_READ = 'webhooks|';

/** Forgets the configurations (a write to one through this isolate), so the writer's next request sees it. */
export function afterWebhookConfigWrite(type: ResourceType): void {
  if (type === MUTATING || type === VALIDATING || groupResource(type) === groupResource(MUTATING) || groupResource(type) === groupResource(VALIDATING)) {
    snapshot = undefined;
    generation++;
    admissionCache.delete(SHARED_READ);
  }
}

async function readConfigurations(env: Bindings, type: ResourceType): Promise<KubeObject[]> {
  const res = await storeFor(env, type).list(groupResource(type), { namespace: '', query: `?limit=${WEBHOOK_CONFIG_LIMIT}`, format: { as: 'List' } });
  const text = await readCapped(res, WEBHOOK_CONFIG_BYTES);
  if (text === undefined) throw new StatusError(internalError(`admission: ${type.resource} over ${WEBHOOK_CONFIG_BYTES} bytes`));
  if (res.status !== 200) throw new StatusError(internalError(`admission could not list ${type.resource}: ${res.status}`));
  const list = JSON.parse(text) as { items?: KubeObject[]; metadata?: { continue?: string } };
  if (list.metadata?.continue) throw new StatusError(internalError(`admission: more than ${WEBHOOK_CONFIG_LIMIT} ${type.resource}`));
  return list.items ?? [];
}

/** The isolate's webhooks, read at most once a second. */
export async function currentWebhooks(env: Bindings, now = Date.now()): Promise<Snapshot> {
  if (snapshot && now - snapshot.at < WEBHOOK_CONFIG_TTL_MS) return snapshot;
  const g = generation;
  const read = await admissionCache.shared(SHARED_READ, async (): Promise<Snapshot> => {
    const [m, v] = await Promise.all([readConfigurations(env, MUTATING), readConfigurations(env, VALIDATING)]);
    return { at: now, mutating: webhooksOf('mutating', m), validating: webhooksOf('validating', v) };
  });
  if (g === generation) snapshot = read;
  return read;
}

// Other validating stages (ValidatingAdmissionPolicy) register here; each runs beside the validating webhooks.
const stages: ValidatingStage[] = [];

export function addValidatingStage(stage: ValidatingStage): void {
  if (!stages.some((s) => s.name === stage.name)) stages.push(stage);
}

// Mutating stages (MutatingAdmissionPolicy) register here; each runs, in order, before the mutating webhooks.
const mutatingStages: MutatingStage[] = [];

export function addMutatingStage(stage: MutatingStage): void {
  if (!mutatingStages.some((s) => s.name === stage.name)) mutatingStages.push(stage);
}

/** Whether some validating or mutating stage could apply to the probe. */
async function anyStageApplies(probe: RequestAttributes): Promise<boolean> {
  const all = await Promise.all([...mutatingStages.map((s) => s.applies(probe)), ...stages.map((s) => (s.applies ? s.applies(probe) : true))]);
  return all.some(Boolean);
}

/** The mutating stages, then the mutating webhooks, reinvoked as kube's chain is (throws a refusal). */
function mutate(hooks: readonly Webhook[], attrs: RequestAttributes, deps: DispatchDeps, builtIn?: (object: KubeObject) => Promise<KubeObject>): Promise<MutatingOutcome> {
  return mutateWithReinvocation(mutatingStages, (a, ctx) => runMutating(hooks, a, deps, ctx), attrs, builtIn);
}

/** The operations a write may turn out to be, before the store says whether it creates. */
function possibleOperations(req: WriteRequest): AdmissionOperation[] {
  switch (req.verb) {
    case 'create':
      return ['CREATE'];
    case 'delete':
      return ['DELETE'];
    case 'update':
    case 'patch':
      return ['UPDATE', 'CREATE'];
    default:
      return [];
  }
}

/**
 * The webhooks whose rules could match, and whose namespaceSelector does (the namespace's labels come from the
 * admission cache): the cheap test every write pays. objectSelector and matchConditions need the final object.
 */
async function mayApply(env: Bindings, hooks: readonly Webhook[], a: RequestAttributes, operations: AdmissionOperation[]): Promise<boolean> {
  if (!hooks.length) return false;
  const types = equivalentTypes(a.type);
  const nsLabels = new Map<string, Promise<Record<string, string> | null>>();
  for (const hook of hooks) {
    const candidates = hook.matchPolicy === 'Equivalent' ? types : [a.type];
    const ruleHit = operations.some((operation) => candidates.some((t) => {
      const ra = ruleAttributes({ ...a, operation }, gvrOf(t));
      return hook.rules.some((r) => ruleMatches(r, ra));
    }));
    if (!ruleHit) continue;
    const ns = namespaceToRead(criteriaOf(hook), a);
    if (ns === undefined) return true;
    let p = nsLabels.get(ns);
    if (!p) nsLabels.set(ns, (p = namespaceObject(env, ns).then((o) => (o ? o.metadata?.labels ?? {} : null))));
    const labels = await p;
    // A missing namespace: the dispatcher words the refusal.
    if (labels === null || namespaceSelectorMatches(hook.namespaceSelector, labels)) return true;
  }
  return false;
}

type Write = (req: WriteRequest, options?: Pick<WriteOptions, 'dryRun'>) => Promise<Result<StoreReply>>;

/**
 * The write through the admission webhooks when any could apply; `write` sends a request as the handler would
 * (admission inputs, quota charge). Undefined when no webhook or stage applies: the caller writes as usual.
 */
export async function writeWithWebhooks(c: Ctx, call: ResourceCall, req: WriteRequest, dryRun: boolean, write: Write): Promise<Result<StoreReply> | undefined> {
  const { type } = call;
  const operations = possibleOperations(req);
  if (!operations.length || !('name' in req || req.verb === 'create')) return undefined;
  const subresource = req.verb === 'create' ? '' : (req as { subresource?: string }).subresource ?? '';
  if (isExemptAdmissionConfiguration(kindOf(type, subresource))) return undefined;
  const hooks = await currentWebhooks(c.env);
  const name = req.verb === 'create' ? '' : req.name;
  const probe: RequestAttributes = {
    operation: operations[0], type, subresource, namespace: namespaceOf(type, req.namespace, name), name, object: null, oldObject: null, dryRun, user: c.get('user'),
  };
  const webhooksApply = (await mayApply(c.env, hooks.mutating, probe, operations)) || (await mayApply(c.env, hooks.validating, probe, operations));
  const stagesApply = await anyStageApplies(probe);
  if (!webhooksApply && !stagesApply) return undefined;
  for (let attempt = 1; ; attempt++) {
    const out = await admitOnce(c, call, req, dryRun, write, hooks, subresource);
    if (out.retry && attempt < ATTEMPTS) continue;
    return out.result;
  }
}

/**
 * Webhooks and validating stages for a request whose object the store does not write as one of its type — a
 * subresource create with a REST storage of its own (pods/binding, pods/eviction, serviceaccounts/token) or a
 * namespace deletion: the object as the mutating webhooks left it, or the refusal thrown.
 */
export async function admitWithoutWrite(c: Ctx, call: ResourceCall, a: Pick<RequestAttributes, 'operation' | 'subresource' | 'name' | 'object' | 'oldObject' | 'dryRun' | 'options'>): Promise<KubeObject | null> {
  const { type } = call;
  if (isExemptAdmissionConfiguration(kindOf(type, a.subresource))) return a.object;
  const hooks = await currentWebhooks(c.env);
  const attrs: RequestAttributes = { ...a, type, namespace: namespaceOf(type, call.info.namespace, a.name), user: c.get('user') };
  const webhooksApply = (await mayApply(c.env, hooks.mutating, attrs, [a.operation])) || (await mayApply(c.env, hooks.validating, attrs, [a.operation]));
  const stagesApply = await anyStageApplies(attrs);
  if (!webhooksApply && !stagesApply) return a.object;
  const deps = dispatchDeps(c.env, c.get('settings'), c.get('user'));
  const annotations: Record<string, string> = {};
  try {
    const mutating = await mutate(hooks.mutating, attrs, deps);
    Object.assign(annotations, mutating.auditAnnotations);
    attrs.object = mutating.object;
    const request = admissionRequest(crypto.randomUUID(), attrs);
    const verdicts: ValidatingVerdict[] = await Promise.all([runValidating(hooks.validating, attrs, deps), ...stages.map((s) => s.validate(attrs, request, {}))]);
    for (const v of verdicts) Object.assign(annotations, v.auditAnnotations ?? {});
    const deny = verdicts.find((v) => v.deny)?.deny;
    if (deny) throw new StatusError(deny);
    return attrs.object;
  } finally {
    recordAudit(c, annotations);
  }
}

/** Whether any webhook or validating stage could apply to `operation` on the call's type and namespace. */
export async function webhooksMayApply(c: Ctx, call: ResourceCall, operation: AdmissionOperation): Promise<boolean> {
  if (isExemptAdmissionConfiguration(kindOf(call.type, ''))) return false;
  const hooks = await currentWebhooks(c.env);
  const probe: RequestAttributes = {
    operation, type: call.type, subresource: '', namespace: call.info.namespace, name: '', object: null, oldObject: null, dryRun: false, user: c.get('user'),
  };
  if ((await mayApply(c.env, hooks.mutating, probe, [operation])) || (await mayApply(c.env, hooks.validating, probe, [operation]))) return true;
  return anyStageApplies(probe);
}

const namespaceOf = (type: ResourceType, namespace: string, name: string) => (type.group === '' && type.resource === 'namespaces' ? name : namespace);

interface Once {
  result: Result<StoreReply>;
  retry?: boolean;
}

async function admitOnce(c: Ctx, call: ResourceCall, req: WriteRequest, dryRun: boolean, write: Write, hooks: Snapshot, subresource: string): Promise<Once> {
  const { type } = call;
  const store = storeFor(c.env, type);
  const gr = groupResource(type);
  const user = c.get('user');
  // The object before the request (updates, patches, deletes).
  let oldObject: KubeObject | null = null;
  if (req.verb !== 'create') {
    const got = await store.get(gr, { namespace: req.namespace, name: (req as { name: string }).name, subresource, view: call.view?.apiVersion });
    if (got.ok) oldObject = JSON.parse(got.value.body) as KubeObject;
    else if (got.status.code !== 404 || req.verb === 'delete') return { result: got };
  }
  let operation: AdmissionOperation;
  let object: KubeObject | null = null;
  if (req.verb === 'delete') {
    operation = 'DELETE';
  } else {
    const trial = await write(req, { dryRun: true });
    if (!trial.ok) return { result: trial };
    operation = req.verb === 'create' || trial.value.code === 201 ? 'CREATE' : 'UPDATE';
    if (operation === 'CREATE') oldObject = null;
    object = JSON.parse(trial.value.body) as KubeObject;
  }
  const name = object?.metadata?.name ?? oldObject?.metadata?.name ?? '';
  const attrs: RequestAttributes = {
    operation, type, subresource, namespace: namespaceOf(type, req.namespace, name), name: req.verb === 'create' && !bodyName(req.body) ? '' : name,
    object, oldObject, dryRun, user, options: optionsOf(req, operation, dryRun),
  };
  const deps = dispatchDeps(c.env, c.get('settings'), c.get('user'));
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  let finalReq: WriteRequest = req;
  let ownPrecondition = false;
  // Before the second round: the built-in plugins again (the store's dry run of what the first round left), the
  // identity the store gives a create's dry run kept as the first round saw it. A dry run that refuses leaves the
  // object as it was: only the final object's is the answer (kube validates after every mutating plugin).
  const builtIn = async (o: KubeObject): Promise<KubeObject> => {
    const again = await write(asWriteOfObject(req, operation, o, oldObject), { dryRun: true });
    if (!again.ok) return o;
    const got = JSON.parse(again.value.body) as KubeObject;
    return { ...got, metadata: { ...got.metadata, uid: o.metadata?.uid, creationTimestamp: o.metadata?.creationTimestamp } };
  };
  try {
    const mutating = await mutate(hooks.mutating, attrs, deps, builtIn);
    warnings.push(...mutating.warnings);
    Object.assign(annotations, mutating.auditAnnotations);
    if (mutating.changed && mutating.object) {
      finalReq = asWriteOfObject(req, operation, mutating.object, oldObject);
      ownPrecondition = operation === 'UPDATE';
      // The mutated object through the store again (defaults, built-in admission, validation) before judging it.
      const trial = await write(finalReq, { dryRun: true });
      if (!trial.ok) return { result: trial };
      attrs.object = JSON.parse(trial.value.body) as KubeObject;
    } else if (req.verb === 'create' && !attrs.name && object?.metadata?.name) {
      // generateName: the name the webhooks saw is the one written.
      finalReq = { ...req, body: withName(req.body, object.metadata.name) };
    } else if (oldObject && operation !== 'CREATE') {
      const guarded = withPrecondition(req, oldObject);
      finalReq = guarded.req;
      ownPrecondition = guarded.own;
    }
    const request = admissionRequest(crypto.randomUUID(), attrs);
    const verdicts: ValidatingVerdict[] = await Promise.all([
      runValidating(hooks.validating, attrs, deps),
      ...stages.map((s) => s.validate(attrs, request, {})),
    ]);
    for (const v of verdicts) {
      warnings.push(...(v.warnings ?? []));
      Object.assign(annotations, v.auditAnnotations ?? {});
    }
    const deny = verdicts.find((v) => v.deny)?.deny;
    if (deny) return { result: { ok: false, status: deny } };
  } catch (e) {
    if (e instanceof StatusError) return { result: { ok: false, status: e.status } };
    throw e;
  } finally {
    recordAudit(c, annotations);
  }
  const result = await write(finalReq, { dryRun });
  if (!result.ok) return { result, retry: ownPrecondition && result.status.code === 409 };
  if (warnings.length) result.value.warnings = [...(result.value.warnings ?? []), ...warnings];
  return { result };
}

function recordAudit(c: Ctx, annotations: Record<string, string>): void {
  if (!Object.keys(annotations).length) return;
  const ev = c.get('audit')?.event;
  if (ev) ev.annotations = { ...ev.annotations, ...annotations };
}

function withName(body: string, name: string): string {
  try {
    const o = JSON.parse(body) as KubeObject;
    return JSON.stringify({ ...o, metadata: { ...o.metadata, name } });
  } catch {
    return body;
  }
}

function bodyName(body: string): string {
  try {
    const o = parseApplyBody(body, 'Ignore', undefined) as { metadata?: { name?: unknown } };
    return typeof o?.metadata?.name === 'string' ? o.metadata.name : '';
  } catch {
    return '';
  }
}

/** CreateOptions, UpdateOptions, PatchOptions or DeleteOptions, as the AdmissionReview carries them. */
function optionsOf(req: WriteRequest, operation: AdmissionOperation, dryRun: boolean): Record<string, unknown> {
  const base: Record<string, unknown> = {};
  if (dryRun) base.dryRun = ['All'];
  if (req.verb === 'delete') {
    let body: Record<string, unknown> = {};
    try {
      if (req.body.trim()) body = JSON.parse(req.body) as Record<string, unknown>;
    } catch {
      body = {};
    }
    return { ...body, ...base, kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' };
  }
  const manager = (req as { fieldManager?: string }).fieldManager;
  if (manager) base.fieldManager = manager;
  const kind = operation === 'CREATE' ? 'CreateOptions' : req.verb === 'patch' ? 'PatchOptions' : 'UpdateOptions';
  return { kind, apiVersion: 'meta.k8s.io/v1', ...base };
}

// Set by the store, never by a client: dropped from an object a write sends back (managedFields stay: the dry run
// computed them for the request's own fields, and they are stored as sent).
function stripServerFields(o: KubeObject, keepVersion?: string): KubeObject {
  const meta = { ...o.metadata } as Record<string, unknown>;
  delete meta.uid;
  delete meta.creationTimestamp;
  delete meta.generation;
  delete meta.resourceVersion;
  if (keepVersion !== undefined) meta.resourceVersion = keepVersion;
  return { ...o, metadata: meta as KubeObject['metadata'] };
}

/** The mutated object as the write: a create, or a PUT guarded by the resourceVersion the webhooks saw. */
function asWriteOfObject(req: WriteRequest, operation: AdmissionOperation, object: KubeObject, old: KubeObject | null): WriteRequest {
  const attribution = { fieldManager: (req as { fieldManager?: string }).fieldManager, userAgent: (req as { userAgent?: string }).userAgent, view: req.view, managedFieldsAsSent: true };
  if (operation === 'CREATE') {
    if (req.verb === 'create') return { ...req, body: JSON.stringify(stripServerFields(object)), managedFieldsAsSent: true };
    // An apply or PUT that creates: a create of the final object (an apply's managedFields then record an Update).
    const refused = (req as { createRefused?: unknown }).createRefused;
    return { verb: 'create', namespace: req.namespace, body: JSON.stringify(stripServerFields(object)), ...attribution, ...(refused ? { createRefused: refused } : {}) } as WriteRequest;
  }
  const rv = old?.metadata?.resourceVersion;
  const body = { ...object, metadata: { ...object.metadata, resourceVersion: rv } };
  return { verb: 'update', namespace: req.namespace, name: (req as { name: string }).name, subresource: (req as { subresource?: string }).subresource, body: JSON.stringify(body), ...attribution } as WriteRequest;
}

/**
 * The request as sent, made conditional on the resourceVersion the webhooks judged (`own`: the condition is ours,
 * so its conflict is retried; a client's own precondition stays and its conflict is the client's).
 */
export function withPrecondition(req: WriteRequest, old: KubeObject): { req: WriteRequest; own: boolean } {
  const rv = old.metadata?.resourceVersion;
  if (!rv) return { req, own: false };
  try {
    if (req.verb === 'delete') {
      const body = req.body.trim() ? (JSON.parse(req.body) as Record<string, unknown>) : { kind: 'DeleteOptions', apiVersion: 'v1' };
      const pre = (body.preconditions ?? {}) as Record<string, unknown>;
      if (pre.resourceVersion) return { req, own: false };
      return { req: { ...req, body: JSON.stringify({ ...body, preconditions: { ...pre, resourceVersion: rv } }) }, own: true };
    }
    if (req.verb === 'update') {
      const body = JSON.parse(req.body) as KubeObject;
      if (body.metadata?.resourceVersion) return { req, own: false };
      return { req: { ...req, body: JSON.stringify({ ...body, metadata: { ...body.metadata, resourceVersion: rv } }) }, own: true };
    }
    if (req.verb === 'patch') {
      if (isApplyPatch(req.patchType)) {
        const body = parseApplyBody(req.body, 'Ignore', undefined) as KubeObject;
        if (body.metadata?.resourceVersion) return { req, own: false };
        return { req: { ...req, body: JSON.stringify({ ...body, metadata: { ...body.metadata, resourceVersion: rv } }) }, own: true };
      }
      const kind = patchTypeOf(req.patchType);
      const body = JSON.parse(req.body) as unknown;
      if (kind === 'json' && Array.isArray(body)) {
        return { req: { ...req, body: JSON.stringify([...body, { op: 'replace', path: '/metadata/resourceVersion', value: rv }]) }, own: true };
      }
      if ((kind === 'merge' || kind === 'strategic') && body && typeof body === 'object' && !Array.isArray(body)) {
        const b = body as KubeObject;
        if (b.metadata?.resourceVersion) return { req, own: false };
        return { req: { ...req, body: JSON.stringify({ ...b, metadata: { ...(b.metadata ?? {}), resourceVersion: rv } }) }, own: true };
      }
    }
  } catch {
    // A body the dry run accepted always parses; anything else is written as sent.
  }
  return { req, own: false };
}

/**
 * The webhook transport: fetch with the webhook's deadline, the namespaces read through the admission cache, and
 * matchConditions' `authorizer` checks answered for `user` by the RBAC shards.
 */
export function dispatchDeps(env: Bindings, settings: Settings, user: UserInfo): DispatchDeps {
  return {
    authorize: (check) => authorize(env, settings, user, check),
    uid: () => crypto.randomUUID(),
    namespaceLabels: async (name) => {
      const ns = await namespaceObject(env, name);
      return ns ? ns.metadata?.labels ?? {} : null; // null: missing
    },
    call: (hook, review) => callWebhook(env, hook, review),
  };
}


/** Where the webhook is: its URL, or a Service the simulated cluster can resolve to one reachable from here. */
async function webhookUrl(env: Bindings, hook: Webhook): Promise<{ url: string } | { error: string; url: string }> {
  const cc = hook.clientConfig;
  if (cc.url) return { url: cc.url };
  const svc = cc.service;
  if (!svc?.name || !svc.namespace) return { error: 'no clientConfig.url or clientConfig.service', url: '' };
  const port = svc.port ?? 443;
  const path = svc.path ?? '';
  const nominal = `https://${svc.name}.${svc.namespace}.svc:${port}${path}`;
  const got = await storeFor(env, SERVICES).get(groupResource(SERVICES), { namespace: svc.namespace, name: svc.name, subresource: '' });
  if (!got.ok) return { error: `service "${svc.name}" not found`, url: nominal };
  const service = JSON.parse(got.value.body) as { spec?: { type?: string; externalName?: string; ports?: { port?: number; targetPort?: number | string; name?: string }[] } };
  if (service.spec?.type === 'ExternalName' && service.spec.externalName) return { url: `https://${service.spec.externalName}:${port}${path}` };
  // Endpoints whose addresses are reachable from the gateway (not simulated pod IPs): the first ready one.
  const sp = service.spec?.ports?.find((p) => p.port === port);
  if (!sp) return { error: `no service port ${port} found for service "${svc.name}"`, url: nominal };
  const ep = await storeFor(env, ENDPOINTS).get(groupResource(ENDPOINTS), { namespace: svc.namespace, name: svc.name, subresource: '' });
  if (!ep.ok) return { error: `endpoints "${svc.name}" not found`, url: nominal };
  const subsets = (JSON.parse(ep.value.body) as { subsets?: { addresses?: { ip?: string }[]; ports?: { port?: number; name?: string }[] }[] }).subsets ?? [];
  for (const s of subsets) {
    const ip = s.addresses?.find((a) => typeof a.ip === 'string')?.ip;
    const p = s.ports?.find((x) => (sp.name ? x.name === sp.name : true))?.port;
    if (ip && p) return { url: `https://${ip.includes(':') ? `[${ip}]` : ip}:${p}${path}` };
  }
  return { error: `no endpoints available for service "${svc.name}"`, url: nominal };
}

/** One POST of the AdmissionReview, within timeoutSeconds; the failure's text is the Go client's where it can be. */
async function callWebhook(env: Bindings, hook: Webhook, review: unknown): Promise<CallResult> {
  const where = await webhookUrl(env, hook);
  const timeout = `${hook.timeoutSeconds}s`;
  const withTimeout = where.url ? `${where.url}${where.url.includes('?') ? '&' : '?'}timeout=${timeout}` : '';
  if ('error' in where) return { ok: false, reason: `Post ${JSON.stringify(withTimeout)}: ${where.error}` };
  let parsed: URL;
  try {
    parsed = new URL(where.url);
  } catch {
    return { ok: false, reason: `Post ${JSON.stringify(withTimeout)}: invalid URL` };
  }
  if (parsed.protocol !== 'https:') return { ok: false, reason: `Post ${JSON.stringify(withTimeout)}: unsupported protocol scheme ${JSON.stringify(parsed.protocol.replace(/:$/, ''))}` };
  const signal = AbortSignal.timeout(hook.timeoutSeconds * 1000);
  try {
    const res = await fetch(withTimeout, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, */*', 'user-agent': 'kube-apiserver-admission' },
      body: JSON.stringify(review),
      signal,
    });
    const text = await readCapped(res, WEBHOOK_RESPONSE_BYTES);
    if (text === undefined) return { ok: false, reason: `Post ${JSON.stringify(withTimeout)}: response body over ${WEBHOOK_RESPONSE_BYTES} bytes` };
    if (res.status < 200 || res.status > 299) {
      return { ok: false, reason: `the server responded with the status code ${res.status} but did not return more information` };
    }
    try {
      return { ok: true, body: JSON.parse(text) };
    } catch (e) {
      return { ok: false, reason: `Post ${JSON.stringify(withTimeout)}: ${(e as Error).message}` };
    }
  } catch (e) {
    const err = e as Error;
    const reason = signal.aborted || err?.name === 'TimeoutError' || err?.name === 'AbortError' ? 'context deadline exceeded' : String(err?.message ?? err);
    return { ok: false, reason: `Post ${JSON.stringify(withTimeout)}: ${reason}` };
  }
}
