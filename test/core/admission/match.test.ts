// core/admission/match: kube's rule, selector, matchPolicy and matchConditions matching, and the AdmissionReview
// request, as webhooks and admission policies use them.
import { describe, expect, it } from 'vitest';
import { lookupGroupResource, lookupType } from '../../../core/registry';
import {
  admissionRequest, celActivation, evaluateMatchConditions, isExemptAdmissionConfiguration, matchRequest, namespaceToRead, ruleMatches,
  type RequestAttributes, type RuleAttributes,
} from '../../../core/admission/match';

const pods = lookupGroupResource('core/pods')!;
const namespaces = lookupGroupResource('core/namespaces')!;
const hpaV1 = lookupType('autoscaling', 'v1', 'horizontalpodautoscalers')!;
const user = { username: 'jane', uid: 'u1', groups: ['system:authenticated'] };

const pod = (labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', labels } });
function attrs(over: Partial<RequestAttributes> = {}): RequestAttributes {
  return { operation: 'CREATE', type: pods, subresource: '', namespace: 'ns', name: 'p', object: pod({ app: 'web' }), oldObject: null, dryRun: false, user, ...over };
}
const ra = (over: Partial<RuleAttributes> = {}): RuleAttributes => ({
  operation: 'CREATE', resource: { group: '', version: 'v1', resource: 'pods' }, subresource: '', namespace: 'ns', name: 'p', ...over,
});

describe('ruleMatches', () => {
  const rule = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] };
  it('matches operations, groups, versions and resources, with *', () => {
    expect(ruleMatches(rule, ra())).toBe(true);
    expect(ruleMatches(rule, ra({ operation: 'UPDATE' }))).toBe(false);
    expect(ruleMatches({ ...rule, operations: ['*'] }, ra({ operation: 'DELETE' }))).toBe(true);
    expect(ruleMatches({ ...rule, apiGroups: ['apps'] }, ra())).toBe(false);
    expect(ruleMatches({ ...rule, apiVersions: ['v2'] }, ra())).toBe(false);
    expect(ruleMatches({ ...rule, resources: ['*'] }, ra())).toBe(true);
  });
  it('subresources: pods does not match pods/status; */* and pods/* do; * does not', () => {
    expect(ruleMatches(rule, ra({ subresource: 'status' }))).toBe(false);
    expect(ruleMatches({ ...rule, resources: ['pods/status'] }, ra({ subresource: 'status' }))).toBe(true);
    expect(ruleMatches({ ...rule, resources: ['pods/status'] }, ra())).toBe(false);
    expect(ruleMatches({ ...rule, resources: ['*/*'] }, ra({ subresource: 'status' }))).toBe(true);
    expect(ruleMatches({ ...rule, resources: ['pods/*'] }, ra({ subresource: 'binding' }))).toBe(true);
    expect(ruleMatches({ ...rule, resources: ['*'] }, ra({ subresource: 'status' }))).toBe(false);
    expect(ruleMatches({ ...rule, resources: ['*/status'] }, ra({ subresource: 'status' }))).toBe(true);
  });
  it('scope: a Namespace is cluster-scoped though its requests carry its name', () => {
    const ns = ra({ resource: { group: '', version: 'v1', resource: 'namespaces' }, namespace: 'ns', name: 'ns' });
    const any = { ...rule, resources: ['*'] };
    expect(ruleMatches({ ...any, scope: 'Namespaced' }, ns)).toBe(false);
    expect(ruleMatches({ ...any, scope: 'Cluster' }, ns)).toBe(true);
    expect(ruleMatches({ ...any, scope: 'Namespaced' }, ra())).toBe(true);
    expect(ruleMatches({ ...any, scope: 'Cluster' }, ra())).toBe(false);
    expect(ruleMatches({ ...any, scope: 'Cluster' }, ra({ namespace: '', resource: { group: '', version: 'v1', resource: 'nodes' } }))).toBe(true);
  });
  it('exempts the admission configuration types', () => {
    expect(isExemptAdmissionConfiguration({ group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingWebhookConfiguration' })).toBe(true);
    expect(isExemptAdmissionConfiguration({ group: '', version: 'v1', kind: 'Pod' })).toBe(false);
  });
});

describe('matchRequest', () => {
  const rules = [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['pods'] }];
  it('namespaceSelector: reads the namespace only when not empty; a missing one refuses with 404 only when rules match', () => {
    const sel = { matchLabels: { env: 'prod' } };
    expect(namespaceToRead({ namespaceSelector: {} }, attrs())).toBeUndefined();
    expect(namespaceToRead({ namespaceSelector: sel }, attrs())).toBe('ns');
    expect(matchRequest({ rules, namespaceSelector: sel }, attrs(), { env: 'prod' }).matches).toBe(true);
    expect(matchRequest({ rules, namespaceSelector: sel }, attrs(), { env: 'dev' }).matches).toBe(false);
    const missing = matchRequest({ rules, namespaceSelector: sel }, attrs(), null);
    expect(missing).toMatchObject({ matches: 'error', status: { code: 404, message: 'namespaces "ns" not found' } });
    expect(matchRequest({ rules: [{ ...rules[0], resources: ['services'] }], namespaceSelector: sel }, attrs(), null).matches).toBe(false);
  });
  it('namespaceSelector on a Namespace create tests its new labels; cluster-scoped objects always match', () => {
    const sel = { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] };
    const nsRules = [{ ...rules[0], resources: ['namespaces', 'nodes'] }];
    const nsObj = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', labels: { env: 'prod' } } };
    expect(namespaceToRead({ namespaceSelector: sel }, attrs({ type: namespaces, namespace: 'x', name: 'x', object: nsObj }))).toBeUndefined();
    expect(matchRequest({ rules: nsRules, namespaceSelector: sel }, attrs({ type: namespaces, namespace: 'x', name: 'x', object: nsObj })).matches).toBe(true);
    const nodes = lookupGroupResource('core/nodes')!;
    expect(matchRequest({ rules: nsRules, namespaceSelector: sel }, attrs({ type: nodes, namespace: '', name: 'n', object: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } } })).matches).toBe(true);
  });
  it('objectSelector: new or old object labels', () => {
    const sel = { matchLabels: { app: 'db' } };
    expect(matchRequest({ rules, objectSelector: sel }, attrs()).matches).toBe(false);
    expect(matchRequest({ rules, objectSelector: sel }, attrs({ operation: 'UPDATE', oldObject: pod({ app: 'db' }) })).matches).toBe(true);
    expect(matchRequest({ rules, objectSelector: sel }, attrs({ operation: 'DELETE', object: null, oldObject: pod({ app: 'db' }) })).matches).toBe(true);
  });
  it('matchPolicy Equivalent reaches another version over the same store; Exact does not', () => {
    const hpa2 = lookupType('autoscaling', 'v2', 'horizontalpodautoscalers')!;
    const r = [{ operations: ['CREATE'], apiGroups: ['autoscaling'], apiVersions: ['v2'], resources: ['horizontalpodautoscalers'] }];
    const a = attrs({ type: hpaV1, namespace: 'ns', object: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' } } });
    const out = matchRequest({ rules: r }, a);
    expect(out).toMatchObject({ matches: true, invocation: { resource: { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' }, kind: { kind: 'HorizontalPodAutoscaler', version: 'v2' } } });
    expect(matchRequest({ rules: r, matchPolicy: 'Exact' }, a).matches).toBe(false);
    expect(hpa2).toBeDefined();
  });
  it('excludeResourceRules and resourceNames (policies)', () => {
    expect(matchRequest({ rules, named: true, excludeRules: [{ ...rules[0], resourceNames: ['p'] }] }, attrs()).matches).toBe(false);
    expect(matchRequest({ rules, named: true, excludeRules: [{ ...rules[0], resourceNames: ['q'] }] }, attrs()).matches).toBe(true);
    expect(matchRequest({ rules: [{ ...rules[0], resourceNames: ['q'] }], named: true }, attrs()).matches).toBe(false);
    expect(matchRequest({ rules: [], named: true }, attrs()).matches).toBe(false);
  });
});

describe('matchConditions', () => {
  const req = admissionRequest('uid-1', attrs());
  const act = celActivation({ object: attrs().object, oldObject: null, request: req });
  it('all true matches; the first false skips', () => {
    expect(evaluateMatchConditions([{ name: 'a', expression: "object.metadata.labels.app == 'web'" }, { name: 'b', expression: "request.operation == 'CREATE'" }], act)).toEqual({ matches: true });
    expect(evaluateMatchConditions([{ name: 'a', expression: "request.userInfo.username == 'bob'" }, { name: 'b', expression: 'object.nope.x' }], act)).toEqual({ matches: false, failedCondition: 'a' });
    expect(evaluateMatchConditions([{ name: 'n', expression: 'oldObject == null' }], act)).toEqual({ matches: true });
  });
  it('errors follow failurePolicy', () => {
    const bad = [{ name: 'a', expression: 'object.nope.x' }];
    expect(evaluateMatchConditions(bad, act, 'Ignore')).toEqual({ matches: false });
    const r = evaluateMatchConditions(bad, act, 'Fail');
    expect(r.matches).toBe('error');
    expect((r as { error: string }).error).toMatch(/^expression 'object.nope.x' resulted in error: /);
    expect(evaluateMatchConditions([{ name: 'c', expression: 'authorizer.group("").check("get").allowed()' }], act).matches).toBe('error');
  });
  it('a costly expression runs out of budget instead of running on', () => {
    const r = evaluateMatchConditions([{ name: 'x', expression: '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))' }], act);
    expect(r).toMatchObject({ matches: 'error', error: expect.stringContaining('cost limit exceeded') });
  });
});

describe('admissionRequest', () => {
  it('is kube AdmissionRequest v1 in field order', () => {
    const r = admissionRequest('u-1', attrs({ subresource: 'status', operation: 'UPDATE', oldObject: pod(), options: { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' } }));
    expect(Object.keys(r)).toEqual(['uid', 'kind', 'resource', 'subResource', 'requestKind', 'requestResource', 'requestSubResource', 'name', 'namespace', 'operation', 'userInfo', 'object', 'oldObject', 'dryRun', 'options']);
    expect(r.kind).toEqual({ group: '', version: 'v1', kind: 'Pod' });
    expect(r.userInfo).toEqual({ username: 'jane', uid: 'u1', groups: ['system:authenticated'] });
    const scale = admissionRequest('u-2', attrs({ type: lookupGroupResource('apps/deployments')!, subresource: 'scale' }));
    expect(scale.kind).toEqual({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
  });
});
