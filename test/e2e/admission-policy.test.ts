// ValidatingAdmissionPolicy through the real gateway (worker/admission-policy.ts) with /usr/bin/kubectl: a policy
// with ConfigMap params denies, warns and audits per its bindings' validationActions, with messageExpression and
// kube's texts; the authorizer library; an expression over its cost limit refuses under failurePolicy Fail and
// admits under Ignore with kube's message; kube's validation and type-checking status; the Gateway API standard
// install's safe-upgrades policy applied and enforced; and a hostile policy whose heavy CEL an attacker keeps
// triggering, with a victim tenant probing meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { http, kubectl, startTestGateway, stopTestGateway, waitFor, type Running } from './fixtures';
import { as, limitedTenant, Victim } from './hostile';

let r: Running;
const AR = '/apis/admissionregistration.k8s.io/v1';
const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    nonResourceURLs: [/healthz*, /readyz*, /livez*]
  - level: Metadata
`;

const inNamespace = (ns: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': ns } });
const rules = (resources: string[], groups = [''], operations = ['CREATE', 'UPDATE']) => [{ apiGroups: groups, apiVersions: ['v1'], resources, operations }];

async function create(path: string, body: unknown) {
  const res = await http(r, 'POST', path, body);
  expect(res.status, res.text).toBe(201);
  return res;
}

async function policy(name: string, spec: Record<string, unknown>) {
  return create(`${AR}/validatingadmissionpolicies`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec });
}

async function binding(name: string, spec: Record<string, unknown>) {
  return create(`${AR}/validatingadmissionpolicybindings`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec });
}

async function namespace(name: string) {
  await create('/api/v1/namespaces', { metadata: { name } });
}

const deployment = (ns: string, name: string, replicas: number) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: ns },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

// A ConfigMap of `n` keys: the heavy expression walks it n² times.
const bigData = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
const HEAVY = 'object.data.all(a, object.data.all(b, a != b || true))';

beforeAll(async () => {
  r = await startTestGateway({ vars: { AUDIT_POLICY: POLICY } });
  for (const ns of ['vap-params', 'vap-deny', 'vap-warn', 'vap-audit', 'vap-heavy-fail', 'vap-heavy-ignore', 'vap-authz']) await namespace(ns);
  await create('/api/v1/namespaces/vap-params/configmaps', { metadata: { name: 'limits' }, data: { max: '3' } });
  await policy('replica-limit', {
    failurePolicy: 'Fail',
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: { resourceRules: rules(['deployments'], ['apps']) },
    variables: [{ name: 'max', expression: 'int(params.data.max)' }],
    validations: [{
      expression: 'object.spec.replicas <= variables.max',
      messageExpression: '"replicas " + string(object.spec.replicas) + " exceeds " + string(variables.max) + " in " + namespaceObject.metadata.name',
      reason: 'Forbidden',
    }],
    auditAnnotations: [{ key: 'replicas', valueExpression: 'string(object.spec.replicas)' }],
  });
  const paramRef = { name: 'limits', namespace: 'vap-params', parameterNotFoundAction: 'Deny' };
  await binding('replica-limit-deny', { policyName: 'replica-limit', paramRef, validationActions: ['Deny'], matchResources: { namespaceSelector: inNamespace('vap-deny') } });
  await binding('replica-limit-warn', { policyName: 'replica-limit', paramRef, validationActions: ['Warn'], matchResources: { namespaceSelector: inNamespace('vap-warn') } });
  await binding('replica-limit-audit', { policyName: 'replica-limit', paramRef, validationActions: ['Audit'], matchResources: { namespaceSelector: inNamespace('vap-audit') } });
  for (const fp of ['Fail', 'Ignore']) {
    await policy(`heavy-${fp.toLowerCase()}`, { failurePolicy: fp, matchConstraints: { resourceRules: rules(['configmaps']) }, validations: [{ expression: HEAVY }] });
    await binding(`heavy-${fp.toLowerCase()}`, { policyName: `heavy-${fp.toLowerCase()}`, validationActions: ['Deny'], matchResources: { namespaceSelector: inNamespace(`vap-heavy-${fp.toLowerCase()}`) } });
  }
  await policy('escalators-only', {
    failurePolicy: 'Fail',
    matchConstraints: { resourceRules: rules(['configmaps']) },
    validations: [{ expression: 'authorizer.group("rbac.authorization.k8s.io").resource("rolebindings").namespace(object.metadata.namespace).check("create").allowed()', message: 'only those who may bind roles may write here' }],
  });
  await binding('escalators-only', { policyName: 'escalators-only', validationActions: ['Deny'], matchResources: { namespaceSelector: inNamespace('vap-authz') } });
}, 180_000);
afterAll(() => stopTestGateway(r));

describe('ValidatingAdmissionPolicy', () => {
  it('denies with the params, variables and messageExpression, in kube\'s Status', async () => {
    const res = await http(r, 'POST', '/apis/apps/v1/namespaces/vap-deny/deployments', deployment('vap-deny', 'big', 5));
    const message = `deployments.apps "big" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-deny' denied request: replicas 5 exceeds 3 in vap-deny`;
    expect(res.status, res.text).toBe(403);
    expect(res.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message });
    expect(res.json.details.causes).toEqual([{ message: message.slice(message.indexOf('ValidatingAdmissionPolicy')) }]);
    expect((await http(r, 'GET', '/apis/apps/v1/namespaces/vap-deny/deployments/big')).status).toBe(404);
    const ok = await kubectl(r, ['apply', '-f', '-'], JSON.stringify(deployment('vap-deny', 'small', 2)));
    expect(ok.code, ok.stderr).toBe(0);
    // An update too (kube's rule `deployments` does not cover deployments/scale, so `kubectl scale` would pass).
    const scaled = await kubectl(r, ['patch', 'deployment/small', '-n', 'vap-deny', '-p', '{"spec":{"replicas":4}}']);
    expect(scaled.code).not.toBe(0);
    expect(scaled.stderr).toContain("ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-deny' denied request: replicas 4 exceeds 3 in vap-deny");
  });

  it('follows the params: a changed limit applies and a missing one refuses (parameterNotFoundAction Deny)', async () => {
    const patched = await http(r, 'PATCH', '/api/v1/namespaces/vap-params/configmaps/limits', { data: { max: '6' } }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.status, patched.text).toBe(200);
    await waitFor('the new limit', async () => ((await http(r, 'POST', '/apis/apps/v1/namespaces/vap-deny/deployments?dryRun=All', deployment('vap-deny', 'five', 5))).status === 201 ? true : undefined));
    expect((await http(r, 'DELETE', '/api/v1/namespaces/vap-params/configmaps/limits')).status).toBe(200);
    const res = await waitFor('the missing params', async () => {
      const x = await http(r, 'POST', '/apis/apps/v1/namespaces/vap-deny/deployments', deployment('vap-deny', 'one', 1));
      return x.status === 422 ? x : undefined;
    });
    expect(res.json.message).toBe(`deployments.apps "one" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-deny' denied request: failed to configure binding: no params found for policy binding with \`Deny\` parameterNotFoundAction`);
    expect(res.json.reason).toBe('Invalid');
    await create('/api/v1/namespaces/vap-params/configmaps', { metadata: { name: 'limits' }, data: { max: '3' } });
  });

  it('warns (Warn) and admits', async () => {
    const out = await kubectl(r, ['create', 'deployment', 'warned', '-n', 'vap-warn', '--image=nginx', '--replicas=7']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain("Warning: Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-warn': replicas 7 exceeds 3 in vap-warn");
  });

  it('audits (Audit): the validation failure and the policy\'s audit annotation in the audit log', async () => {
    const res = await http(r, 'POST', '/apis/apps/v1/namespaces/vap-audit/deployments', deployment('vap-audit', 'audited', 9), { 'audit-id': 'vap-audit-1' });
    expect(res.status, res.text).toBe(201);
    const ev = await waitFor('the audit event', async () => {
      const log = await http(r, 'GET', '/_edgeplane/audit?limit=5000');
      return (log.json.items as { auditID: string; annotations?: Record<string, string> }[]).find((e) => e.auditID === 'vap-audit-1' && e.annotations);
    });
    expect(JSON.parse(ev.annotations!['validation.policy.admission.k8s.io/validation_failure'])).toEqual([
      { message: 'replicas 9 exceeds 3 in vap-audit', policy: 'replica-limit', binding: 'replica-limit-audit', expressionIndex: 0, validationActions: ['Audit'] },
    ]);
    expect(ev.annotations!['replica-limit/replicas']).toBe('9');
  });

  it('asks the authorizer for the requesting user', async () => {
    const tenant = await limitedTenant(r, 'vap-authz', 'edit', 'writer');
    const refused = await as(r, tenant, 'POST', '/api/v1/namespaces/vap-authz/configmaps', { metadata: { name: 'nope' } });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.json.message).toBe(`configmaps "nope" is forbidden: ValidatingAdmissionPolicy 'escalators-only' with binding 'escalators-only' denied request: only those who may bind roles may write here`);
    await limitedTenant(r, 'vap-authz', 'admin', 'owner').then(async (owner) => {
      const ok = await as(r, owner, 'POST', '/api/v1/namespaces/vap-authz/configmaps', { metadata: { name: 'yes' } });
      expect(ok.status, ok.text).toBe(201);
    });
  });

  it('refuses (Fail) or admits (Ignore) a write whose expression exceeds its cost limit', async () => {
    const fail = await http(r, 'POST', '/api/v1/namespaces/vap-heavy-fail/configmaps', { metadata: { name: 'big' }, data: bigData(2000) });
    expect(fail.status, fail.text).toBe(422);
    expect(fail.json.message).toBe(`configmaps "big" is forbidden: ValidatingAdmissionPolicy 'heavy-fail' with binding 'heavy-fail' denied request: expression '${HEAVY}' resulted in error: operation cancelled: actual cost limit exceeded`);
    const ignore = await http(r, 'POST', '/api/v1/namespaces/vap-heavy-ignore/configmaps', { metadata: { name: 'big' }, data: bigData(2000) });
    expect(ignore.status, ignore.text).toBe(201);
    const small = await http(r, 'POST', '/api/v1/namespaces/vap-heavy-fail/configmaps', { metadata: { name: 'small' }, data: bigData(10) });
    expect(small.status, small.text).toBe(201);
  });

  it('validates policies and bindings with kube\'s messages and reports type-checking warnings in status', async () => {
    const bad = await http(r, 'POST', `${AR}/validatingadmissionpolicies`, {
      metadata: { name: 'bad' }, spec: { matchConstraints: { resourceRules: rules(['pods']) }, validations: [{ expression: 'object.spec ==' }, { expression: '1 + 1' }] },
    });
    expect(bad.status, bad.text).toBe(422);
    const causes = bad.json.details.causes as { field: string; message: string }[];
    expect(causes.find((c) => c.field === 'spec.validations[0].expression')?.message).toMatch(/^Invalid value: "object.spec ==": compilation failed: ERROR: <input>:1:/);
    expect(causes.find((c) => c.field === 'spec.validations[1].expression')?.message).toBe('Invalid value: "1 + 1": must evaluate to bool but got int');
    const badBinding = await http(r, 'POST', `${AR}/validatingadmissionpolicybindings`, { metadata: { name: 'bad' }, spec: { policyName: 'x', validationActions: ['Deny', 'Warn'] } });
    expect(badBinding.status).toBe(422);
    expect(badBinding.json.message).toContain('must not contain both Deny and Warn');
    const typo = await policy('typo', { failurePolicy: 'Fail', matchConstraints: { resourceRules: rules(['deployments'], ['apps']) }, validations: [{ expression: 'object.spec.replicas2 > 0' }] });
    expect(typo.json.status.observedGeneration).toBe(1);
    expect(typo.json.status.typeChecking.expressionWarnings).toEqual([{
      fieldRef: 'spec.validations[0].expression',
      warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicas2'\n | object.spec.replicas2 > 0\n | ...........^\n",
    }]);
  });

  it('applies and enforces the Gateway API standard install\'s safe-upgrades policy', async () => {
    const vap = readFileSync(new URL('../data/gateway-api-vap/gateway.networking.k8s.io_vap_safeupgrades.yaml', import.meta.url), 'utf8');
    const applied = await kubectl(r, ['apply', '-f', '-'], vap);
    expect(applied.code, applied.stderr).toBe(0);
    const crd = readFileSync(new URL('../../vendor/gateway-api/standard/gateway.networking.k8s.io_gatewayclasses.yaml', import.meta.url), 'utf8');
    const standard = await kubectl(r, ['create', '-f', '-'], crd);
    expect(standard.code, standard.stderr).toBe(0);
    const older = await kubectl(r, ['replace', '-f', '-'], crd.replace('bundle-version: v1.6.1', 'bundle-version: v1.4.0'));
    expect(older.code).not.toBe(0);
    expect(older.stderr).toContain("ValidatingAdmissionPolicy 'safe-upgrades.gateway.networking.k8s.io' with binding 'safe-upgrades.gateway.networking.k8s.io' denied request: Installing CRDs with version before v1.5.0 is prohibited by default.");
    const experimental = await kubectl(r, ['replace', '-f', '-'], crd.replace('channel: standard', 'channel: experimental'));
    expect(experimental.code).not.toBe(0);
    expect(experimental.stderr).toContain('Installing experimental CRDs on top of standard channel CRDs is prohibited by default.');
  });

  it('a hostile policy\'s heavy CEL, triggered by an attacker, does not stall a victim tenant', async () => {
    const attacker = await limitedTenant(r, 'vap-attacker');
    await policy('hostile', { failurePolicy: 'Fail', matchConstraints: { resourceRules: rules(['configmaps']) }, validations: Array.from({ length: 4 }, () => ({ expression: HEAVY })) });
    await binding('hostile', { policyName: 'hostile', validationActions: ['Deny'], matchResources: { namespaceSelector: inNamespace('vap-attacker') } });
    const victim = await Victim.create(r, 'vap-victim');
    await victim.baseline();
    let refused = 0;
    const { report } = await victim.during('heavy policy on 16 of the attacker\'s configmap creates, two at a time', async () => {
      await Promise.all(Array.from({ length: 2 }, async (_, w) => {
        for (let i = 0; i < 8; i++) {
          const res = await as(r, attacker, 'POST', '/api/v1/namespaces/vap-attacker/configmaps', { metadata: { name: `big-${w}-${i}` }, data: bigData(600) });
          if (res.status === 422) refused++;
        }
      }));
    });
    expect(refused).toBe(16);
    expect(report.failures).toEqual([]);
  }, 300_000);
});
