import { describe, expect, it } from 'vitest';
import { compileExpression, compilePolicy } from '../../../../core/admission/policy/compile';
import { dispatch, deniedStatus, VALIDATION_FAILURE_ANNOTATION, type MatchedPolicy } from '../../../../core/admission/policy/dispatch';
import { RequestBudget, OUT_OF_BUDGET, type PolicyInput } from '../../../../core/admission/policy/evaluate';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../../../core/admission/policy/types';
import type { AuthzCheck } from '../../../../core/admission/policy/environment';

const policy = (name: string, spec: ValidatingAdmissionPolicy['spec']): ValidatingAdmissionPolicy => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec });
const binding = (name: string, actions: ('Deny' | 'Warn' | 'Audit')[]): ValidatingAdmissionPolicyBinding => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName: 'p', validationActions: actions } });

const deployment = (replicas: number) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'team-a' }, spec: { replicas } });
const input = (object: unknown, authorize: PolicyInput['authorize'] = () => ({ allowed: true, reason: '' })): PolicyInput => ({
  object, oldObject: null, namespaceObject: { metadata: { name: 'team-a', labels: { env: 'prod' } } }, authorize,
  request: { operation: 'CREATE', name: 'web', namespace: 'team-a', userInfo: { username: 'jane', groups: ['dev'] } },
});
const params = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits' }, data: { max: '3' } };

async function run(p: ValidatingAdmissionPolicy, b: ValidatingAdmissionPolicyBinding, object: unknown, ps: unknown[] = [null], authorize?: PolicyInput['authorize']) {
  const matched: MatchedPolicy[] = [{ compiled: compilePolicy(p), bindings: [{ binding: b, params: { params: ps } }] }];
  return dispatch(matched, input(object, authorize), new RequestBudget(50_000_000));
}

const replicasPolicy = policy('p', {
  paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
  variables: [{ name: 'max', expression: 'int(params.data.max)' }],
  validations: [{ expression: 'object.spec.replicas <= variables.max', messageExpression: '"replicas must be at most " + string(variables.max) + " in " + namespaceObject.metadata.name', reason: 'Forbidden' }],
});

describe('ValidatingAdmissionPolicy evaluation', () => {
  it('admits what the validations allow and denies with the messageExpression and reason', async () => {
    expect((await run(replicasPolicy, binding('b', ['Deny']), deployment(2), [params])).denied).toBeUndefined();
    const out = await run(replicasPolicy, binding('b', ['Deny']), deployment(5), [params]);
    expect(out.denied).toEqual({ policy: 'p', binding: 'b', message: 'replicas must be at most 3 in team-a', reason: 'Forbidden' });
    const status = deniedStatus({ group: 'apps', resource: 'deployments' }, 'web', out.denied!);
    expect(status.code).toBe(403);
    expect(status.message).toBe(`deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: replicas must be at most 3 in team-a`);
    expect(status.details?.causes).toEqual([{ message: `ValidatingAdmissionPolicy 'p' with binding 'b' denied request: replicas must be at most 3 in team-a` }]);
  });

  it('warns and audits per validationActions, and defaults the message and reason', async () => {
    const p = policy('p', { validations: [{ expression: 'object.spec.replicas < 2' }] });
    const out = await run(p, binding('b', ['Warn', 'Audit']), deployment(5));
    expect(out.denied).toBeUndefined();
    expect(out.warnings).toEqual([`Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': failed expression: object.spec.replicas < 2`]);
    expect(JSON.parse(out.annotations[VALIDATION_FAILURE_ANNOTATION])).toEqual([
      { message: 'failed expression: object.spec.replicas < 2', policy: 'p', binding: 'b', expressionIndex: 0, validationActions: ['Warn', 'Audit'] },
    ]);
    const denied = (await run(p, binding('b', ['Deny']), deployment(5))).denied!;
    expect(deniedStatus({ group: 'apps', resource: 'deployments' }, 'web', denied).code).toBe(422);
  });

  it('skips the validations when a matchCondition is false and publishes audit annotations', async () => {
    const p = policy('p', {
      matchConditions: [{ name: 'prod', expression: 'namespaceObject.metadata.labels.env == "prod"' }],
      validations: [{ expression: 'false', message: 'never' }],
      auditAnnotations: [{ key: 'who', valueExpression: 'request.userInfo.username' }],
    });
    const out = await run(p, binding('b', ['Deny']), deployment(1));
    expect(out.denied?.message).toBe('never');
    expect(out.annotations['p/who']).toBe('jane');
    const q = policy('p', { ...p.spec, matchConditions: [{ name: 'dev', expression: 'namespaceObject.metadata.labels.env == "dev"' }] });
    expect((await run(q, binding('b', ['Deny']), deployment(1))).denied).toBeUndefined();
  });

  it('refuses (Fail) or admits (Ignore) an expression that exceeds its cost limit, with kube\'s message', async () => {
    const heavy = 'object.items.all(x, object.items.all(y, x != y || true))';
    const object = { items: Array.from({ length: 3000 }, (_, i) => i) };
    const fail = await run(policy('p', { validations: [{ expression: heavy }] }), binding('b', ['Deny']), object);
    expect(fail.denied?.message).toBe(`expression '${heavy}' resulted in error: operation cancelled: actual cost limit exceeded`);
    const ignore = await run(policy('p', { failurePolicy: 'Ignore', validations: [{ expression: heavy }] }), binding('b', ['Deny']), object);
    expect(ignore.denied).toBeUndefined();
  });

  it('stops at the evaluation budget across expressions', async () => {
    const medium = 'object.items.all(x, object.items.all(y, true))';
    const object = { items: Array.from({ length: 250 }, (_, i) => i) };
    const p = policy('p', { validations: Array.from({ length: 100 }, () => ({ expression: medium })) });
    expect((await run(p, binding('b', ['Deny']), object)).denied?.message).toBe(OUT_OF_BUDGET);
  });

  it('reports evaluation errors as kube words them', async () => {
    const out = await run(policy('p', { validations: [{ expression: 'object.spec.missing == 1' }] }), binding('b', ['Deny']), deployment(1));
    expect(out.denied?.message).toBe(`expression 'object.spec.missing == 1' resulted in error: no such key: missing`);
  });

  it('asks the authorizer, reporting checks it cannot answer yet', async () => {
    const p = policy('p', { validations: [{ expression: 'authorizer.group("apps").resource("deployments").namespace(object.metadata.namespace).check("delete").allowed()', message: 'may not' }] });
    const asked: AuthzCheck[] = [];
    const first = await run(p, binding('b', ['Deny']), deployment(1), [null], (c) => void asked.push(c));
    expect(first.pending).toEqual([{ user: '', verb: 'delete', group: 'apps', resource: 'deployments', subresource: '', namespace: 'team-a', name: '' }]);
    expect((await run(p, binding('b', ['Deny']), deployment(1), [null], () => ({ allowed: false, reason: '' }))).denied?.message).toBe('may not');
    expect((await run(p, binding('b', ['Deny']), deployment(1), [null], () => ({ allowed: true, reason: '' }))).denied).toBeUndefined();
  });

  it('takes the failure policy for a binding whose params are missing', async () => {
    const matched: MatchedPolicy[] = [{ compiled: compilePolicy(replicasPolicy), bindings: [{ binding: binding('b', ['Deny']), params: { error: 'no params found for policy binding with `Deny` parameterNotFoundAction' } }] }];
    const out = await dispatch(matched, input(deployment(1)), new RequestBudget(1e7));
    expect(out.denied?.message).toBe('failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction');
  });
});

