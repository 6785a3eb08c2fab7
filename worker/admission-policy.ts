// Front door: ValidatingAdmissionPolicy as a validating stage (core/admission/validating-stage.ts), run on the
// final object after the mutating steps, as kube's ValidatingAdmissionPolicy plugin (apiserver pkg/admission/
// plugin/policy/validating). Matching and evaluation are pure (core/admission/policy/); this module reads what
// they consult: the policies and bindings (./admission-policy-source.ts), each matched binding's params (generic
// CollectParams: paramRef name or selector, its namespace, parameterNotFoundAction), the namespace, and the
// authorizer's answers for `authorizer` checks (asked of the user's RBAC shard once an evaluation names them,
// then evaluated again). A request matched by no binding costs one cached snapshot read and nothing else.

import { groupResource, typesInGroupVersion, type ResourceType } from '../core/registry';
import type { KubeObject } from '../core/object-meta';
import { isPrivileged, type UserInfo } from '../core/rbac/authorize';
import type { RequestAttributes as RbacAttributes } from '../core/rbac/rules';
import { formatLabelSelector } from '../core/selectors/label-selector';
import { internalError, StatusError } from '../core/status';
import type { RequestAttributes } from '../core/admission/match';
import type { AdmissionRequest } from '../core/admission/match/review-request';
import type { ValidatingContext, ValidatingStage, ValidatingVerdict } from '../core/admission/validating-stage';
import { checkKey, type AuthzAnswer, type AuthzCheck } from '../core/admission/policy/environment';
import { RequestBudget, RUNTIME_COST_BUDGET, type PolicyInput } from '../core/admission/policy/evaluate';
import type { CompiledPolicy } from '../core/admission/policy/compile';
import { deniedStatus, dispatch, type CollectedParams, type MatchedPolicy } from '../core/admission/policy/dispatch';
import { namespacesToRead, planPolicies, policiesMayApply, policiesMayMatch } from '../core/admission/policy/plan';
import type { ParamKind, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../core/admission/policy/types';
import { readCapped } from './body';
import { ADMISSION_LIST_BYTES, ADMISSION_LIST_LIMIT } from './admission-inputs';
import { compiledPolicy, policySnapshot } from './admission-policy-source';
import { authorizerFor } from './authz';
import type { Bindings } from './env';
import type { Settings } from '../core/settings';
import { storeFor } from './stores';

/**
 * CEL steps one request may take over every policy, binding and param it meets: one kube evaluation's budget.
 * kube bounds each evaluation only; here requests share one thread, so many bindings × many params may not
 * multiply it (past it, each remaining evaluation takes its failure policy with kube's out-of-budget message).
 */
export const REQUEST_POLICY_STEPS = RUNTIME_COST_BUDGET;
/** Distinct authorizer checks one request's policies may ask, and the rounds of asking. */
export const MAX_AUTHZ_CHECKS = 64;
export const MAX_AUTHZ_ROUNDS = 4;
/** Let other requests on this thread run between expressions once a request has held it this long. */
const YIELD_AFTER_MS = 5;

export function admissionPolicyStage(env: Bindings, settings: Settings): ValidatingStage {
  return {
    name: 'ValidatingAdmissionPolicy',
    async applies(a) {
      if (!policiesMayApply(a)) return false;
      const snap = await policySnapshot(env);
      return snap.policies.length > 0 && policiesMayMatch(snap.policies, snap.byPolicy, a);
    },
    validate: (a, request, ctx) => validatePolicies(env, settings, a, request, ctx),
  };
}

export async function validatePolicies(env: Bindings, settings: Settings, a: RequestAttributes, request: AdmissionRequest, ctx: ValidatingContext): Promise<ValidatingVerdict> {
  if (!policiesMayApply(a)) return {};
  const snap = await policySnapshot(env);
  if (!snap.policies.length) return {};
  const prepared = await preparePolicies(env, snap, a, ctx.namespaceObject, compiledPolicy);
  if (!prepared) return {};
  const { matched, namespaceObject } = prepared;
  const { object: _o, oldObject: _old, ...req } = request;
  const answers = new Map<string, AuthzAnswer>();
  const input: PolicyInput = {
    object: a.object, oldObject: a.oldObject, request: req as unknown as Record<string, unknown>, namespaceObject,
    authorize: (c) => answers.get(checkKey(c)),
  };
  // One budget for the whole request, the evaluations again after authorizer answers included.
  const budget = requestBudget();
  for (let round = 0; ; round++) {
    const outcome = await dispatch(matched, input, budget);
    const pending = outcome.pending.filter((c) => !answers.has(checkKey(c)));
    if (pending.length && round < MAX_AUTHZ_ROUNDS && answers.size + pending.length <= MAX_AUTHZ_CHECKS) {
      await Promise.all(pending.map(async (c) => answers.set(checkKey(c), await authorize(env, settings, a.user, c))));
      continue;
    }
    const verdict: ValidatingVerdict = {};
    if (outcome.denied) verdict.deny = deniedStatus({ group: a.type.group, resource: a.type.resource }, deniedName(a), outcome.denied);
    if (outcome.warnings.length) verdict.warnings = outcome.warnings;
    if (Object.keys(outcome.annotations).length) verdict.auditAnnotations = outcome.annotations;
    return verdict;
  }
}

/**
 * One request's budget: REQUEST_POLICY_STEPS, the thread yielded between expressions once the request has held it
 * YIELD_AFTER_MS.
 */
export function requestBudget(): RequestBudget {
  let last = Date.now();
  const pause = async () => {
    if (Date.now() - last < YIELD_AFTER_MS) return;
    await new Promise((r) => setTimeout(r, 0));
    last = Date.now();
  };
  return new RequestBudget(REQUEST_POLICY_STEPS, pause);
}

/**
 * The policies (validating or mutating) and bindings that match the request, compiled, with each binding's params
 * (or its configuration error), and the namespace as CEL's `namespaceObject`; undefined when none match.
 */
export async function preparePolicies<P extends ValidatingAdmissionPolicy>(
  env: Bindings, snap: { policies: P[]; byPolicy: Map<string, ValidatingAdmissionPolicyBinding[]> }, a: RequestAttributes,
  known: Record<string, unknown> | null | undefined, compile: (p: P) => CompiledPolicy,
): Promise<{ matched: MatchedPolicy[]; namespaceObject: Record<string, unknown> | null } | undefined> {
  let namespace = known;
  const needed = namespacesToRead(snap.policies, snap.byPolicy, a);
  const nsName = a.type.group === '' && a.type.resource === 'namespaces' ? '' : a.namespace;
  if (namespace === undefined && (needed.length || nsName)) namespace = (await readNamespace(env, needed[0] ?? nsName)) ?? null;
  const labels = namespace ? ((namespace.metadata as { labels?: Record<string, string> } | undefined)?.labels ?? {}) : namespace;
  const planned = planPolicies(snap.policies, snap.byPolicy, a, labels);
  if (!planned.length) return undefined;
  const matched: MatchedPolicy[] = [];
  for (const p of planned) {
    const compiled = compile(p.policy as P);
    const policyError = p.errors.find((e) => e.binding === undefined);
    if (policyError) {
      matched.push({ compiled, configurationError: policyError.status.message ?? '', bindings: [] });
      continue;
    }
    const paramType = compiled.hasParams ? paramTypeOf(p.policy.spec?.paramKind) : undefined;
    if (compiled.hasParams && typeof paramType === 'string') {
      matched.push({ compiled, configurationError: paramType, bindings: [] });
      continue;
    }
    const bindings = await Promise.all(p.bindings.map(async (binding) => ({
      binding,
      params: compiled.hasParams ? await collectParams(env, paramType as ResourceType, binding, a.namespace) : { params: [null] },
    })));
    for (const e of p.errors) bindings.push({ binding: { metadata: { name: e.binding } } as ValidatingAdmissionPolicyBinding, params: { error: e.status.message ?? '' } });
    matched.push({ compiled, bindings });
  }
  return { matched, namespaceObject: nsName && namespace ? namespaceForCel(namespace as KubeObject) : null };
}

/** admission.NewForbidden's name: the request's, else the object's name or generateName. */
export function deniedName(a: RequestAttributes): string {
  const m = (a.object ?? a.oldObject)?.metadata;
  return a.name || m?.name || m?.generateName || '';
}

/** policy_dispatcher.go: the paramKind's served type, or kube's configuration error. */
function paramTypeOf(kind: ParamKind | undefined): ResourceType | string {
  const apiVersion = kind?.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const t = typesInGroupVersion(group, version).find((x) => x.kind === kind?.kind);
  return t ?? `paramKind kind \`${kind?.kind ?? ''}.${version}.${group}\` not known`;
}

/** generic.CollectParams: the binding's params (name or selector), or the configuration error. */
async function collectParams(env: Bindings, type: ResourceType, binding: ValidatingAdmissionPolicyBinding, requestNamespace: string): Promise<CollectedParams> {
  const ref = binding.spec?.paramRef;
  if (!ref) return { params: [null] };
  if (ref.namespace && !type.namespaced) return { error: 'paramRef.namespace must not be provided for a cluster-scoped `paramKind`' };
  // A namespaced paramKind without paramRef.namespace reads the request's namespace (none for a cluster-scoped request).
  const namespace = type.namespaced ? ref.namespace || requestNamespace : '';
  let params: unknown[] = [];
  if (type.namespaced && !namespace) {
    return { error: `failed to find namespace for namespaced param: paramRef.namespace is not set and the request is cluster-scoped` };
  }
  if (ref.name) {
    if (ref.selector) return { error: 'paramRef.name and paramRef.selector are mutually exclusive' };
    const got = await storeFor(env, type).get(groupResource(type), { namespace, name: ref.name, subresource: '' });
    if (got.ok) params = [JSON.parse(got.value.body)];
    else if (got.status.code !== 404) return { error: got.status.message ?? 'param read failed' };
  } else if (ref.selector) {
    const q = `?limit=${ADMISSION_LIST_LIMIT}&labelSelector=${encodeURIComponent(formatLabelSelector(ref.selector))}`;
    const res = await storeFor(env, type).list(groupResource(type), { namespace, query: q, format: { as: 'List' } });
    const text = await readCapped(res, ADMISSION_LIST_BYTES);
    if (text === undefined || res.status !== 200) return { error: `params of ${type.resource} could not be listed` };
    const list = JSON.parse(text) as { items?: KubeObject[]; metadata?: { continue?: string } };
    if (list.metadata?.continue) return { error: `more than ${ADMISSION_LIST_LIMIT} params of ${type.resource} match` };
    params = list.items ?? [];
  } else return { error: 'one of name or selector must be provided' };
  if (!params.length && ref.parameterNotFoundAction === 'Deny') return { error: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
  return { params };
}

async function readNamespace(env: Bindings, name: string): Promise<Record<string, unknown> | undefined> {
  const t = typesInGroupVersion('', 'v1').find((x) => x.resource === 'namespaces')!;
  const got = await storeFor(env, t).get(groupResource(t), { namespace: '', name, subresource: '' });
  if (got.ok) return JSON.parse(got.value.body) as Record<string, unknown>;
  if (got.status.code === 404) return undefined;
  throw new StatusError(internalError(`ValidatingAdmissionPolicy could not read namespace ${name}: ${got.status.message}`));
}

/** condition.go CreateNamespaceObject: the namespace's spec, status and the metadata fields kube keeps. */
function namespaceForCel(ns: KubeObject): Record<string, unknown> {
  const m = ns.metadata as Record<string, unknown>;
  const keep = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'finalizers'];
  const metadata: Record<string, unknown> = {};
  for (const k of keep) if (m[k] !== undefined) metadata[k] = m[k];
  const out: Record<string, unknown> = { metadata };
  const { spec, status } = ns as { spec?: unknown; status?: unknown };
  if (spec !== undefined) out.spec = spec;
  if (status !== undefined) out.status = status;
  return out;
}

/** One authorizer check, asked of the user's (or the named ServiceAccount's) RBAC shard (also webhooks' matchConditions). */
export async function authorize(env: Bindings, settings: Settings, requester: UserInfo, c: AuthzCheck): Promise<AuthzAnswer> {
  const user: UserInfo = c.user ? serviceAccountUser(c.user) : requester;
  if (isPrivileged(user)) return { allowed: true, reason: '' };
  const attrs: RbacAttributes = c.path !== undefined
    ? { verb: c.verb, resourceRequest: false, apiGroup: '', resource: '', subresource: '', name: '', namespace: '', path: c.path }
    : { verb: c.verb, resourceRequest: true, apiGroup: c.group ?? '', resource: c.resource ?? '', subresource: c.subresource ?? '', name: c.name ?? '', namespace: c.namespace ?? '', path: '' };
  try {
    const shard = authorizerFor(env, settings, user);
    return await shard.stub.review(shard.name, user, attrs);
  } catch (e) {
    return { allowed: false, reason: '', error: String((e as Error)?.message ?? e) };
  }
}

function serviceAccountUser(username: string): UserInfo {
  const ns = username.split(':')[2] ?? '';
  return { username, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] } as UserInfo;
}
