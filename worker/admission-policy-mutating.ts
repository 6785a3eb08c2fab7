// Front door: MutatingAdmissionPolicy (admissionregistration.k8s.io/v1alpha1, served when RUNTIME_CONFIG enables
// it) as a mutating stage (core/admission/mutating-stage.ts), run on the store's dry-run object just before the
// mutating webhooks, as kube's MutatingAdmissionPolicy plugin runs before MutatingAdmissionWebhook. Matching,
// params, namespace and the authorizer's answers are the validating policy's (./admission-policy.ts); the
// mutations are core/admission/policy/mutate.ts's, merged by the kind's schema. A refusal (an error under
// failurePolicy Fail) is thrown as kube's Status. Nothing is read when no binding exists.

import { kindNode } from '../core/schema/compile';
import type { SchemaNode } from '../core/schema/node';
import { customApplyNode } from '../core/apply/custom-schema';
import { DEDUCED } from '../core/apply/schema-view';
import { admissionRequest, kindOf, type RequestAttributes } from '../core/admission/match';
import type { MutatingStage } from '../core/admission/mutating-stage';
import { checkKey, type AuthzAnswer } from '../core/admission/policy/environment';
import type { PolicyInput } from '../core/admission/policy/evaluate';
import { dispatchMutating, MUTATING_POLICY_PLUGIN, mutatingRefusalStatus } from '../core/admission/policy/mutate';
import type { ReinvocationContext } from '../core/admission/reinvocation';
import { policiesMayApply, policiesMayMatch } from '../core/admission/policy/plan';
import type { ValidatingAdmissionPolicy } from '../core/admission/policy/types';
import { StatusError } from '../core/status';
import type { Settings } from '../core/settings';
import { compiledMutatingPolicy, mutatingPolicySnapshot } from './admission-policy-source';
import { authorize, deniedName, MAX_AUTHZ_CHECKS, MAX_AUTHZ_ROUNDS, preparePolicies, requestBudget } from './admission-policy';
import type { Bindings } from './env';

/** The schema a mutation's ApplyConfiguration is merged by: the object's kind's (a subresource's own kind). */
function schemaOf(a: RequestAttributes): SchemaNode {
  if (a.type.custom && !a.subresource) return customApplyNode(a.type.custom.schema);
  const k = kindOf(a.type, a.subresource);
  return kindNode(k.group, k.version, k.kind) ?? DEDUCED;
}

export function mutatingPolicyStage(env: Bindings, settings: Settings): MutatingStage {
  return {
    name: 'MutatingAdmissionPolicy',
    async applies(a) {
      if (!policiesMayApply(a)) return false;
      const snap = await mutatingPolicySnapshot(env);
      return snap.policies.length > 0 && policiesMayMatch(snap.policies as ValidatingAdmissionPolicy[], snap.byPolicy, a);
    },
    mutate: (a, ctx) => mutatePolicies(env, settings, a, ctx),
  };
}

/** One round of the policies for the request (`ctx`: its reinvocation context, both rounds sharing one cost budget). */
export async function mutatePolicies(env: Bindings, settings: Settings, a: RequestAttributes, ctx: ReinvocationContext) {
  const unchanged = { object: a.object, changed: false };
  if (!policiesMayApply(a) || !a.object) return unchanged;
  const snap = await mutatingPolicySnapshot(env);
  if (!snap.policies.length) return unchanged;
  const prepared = await preparePolicies(env, { policies: snap.policies as ValidatingAdmissionPolicy[], byPolicy: snap.byPolicy }, a, undefined, (p) => compiledMutatingPolicy(p));
  if (!prepared) return unchanged;
  const { object: _o, oldObject: _old, ...req } = admissionRequest(crypto.randomUUID(), a);
  const answers = new Map<string, AuthzAnswer>();
  const input: PolicyInput = {
    object: a.object, oldObject: a.oldObject, request: req as unknown as Record<string, unknown>, namespaceObject: prepared.namespaceObject,
    authorize: (c) => answers.get(checkKey(c)),
  };
  const budget = ctx.value(`${MUTATING_POLICY_PLUGIN}/budget`, requestBudget);
  const node = schemaOf(a);
  // A custom resource (and its status) is decoded as unstructured (no strict decoding of a JSONPatch's result); its
  // scale is a typed autoscaling/v1 Scale.
  const typed = !a.type.custom || a.subresource === 'scale';
  for (let round = 0; ; round++) {
    // A round evaluated again once the authorizer answered: only the last try's reinvocation bookkeeping counts.
    const tried = ctx.fork();
    const outcome = await dispatchMutating(prepared.matched, input, budget, node, tried, typed);
    const pending = outcome.pending.filter((c) => !answers.has(checkKey(c)));
    if (pending.length && round < MAX_AUTHZ_ROUNDS && answers.size + pending.length <= MAX_AUTHZ_CHECKS) {
      await Promise.all(pending.map(async (c) => answers.set(checkKey(c), await authorize(env, settings, a.user, c))));
      continue;
    }
    ctx.adopt(tried);
    if (outcome.status) throw new StatusError(outcome.status);
    if (outcome.refusal) throw new StatusError(mutatingRefusalStatus({ group: a.type.group, resource: a.type.resource }, deniedName(a), outcome.refusal));
    return { object: outcome.object, changed: outcome.changed };
  }
}
