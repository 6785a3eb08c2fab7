// core/admission/policy/mutate.ts: MutatingAdmissionPolicy on the validating policy's engine — Object{…}/JSONPatch{…}
// construction, ApplyConfiguration merged by the kind's schema, JSONPatch, atomic refusals, failurePolicy, budgets,
// params, authorizer and reinvocation.
import { describe, expect, it } from 'vitest';
import { kindNode } from '../../../../core/schema/compile';
import { compileMutatingPolicy, dispatchMutating, mutatingRefusalStatus, rewriteConstruction } from '../../../../core/admission/policy/mutate';
import { RequestBudget, OUT_OF_BUDGET, type PolicyInput } from '../../../../core/admission/policy/evaluate';
import { compileExpression } from '../../../../core/admission/policy/compile';
import type { MatchedPolicy } from '../../../../core/admission/policy/dispatch';
import type { MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding } from '../../../../core/admission/policy/types';

const podNode = kindNode('', 'v1', 'Pod')!;
const pod = () => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
const policy = (name: string, spec: MutatingAdmissionPolicy['spec']): MutatingAdmissionPolicy => ({ apiVersion: 'admissionregistration.k8s.io/v1alpha1', kind: 'MutatingAdmissionPolicy', metadata: { name }, spec });
const binding = (name: string): MutatingAdmissionPolicyBinding => ({ apiVersion: 'admissionregistration.k8s.io/v1alpha1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName: 'p' } });
const input = (object: unknown, authorize: PolicyInput['authorize'] = () => ({ allowed: true, reason: '' })): PolicyInput => ({
  object, oldObject: null, namespaceObject: { metadata: { name: 'ns' } }, authorize,
  request: { operation: 'CREATE', name: 'p', namespace: 'ns', resource: { group: '', version: 'v1', resource: 'pods' }, userInfo: { username: 'jane' } },
});
const apply = (expression: string) => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } });
const jsonPatch = (expression: string) => ({ patchType: 'JSONPatch', jsonPatch: { expression } });

async function run(policies: MutatingAdmissionPolicy[], object: unknown = pod(), params: unknown[] = [null], authorize?: PolicyInput['authorize'], budget = 50_000_000) {
  const matched: MatchedPolicy[] = policies.map((p) => ({ compiled: compileMutatingPolicy(p), bindings: [{ binding: binding(`${p.metadata.name}-b`), params: { params } }] }));
  return dispatchMutating(matched, input(object, authorize), new RequestBudget(budget), podNode);
}

describe('rewriteConstruction', () => {
  it('turns Object and JSONPatch construction into named map literals, leaving strings and maps alone', () => {
    expect(rewriteConstruction('Object{spec: Object.spec{replicas: 3, x: a ? b : c}}')).toBe('__k8s_object("Object", {"spec": __k8s_object("Object.spec", {"replicas": 3, "x": a ? b : c})})');
    expect(rewriteConstruction('[JSONPatch{op: "add", path: "/a{b: c}", value: {"k": Object.x{y: 1}}}]')).toBe('[__k8s_object("JSONPatch", {"op": "add", "path": "/a{b: c}", "value": {"k": __k8s_object("Object.x", {"y": 1})}})]');
    expect(rewriteConstruction("object.metadata.name + 'Object{a: b}'")).toBe("object.metadata.name + 'Object{a: b}'");
  });
});

