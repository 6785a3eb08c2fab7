// core/admission/policy/mutate.ts: what kube 1.32 checks of a MutatingAdmissionPolicy's `Object{…}` values
// (apiserver pkg/admission/plugin/policy/mutating/patch smd.go, json_patch.go, pkg/cel/mutation/dynamic
// objects.go, plugin/cel compile.go): the return type at compile time, constructed type names against field paths
// and the ApplyConfiguration against the kind's schema at evaluation, with kube's messages (its smd_test.go and
// json_patch_test.go cases), and a value whose shared parts would blow up refused within the cost limit.
import { describe, expect, it } from 'vitest';
import { kindNode } from '../../../../core/schema/compile';
import { compileExpression } from '../../../../core/admission/policy/compile';
import { compileMutatingPolicy, compileMutationExpression, dispatchMutating } from '../../../../core/admission/policy/mutate';
import { RequestBudget, type PolicyInput } from '../../../../core/admission/policy/evaluate';
import type { MatchedPolicy } from '../../../../core/admission/policy/dispatch';
import type { MutatingAdmissionPolicy } from '../../../../core/admission/policy/types';
import { Causes } from '../../../../core/validation/shape';
import { validateMutatingAdmissionPolicy } from '../../../../core/admission/policy/validate';

type Mutations = NonNullable<MutatingAdmissionPolicy['spec']>['mutations'];
const deployNode = kindNode('apps', 'v1', 'Deployment')!;
const deployment = () => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns', labels: { app: 'web' } },
  spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'a', image: 'nginx' }] } } },
});

