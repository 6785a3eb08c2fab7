// Admission webhooks through the real gateway (worker/admission-webhooks.ts), called over HTTPS on loopback by a
// webhook server in this test process whose self-signed CA the local gateway trusts (EDGEPLANE_TRUSTED_CAS,
// scripts/gateway.ts): allowed, denied with kube's message, patched, timed out under failurePolicy Fail and Ignore,
// namespaceSelector and objectSelector, matchConditions, dry run and sideEffects, and a victim tenant whose
// requests stay fast while a webhook matching another tenant's hangs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startWebhookServer, type WebhookServer } from './webhook-server';
import { http, kubectl, startTestGateway, stopTestGateway, waitFor, type Running } from './fixtures';
import { as, limitedTenant, Victim } from './hostile';

let r: Running;
let server: WebhookServer;
let base = '';
let caBundle = '';
const reviews: { path: string; request: any }[] = [];
const hanging = new Set<ServerResponse>();

function reply(res: ServerResponse, uid: string, response: Record<string, unknown>) {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, ...response } }));
}

// The webhook server: each path is one behaviour.
function handle(req: IncomingMessage, res: ServerResponse) {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const path = (req.url ?? '').split('?')[0];
    const review = JSON.parse(body);
    const request = review.request;
    reviews.push({ path, request });
    const uid = request.uid;
    switch (path) {
      case '/allow':
        return reply(res, uid, { allowed: true, warnings: ['checked by allow.example.com'] });
      case '/deny-bad': {
        const name: string = (request.object ?? request.oldObject)?.metadata?.name ?? '';
        if (name.startsWith('bad')) return reply(res, uid, { allowed: false, status: { code: 403, reason: 'Forbidden', message: `pod name ${name} is not allowed` } });
        return reply(res, uid, { allowed: true });
      }
      case '/label': {
        const labels = request.object?.metadata?.labels;
        const patch = labels ? [{ op: 'add', path: '/metadata/labels/webhook', value: 'patched' }] : [{ op: 'add', path: '/metadata/labels', value: { webhook: 'patched' } }];
        return reply(res, uid, { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') });
      }
      case '/deny-connect': {
        const o = request.object ?? {};
        return reply(res, uid, { allowed: false, status: { code: 403, reason: 'Forbidden', message: `no ${request.subResource} into ${request.name}: ${JSON.stringify(o.command ?? o.ports ?? o.path ?? '')}` } });
      }
      case '/hang':
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      default:
        return reply(res, uid, { allowed: true });
    }
  });
}

const rule = (resources = ['pods'], operations = ['CREATE']) => ({ operations, apiGroups: [''], apiVersions: ['v1'], resources, scope: 'Namespaced' });
const inNamespace = (ns: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': ns } });

function webhook(name: string, path: string, ns: string, extra: Record<string, unknown> = {}) {
  return {
    name, clientConfig: { url: `${base}${path}`, caBundle }, rules: [rule()], namespaceSelector: inNamespace(ns),
    sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 5, failurePolicy: 'Fail', ...extra,
  };
}

async function configure(kind: 'Validating' | 'Mutating', name: string, webhooks: unknown[]) {
  const path = `/apis/admissionregistration.k8s.io/v1/${kind.toLowerCase()}webhookconfigurations`;
  const res = await http(r, 'POST', path, { apiVersion: 'admissionregistration.k8s.io/v1', kind: `${kind}WebhookConfiguration`, metadata: { name }, webhooks });
  expect(res.status, res.text).toBe(201);
}

async function namespace(name: string, labels: Record<string, string> = {}) {
  const res = await http(r, 'POST', '/api/v1/namespaces', { metadata: { name, labels } });
  expect(res.status, res.text).toBe(201);
}

const podYaml = (ns: string, name: string, labels: Record<string, string> = {}) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] },
});
const seen = (path: string, ns: string) => reviews.filter((v) => v.path === path && v.request.namespace === ns);

beforeAll(async () => {
  server = await startWebhookServer(handle);
  ({ base, caBundle } = server);
  r = await startTestGateway();
}, 120_000);

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await stopTestGateway(r);
  await server.close();
});