describe('ValidatingAdmissionPolicy compilation', () => {
  it('gives kube\'s errors', async () => {
    expect(compileExpression('object.x ==', 'bool', false, true).error).toMatch(/^compilation failed: ERROR: <input>:1:/);
    expect(compileExpression('1 + 2', 'bool', false, true).error).toBe('must evaluate to bool but got int');
    expect(compileExpression('params.x == 1', 'bool', false, true).error).toBe("compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^");
    expect(compileExpression('params.x == 1', 'bool', true, true).error).toBeUndefined();
  });
});

describe('ValidatingAdmissionPolicy on DELETE and with a ServiceAccount authorizer', () => {
  it('sees oldObject and a null object on DELETE', async () => {
    const p = policy('p', { validations: [{ expression: 'object == null && oldObject.metadata.name != "keep"', message: 'keep stays' }] });
    const matched: MatchedPolicy[] = [{ compiled: compilePolicy(p), bindings: [{ binding: binding('b', ['Deny']), params: { params: [null] } }] }];
    const del = (name: string): PolicyInput => ({ ...input(null), oldObject: { metadata: { name } } });
    expect((await dispatch(matched, del('keep'), new RequestBudget(1e7))).denied?.message).toBe('keep stays');
    expect((await dispatch(matched, del('other'), new RequestBudget(1e7))).denied).toBeUndefined();
  });

  it('checks the request\'s own resource (authorizer.requestResource)', async () => {
    const p = policy('p', { validations: [{ expression: 'authorizer.requestResource.check("delete").allowed()' }] });
    const i: PolicyInput = { ...input(deployment(1)), request: { ...input(null).request, resource: { group: 'apps', version: 'v1', resource: 'deployments' } }, authorize: () => undefined };
    const matched: MatchedPolicy[] = [{ compiled: compilePolicy(p), bindings: [{ binding: binding('b', ['Deny']), params: { params: [null] } }] }];
    expect((await dispatch(matched, i, new RequestBudget(1e7))).pending).toEqual([
      { user: '', verb: 'delete', group: 'apps', resource: 'deployments', subresource: '', namespace: 'team-a', name: 'web' },
    ]);
  });

  it('asks as the named ServiceAccount', async () => {
    const p = policy('p', { validations: [{ expression: 'authorizer.serviceAccount("ci", "deployer").path("/healthz").check("get").allowed()' }] });
    const out = await run(p, binding('b', ['Deny']), deployment(1), [null], () => undefined);
    expect(out.pending).toEqual([{ user: 'system:serviceaccount:ci:deployer', verb: 'get', path: '/healthz' }]);
  });
});
