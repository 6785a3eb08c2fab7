// The audit policy: kube's decoding and validation, and checker.go's rule matching (first match wins, None when
// nothing matches, omitStages unioned), plus the default policy's choices.
import { describe, expect, it } from 'vitest';
import { parsePolicy, PolicyEvaluator, type AuditAttributes, type Policy } from '../../../core/audit/policy';
import { DEFAULT_AUDIT_POLICY } from '../../../core/audit/default-policy';

const alice = { username: 'alice', groups: ['devs', 'system:authenticated'] };
const req = (o: Partial<AuditAttributes>): AuditAttributes => ({
  user: alice, verb: 'get', resourceRequest: true, apiGroup: '', resource: 'pods', subresource: '', namespace: 'ns', name: 'p', path: '', ...o,
});
const evaluator = (yaml: string) => {
  const p = parsePolicy(yaml);
  if (!p.ok) throw new Error(p.problems.join('; '));
  return new PolicyEvaluator(p.policy);
};
const level = (e: PolicyEvaluator, a: AuditAttributes) => e.evaluate(a).level;

describe('audit policy matching', () => {
  it('takes the first matching rule, and None when no rule matches', () => {
    const e = evaluator(`apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  users: [bob]
- level: RequestResponse
  userGroups: [devs]
  verbs: [delete]
- level: Metadata
  namespaces: [ns]
`);
    expect(level(e, req({ user: { username: 'bob', groups: ['devs'] }, verb: 'delete' }))).toBe('None');
    expect(level(e, req({ verb: 'delete' }))).toBe('RequestResponse');
    expect(level(e, req({}))).toBe('Metadata');
    expect(level(e, req({ namespace: 'other' }))).toBe('None');
    // A failed authentication has no user: rules naming users or groups never match it.
    expect(level(e, req({ user: undefined, verb: 'delete' }))).toBe('Metadata');
  });

  it('matches resources by group, resource, subresource forms and names, as checker.go does', () => {
    const e = evaluator(`apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Request
  resources:
  - group: ""
    resources: [pods/log, "*/status"]
- level: RequestResponse
  resources:
  - group: apps
    resources: ["deployments/*"]
  - group: ""
    resources: [configmaps]
    resourceNames: [settings]
- level: Metadata
  resources:
  - group: batch
`);
    expect(level(e, req({ subresource: 'log' }))).toBe('Request');
    expect(level(e, req({ resource: 'nodes', subresource: 'status' }))).toBe('Request');
    expect(level(e, req({}))).toBe('None');
    expect(level(e, req({ apiGroup: 'apps', resource: 'deployments', subresource: 'scale' }))).toBe('RequestResponse');
    expect(level(e, req({ apiGroup: 'apps', resource: 'deployments' }))).toBe('RequestResponse'); // "deployments/*": the resource too
    expect(level(e, req({ resource: 'configmaps', name: 'settings' }))).toBe('RequestResponse');
    expect(level(e, req({ resource: 'configmaps', name: 'other' }))).toBe('None');
    expect(level(e, req({ apiGroup: 'batch', resource: 'jobs' }))).toBe('Metadata');
    expect(level(e, req({ resourceRequest: false, path: '/healthz', apiGroup: 'batch' }))).toBe('None');
  });

  it('matches non-resource URLs exactly, by * and by a trailing-* prefix', () => {
    const e = evaluator(`apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: [/healthz*, /version]
- level: Metadata
  nonResourceURLs: ["*"]
`);
    const path = (p: string) => req({ resourceRequest: false, path: p, resource: '', name: '', namespace: '' });
    expect(level(e, path('/healthz'))).toBe('None');
    expect(level(e, path('/healthz/etcd'))).toBe('None');
    expect(level(e, path('/version'))).toBe('None');
    expect(level(e, path('/version/x'))).toBe('Metadata');
    expect(level(e, req({}))).toBe('None'); // a resource request never matches a nonResourceURLs rule
  });

  it('unions the policy\'s omitStages into every rule\'s, and applies them to the no-match default', () => {
    const e = evaluator(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  verbs: [get]
  omitStages: [ResponseStarted]
`);
    expect([...e.evaluate(req({})).omitStages].sort()).toEqual(['RequestReceived', 'ResponseStarted']);
    expect([...e.evaluate(req({ verb: 'list' })).omitStages]).toEqual(['RequestReceived']);
  });
});

describe('audit policy decoding and validation', () => {
  const problems = (yaml: string) => {
    const p = parsePolicy(yaml);
    return p.ok ? [] : p.problems;
  };
  it('refuses what kube\'s validation refuses, with its wording', () => {
    const head = 'apiVersion: audit.k8s.io/v1\nkind: Policy\n';
    expect(problems(`${head}rules: []\n`)).toEqual(['loaded illegal policy with 0 rules']);
    expect(problems('apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]\n')[0]).toContain('unknown group version');
    expect(problems(`${head}rules: [{level: Loud}]\n`)).toEqual(['rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse"']);
    expect(problems(`${head}rules: [{users: [a]}]\n`)).toEqual(['rules[0].level: Required value']);
    expect(problems(`${head}rules: [{level: None, nonResourceURLs: [healthz, /a*b]}]\n`)).toEqual([
      'rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a \'/\' character',
      'rules[0].nonResourceURLs[1]: Invalid value: "/a*b": non-resource URL wildcards \'*\' must be the final character of the rule',
    ]);
    expect(problems(`${head}rules: [{level: None, nonResourceURLs: [/a], namespaces: [x]}]\n`)[0]).toContain('rules cannot apply to both regular resources and non-resource URLs');
    expect(problems(`${head}rules: [{level: None, resources: [{group: "", resourceNames: [x]}]}]\n`)[0]).toContain('using resourceNames requires at least one resource');
    expect(problems(`${head}rules: [{level: None, resources: [{group: apps/v1}]}]\n`)[0]).toContain('rules[0].resources.group: Invalid value: "apps/v1"');
    expect(problems(`${head}omitStages: [Never]\nrules: [{level: None}]\n`)).toEqual([
      'omitStages[0]: Invalid value: "Never": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic',
    ]);
    expect(problems('{not yaml')[0]).toContain('failed decoding');
  });

  it('reads JSON as well as YAML, and drops unknown fields with a warning as the lenient decoder does', () => {
    const p = parsePolicy(JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'Metadata', colour: 'red' }] }));
    expect(p.ok && p.warnings).toEqual(['unknown field "rules[0].colour"']);
    expect(p.ok && p.policy.rules).toEqual([{ level: 'Metadata' }] satisfies Policy['rules']);
  });

  it('ships a default that records everything at Metadata but probes, event reads and heartbeats', () => {
    const e = evaluator(DEFAULT_AUDIT_POLICY);
    const path = (p: string) => req({ resourceRequest: false, path: p, resource: '', name: '', namespace: '' });
    for (const p of ['/healthz', '/readyz', '/livez/ping', '/version', '/metrics']) expect(level(e, path(p)), p).toBe('None');
    expect(level(e, req({ resource: 'events', verb: 'list' }))).toBe('None');
    expect(level(e, req({ resource: 'events', verb: 'create' }))).toBe('Metadata');
    expect(level(e, req({ user: { username: 'system:node:node-1', groups: ['system:nodes'] }, apiGroup: 'coordination.k8s.io', resource: 'leases', verb: 'update' }))).toBe('None');
    expect(level(e, req({ resource: 'secrets', verb: 'create' }))).toBe('Metadata');
    expect(level(e, req({ verb: 'delete' }))).toBe('Metadata');
    expect(level(e, path('/apis'))).toBe('Metadata');
    expect([...e.evaluate(req({})).omitStages]).toEqual(['RequestReceived']);
  });
});
