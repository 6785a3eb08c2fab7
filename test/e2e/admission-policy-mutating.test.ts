// MutatingAdmissionPolicy (admissionregistration.k8s.io/v1alpha1) through the real gateway with /usr/bin/kubectl,
// served because RUNTIME_CONFIG enables it (kube 1.32: --runtime-config plus the feature gate): discovery lists it,
// kube's validation refuses a bad policy, an ApplyConfiguration and a JSONPatch policy with params mutate pods
// (create and server-side apply), matchConditions gate them, the mutated object then meets the validating
// policies, and it fails closed: an error or an evaluation over budget under failurePolicy Fail refuses with
// kube's text, under Ignore admits unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running } from './fixtures';
import { as, limitedTenant, Victim } from './hostile';

let r: Running;
const AR = '/apis/admissionregistration.k8s.io/v1alpha1';
const V1 = 'admissionregistration.k8s.io/v1alpha1';
const rules = (resources: string[], operations = ['CREATE', 'UPDATE']) => [{ apiGroups: [''], apiVersions: ['v1'], resources, operations }];
const inNamespace = (ns: string) => ({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } });

async function create(path: string, body: unknown) {
  const res = await http(r, 'POST', path, body);
  expect(res.status, res.text).toBe(201);
  return res;
}
const policy = (name: string, spec: Record<string, unknown>) => create(`${AR}/mutatingadmissionpolicies`, { apiVersion: V1, kind: 'MutatingAdmissionPolicy', metadata: { name }, spec: { reinvocationPolicy: 'Never', ...spec } });
const binding = (name: string, spec: Record<string, unknown>) => create(`${AR}/mutatingadmissionpolicybindings`, { apiVersion: V1, kind: 'MutatingAdmissionPolicyBinding', metadata: { name }, spec });
const pod = (ns: string, name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

beforeAll(async () => {
  r = await startTestGateway({ vars: { RUNTIME_CONFIG: 'admissionregistration.k8s.io/v1alpha1' } });
  for (const ns of ['map-apply', 'map-patch', 'map-fail', 'map-ignore', 'map-budget']) await create('/api/v1/namespaces', { metadata: { name: ns } });
}, 120_000);

afterAll(async () => {
  await stopTestGateway(r);
});

describe('MutatingAdmissionPolicy', () => {
  it('a hostile policy\'s heavy mutation, triggered by an attacker, does not stall a victim tenant', async () => {
    const attacker = await limitedTenant(r, 'map-attacker');
    const heavy = 'string(object.data.all(a, object.data.all(b, a != b || true)))';
    await policy('hostile', {
      failurePolicy: 'Fail', matchConstraints: { resourceRules: rules(['configmaps']), ...inNamespace('map-attacker') },
      mutations: Array.from({ length: 4 }, (_, i) => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression: `Object{metadata: Object.metadata{annotations: {"h${i}": ${heavy}}}}` } })),
    });
    await binding('hostile', { policyName: 'hostile' });
    const victim = await Victim.create(r, 'map-victim');
    await victim.baseline();
    const data = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k${i}`, 'v']));
    const replies: { status: number; message: string }[] = [];
    const { report } = await victim.during('heavy mutating policy on 16 of the attacker\'s configmap creates, two at a time', async () => {
      await Promise.all(Array.from({ length: 2 }, async (_, w) => {
        for (let i = 0; i < 8; i++) {
          const res = await as(r, attacker, 'POST', '/api/v1/namespaces/map-attacker/configmaps', { metadata: { name: `big-${w}-${i}` }, data });
          replies.push({ status: res.status, message: res.json?.message ?? '' });
        }
      }));
    });
    // Each create runs the heavy mutation until its cost limit, then is refused (failurePolicy Fail).
    expect(replies.map((x) => x.status)).toEqual(Array(16).fill(403));
    expect(replies[0].message).toMatch(/^policy 'hostile' with binding 'hostile' denied request: expression '.*' resulted in error: operation cancelled: actual cost limit exceeded$/);
    expect(report.failures).toEqual([]);
  }, 300_000);

  it('is served when enabled, with kube\'s validation', async () => {
    const res = await kubectl(r, ['api-resources', '--api-group=admissionregistration.k8s.io', '-o', 'wide']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/mutatingadmissionpolicies\s+admissionregistration.k8s.io\/v1alpha1\s+false\s+MutatingAdmissionPolicy/);
    expect(res.stdout).toMatch(/mutatingadmissionpolicybindings\s+admissionregistration.k8s.io\/v1alpha1\s+false\s+MutatingAdmissionPolicyBinding/);
    const bad = await http(r, 'POST', `${AR}/mutatingadmissionpolicies`, {
      apiVersion: V1, kind: 'MutatingAdmissionPolicy', metadata: { name: 'bad' },
      spec: { matchConstraints: { resourceRules: rules(['pods'], ['CREATE', 'DELETE']) }, mutations: [{ patchType: 'Merge' }, { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: }]' } }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes.map((c: { field: string }) => c.field)).toEqual([
      'spec.matchConstraints.resourceRules[0].operations[1]', 'spec.mutations[0].patchType', 'spec.mutations[1].jsonPatch.expression', 'spec.reinvocationPolicy',
    ]);
    expect(bad.json.details.causes[0].message).toBe('Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"');
    const got = await http(r, 'GET', `${AR}/mutatingadmissionpolicies/bad`);
    expect(got.status).toBe(404);
  });

  it('an ApplyConfiguration merges into the object (create and server-side apply), gated by matchConditions', async () => {
    await policy('sidecar', {
      matchConstraints: { resourceRules: rules(['pods']), ...inNamespace('map-apply') },
      matchConditions: [{ name: 'not-opted-out', expression: "!('skip' in object.metadata.labels)" }],
      reinvocationPolicy: 'Never',
      mutations: [{
        patchType: 'ApplyConfiguration',
        applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"mesh": "on"}}, spec: Object.spec{initContainers: [Object.spec.initContainers{name: "proxy", image: "mesh/proxy:v1"}]}}' },
      }],
    });
    await binding('sidecar', { policyName: 'sidecar' });
    const created = await kubectl(r, ['create', '-f', '-', '-o', 'json'], JSON.stringify(pod('map-apply', 'web', { app: 'web' })));
    expect(created.code, created.stderr).toBe(0);
    const out = JSON.parse(created.stdout);
    expect(out.metadata.labels).toEqual({ app: 'web', mesh: 'on' });
    expect(out.spec.initContainers).toMatchObject([{ name: 'proxy', image: 'mesh/proxy:v1', imagePullPolicy: 'IfNotPresent' }]);
    const skipped = await http(r, 'POST', '/api/v1/namespaces/map-apply/pods', pod('map-apply', 'plain', { skip: 'yes' }));
    expect(skipped.status, skipped.text).toBe(201);
    expect(skipped.json.metadata.labels.mesh).toBeUndefined();
    const applied = await kubectl(r, ['apply', '--server-side', '-f', '-', '-o', 'json'], JSON.stringify(pod('map-apply', 'ssa', { app: 'ssa' })));
    expect(applied.code, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout).metadata.labels).toEqual({ app: 'ssa', mesh: 'on' });
  });

  it('JSONPatch with params from the binding\'s paramRef', async () => {
    await create('/api/v1/namespaces/map-patch/configmaps', { metadata: { name: 'tier' }, data: { tier: 'gold' } });
    await policy('tier', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: rules(['pods']), ...inNamespace('map-patch') },
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"tier": params.data.tier}}]' } }],
    });
    await binding('tier', { policyName: 'tier', paramRef: { name: 'tier', namespace: 'map-patch', parameterNotFoundAction: 'Deny' } });
    const res = await http(r, 'POST', '/api/v1/namespaces/map-patch/pods', pod('map-patch', 'p'));
    expect(res.status, res.text).toBe(201);
    expect(res.json.metadata.annotations).toEqual({ tier: 'gold' });
  });

  it('fails closed: an error under Fail refuses with kube\'s Status, under Ignore admits unchanged', async () => {
    for (const [ns, fp] of [['map-fail', 'Fail'], ['map-ignore', 'Ignore']]) {
      await policy(`broken-${fp.toLowerCase()}`, {
        failurePolicy: fp, matchConstraints: { resourceRules: rules(['pods']), ...inNamespace(ns) },
        mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "replace", path: "/spec/nothing/here", value: 1}]' } }],
      });
      await binding(`broken-${fp.toLowerCase()}`, { policyName: `broken-${fp.toLowerCase()}` });
    }
    const refused = await http(r, 'POST', '/api/v1/namespaces/map-fail/pods', pod('map-fail', 'p'));
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ kind: 'Status', reason: 'Invalid', details: { name: 'p', kind: 'pods' } });
    expect(refused.json.message).toMatch(/^policy 'broken-fail' with binding 'broken-fail' denied request: JSON Patch: /);
    expect((await http(r, 'GET', '/api/v1/namespaces/map-fail/pods/p')).status).toBe(404);
    const admitted = await http(r, 'POST', '/api/v1/namespaces/map-ignore/pods', pod('map-ignore', 'p'));
    expect(admitted.status, admitted.text).toBe(201);
  });

  it('an evaluation over its budget refuses with kube\'s message', async () => {
    const heavy = 'string(object.metadata.labels.all(a, object.metadata.labels.all(b, a != b || true)))';
    await policy('heavy', {
      failurePolicy: 'Fail', matchConstraints: { resourceRules: rules(['configmaps']), ...inNamespace('map-budget') },
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: `Object{metadata: Object.metadata{annotations: {"x": ${heavy}}}}` } }],
    });
    await binding('heavy', { policyName: 'heavy' });
    const labels = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, 'v']));
    const res = await http(r, 'POST', '/api/v1/namespaces/map-budget/configmaps', { metadata: { name: 'big', labels } });
    expect(res.status).toBe(403);
    expect(res.json.message).toBe(`policy 'heavy' with binding 'heavy' denied request: expression 'Object{metadata: Object.metadata{annotations: {"x": ${heavy}}}}' resulted in error: operation cancelled: actual cost limit exceeded`);
    const small = await http(r, 'POST', '/api/v1/namespaces/map-budget/configmaps', { metadata: { name: 'small', labels: { a: 'b' } } });
    expect(small.status, small.text).toBe(201);
    expect(small.json.metadata.annotations).toEqual({ x: 'true' });
  });

  it('Object{…} is checked as kube 1.32 checks it: a wrong field or type refuses the write, a wrong return type the policy', async () => {
    await create('/api/v1/namespaces', { metadata: { name: 'map-typed' } });
    await policy('typed', {
      failurePolicy: 'Fail', matchConstraints: { resourceRules: rules(['pods']), ...inNamespace('map-typed') },
      matchConditions: [{ name: 'asked', expression: "'mutate' in object.metadata.labels" }],
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'object.metadata.labels.mutate == "field" ? Object{spec: Object.spec{hostNetwrk: true}} : object.metadata.labels.mutate == "type" ? Object{spec: Object.spec{hostNetwork: "yes"}} : object.metadata.labels.mutate == "name" ? Object{spec: Object.spec{securityContext: Object.spec.securityContxt{runAsUser: 1000}}} : Object{spec: Object.spec{securityContext: Object.spec.securityContext{runAsUser: 1000}}}' } }],
    });
    await binding('typed', { policyName: 'typed' });
    const messages: Record<string, string> = {};
    for (const kind of ['field', 'type', 'name']) {
      const res = await kubectl(r, ['create', '-f', '-'], JSON.stringify(pod('map-typed', `p-${kind}`, { mutate: kind })));
      expect(res.code).not.toBe(0);
      messages[kind] = res.stderr.trim();
    }
    // kubectl's words for kube's 403 with reason Invalid and the error as its one cause.
    expect(messages).toEqual({
      field: 'The pods "p-field" is invalid: : policy \'typed\' with binding \'typed\' denied request: error applying patch: failed to convert patch object to typed object: .spec.hostNetwrk: field not declared in schema',
      type: 'The pods "p-type" is invalid: : policy \'typed\' with binding \'typed\' denied request: error applying patch: failed to convert patch object to typed object: .spec.hostNetwork: expected boolean, got &{yes}',
      name: 'The pods "p-name" is invalid: : policy \'typed\' with binding \'typed\' denied request: type mismatch: unexpected type name "Object.spec.securityContxt", expected "Object.spec.securityContext", which matches field name path from root Object type',
    });
    // A JSONPatch result is decoded strictly into the Pod: an unknown field is kube's 500, whatever the failurePolicy.
    await policy('typed-json', {
      failurePolicy: 'Ignore', matchConstraints: { resourceRules: rules(['pods']), ...inNamespace('map-typed') },
      matchConditions: [{ name: 'asked', expression: "object.metadata.labels[?'mutate'].orValue('') == 'json'" }],
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/spec/hostNetwrk", value: true}]' } }],
    });
    await binding('typed-json', { policyName: 'typed-json' });
    const strict = await kubectl(r, ['create', '-f', '-'], JSON.stringify(pod('map-typed', 'p-json', { mutate: 'json' })));
    expect(strict.stderr.trim()).toBe('Error from server (InternalError): error when creating "STDIN": Internal error occurred: strict decoding error: unknown field "spec.hostNetwrk"');
    const ok = await kubectl(r, ['create', '-f', '-', '-o', 'json'], JSON.stringify(pod('map-typed', 'p-ok', { mutate: 'ok' })));
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).spec.securityContext).toEqual({ runAsUser: 1000 });
    const wrong = await http(r, 'POST', `${AR}/mutatingadmissionpolicies`, {
      apiVersion: V1, kind: 'MutatingAdmissionPolicy', metadata: { name: 'teapot' },
      spec: { reinvocationPolicy: 'Never', matchConstraints: { resourceRules: rules(['pods']) }, mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: '"I\'m a teapot!"' } }] },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.json.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.mutations[0].applyConfiguration.expression', message: 'Invalid value: "\\"I\'m a teapot!\\"": must evaluate to Object but got string' }]);
  });

  it('kubectl lists and explains them', async () => {
    await policy('listed', { matchConstraints: { resourceRules: rules(['secrets']), ...inNamespace('nowhere') }, mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }] });
    const got = await kubectl(r, ['get', 'mutatingadmissionpolicies']);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(/^NAME\s+MUTATIONS\s+PARAMKIND\s+AGE\n/);
    expect(got.stdout).toMatch(/\nlisted\s+1\s+<unset>\s+\d+s\n/);
    const bindings = await kubectl(r, ['get', 'mutatingadmissionpolicybindings', 'tier']);
    expect(bindings.stdout).toMatch(/^NAME\s+POLICYNAME\s+PARAMREF\s+AGE\ntier\s+tier\s+map-patch\/tier\s+\d+s\n$/);
    const explained = await kubectl(r, ['explain', 'mutatingadmissionpolicies.spec.reinvocationPolicy']);
    expect(explained.code, explained.stderr).toBe(0);
    expect(explained.stdout).toContain('VERSION:    v1alpha1');
  });
});
