// Reinvocation across MutatingAdmissionPolicy and the mutating webhooks through the real gateway, as kube 1.32
// (core/admission/reinvocation.ts): pods created with /usr/bin/kubectl in namespaces where a policy and a webhook
// (HTTPS on loopback, its self-signed CA trusted through EDGEPLANE_TRUSTED_CAS) both mutate, each with
// reinvocationPolicy IfNeeded or Never. The webhook counts its calls in the label `hook-calls`; the policy copies
// that count into `seen-hook`, so the stored pod shows which of the two ran again. A webhook that takes out what a
// built-in plugin (Priority) set is called again after the built-in plugins' second run puts it back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startWebhookServer, type WebhookServer } from './webhook-server';
import { http, kubectl, startTestGateway, stopTestGateway, type Running } from './fixtures';

let r: Running;
let server: WebhookServer;
let base = '';
let caBundle = '';
const reviews: { path: string; namespace: string; labels: Record<string, string> }[] = [];
const AR = '/apis/admissionregistration.k8s.io/v1alpha1';
const V1A1 = 'admissionregistration.k8s.io/v1alpha1';

function reply(res: ServerResponse, uid: string, patch?: unknown[]) {
  res.setHeader('content-type', 'application/json');
  const response = patch ? { uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') } : { uid, allowed: true };
  res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
}

// /count: `hook-calls` = its calls so far for this object + 1. /strip-priority: takes out spec.priority when set.
function handle(req: IncomingMessage, res: ServerResponse) {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const path = (req.url ?? '').split('?')[0];
    const request = JSON.parse(body).request;
    const labels: Record<string, string> = request.object?.metadata?.labels ?? {};
    reviews.push({ path, namespace: request.namespace, labels: { ...labels } });
    if (path === '/count') return reply(res, request.uid, [{ op: 'add', path: '/metadata/labels/hook-calls', value: String(Number(labels['hook-calls'] ?? '0') + 1) }]);
    if (path === '/strip-priority') return reply(res, request.uid, request.object?.spec?.priority === undefined ? undefined : [{ op: 'remove', path: '/spec/priority' }]);
    return reply(res, request.uid);
  });
}

async function create(path: string, body: unknown) {
  const res = await http(r, 'POST', path, body);
  expect(res.status, res.text).toBe(201);
}

const inNamespace = (ns: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': ns } });
const podRules = [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['CREATE'] }];

/** A MutatingAdmissionPolicy and its binding for the pods of `ns`. */
async function policy(ns: string, reinvocationPolicy: string, expression: string) {
  await create(`${AR}/mutatingadmissionpolicies`, {
    apiVersion: V1A1, kind: 'MutatingAdmissionPolicy', metadata: { name: ns },
    spec: { reinvocationPolicy, matchConstraints: { resourceRules: podRules, namespaceSelector: inNamespace(ns) }, mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression } }] },
  });
  await create(`${AR}/mutatingadmissionpolicybindings`, { apiVersion: V1A1, kind: 'MutatingAdmissionPolicyBinding', metadata: { name: ns }, spec: { policyName: ns } });
}

/** A mutating webhook on `path` for the pods of `ns`. */
async function webhook(ns: string, reinvocationPolicy: string, path: string) {
  await create('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: ns },
    webhooks: [{
      name: `${ns}.example.com`, clientConfig: { url: `${base}${path}`, caBundle }, rules: [{ ...podRules[0], scope: 'Namespaced' }], namespaceSelector: inNamespace(ns),
      sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 5, failurePolicy: 'Fail', reinvocationPolicy,
    }],
  });
}

async function kubectlCreatePod(ns: string, name: string) {
  const out = await kubectl(r, ['create', '-f', '-', '-o', 'json'], JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }));
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout);
}

// The policy copies what the webhook has done so far, so it changes the object again only when it runs after the webhook.
const SEES_HOOK = 'Object{metadata: Object.metadata{labels: {"seen-hook": object.metadata.labels[?"hook-calls"].orValue("none")}}}';

beforeAll(async () => {
  server = await startWebhookServer(handle);
  ({ base, caBundle } = server);
  r = await startTestGateway({ vars: { RUNTIME_CONFIG: 'admissionregistration.k8s.io/v1alpha1' } });
}, 120_000);

afterAll(async () => {
  await stopTestGateway(r);
  await server.close();
});

describe('reinvocation across MutatingAdmissionPolicy and mutating webhooks', () => {
  it.each([
    // policy, webhook, the pod's labels, the webhook's calls
    ['IfNeeded', 'IfNeeded', { 'seen-hook': '1', 'hook-calls': '2' }, 2],
    ['IfNeeded', 'Never', { 'seen-hook': '1', 'hook-calls': '1' }, 1],
    ['Never', 'IfNeeded', { 'seen-hook': 'none', 'hook-calls': '1' }, 1],
    ['Never', 'Never', { 'seen-hook': 'none', 'hook-calls': '1' }, 1],
  ] as const)('policy %s, webhook %s', async (policyReinvocation, hookReinvocation, labels, calls) => {
    const ns = `reinvoke-${policyReinvocation}-${hookReinvocation}`.toLowerCase();
    await create('/api/v1/namespaces', { metadata: { name: ns } });
    await policy(ns, policyReinvocation, SEES_HOOK);
    await webhook(ns, hookReinvocation, '/count');
    const pod = await kubectlCreatePod(ns, 'web');
    expect(pod.metadata.labels).toEqual({ app: 'web', ...labels });
    const seen = reviews.filter((v) => v.namespace === ns);
    expect(seen.length).toBe(calls);
    // The webhook's first call saw the policy's first output; a second call saw the policy's second.
    expect(seen[0].labels).toEqual({ app: 'web', 'seen-hook': 'none' });
    if (calls === 2) expect(seen[1].labels).toEqual({ app: 'web', 'seen-hook': '1', 'hook-calls': '1' });
    const stored = await http(r, 'GET', `/api/v1/namespaces/${ns}/pods/web`);
    expect(stored.json.metadata.labels).toEqual(pod.metadata.labels);
  });

  it('an IfNeeded webhook is not called again when the policy\'s second run leaves the object as the webhook left it', async () => {
    const ns = 'reinvoke-static';
    await create('/api/v1/namespaces', { metadata: { name: ns } });
    await policy(ns, 'IfNeeded', 'Object{metadata: Object.metadata{labels: {"team": "a"}}}');
    await webhook(ns, 'IfNeeded', '/count');
    const pod = await kubectlCreatePod(ns, 'web');
    expect(pod.metadata.labels).toEqual({ app: 'web', team: 'a', 'hook-calls': '1' });
    expect(reviews.filter((v) => v.namespace === ns).length).toBe(1);
  });

  it('the built-in plugins run again before the second round: an IfNeeded webhook taking out what Priority set is called again', async () => {
    for (const [ns, reinvocationPolicy] of [['reinvoke-builtin', 'IfNeeded'], ['reinvoke-builtin-never', 'Never']]) {
      await create('/api/v1/namespaces', { metadata: { name: ns } });
      await webhook(ns, reinvocationPolicy, '/strip-priority');
      await kubectlCreatePod(ns, 'web');
      expect(reviews.filter((v) => v.namespace === ns).length).toBe(reinvocationPolicy === 'IfNeeded' ? 2 : 1);
    }
  });
});