describe('validating webhooks', () => {
  it('admits what the webhook allows, with its warning, and refuses with kube\'s message', async () => {
    await namespace('wh-validate');
    await configure('Validating', 'validate', [webhook('allow.example.com', '/allow', 'wh-validate'), webhook('deny.example.com', '/deny-bad', 'wh-validate')]);
    const ok = await kubectl(r, ['create', '-f', '-'], podYaml('wh-validate', 'good'));
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toContain('Warning: checked by allow.example.com');
    const review = seen('/allow', 'wh-validate')[0].request;
    expect(review).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'Pod' }, resource: { group: '', version: 'v1', resource: 'pods' }, name: 'good', namespace: 'wh-validate',
      operation: 'CREATE', userInfo: { username: 'admin' }, dryRun: false, oldObject: null, options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    });
    // Webhooks see the final object: defaulted by the store.
    expect(review.object.spec.containers[0].imagePullPolicy).toBe('Always');
    const bad = await kubectl(r, ['create', '-f', '-'], podYaml('wh-validate', 'bad-one'));
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('Error from server (Forbidden): error when creating "STDIN": admission webhook "deny.example.com" denied the request: pod name bad-one is not allowed');
    expect((await http(r, 'GET', '/api/v1/namespaces/wh-validate/pods/bad-one')).status).toBe(404);
    // generateName: the name the webhooks judged is the one stored.
    const generated = await http(r, 'POST', '/api/v1/namespaces/wh-validate/pods', { metadata: { generateName: 'gen-' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    expect(generated.status, generated.text).toBe(201);
    const judged = seen('/allow', 'wh-validate').at(-1)!.request;
    expect(judged.name).toBeUndefined();
    expect(judged.object.metadata.name).toBe(generated.json.metadata.name);
  });

  it('a webhook that does not answer in time refuses under Fail (500) and is skipped under Ignore', async () => {
    await namespace('wh-timeout-fail');
    await namespace('wh-timeout-ignore');
    await configure('Validating', 'hang', [
      webhook('hang-fail.example.com', '/hang', 'wh-timeout-fail', { timeoutSeconds: 1 }),
      webhook('hang-ignore.example.com', '/hang', 'wh-timeout-ignore', { timeoutSeconds: 1, failurePolicy: 'Ignore' }),
    ]);
    const failed = await http(r, 'POST', '/api/v1/namespaces/wh-timeout-fail/pods', podYaml('wh-timeout-fail', 'p'));
    expect(failed.status).toBe(500);
    expect(failed.json.message).toBe(`Internal error occurred: failed calling webhook "hang-fail.example.com": failed to call webhook: Post "${base}/hang?timeout=1s": context deadline exceeded`);
    expect((await http(r, 'GET', '/api/v1/namespaces/wh-timeout-fail/pods/p')).status).toBe(404);
    const ignored = await http(r, 'POST', '/api/v1/namespaces/wh-timeout-ignore/pods', podYaml('wh-timeout-ignore', 'p'));
    expect(ignored.status, ignored.text).toBe(201);
  });
});

