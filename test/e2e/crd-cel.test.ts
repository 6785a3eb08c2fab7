// x-kubernetes-validations (CEL) end to end, through the real gateway (the CEL library runs in workerd)
// and kubectl: rules refused at CRD write when they do not compile, objects accepted or refused with
// kube's Status, transition rules on update, and kubectl using aggregated discovery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { http, kubectl, startTestGateway, stopTestGateway, type Running } from './fixtures';

let r: Running;
beforeAll(async () => {
  r = await startTestGateway();
  await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: 'cel' } });
}, 120_000);
afterAll(() => stopTestGateway(r));

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const BASE = '/apis/scaling.example.com/v1/namespaces/cel/scalers';

const CRD_YAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: scalers.scaling.example.com
spec:
  group: scaling.example.com
  scope: Namespaced
  names: { plural: scalers, singular: scaler, kind: Scaler, shortNames: [sc], categories: [all] }
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.minReplicas <= self.maxReplicas
              message: minReplicas must not exceed maxReplicas
            - rule: "!has(self.tier) || self.tier in ['gold', 'silver']"
              messageExpression: "'tier ' + self.tier + ' is not offered'"
              fieldPath: .tier
            properties:
              minReplicas: { type: integer }
              maxReplicas: { type: integer }
              tier: { type: string }
              storageClass:
                type: string
                x-kubernetes-validations:
                - rule: self == oldSelf
                  message: storageClass is immutable
              ports:
                type: array
                items: { type: integer }
                x-kubernetes-validations:
                - rule: self.all(p, p > 0 && p < 65536) && self.isSorted()
                  reason: FieldValueForbidden
            required: [minReplicas, maxReplicas]