async function mutate(mutations: Mutations, variables: { name: string; expression: string }[] = []) {
  const p: MutatingAdmissionPolicy = { apiVersion: 'admissionregistration.k8s.io/v1alpha1', kind: 'MutatingAdmissionPolicy', metadata: { name: 'p' }, spec: { reinvocationPolicy: 'Never', variables, mutations } };
  const matched: MatchedPolicy[] = [{ compiled: compileMutatingPolicy(p), bindings: [{ binding: { apiVersion: 'admissionregistration.k8s.io/v1alpha1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'b' }, spec: { policyName: 'p' } }, params: { params: [null] } }] }];
  const input: PolicyInput = { object: deployment(), oldObject: null, request: {}, namespaceObject: null, authorize: () => ({ allowed: true, reason: '' }) };
  return dispatchMutating(matched, input, new RequestBudget(50_000_000), deployNode);
}
const apply = (expression: string) => [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression } }];
const jsonPatch = (expression: string) => [{ patchType: 'JSONPatch', jsonPatch: { expression } }];
const refusal = async (m: Mutations, variables?: { name: string; expression: string }[]) => (await mutate(m, variables)).refusal?.message.replace("policy 'p' with binding 'b' denied request: ", '');

describe('MutatingAdmissionPolicy Object{…} type checks (kube 1.32)', () => {
  it('a wrong field name or a value of the wrong type: the ApplyConfiguration against the kind\'s schema', async () => {
    expect(await refusal(apply('Object{spec: Object.spec{replicasx: 1}}'))).toBe('error applying patch: failed to convert patch object to typed object: .spec.replicasx: field not declared in schema');
    expect(await refusal(apply('Object{spec: Object.spec{replicas: "3"}}'))).toBe('error applying patch: failed to convert patch object to typed object: .spec.replicas: expected numeric (int or float), got string');
    expect(await refusal(apply('Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "a", imagez: "x"}]}}}}')))
      .toBe('error applying patch: failed to convert patch object to typed object: .spec.template.spec.containers[name="a"].imagez: field not declared in schema');
    // Several at once: smd's list.
    expect(await refusal(apply('Object{spec: Object.spec{replicas: "3", paused: 1}}'))).toBe('error applying patch: failed to convert patch object to typed object: errors:\n  .spec.replicas: expected numeric (int or float), got string\n  .spec.paused: expected boolean, got &{1}');
    // Right names and types merge as before.
    const ok = await mutate(apply('Object{spec: Object.spec{replicas: 3, template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {"tier": "gold"}}}}}'));
    expect(ok.refusal).toBeUndefined();
    expect(ok.object).toMatchObject({ spec: { replicas: 3, template: { metadata: { labels: { app: 'web', tier: 'gold' } } } } });
  });
  it('constructed type names must follow the field path from the root Object (type mismatch)', async () => {
    expect(await refusal(apply('Object{spec: Object.specx{replicas: 1}}'))).toBe('type mismatch: unexpected type name "Object.specx", expected "Object.spec", which matches field name path from root Object type');
    // Lists and maps keep their field's path for their members.
    expect(await refusal(apply('Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.container{name: "a"}]}}}}')))
      .toBe('type mismatch: unexpected type name "Object.spec.template.spec.container", expected "Object.spec.template.spec.containers", which matches field name path from root Object type');
    // A JSONPatch value constructed as an Object is checked from its own name (json_patch_test.go).
    expect(await refusal(jsonPatch('[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{name: "x", ports: [Object.spec.template.spec.containers.portsZ{containerPort: 8080}]}}]')))
      .toBe('type mismatch: unexpected type name "Object.spec.template.spec.containers.portsZ", expected "Object.spec.template.spec.containers.ports", which matches field name path from root Object type');
    // kube 1.32 does not check the root of a JSONPatch value against the path it is added at (compilation_test.go "object types are not fully type checked").
    const loose = await mutate(jsonPatch('[JSONPatch{op: "replace", path: "/spec/replicas", value: 2}, JSONPatch{op: "add", path: "/spec/paused", value: Object.invalid{}.?x.orValue(true)}]'));
    expect(loose.refusal).toBeUndefined();
    expect(loose.object).toMatchObject({ spec: { replicas: 2, paused: true } });
  });
  it('the return type is checked when the policy is compiled: at its validation and, stored, at evaluation', async () => {
    expect(compileMutationExpression('ApplyConfiguration', '"I\'m a teapot!"', false).error).toBe('must evaluate to Object but got string');
    expect(compileMutationExpression('ApplyConfiguration', 'Object.spec.metadata{}', false).error).toBe('must evaluate to Object but got Object.spec.metadata');
    expect(compileMutationExpression('ApplyConfiguration', "{'a': 1}", false).error).toBe('must evaluate to Object but got map(string, int)');
    expect(compileMutationExpression('ApplyConfiguration', 'true ? Object{} : Object{spec: Object.spec{}}', false).error).toBeUndefined();
    expect(compileMutationExpression('JSONPatch', '[JSONPatch{op: "add", path: "/a", value: 1}]', false).error).toBeUndefined();
    expect(compileMutationExpression('JSONPatch', 'Object{}', false).error).toBe('must evaluate to list(JSONPatch) but got Object');
    expect(compileMutationExpression('JSONPatch', '[Object{}]', false).error).toBe('must evaluate to list(JSONPatch) but got list(Object)');
    expect(compileMutationExpression('JSONPatch', '"x"', false).error).toBe('must evaluate to list(JSONPatch) but got string');
    expect(await refusal(apply('"I\'m a teapot!"'))).toBe('must evaluate to Object but got string');
    const v = new Causes();
    validateMutatingAdmissionPolicy(v, { apiVersion: 'admissionregistration.k8s.io/v1alpha1', kind: 'MutatingAdmissionPolicy', metadata: { name: 'p' }, spec: {
      reinvocationPolicy: 'Never', matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE'] }] },
      mutations: [...apply("{'a': 1}"), ...apply('Object{spec: Object.spec{replicas: 1}}')],
    } });
    expect(v.all.map((c) => `${c.field}: ${c.message}`)).toEqual([`spec.mutations[0].applyConfiguration.expression: Invalid value: "{'a': 1}": must evaluate to Object but got map(string, int)`]);
  });
  it('JSONPatch{…} fields are typed at compile time (op, path, from strings; value any), at the field\'s colon', () => {
    expect(compileMutationExpression('JSONPatch', "[JSONPatch{op: 1, path: '/a'}]", false).error)
      .toBe("compilation failed: ERROR: <input>:1:14: expected type of field 'op' is 'string' but provided type is 'int'\n | [JSONPatch{op: 1, path: '/a'}]\n | .............^");
    expect(compileMutationExpression('JSONPatch', '[JSONPatch{op: "add", pat: "/a", value: 1}]', false).error)
      .toBe('compilation failed: ERROR: <input>:1:26: undefined field \'pat\'\n | [JSONPatch{op: "add", pat: "/a", value: 1}]\n | .........................^');
    expect(compileMutationExpression('JSONPatch', '[JSONPatch{op: "add", path: "/a", value: {"k": [1]}, from: object.metadata.name}]', false).error).toBeUndefined();
  });
  it('compile errors are shown against the policy\'s own text, not the rewritten one', () => {
    const c = compileMutationExpression('ApplyConfiguration', 'Object{spec: Object.spec{replicas: 1 +}}', false);
    expect(c.error).toMatch(/^compilation failed: ERROR: <input>:1:\d+: .*\n \| Object\{spec: Object\.spec\{replicas: 1 \+\}\}\n \| \.+\^/);
    const col = Number(/<input>:1:(\d+):/.exec(c.error!)![1]);
    expect(col).toBeGreaterThanOrEqual(37);
    expect(col).toBeLessThanOrEqual(39);
  });
  it('the construction function is not a name policies may use', () => {
    expect(compileMutationExpression('ApplyConfiguration', '__k8s_object("Object", {})', false).error).toBe("compilation failed: ERROR: <input>:1:1: undeclared reference to '__k8s_object' (in container '')\n | __k8s_object(\"Object\", {})\n | ^");
    expect(compileExpression('__k8s_object("Object", {}) == {}', 'bool', false, true).error).toMatch(/^compilation failed: ERROR: <input>:1:1: undeclared reference to '__k8s_object'/);
  });
  it('a JSONPatch result is decoded strictly into the kind: an unknown field is a 500 whatever the failurePolicy (json_patch_test.go)', async () => {
    const out = await mutate(jsonPatch('[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{name: "x", ports: [Object.spec.template.spec.containers.ports{containerPortZ: 8080}]}}]'));
    expect(out.refusal).toBeUndefined();
    expect(out.status).toMatchObject({ code: 500, reason: 'InternalError', message: 'Internal error occurred: strict decoding error: unknown field "spec.template.spec.containers[1].ports[0].containerPortZ"' });
    const two = await mutate(jsonPatch('[JSONPatch{op: "add", path: "/spec/zeta", value: 1}, JSONPatch{op: "add", path: "/spec/alpha", value: 2}]'));
    expect(two.status?.message).toBe('Internal error occurred: strict decoding error: unknown field "spec.alpha", unknown field "spec.zeta"');
    // Known fields pass.
    expect((await mutate(jsonPatch('[JSONPatch{op: "add", path: "/spec/paused", value: true}]'))).status).toBeUndefined();
  });
  it('a failing JSONPatch test leaves the object unchanged, without an error (ErrTestFailed)', async () => {
    const out = await mutate(jsonPatch('[JSONPatch{op: "test", path: "/spec/replicas", value: 5}, JSONPatch{op: "replace", path: "/spec/replicas", value: 7}]'));
    expect(out.refusal).toBeUndefined();
    expect(out.object).toMatchObject({ spec: { replicas: 1 } });
    expect(await refusal(jsonPatch('[JSONPatch{op: "replace", path: "/spec/nothing/here", value: 1}]'))).toBe('JSON Patch: replace operation does not apply: doc is missing path: /spec/nothing/here: missing value');
  });
  it('a value whose shared parts would write out to millions of nodes is refused at the cost limit, quickly', async () => {
    const variables = [{ name: 'v0', expression: '["x", "x"]' }];
    for (let i = 1; i < 30; i++) variables.push({ name: `v${i}`, expression: `[variables.v${i - 1}, variables.v${i - 1}]` });
    const out = await refusal(apply('Object{metadata: Object.metadata{annotations: {"a": string(size(variables.v29))}}, spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "a", args: variables.v29}]}}}}'), variables);
    expect(out).toMatch(/resulted in error: operation cancelled: actual cost limit exceeded$/);
  });
});
