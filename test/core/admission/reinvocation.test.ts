// core/admission/reinvocation.ts and mutating-stage.ts mutateWithReinvocation: kube 1.32's reinvocation of the
// mutating chain across MutatingAdmissionPolicy and the mutating webhooks (apiserver pkg/admission/reinvocation.go,
// webhook/mutating and policy/mutating dispatcher.go + reinvocationcontext.go): which plugins run again in the
// second round, which are skipped, and the built-in plugins' second run in between.
import { describe, expect, it } from 'vitest';
import { kindNode } from '../../../core/schema/compile';
import { lookupGroupResource } from '../../../core/registry';
import type { KubeObject } from '../../../core/object-meta';
import type { RequestAttributes } from '../../../core/admission/match';
import { mutateWithReinvocation, type MutatingStage } from '../../../core/admission/mutating-stage';
import { PluginReinvocation, ReinvocationContext } from '../../../core/admission/reinvocation';
import { compileMutatingPolicy, dispatchMutating } from '../../../core/admission/policy/mutate';
import { RequestBudget, type PolicyInput } from '../../../core/admission/policy/evaluate';
import type { MatchedPolicy } from '../../../core/admission/policy/dispatch';
import type { MutatingAdmissionPolicy } from '../../../core/admission/policy/types';
import { webhooksOf, type Webhook } from '../../../core/admission/webhook/config';
import { runMutating, type DispatchDeps } from '../../../core/admission/webhook/dispatch';

const pods = lookupGroupResource('core/pods')!;
const podNode = kindNode('', 'v1', 'Pod')!;
const pod = (): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
const attrs = (object: KubeObject = pod()): RequestAttributes => ({
  operation: 'CREATE', type: pods, subresource: '', namespace: 'ns', name: 'p', object, oldObject: null, dryRun: false, user: { username: 'jane', uid: '', groups: [] },
});
const labelsOf = (o: KubeObject | null) => o?.metadata?.labels ?? {};

