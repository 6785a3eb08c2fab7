import { describe, expect, it } from 'vitest';
import { validateTyped } from '../../../../core/validation/typed';
import { bindingsByPolicy, planPolicies, policiesMayMatch } from '../../../../core/admission/policy/plan';
import { expressionWarnings } from '../../../../core/admission/policy/typecheck';
import { lookupGroupResource } from '../../../../core/registry';
import type { RequestAttributes } from '../../../../core/admission/match';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../../../core/admission/policy/types';

const rule = { apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE'] };
const vap = (spec: Record<string, unknown>) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' }, spec }) as never;
const vapb = (spec: Record<string, unknown>) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'b' }, spec }) as never;
const fields = (causes: { field?: string; message?: string }[]) => causes.map((c) => `${c.field}: ${c.message}`);

describe('ValidatingAdmissionPolicy validation', () => {
  it('accepts a valid policy, defaults considered', () => {
    expect(validateTyped('ValidatingAdmissionPolicy', vap({ matchConstraints: { resourceRules: [rule] }, validations: [{ expression: 'object.spec.replicas < 5' }] }))).toEqual([]);
  });

  it('refuses what kube refuses, with its messages', () => {
    expect(fields(validateTyped('ValidatingAdmissionPolicy', vap({ failurePolicy: 'Sometimes', paramKind: { apiVersion: 'v1' } })))).toEqual([
      'spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
      'spec.paramKind.kind: Required value',
      'spec.matchConstraints: Required value',
      'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
      'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
    ]);
    expect(fields(validateTyped('ValidatingAdmissionPolicy', vap({
      matchConstraints: { resourceRules: [{ ...rule, operations: [] }] },
      variables: [{ name: 'in', expression: '1' }],
      validations: [{ expression: 'params.x' }, { expression: 'true', messageExpression: '1', message: 'a\nb', reason: 'Teapot' }],
    })))).toEqual([
      'spec.matchConstraints.resourceRules[0].operations: Required value',
      'spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier',
      `spec.validations[0].expression: Invalid value: "params.x": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x\n | ^`,
      'spec.validations[1].messageExpression: Invalid value: "1": must evaluate to string but got int',
      'spec.validations[1].message: Invalid value: "a\\nb": message must not contain line breaks',
      'spec.validations[1].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"',
    ]);
  });

  it('validates bindings', () => {
    expect(validateTyped('ValidatingAdmissionPolicyBinding', vapb({ policyName: 'p', validationActions: ['Deny'], paramRef: { name: 'x' } }))).toEqual([]);
    expect(fields(validateTyped('ValidatingAdmissionPolicyBinding', vapb({ paramRef: { parameterNotFoundAction: 'Maybe' }, validationActions: ['Deny', 'Warn', 'Deny'] })))).toEqual([
      'spec.policyName: Required value',
      'spec.paramRef: Required value: one of name or selector must be specified',
      'spec.paramRef.parameterNotFoundAction: Unsupported value: "Maybe": supported values: "Deny", "Allow"',
      'spec.validationActions[2]: Duplicate value: "Deny"',
      'spec.validationActions: Invalid value: []string{"Deny", "Warn", "Deny"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ]);
  });

  it('type-checks field selections against the matched kinds and the paramKind', () => {
    expect(expressionWarnings(vap({ matchConstraints: { resourceRules: [rule] }, validations: [{ expression: 'object.spec.replicas > 0 && object.metadata.labels.x == "y"' }] }))).toEqual([]);
    const w = expressionWarnings(vap({
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: [rule] },
      validations: [{ expression: 'has(object.spec.replicaz)', messageExpression: 'params.dat.x' }],
    }));
    expect(w.map((x) => x.fieldRef)).toEqual(['spec.validations[0].expression', 'spec.validations[0].messageExpression']);
    expect(w[0].warning).toBe("apps/v1, Kind=Deployment: ERROR: <input>:1:16: undefined field 'replicaz'\n | has(object.spec.replicaz)\n | ...............^\n");
  });
});

describe('ValidatingAdmissionPolicy matching', () => {
  const deployments = lookupGroupResource('apps/deployments')!;
  const pods = lookupGroupResource('core/pods')!;
  const attrs = (type = deployments, namespace = 'a'): RequestAttributes => ({
    operation: 'CREATE', type, subresource: '', namespace, name: 'x', object: { metadata: { name: 'x', labels: { tier: 'web' } } } as never, oldObject: null, dryRun: false, user: { username: 'u', groups: [] } as never,
  });
  const policies = [{ metadata: { name: 'p' }, spec: { matchConstraints: { resourceRules: [rule] } } }] as ValidatingAdmissionPolicy[];
  const bindings = [
    { metadata: { name: 'all' }, spec: { policyName: 'p' } },
    { metadata: { name: 'prod' }, spec: { policyName: 'p', matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } } },
    { metadata: { name: 'web' }, spec: { policyName: 'p', matchResources: { objectSelector: { matchLabels: { tier: 'db' } } } } },
  ] as ValidatingAdmissionPolicyBinding[];
  const byPolicy = bindingsByPolicy(bindings);

  it('matches the policy then each binding by its selectors', () => {
    expect(planPolicies(policies, byPolicy, attrs(), { env: 'dev' })[0].bindings.map((b) => b.metadata.name)).toEqual(['all']);
    expect(planPolicies(policies, byPolicy, attrs(), { env: 'prod' })[0].bindings.map((b) => b.metadata.name)).toEqual(['all', 'prod']);
    expect(planPolicies(policies, byPolicy, attrs(pods), {})).toEqual([]);
  });

  it('tells before the object is known whether any policy could apply', () => {
    expect(policiesMayMatch(policies, byPolicy, { ...attrs(), object: null, operation: 'UPDATE' })).toBe(true);
    expect(policiesMayMatch(policies, byPolicy, { ...attrs(pods), object: null })).toBe(false);
    expect(policiesMayMatch(policies, new Map(), { ...attrs(), object: null })).toBe(false);
  });
});