describe('MutatingAdmissionPolicy', () => {
  it('merges an ApplyConfiguration by the schema: keyed lists by key, maps by field', async () => {
    const p = policy('p', { mutations: [apply(`Object{metadata: Object.metadata{labels: {"team": "a"}}, spec: Object.spec{initContainers: [Object.spec.initContainers{name: "init", image: "busybox"}], containers: [Object.spec.containers{name: "c", imagePullPolicy: "Always"}]}}`)] });
    const out = await run([p]);
    expect(out.refusal).toBeUndefined();
    expect(out.changed).toBe(true);
    expect(out.object).toMatchObject({
      metadata: { labels: { app: 'web', team: 'a' } },
      spec: { initContainers: [{ name: 'init', image: 'busybox' }], containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'Always' }] },
    });
  });
  it('applies JSONPatch ops, each mutation seeing the previous one\'s object, with params and variables', async () => {
    const p = policy('p', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      variables: [{ name: 'tier', expression: 'params.data.tier' }],
      mutations: [
        jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels/tier", value: variables.tier}]'),
        jsonPatch('[JSONPatch{op: "add", path: "/metadata/annotations", value: {"copied": object.metadata.labels.tier}}]'),
      ],
    });
    const out = await run([p], pod(), [{ metadata: { name: 'cfg' }, data: { tier: 'gold' } }]);
    expect(out.object).toMatchObject({ metadata: { labels: { app: 'web', tier: 'gold' }, annotations: { copied: 'gold' } } });
  });
  it('jsonpatch.escapeKey escapes a key for a path', async () => {
    const p = policy('p', { mutations: [jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/a~b"), value: "x"}]')] });
    expect((await run([p])).object).toMatchObject({ metadata: { labels: { app: 'web', 'example.com/a~b': 'x' } } });
    // Only mutations declare it (a validating policy's expression does not).
    expect(compileExpression('jsonpatch.escapeKey("a") == "a"', 'bool', false, true).error).toMatch(/undeclared reference to 'jsonpatch'/);
  });
  it('refuses atomic lists and failed patches under Fail, with kube\'s text; Ignore skips', async () => {
    const atomic = policy('p', { failurePolicy: 'Fail', mutations: [apply('Object{spec: Object.spec{containers: [Object.spec.containers{name: "c", command: ["sh"]}]}}')] });
    const out = await run([atomic]);
    expect(out.refusal).toEqual({ message: "policy 'p' with binding 'p-b' denied request: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.containers[0].command", reason: 'Invalid' });
    const status = mutatingRefusalStatus({ group: '', resource: 'pods' }, 'p', out.refusal!);
    expect(status).toMatchObject({ code: 403, reason: 'Invalid', message: out.refusal!.message, details: { name: 'p', kind: 'pods', causes: [{ message: out.refusal!.message }] } });
    const bad = policy('p', { failurePolicy: 'Fail', mutations: [jsonPatch('[JSONPatch{op: "remove", path: "/spec/nothing"}]')] });
    expect((await run([bad])).refusal?.message).toMatch(/^policy 'p' with binding 'p-b' denied request: JSON Patch: /);
    const ignored = await run([{ ...bad, spec: { ...bad.spec, failurePolicy: 'Ignore' } }]);
    expect(ignored.refusal).toBeUndefined();
    expect(ignored.changed).toBe(false);
  });
  it('fails closed when the evaluation runs out of budget', async () => {
    const costly = policy('p', { mutations: [apply('Object{metadata: Object.metadata{labels: {"n": string([1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, true)))))}}}')] });
    const out = await run([costly], pod(), [null], undefined, 1000);
    expect(out.refusal?.message).toBe(`policy 'p' with binding 'p-b' denied request: ${OUT_OF_BUDGET}`);
  });
  it('matchConditions and the authorizer gate the mutations', async () => {
    const p = policy('p', {
      matchConditions: [{ name: 'may', expression: "authorizer.group('').resource('nodes').check('delete').allowed()" }],
      mutations: [apply('Object{metadata: Object.metadata{labels: {"admin": "yes"}}}')],
    });
    const first = await run([p], pod(), [null], () => undefined);
    expect(first.pending).toEqual([{ user: '', verb: 'delete', group: '', resource: 'nodes', subresource: '', namespace: '', name: '' }]);
    expect((await run([p], pod(), [null], () => ({ allowed: false, reason: '' }))).changed).toBe(false);
    expect((await run([p], pod(), [null], () => ({ allowed: true, reason: '' }))).object).toMatchObject({ metadata: { labels: { admin: 'yes' } } });
  });
  it('reinvokes an IfNeeded policy once when a later one changed the object', async () => {
    const first = policy('a', { reinvocationPolicy: 'IfNeeded', mutations: [apply('Object{metadata: Object.metadata{labels: {"seen": has(object.metadata.labels.later) ? "later" : "none"}}}')] });
    const second = policy('b', { mutations: [apply('Object{metadata: Object.metadata{labels: {"later": "x"}}}')] });
    expect((await run([first, second])).object).toMatchObject({ metadata: { labels: { seen: 'later', later: 'x' } } });
    const never = policy('a', { ...first.spec, reinvocationPolicy: 'Never' });
    expect((await run([never, second])).object).toMatchObject({ metadata: { labels: { seen: 'none', later: 'x' } } });
  });
  it('compile errors are kube\'s and follow failurePolicy', async () => {
    const broken = policy('p', { mutations: [apply('Object{spec: }')] });
    const c = compileMutatingPolicy(broken);
    expect(c.mutations[0].compiled.error).toMatch(/^compilation failed: /);
    // patch.go: the compile error as the compiler worded it (no "compilation error: " as a validation's has).
    expect((await run([broken])).refusal?.message).toMatch(/^policy 'p' with binding 'p-b' denied request: compilation failed: ERROR: <input>:1:14: /);
  });
});