function policyStage(specs: { name: string; reinvocationPolicy: 'Never' | 'IfNeeded'; expression: string; patchType?: string }[]): MutatingStage {
  const matched: MatchedPolicy[] = specs.map((s) => {
    const mutation = s.patchType === 'JSONPatch' ? { patchType: 'JSONPatch', jsonPatch: { expression: s.expression } } : { patchType: 'ApplyConfiguration', applyConfiguration: { expression: s.expression } };
    const p: MutatingAdmissionPolicy = { apiVersion: 'admissionregistration.k8s.io/v1alpha1', kind: 'MutatingAdmissionPolicy', metadata: { name: s.name }, spec: { reinvocationPolicy: s.reinvocationPolicy, mutations: [mutation] } };
    return { compiled: compileMutatingPolicy(p), bindings: [{ binding: { apiVersion: 'admissionregistration.k8s.io/v1alpha1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: `${s.name}-b` }, spec: { policyName: s.name } }, params: { params: [null] } }] };
  });
  const budget = new RequestBudget(50_000_000);
  return {
    name: 'MutatingAdmissionPolicy',
    applies: () => true,
    async mutate(a, ctx) {
      const input: PolicyInput = { object: a.object, oldObject: null, request: {}, namespaceObject: null, authorize: () => ({ allowed: true, reason: '' }) };
      const out = await dispatchMutating(matched, input, budget, podNode, ctx);
      if (out.refusal) throw new Error(out.refusal.message);
      return { object: out.object, changed: out.changed };
    },
  };
}

/** A webhook that counts its calls in the label `hook-calls` and records what it saw. */
function webhooks(reinvocationPolicy: 'Never' | 'IfNeeded', seen: Record<string, string>[]): { hooks: Webhook[]; deps: DispatchDeps } {
  const hooks = webhooksOf('mutating', [{
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'count' },
    webhooks: [{ name: 'count.example.com', reinvocationPolicy, sideEffects: 'None', clientConfig: { url: 'https://h/' }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }],
  }]);
  const deps: DispatchDeps = {
    uid: () => 'uid',
    namespaceLabels: async () => ({}),
    async call(_hook, review) {
      const req = (review as { request: { uid: string; object: KubeObject } }).request;
      const labels = labelsOf(req.object);
      seen.push({ ...labels });
      const n = Number(labels['hook-calls'] ?? '0') + 1;
      const patch = [{ op: 'add', path: '/metadata/labels/hook-calls', value: String(n) }];
      return { ok: true, body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: req.uid, allowed: true, patchType: 'JSONPatch', patch: btoa(JSON.stringify(patch)) } } };
    },
  };
  return { hooks, deps };
}

// The policy copies what the webhook has done so far: it changes the object again only when it runs after the webhook.
const SEES_HOOK = 'Object{metadata: Object.metadata{labels: {"seen-hook": object.metadata.labels[?"hook-calls"].orValue("none")}}}';

async function chain(policy: 'Never' | 'IfNeeded', hook: 'Never' | 'IfNeeded', expression = SEES_HOOK, builtIn?: (o: KubeObject) => Promise<KubeObject>) {
  const seen: Record<string, string>[] = [];
  const w = webhooks(hook, seen);
  const out = await mutateWithReinvocation([policyStage([{ name: 'map', reinvocationPolicy: policy, expression }])], (a, ctx) => runMutating(w.hooks, a, w.deps, ctx), attrs(), builtIn);
  return { labels: labelsOf(out.object), hookCalls: seen.length, out };
}

describe('reinvocation across MutatingAdmissionPolicy and the mutating webhooks', () => {
  it('IfNeeded policy and webhook: the policy reruns on the webhook\'s change, and the webhook on the policy\'s', async () => {
    const r = await chain('IfNeeded', 'IfNeeded');
    expect(r.labels).toEqual({ app: 'web', 'seen-hook': '1', 'hook-calls': '2' });
    expect(r.hookCalls).toBe(2);
    expect(r.out.auditAnnotations).toEqual({
      'mutation.webhook.admission.k8s.io/round_0_index_0': '{"configuration":"count","webhook":"count.example.com","mutated":true}',
      'mutation.webhook.admission.k8s.io/round_1_index_0': '{"configuration":"count","webhook":"count.example.com","mutated":true}',
    });
  });
  it('IfNeeded policy, Never webhook: only the policy reruns', async () => {
    const r = await chain('IfNeeded', 'Never');
    expect(r.labels).toEqual({ app: 'web', 'seen-hook': '1', 'hook-calls': '1' });
    expect(r.hookCalls).toBe(1);
  });
  it('Never policy, IfNeeded webhook: nothing changed after the webhook, so nothing reruns', async () => {
    const r = await chain('Never', 'IfNeeded');
    expect(r.labels).toEqual({ app: 'web', 'seen-hook': 'none', 'hook-calls': '1' });
    expect(r.hookCalls).toBe(1);
  });
  it('Never both: one call each', async () => {
    const r = await chain('Never', 'Never');
    expect(r.labels).toEqual({ app: 'web', 'seen-hook': 'none', 'hook-calls': '1' });
    expect(r.hookCalls).toBe(1);
  });
  it('an IfNeeded webhook is not called again when the rerun policy leaves the object as the webhook left it', async () => {
    // A policy that always sets the same label: its second run changes nothing.
    const r = await chain('IfNeeded', 'IfNeeded', 'Object{metadata: Object.metadata{labels: {"team": "a"}}}');
    expect(r.labels).toEqual({ app: 'web', team: 'a', 'hook-calls': '1' });
    expect(r.hookCalls).toBe(1);
  });
  it('the built-in plugins\' second run changing the object makes an IfNeeded webhook run again (and a Never policy not)', async () => {
    let builtInRuns = 0;
    const builtIn = async (o: KubeObject) => {
      builtInRuns++;
      return { ...o, metadata: { ...o.metadata, annotations: { 'built-in': 'again' } } };
    };
    const r = await chain('Never', 'IfNeeded', SEES_HOOK, builtIn);
    expect(builtInRuns).toBe(1);
    expect(r.hookCalls).toBe(2);
    expect(r.labels).toEqual({ app: 'web', 'seen-hook': 'none', 'hook-calls': '2' });
    expect(r.out.object?.metadata?.annotations).toEqual({ 'built-in': 'again' });
  });
  it('no second round when nothing is IfNeeded: the built-in plugins are not run again (the store\'s admission of the final object runs them)', async () => {
    let builtInRuns = 0;
    const r = await chain('Never', 'Never', SEES_HOOK, async (o) => (builtInRuns++, o));
    expect(r.hookCalls).toBe(1);
    expect(builtInRuns).toBe(0);
    expect(Object.keys(r.out.auditAnnotations)).toEqual(['mutation.webhook.admission.k8s.io/round_0_index_0']);
  });
  it('no second round when nothing was mutated', async () => {
    let builtInRuns = 0;
    const seen: Record<string, string>[] = [];
    const w = webhooks('IfNeeded', seen);
    const quiet = { ...w.deps, call: async (_h: Webhook, review: unknown) => ({ ok: true as const, body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: (review as { request: { uid: string } }).request.uid, allowed: true } } }) };
    const out = await mutateWithReinvocation([], (a, ctx) => runMutating(w.hooks, a, quiet, ctx), attrs(), async (o) => (builtInRuns++, o));
    expect(out.changed).toBe(false);
    expect(builtInRuns).toBe(0);
    expect(Object.keys(out.auditAnnotations)).toEqual(['mutation.webhook.admission.k8s.io/round_0_index_0']);
  });
});