`;

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

const scaler = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'scaling.example.com/v1', kind: 'Scaler', metadata: { name }, spec });

describe('CEL validation rules', () => {
  it('refuses a CRD whose rule does not compile, naming the rule', async () => {
    const res = await http(r, 'POST', CRD_PATH, {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'bads.scaling.example.com' },
      spec: {
        group: 'scaling.example.com', scope: 'Namespaced', names: { plural: 'bads', kind: 'Bad' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a ==' }] } } } } }],
      },
    });
    expect(res.status).toBe(422);
    expect(res.json.reason).toBe('Invalid');
    expect(res.json.details.causes).toHaveLength(1);
    expect(res.json.details.causes[0].field).toBe('spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule');
    expect(res.json.message).toMatch(/^CustomResourceDefinition\.apiextensions\.k8s\.io "bads\.scaling\.example\.com" is invalid: spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: apiextensions\.ValidationRule\{Rule:"self\.a ==", Message:"", MessageExpression:"", Reason:\(\*apiextensions\.FieldValueErrorReason\)\(nil\), FieldPath:"", OptionalOldSelf:\(\*bool\)\(nil\)\}: compilation failed: ERROR: <input>:1:/);
    expect((await http(r, 'GET', `${CRD_PATH}/bads.scaling.example.com`)).status).toBe(404);
  });

  it('kubectl apply: the CRD is accepted without a warning, and kubectl uses aggregated discovery', async () => {
    const applied = await kubectl(r, ['apply', '-f', '-'], CRD_YAML);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/scalers.scaling.example.com created');
    await waitFor('the scalers type', async () => ((await http(r, 'GET', BASE)).status === 200 ? true : undefined));
    // A fresh discovery cache: kubectl asks /api and /apis once each and never a group-version document.
    const cache = mkdtempSync(join(r.dir, 'disc-'));
    const got = await kubectl(r, ['--cache-dir', cache, '-v=6', 'get', 'sc', '-n', 'cel']);
    expect(got.code).toBe(0);
    const gets = got.stderr.split('\n').filter((l) => / GET https?:\/\//.test(l)).map((l) => new URL(/GET (\S+)/.exec(l)![1]).pathname);
    expect(gets).toContain('/api');
    expect(gets).toContain('/apis');
    expect(gets.filter((p) => /^\/apis\/[^/]+\/[^/]+$/.test(p) || p === '/api/v1')).toEqual([]);
    const aggregated = await http(r, 'GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' });
    expect(aggregated.headers.get('content-type')).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    const group = aggregated.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'scaling.example.com');
    expect(group.versions[0].resources).toEqual([{
      resource: 'scalers', responseKind: { group: 'scaling.example.com', version: 'v1', kind: 'Scaler' }, scope: 'Namespaced', singularResource: 'scaler',
      verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'], shortNames: ['sc'], categories: ['all'],
    }]);
    expect((await http(r, 'GET', '/apis', undefined, { accept: 'application/json' })).json.kind).toBe('APIGroupList');
    const resources = await kubectl(r, ['--cache-dir', cache, 'api-resources', '--api-group=scaling.example.com']);
    expect(resources.stdout).toMatch(/scalers\s+sc\s+scaling\.example\.com\/v1\s+true\s+Scaler/);
  });

  it('accepts objects the rules allow and refuses others with kube\'s Status; nothing is stored', async () => {
    const ok = await http(r, 'POST', BASE, scaler('ok', { minReplicas: 1, maxReplicas: 3, tier: 'gold', storageClass: 'fast', ports: [80, 443] }));
    expect(ok.status).toBe(201);
    expect(ok.headers.get('warning')).toBeNull();
    const bad = await http(r, 'POST', BASE, scaler('bad', { minReplicas: 5, maxReplicas: 3, tier: 'bronze', ports: [443, 80] }));
    expect(bad.status).toBe(422);
    expect(bad.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Scaler.scaling.example.com "bad" is invalid: [spec: Invalid value: "object": minReplicas must not exceed maxReplicas, spec.tier: Invalid value: "object": tier bronze is not offered, spec.ports: Forbidden: failed rule: self.all(p, p > 0 && p < 65536) && self.isSorted()]',
      reason: 'Invalid',
      details: {
        name: 'bad', group: 'scaling.example.com', kind: 'Scaler',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: "object": minReplicas must not exceed maxReplicas', field: 'spec' },
          { reason: 'FieldValueInvalid', message: 'Invalid value: "object": tier bronze is not offered', field: 'spec.tier' },
          { reason: 'FieldValueForbidden', message: 'Forbidden: failed rule: self.all(p, p > 0 && p < 65536) && self.isSorted()', field: 'spec.ports' },
        ],
      },
      code: 422,
    });
    expect((await http(r, 'GET', `${BASE}/bad`)).status).toBe(404);
    // A schema error that blocks the rules: they are not run, and the Status says so.
    const missing = await http(r, 'POST', BASE, scaler('missing', { minReplicas: 1 }));
    expect(missing.json.details.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.maxReplicas' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation', field: '<nil>' },
    ]);
  });

  it('transition rules: an immutable field refuses a change on update, kubectl prints kube\'s error', async () => {
    const before = (await http(r, 'GET', `${BASE}/ok`)).json;
    const res = await http(r, 'PATCH', `${BASE}/ok`, { spec: { storageClass: 'slow' } }, { 'content-type': 'application/merge-patch+json' });
    expect(res.status).toBe(422);
    expect(res.json.message).toBe('Scaler.scaling.example.com "ok" is invalid: spec.storageClass: Invalid value: "string": storageClass is immutable');
    const after = (await http(r, 'GET', `${BASE}/ok`)).json;
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.spec.storageClass).toBe('fast');
    // Other changes go through; the transition rule holds for the unchanged field.
    const scaled = await http(r, 'PATCH', `${BASE}/ok`, { spec: { maxReplicas: 4 } }, { 'content-type': 'application/merge-patch+json' });
    expect(scaled.status).toBe(200);
    const k = await kubectl(r, ['patch', 'scaler', 'ok', '-n', 'cel', '--type=merge', '-p', '{"spec":{"storageClass":"slow","minReplicas":9}}']);
    expect(k.code).not.toBe(0);
    expect(k.stderr.trim()).toBe('The Scaler "ok" is invalid: \n* spec: Invalid value: "object": minReplicas must not exceed maxReplicas\n* spec.storageClass: Invalid value: "string": storageClass is immutable');
    const created = await kubectl(r, ['apply', '-n', 'cel', '-f', '-'], 'apiVersion: scaling.example.com/v1\nkind: Scaler\nmetadata: { name: k2 }\nspec: { minReplicas: 3, maxReplicas: 2 }\n');
    expect(created.stderr.trim()).toBe('The Scaler "k2" is invalid: spec: Invalid value: "object": minReplicas must not exceed maxReplicas');
  });
});
