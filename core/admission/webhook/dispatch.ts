// Core: calling admission webhooks for one request, as kube-apiserver's dispatchers do (apiserver/pkg/admission/
// plugin/webhook/mutating/dispatcher.go and validating/dispatcher.go): mutating webhooks one by one in order,
// each seeing the object as the previous left it, its JSON patch applied, with one reinvocation round for
// `reinvocationPolicy: IfNeeded` webhooks when a later one changed the object; then validating webhooks all at
// once, the first refusal (in webhook order) winning. failurePolicy decides whether a call that fails refuses
// (500 `failed calling webhook "<name>": …`) or is skipped; a dry-run request is refused by a webhook that may
// have side effects. I/O is injected: the front door (worker/admission-webhooks.ts) calls the URL and reads
// namespaces.

import { sameJson, type KubeObject } from '../../object-meta';
import { internalError, StatusError, type Status } from '../../status';
import { applyJsonPatch } from '../../patch/json-patch';
import type { RequestAttributes } from '../match/attributes';
import { celActivation, evaluateMatchConditions } from '../match/conditions';
import { matchRequest, namespaceToRead, type Invocation } from '../match/matcher';
import { admissionRequest, admissionReview, type AdmissionRequest } from '../match/review-request';
import { forbidden } from '../../status';
import type { ValidatingVerdict } from '../validating-stage';
import { bothRounds, defaulted } from '../mutating-stage';
import { ReinvocationContext } from '../reinvocation';
import { checkKey, requestAuthorizer, type AuthzAnswer, type AuthzCheck } from '../policy/environment';
import { criteriaOf, type Webhook } from './config';
import { callingWebhookError, callingWebhookStatus, deniedStatus, dryRunUnsupported, verifyAdmissionResponse, type AdmissionResponse } from './response';

/** One HTTP exchange: the decoded JSON answer, or why there is none (`Post "<url>": <error>`). */
export type CallResult = { ok: true; body: unknown } | { ok: false; reason: string };

export interface DispatchDeps {
  /** POSTs the AdmissionReview to the webhook within its timeoutSeconds. */
  call(hook: Webhook, review: unknown): Promise<CallResult>;
  /** The labels of a namespace (null: not found). */
  namespaceLabels(name: string): Promise<Record<string, string> | null>;
  uid(): string;
  /**
   * Answers one `authorizer` check of a matchCondition for the request's user (the real authorizer); absent: such
   * checks read as errored decisions.
   */
  authorize?(check: AuthzCheck): Promise<AuthzAnswer>;
}

/** Distinct authorizer checks one webhook's matchConditions may ask, and the rounds of asking (as the policies'). */
const MAX_AUTHZ_CHECKS = 64;
const MAX_AUTHZ_ROUNDS = 4;