describe('MutatingAdmissionPolicy reinvocation as kube 1.32 (policy/mutating/dispatcher.go)', () => {
  const run = async (specs: Parameters<typeof policyStage>[0]) => {
    const stage = policyStage(specs);
    return mutateWithReinvocation([stage], async (a) => ({ object: a.object, changed: false }), attrs());
  };
  it('an IfNeeded policy runs again whenever a mutation applied in the first round, even one that changed nothing (VersionedAttributes.Dirty)', async () => {
    // Counts its own runs: a second run shows as runs=2.
    const counter = 'Object{metadata: Object.metadata{labels: {"runs": string(int(object.metadata.labels[?"runs"].orValue("0")) + 1)}}}';
    expect(labelsOf((await run([{ name: 'a', reinvocationPolicy: 'IfNeeded', expression: counter }])).object).runs).toBe('2');
    expect(labelsOf((await run([{ name: 'a', reinvocationPolicy: 'Never', expression: counter }])).object).runs).toBe('1');
    // A later policy's no-op mutation (it sets what is there already) still makes the earlier IfNeeded one run again.
    const noop = '[JSONPatch{op: "replace", path: "/metadata/labels/app", value: "web"}]';
    const both = await run([{ name: 'a', reinvocationPolicy: 'IfNeeded', expression: counter }, { name: 'b', reinvocationPolicy: 'Never', expression: noop, patchType: 'JSONPatch' }]);
    expect(labelsOf(both.object).runs).toBe('2');
  });
  it('the bookkeeping: an invocation is due only after a later change; a forked context counts once adopted', () => {
    const ctx = new ReinvocationContext();
    const state = ctx.begin('MutatingAdmissionPolicy', null);
    expect(state).toBeInstanceOf(PluginReinvocation);
    state.addPreviouslyInvoked('k');
    expect(state.shouldReinvoke('k')).toBe(false);
    state.requireReinvokingPreviouslyInvoked();
    expect(state.shouldReinvoke('k')).toBe(true);
    // A forked context's bookkeeping counts only once adopted.
    const tried = ctx.fork();
    tried.begin('MutatingAdmissionWebhook', null).addPreviouslyInvoked('w');
    tried.value('MutatingAdmissionWebhook', () => new PluginReinvocation()).requireReinvokingPreviouslyInvoked();
    expect(ctx.value('MutatingAdmissionWebhook', () => new PluginReinvocation()).shouldReinvoke('w')).toBe(false);
    const again = ctx.fork();
    again.begin('MutatingAdmissionWebhook', null).addPreviouslyInvoked('w');
    again.value('MutatingAdmissionWebhook', () => new PluginReinvocation()).requireReinvokingPreviouslyInvoked();
    ctx.adopt(again);
    expect(ctx.value('MutatingAdmissionWebhook', () => new PluginReinvocation()).shouldReinvoke('w')).toBe(true);
  });
});