describe('mutating webhooks', () => {
  it('patches the object (JSONPatch) before it is stored, on create and on update', async () => {
    await namespace('wh-mutate');
    await configure('Mutating', 'label', [webhook('label.example.com', '/label', 'wh-mutate', { rules: [rule(['pods', 'configmaps'], ['CREATE', 'UPDATE'])] })]);
    expect((await kubectl(r, ['create', '-f', '-'], podYaml('wh-mutate', 'm'))).code).toBe(0);
    const pod = JSON.parse((await kubectl(r, ['get', 'pod', 'm', '-n', 'wh-mutate', '-o', 'json'])).stdout);
    expect(pod.metadata.labels).toEqual({ webhook: 'patched' });
    // An update that drops the label gets it back; the write is guarded by the version the webhook saw.
    expect((await kubectl(r, ['create', 'configmap', 'cm', '-n', 'wh-mutate', '--from-literal=a=b'])).code).toBe(0);
    expect((await kubectl(r, ['label', 'configmap', 'cm', '-n', 'wh-mutate', 'webhook-'])).code).toBe(0);
    const cm = JSON.parse((await kubectl(r, ['get', 'configmap', 'cm', '-n', 'wh-mutate', '-o', 'json'])).stdout);
    expect(cm.metadata.labels).toEqual({ webhook: 'patched' });
    const update = seen('/label', 'wh-mutate').find((v) => v.request.operation === 'UPDATE')!.request;
    expect(update.oldObject.metadata.labels).toEqual({ webhook: 'patched' });
    expect(update.options.kind).toBe('PatchOptions');
    // Server-side apply, creating and then updating: the webhook's label is kept each time.
    const cmYaml = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: wh-mutate\ndata:\n  v: "${v}"\n`;
    for (const v of ['1', '2']) {
      const applied = await kubectl(r, ['apply', '--server-side', '-f', '-'], cmYaml(v));
      expect(applied.code, applied.stderr).toBe(0);
    }
    const appliedCm = JSON.parse((await kubectl(r, ['get', 'configmap', 'applied', '-n', 'wh-mutate', '-o', 'json'])).stdout);
    expect(appliedCm.data).toEqual({ v: '2' });
    expect(appliedCm.metadata.labels).toEqual({ webhook: 'patched' });
    // As kube: the applier owns what it applied; the webhook's change belongs to no manager.
    const stored = (await http(r, 'GET', '/api/v1/namespaces/wh-mutate/configmaps/applied')).json;
    expect(stored.metadata.managedFields.map((e: any) => [e.manager, e.operation])).toEqual([['kubectl', 'Apply']]);
    expect(JSON.stringify(stored.metadata.managedFields[0].fieldsV1)).not.toContain('webhook');
  });
});

describe('clientConfig.service', () => {
  // (Endpoints may not hold a loopback address, as kube validates them, so the loopback server is reached by name.)
  it('reaches an ExternalName Service; a missing Service fails per failurePolicy', async () => {
    await namespace('wh-svc');
    const port = Number(new URL(base).port);
    expect((await http(r, 'POST', '/api/v1/namespaces/wh-svc/services', { metadata: { name: 'external' }, spec: { type: 'ExternalName', externalName: 'localhost' } })).status).toBe(201);
    const via = (name: string, service: Record<string, unknown>) => ({ ...webhook(name, '', 'wh-svc'), clientConfig: { service: { namespace: 'wh-svc', ...service }, caBundle } });
    await configure('Validating', 'services', [
      via('external.example.com', { name: 'external', port, path: '/svc-external' }),
    ]);
    expect((await http(r, 'POST', '/api/v1/namespaces/wh-svc/configmaps', { metadata: { name: 'x' } })).status).toBe(201);
    expect((await http(r, 'POST', '/api/v1/namespaces/wh-svc/pods', podYaml('wh-svc', 'p'))).status).toBe(201);
    expect(seen('/svc-external', 'wh-svc').map((v) => v.request.name)).toEqual(['p']);
    await namespace('wh-svc-missing');
    await configure('Validating', 'missing-service', [{ ...via('missing.example.com', { name: 'missing', path: '/x' }), namespaceSelector: inNamespace('wh-svc-missing') }]);
    const refused = await http(r, 'POST', '/api/v1/namespaces/wh-svc-missing/pods', podYaml('wh-svc-missing', 'p'));
    expect(refused.status).toBe(500);
    expect(refused.json.message).toBe('Internal error occurred: failed calling webhook "missing.example.com": failed to call webhook: Post "https://missing.wh-svc.svc:443/x?timeout=5s": service "missing" not found');
  });
});

describe('DELETE rules', () => {
  it('a delete, each object of a deletecollection and a namespace deletion go through the webhooks', async () => {
    await namespace('wh-delete');
    await namespace('bad-namespace');
    await configure('Validating', 'deletes', [
      webhook('delete.example.com', '/deny-bad', 'wh-delete', { rules: [rule(['configmaps'], ['DELETE'])] }),
      { ...webhook('ns-delete.example.com', '/deny-bad', ''), namespaceSelector: {}, rules: [{ ...rule(['namespaces'], ['DELETE']), scope: 'Cluster' }] },
    ]);
    for (const name of ['bad-cm', 'ok-1', 'ok-2']) expect((await http(r, 'POST', '/api/v1/namespaces/wh-delete/configmaps', { metadata: { name, labels: { set: 'x' } } })).status).toBe(201);
    const one = await kubectl(r, ['delete', 'configmap', 'bad-cm', '-n', 'wh-delete']);
    expect(one.stderr.trim()).toBe('Error from server (Forbidden): admission webhook "delete.example.com" denied the request: pod name bad-cm is not allowed');
    expect((await kubectl(r, ['delete', 'configmap', 'ok-1', '-n', 'wh-delete'])).code).toBe(0);
    const deleted = seen('/deny-bad', 'wh-delete').find((v) => v.request.operation === 'DELETE' && v.request.name === 'ok-1')!.request;
    expect(deleted).toMatchObject({ object: null, oldObject: { metadata: { name: 'ok-1' } }, options: { kind: 'DeleteOptions' } });
    const collection = await http(r, 'DELETE', '/api/v1/namespaces/wh-delete/configmaps?labelSelector=set%3Dx');
    expect(collection.status).toBe(403);
    expect(collection.json.message).toBe('admission webhook "delete.example.com" denied the request: pod name bad-cm is not allowed');
    expect((await http(r, 'GET', '/api/v1/namespaces/wh-delete/configmaps/bad-cm')).status).toBe(200);
    const ns = await http(r, 'DELETE', '/api/v1/namespaces/bad-namespace');
    expect(ns.status).toBe(403);
    expect(ns.json.message).toBe('admission webhook "ns-delete.example.com" denied the request: pod name bad-namespace is not allowed');
    expect((await http(r, 'DELETE', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/deletes')).status).toBe(200);
  });
});

describe('selectors, conditions and dry run', () => {
  it('namespaceSelector and objectSelector choose the requests sent', async () => {
    await namespace('wh-sel-a', { team: 'a' });
    await namespace('wh-sel-b', { team: 'b' });
    await configure('Validating', 'selectors', [
      { ...webhook('ns.example.com', '/ns-sel', ''), namespaceSelector: { matchLabels: { team: 'a' } } },
      { ...webhook('obj.example.com', '/obj-sel', ''), namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Exists' }] }, objectSelector: { matchLabels: { audit: 'yes' } } },
    ]);
    for (const ns of ['wh-sel-a', 'wh-sel-b']) {
      expect((await http(r, 'POST', `/api/v1/namespaces/${ns}/pods`, podYaml(ns, 'plain'))).status).toBe(201);
      expect((await http(r, 'POST', `/api/v1/namespaces/${ns}/pods`, podYaml(ns, 'audited', { audit: 'yes' }))).status).toBe(201);
    }
    expect(seen('/ns-sel', 'wh-sel-a').map((v) => v.request.name)).toEqual(['plain', 'audited']);
    expect(seen('/ns-sel', 'wh-sel-b')).toEqual([]);
    expect(seen('/obj-sel', 'wh-sel-a').map((v) => v.request.name)).toEqual(['audited']);
    expect(seen('/obj-sel', 'wh-sel-b').map((v) => v.request.name)).toEqual(['audited']);
  });

  it('matchConditions skip the webhook; a condition that fails refuses under Fail', async () => {
    await namespace('wh-cond');
    await configure('Validating', 'conditions', [
      webhook('cond-deny.example.com', '/deny-bad', 'wh-cond', { matchConditions: [{ name: 'not-exempt', expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)" }] }),
    ]);
    expect((await http(r, 'POST', '/api/v1/namespaces/wh-cond/pods', podYaml('wh-cond', 'bad-exempt', { exempt: 'true' }))).status).toBe(201);
    const denied = await http(r, 'POST', '/api/v1/namespaces/wh-cond/pods', podYaml('wh-cond', 'bad-plain'));
    expect(denied.status).toBe(403);
    expect(denied.json.message).toBe('admission webhook "cond-deny.example.com" denied the request: pod name bad-plain is not allowed');
    await namespace('wh-cond-error');
    await configure('Validating', 'conditions-error', [webhook('cond-error.example.com', '/allow', 'wh-cond-error', { matchConditions: [{ name: 'broken', expression: 'object.spec.nothing.here' }] })]);
    const refused = await http(r, 'POST', '/api/v1/namespaces/wh-cond-error/pods', podYaml('wh-cond-error', 'x'));
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/^pods "x" is forbidden: expression 'object.spec.nothing.here' resulted in error/);
  });

  it('a dry run reaches only webhooks without side effects, and says so', async () => {
    await namespace('wh-dry');
    await configure('Validating', 'dry', [webhook('none.example.com', '/dry-none', 'wh-dry', { sideEffects: 'NoneOnDryRun' })]);
    const ok = await kubectl(r, ['create', '--dry-run=server', '-f', '-'], podYaml('wh-dry', 'd'));
    expect(ok.code, ok.stderr).toBe(0);
    expect(seen('/dry-none', 'wh-dry').map((v) => v.request.dryRun)).toEqual([true]);
    expect((await http(r, 'GET', '/api/v1/namespaces/wh-dry/pods/d')).status).toBe(404);
    await configure('Validating', 'dry-effects', [webhook('effects.example.com', '/dry-effects', 'wh-dry', { sideEffects: 'Some' })]);
    const refused = await kubectl(r, ['create', '--dry-run=server', '-f', '-'], podYaml('wh-dry', 'd'));
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe('Error from server (BadRequest): error when creating "STDIN": admission webhook "effects.example.com" does not support dry run');
    expect(seen('/dry-effects', 'wh-dry')).toEqual([]);
  });

  it('a pods/status rule sees status writes only', async () => {
    await namespace('wh-status');
    expect((await http(r, 'POST', '/api/v1/namespaces/wh-status/pods', podYaml('wh-status', 'bad-status'))).status).toBe(201);
    await configure('Validating', 'status', [webhook('status.example.com', '/deny-bad', 'wh-status', { rules: [{ ...rule(['pods/status'], ['UPDATE']) }] })]);
    const labelled = await http(r, 'PATCH', '/api/v1/namespaces/wh-status/pods/bad-status', { metadata: { labels: { a: 'b' } } }, { 'content-type': 'application/merge-patch+json' });
    expect(labelled.status, labelled.text).toBe(200);
    const status = await http(r, 'PATCH', '/api/v1/namespaces/wh-status/pods/bad-status/status', { status: { phase: 'Running' } }, { 'content-type': 'application/merge-patch+json' });
    expect(status.status).toBe(403);
    expect(status.json.message).toBe('admission webhook "status.example.com" denied the request: pod name bad-status is not allowed');
    const review = seen('/deny-bad', 'wh-status').at(-1)!.request;
    expect(review).toMatchObject({ subResource: 'status', requestSubResource: 'status', operation: 'UPDATE', object: { status: { phase: 'Running' } }, oldObject: { status: { phase: 'Pending' } } });
  });

  it('writes to the webhook configurations themselves are never sent to webhooks', async () => {
    await configure('Validating', 'deny-all-configs', [{ ...webhook('configs.example.com', '/hang', ''), namespaceSelector: {}, rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: '*' }], timeoutSeconds: 1 }]);
    const del = await http(r, 'DELETE', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/deny-all-configs');
    expect(del.status, del.text).toBe(200);
  });
});

describe('CONNECT', () => {
  it('pods/exec, attach, portforward and proxy are sent with their options object; a denial is the webhook\'s Status', async () => {
    await namespace('wh-connect');
    const connect = (resources: string[]) => [{ operations: ['CONNECT'], apiGroups: [''], apiVersions: ['v1'], resources, scope: 'Namespaced' }];
    await configure('Validating', 'connect', [webhook('exec.example.com', '/deny-connect', 'wh-connect', { rules: connect(['pods/exec', 'pods/portforward', 'pods/proxy']) })]);
    expect((await kubectl(r, ['create', '-f', '-'], podYaml('wh-connect', 'shell'))).code).toBe(0);
    const exec = await kubectl(r, ['exec', '-n', 'wh-connect', 'shell', '-c', 'c', '--', 'sh', '-c', 'id']);
    expect(exec.code).not.toBe(0);
    expect(exec.stderr).toContain('admission webhook "exec.example.com" denied the request: no exec into shell: ["sh","-c","id"]');
    const review = seen('/deny-connect', 'wh-connect')[0].request;
    expect(review).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'PodExecOptions' }, resource: { group: '', version: 'v1', resource: 'pods' }, subResource: 'exec',
      requestKind: { group: '', version: 'v1', kind: 'PodExecOptions' }, name: 'shell', namespace: 'wh-connect', operation: 'CONNECT',
      userInfo: { username: 'admin' }, oldObject: null, dryRun: false, options: null,
    });
    expect(review.object).toMatchObject({ kind: 'PodExecOptions', apiVersion: 'v1', container: 'c', command: ['sh', '-c', 'id'] });
    // The same through the API: the webhook's own code and message, GET or POST, upgrade or not.
    const pf = await http(r, 'POST', '/api/v1/namespaces/wh-connect/pods/shell/portforward?ports=8080,9090');
    expect(pf.status).toBe(403);
    expect(pf.json).toMatchObject({ kind: 'Status', reason: 'Forbidden', message: 'admission webhook "exec.example.com" denied the request: no portforward into shell: [8080,9090]' });
    const proxied = await http(r, 'GET', '/api/v1/namespaces/wh-connect/pods/shell/proxy/metrics');
    expect(proxied.status).toBe(403);
    expect(proxied.json.message).toBe('admission webhook "exec.example.com" denied the request: no proxy into shell: "metrics"');
    // attach is not in the rules: no call, the simulated kubelet's answer.
    const calls = seen('/deny-connect', 'wh-connect').length;
    const attach = await http(r, 'POST', '/api/v1/namespaces/wh-connect/pods/shell/attach?container=c&stdin=true');
    expect(attach.status).not.toBe(403);
    expect(seen('/deny-connect', 'wh-connect').length).toBe(calls);
  });
});

describe('matchConditions with authorizer', () => {
  it('ask the real authorizer for the requesting user', async () => {
    const tenant = await limitedTenant(r, 'wh-authz');
    // Denies pod creates by users who may not delete nodes: the admin passes, the tenant is refused.
    await configure('Validating', 'authz', [webhook('authz.example.com', '/deny-connect', 'wh-authz', {
      matchConditions: [{ name: 'not-cluster-admin', expression: "!authorizer.group('').resource('nodes').check('delete').allowed()" }],
    })]);
    const byAdmin = await http(r, 'POST', '/api/v1/namespaces/wh-authz/pods', podYaml('wh-authz', 'by-admin'));
    expect(byAdmin.status, byAdmin.text).toBe(201);
    const byTenant = await as(r, tenant, 'POST', '/api/v1/namespaces/wh-authz/pods', podYaml('wh-authz', 'by-tenant'));
    expect(byTenant.status).toBe(403);
    expect(byTenant.json.message).toMatch(/^admission webhook "authz.example.com" denied the request: /);
    // requestResource: the tenant may create pods in its namespace, so a condition on it matches.
    await namespace('wh-authz-own');
    await configure('Validating', 'authz-own', [webhook('own.example.com', '/allow', 'wh-authz-own', {
      matchConditions: [{ name: 'may-create', expression: "authorizer.requestResource.check('create').allowed()" }],
    })]);
    expect((await http(r, 'POST', '/api/v1/namespaces/wh-authz-own/pods', podYaml('wh-authz-own', 'p'))).status).toBe(201);
    expect(seen('/allow', 'wh-authz-own').length).toBe(1);
  });
});

describe('a hanging webhook against a victim tenant', () => {
  it('delays only the requests it matches', async () => {
    const attacker = await limitedTenant(r, 'wh-attacker');
    await configure('Validating', 'attacker-hang', [webhook('attacker.example.com', '/hang', 'wh-attacker', { rules: [rule(['configmaps'])], timeoutSeconds: 10, failurePolicy: 'Ignore' })]);
    const victim = await Victim.create(r, 'wh-victim');
    await victim.baseline();
    const { result, report } = await victim.during('hanging webhook on 20 of the attacker\'s creates', async () => {
      const writes = Array.from({ length: 20 }, (_, i) => as(r, attacker, 'POST', '/api/v1/namespaces/wh-attacker/configmaps', { metadata: { name: `a-${i}` } }, {}, 30_000));
      return Promise.all(writes);
    });
    expect(report.failures).toEqual([]);
    // Each attacker write waited for its webhook's deadline and was then admitted (failurePolicy Ignore).
    expect(result.map((x) => x.status)).toEqual(Array(20).fill(201));
    await waitFor('hung calls seen', async () => (reviews.filter((v) => v.path === '/hang' && v.request.namespace === 'wh-attacker').length >= 20 ? true : undefined), 5000);
  }, 120_000);
});