export interface DispatchOutcome {
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

export interface MutatingOutcome extends DispatchOutcome {
  object: KubeObject | null;
  changed: boolean;
}

const SIDE_EFFECT_FREE = new Set(['None', 'NoneOnDryRun']);

/** ShouldCallHook: the invocation, null when the hook does not apply, or throws the refusal kube gives. */
async function shouldCall(hook: Webhook, a: RequestAttributes, deps: DispatchDeps, nsCache: Map<string, Promise<Record<string, string> | null>>): Promise<{ invocation: Invocation; request: AdmissionRequest } | null> {
  const criteria = criteriaOf(hook);
  const ns = namespaceToRead(criteria, a);
  let labels: Record<string, string> | null | undefined;
  if (ns !== undefined) {
    let p = nsCache.get(ns);
    if (!p) nsCache.set(ns, (p = deps.namespaceLabels(ns)));
    labels = await p;
  }
  const m = matchRequest(criteria, a, labels);
  if (m.matches === false) return null;
  if (m.matches === 'error') throw new StatusError(m.status);
  const request = admissionRequest(deps.uid(), a, m.invocation);
  if (hook.matchConditions.length) {
    const r = await conditionsWithAuthorizer(hook, a, request, deps);
    // generic/webhook.go: an error under Fail is a 403 about the object.
    if (r.matches === 'error') throw new StatusError(forbidden({ group: a.type.group, resource: a.type.resource }, a.name, r.error));
    if (!r.matches) return null;
  }
  return { invocation: m.invocation, request };
}

/**
 * matchConditions with `authorizer` (matchconditions/matcher.go with a caching authorizer): evaluated; the checks
 * they asked that are not answered yet are resolved through deps.authorize, then evaluated again (at most
 * MAX_AUTHZ_ROUNDS times and MAX_AUTHZ_CHECKS checks; past that the unanswered checks stay errored decisions).
 */
async function conditionsWithAuthorizer(hook: Webhook, a: RequestAttributes, request: AdmissionRequest, deps: DispatchDeps) {
  const answers = new Map<string, AuthzAnswer>();
  for (let round = 0; ; round++) {
    const pending = new Map<string, AuthzCheck>();
    const lookup = (c: AuthzCheck) => {
      const k = checkKey(c);
      const known = answers.get(k);
      if (!known) pending.set(k, c);
      return known;
    };
    const authorizer = requestAuthorizer(lookup, request);
    const r = evaluateMatchConditions(hook.matchConditions, celActivation({ object: a.object, oldObject: a.oldObject, request, authorizer }), hook.failurePolicy);
    const authorize = deps.authorize;
    if (!pending.size || !authorize || round >= MAX_AUTHZ_ROUNDS || answers.size + pending.size > MAX_AUTHZ_CHECKS) return r;
    await Promise.all([...pending].map(async ([k, c]) => answers.set(k, await authorize(c))));
  }
}

type HookResult =
  | { kind: 'ok'; response: AdmissionResponse }
  | { kind: 'callError'; reason: string }
  | { kind: 'status'; status: Status };

async function callHook(hook: Webhook, a: RequestAttributes, request: AdmissionRequest, deps: DispatchDeps): Promise<HookResult> {
  if (a.dryRun) {
    if (hook.sideEffects === undefined) return { kind: 'callError', reason: 'Webhook SideEffects is nil' };
    if (!SIDE_EFFECT_FREE.has(hook.sideEffects)) return { kind: 'status', status: dryRunUnsupported(hook.name) };
  }
  const res = await deps.call(hook, admissionReview(request));
  if (!res.ok) return { kind: 'callError', reason: `failed to call webhook: ${res.reason}` };
  const verified = verifyAdmissionResponse(request.uid, hook.kind === 'mutating', res.body);
  if ('error' in verified) return { kind: 'callError', reason: `received invalid webhook response: ${verified.error}` };
  return { kind: 'ok', response: verified };
}

function addAll(out: DispatchOutcome, hook: Webhook, r: { warnings: string[]; auditAnnotations: Record<string, string> }): void {
  out.warnings.push(...r.warnings);
  for (const [k, v] of Object.entries(r.auditAnnotations)) out.auditAnnotations[`${hook.name}/${k}`] = v;
}

/** kube's plugin name: the key of the webhooks' part of the request's ReinvocationContext. */
export const MUTATING_WEBHOOK_PLUGIN = 'MutatingAdmissionWebhook';

/**
 * Runs the mutating webhooks on `a.object`; returns the object they leave, or throws the refusal. With `ctx`, one
 * round of the request's chain (the caller runs the second when `ctx.shouldReinvoke`); without, the webhooks
 * alone, reinvoked as that chain would.
 */
export async function runMutating(hooks: readonly Webhook[], a: RequestAttributes, deps: DispatchDeps, ctx?: ReinvocationContext): Promise<MutatingOutcome> {
  if (ctx) return mutatingRound(hooks, a, deps, ctx);
  const own = new ReinvocationContext();
  const first = await mutatingRound(hooks, a, deps, own);
  if (!own.shouldReinvoke) return first;
  own.isReinvoke = true;
  return bothRounds(first, await mutatingRound(hooks, { ...a, object: first.object }, deps, own));
}

/**
 * One round (mutating/dispatcher.go Dispatch): each webhook that matches, in order; in the second round only those
 * due again (reinvocation.ts). A patch that changes the object makes the IfNeeded webhooks called since the last
 * change due, and the chain run again; the patched object is defaulted, as kube's decoder defaults it.
 */
async function mutatingRound(hooks: readonly Webhook[], a: RequestAttributes, deps: DispatchDeps, ctx: ReinvocationContext): Promise<MutatingOutcome> {
  const out: MutatingOutcome = { object: a.object, changed: false, warnings: [], auditAnnotations: {} };
  const nsCache = new Map<string, Promise<Record<string, string> | null>>();
  const state = ctx.begin(MUTATING_WEBHOOK_PLUGIN, a.object);
  const round = ctx.isReinvoke ? 1 : 0;
  try {
    for (let i = 0; i < hooks.length; i++) {
      const hook = hooks[i];
      const attrs: RequestAttributes = { ...a, object: out.object };
      const should = await shouldCall(hook, attrs, deps, nsCache);
      if (!should) continue;
      // A webhook is never called for the first time in the reinvocation round.
      if (ctx.isReinvoke && !state.shouldReinvoke(hook.uid)) continue;
      const result = await callHook(hook, attrs, should.request, deps);
      let changed = false;
      if (result.kind === 'ok') {
        addAll(out, hook, result.response);
        if (!result.response.allowed) throw new StatusError(deniedStatus(hook.name, result.response.result));
        const patch = result.response.patch;
        if (Array.isArray(patch) && patch.length) {
          if (!out.object) throw new StatusError(internalError(`admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`));
          let patched: unknown;
          try {
            patched = applyJsonPatch(out.object, patch);
          } catch (e) {
            throw new StatusError(internalError(e instanceof StatusError ? e.status.message ?? String(e) : String((e as Error).message ?? e)));
          }
          changed = !sameJson(patched, out.object);
          out.object = defaulted(patched as KubeObject);
          if (changed) out.changed = true;
        }
        out.auditAnnotations[`mutation.webhook.admission.k8s.io/round_${round}_index_${i}`] = JSON.stringify({ configuration: hook.configurationName, webhook: hook.name, mutated: changed });
      } else if (result.kind === 'callError') {
        if (hook.failurePolicy !== 'Ignore') throw new StatusError(callingWebhookStatus(hook.name, result.reason));
        out.auditAnnotations[`failed-open.mutation.webhook.admission.k8s.io/round_${round}_index_${i}`] = hook.name;
      } else {
        throw new StatusError(result.status);
      }
      if (changed) {
        state.requireReinvokingPreviouslyInvoked();
        ctx.shouldReinvoke = true;
      }
      if (hook.reinvocationPolicy === 'IfNeeded') state.addPreviouslyInvoked(hook.uid);
    }
  } finally {
    state.setLastInvocationOutput(out.object);
  }
  return out;
}

/** Runs the validating webhooks on the final object, all at once; the first refusal in webhook order wins. */
export async function runValidating(hooks: readonly Webhook[], a: RequestAttributes, deps: DispatchDeps): Promise<ValidatingVerdict & DispatchOutcome> {
  const nsCache = new Map<string, Promise<Record<string, string> | null>>();
  const out: ValidatingVerdict & DispatchOutcome = { warnings: [], auditAnnotations: {} };
  // ShouldCallHook runs for every hook before any call, and its refusal stops the request (validating/dispatcher.go).
  const invocations: { hook: Webhook; index: number; request: AdmissionRequest }[] = [];
  for (let i = 0; i < hooks.length; i++) {
    const should = await shouldCall(hooks[i], a, deps, nsCache);
    if (should) invocations.push({ hook: hooks[i], index: i, request: should.request });
  }
  const results = await Promise.all(invocations.map(({ hook, request }) => callHook(hook, a, request, deps)));
  results.forEach((result, k) => {
    const { hook, index } = invocations[k];
    if (result.kind === 'ok') {
      addAll(out, hook, result.response);
      if (!result.response.allowed) out.deny ??= deniedStatus(hook.name, result.response.result);
    } else if (result.kind === 'callError') {
      if (hook.failurePolicy === 'Ignore') out.auditAnnotations[`failed-open.validating.webhook.admission.k8s.io/round_0_index_${index}`] = hook.name;
      else out.deny ??= callingWebhookStatus(hook.name, result.reason);
    } else {
      out.deny ??= result.status;
    }
  });
  return out;
}

export { callingWebhookError };
