// worker/admission-webhooks.ts through the resource handlers with the fake store and a stubbed fetch: a write no
// webhook matches costs no dry run; a matched create is dry-run, patched and written with the patched object; an
// update is written under the resourceVersion the webhook saw; a denial writes nothing.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { lookupGroupResource } from '../../core/registry';
import { afterWebhookConfigWrite } from '../../worker/admission-webhooks';
import { resourceApp } from './resource-app';

const VALIDATING = lookupGroupResource('admissionregistration.k8s.io/validatingwebhookconfigurations')!;
const reviews: any[] = [];
let answer: (request: any) => Record<string, unknown>;

beforeEach(() => {
  afterWebhookConfigWrite(VALIDATING);
  reviews.length = 0;
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    const review = JSON.parse(String(init.body));
    reviews.push({ url, review });
    return new Response(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, ...answer(review.request) } }));
  });
});
afterEach(() => vi.unstubAllGlobals());

function app(kind: 'Validating' | 'Mutating', operations = ['CREATE', 'UPDATE']) {
  const a = resourceApp();
  a.storeOf('core/namespaces').seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', labels: { 'kubernetes.io/metadata.name': 'ns' } }, status: { phase: 'Active' } });
  a.storeOf(`admissionregistration.k8s.io/${kind.toLowerCase()}webhookconfigurations`).seed({
    apiVersion: 'admissionregistration.k8s.io/v1', kind: `${kind}WebhookConfiguration`, metadata: { name: 'c' },
    webhooks: [{ name: 'hook.example.com', clientConfig: { url: 'https://hook.example/' }, rules: [{ operations, apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }], sideEffects: 'None', admissionReviewVersions: ['v1'] }],
  });
  return a;
}

const writes = (calls: { method: string; args: unknown[] }[]) => calls.filter((c) => c.method === 'write').map((c) => ({ req: c.args[1] as any, options: c.args[2] as any }));

describe('admission webhooks in the front door', () => {
  it('a write no rule matches is written once, with no dry run and no call', async () => {
    const a = app('Validating');
    const res = await a.request('POST', '/api/v1/namespaces/ns/secrets', { metadata: { name: 's' } });
    expect(res.status).toBe(201);
    expect(reviews).toEqual([]);
    expect(writes(a.calls).map((w) => w.options.dryRun)).toEqual([false]);
  });

  it('a mutated create is dry-run, patched, and written with the patched object', async () => {
    const a = app('Mutating');
    answer = () => ({ allowed: true, patchType: 'JSONPatch', patch: btoa(JSON.stringify([{ op: 'add', path: '/data', value: { added: 'yes' } }])) });
    const res = await a.request('POST', '/api/v1/namespaces/ns/configmaps', { metadata: { name: 'cm' } });
    expect(res.status).toBe(201);
    expect(((await res.json()) as any).data).toEqual({ added: 'yes' });
    expect(reviews[0].url).toBe('https://hook.example/?timeout=10s');
    expect(reviews[0].review.request).toMatchObject({ operation: 'CREATE', name: 'cm', namespace: 'ns', object: { metadata: { name: 'cm' } } });
    // The trial, the mutated object's trial, then the write.
    expect(writes(a.calls).filter((w) => w.req.verb === 'create').map((w) => w.options.dryRun)).toEqual([true, true, false]);
  });

  it('an update is written under the resourceVersion the webhook saw; a denial writes nothing', async () => {
    const a = app('Validating');
    answer = () => ({ allowed: true });
    expect((await a.request('POST', '/api/v1/namespaces/ns/configmaps', { metadata: { name: 'cm' } })).status).toBe(201);
    const rv = reviews[0] && (await (await a.request('GET', '/api/v1/namespaces/ns/configmaps/cm')).json() as any).metadata.resourceVersion;
    const patched = await a.request('PATCH', '/api/v1/namespaces/ns/configmaps/cm', { data: { a: 'b' } }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.status).toBe(200);
    const last = writes(a.calls).at(-1)!;
    expect(last.options.dryRun).toBe(false);
    expect(JSON.parse(last.req.body)).toEqual({ data: { a: 'b' }, metadata: { resourceVersion: rv } });
    expect(reviews.at(-1).review.request).toMatchObject({ operation: 'UPDATE', oldObject: { metadata: { resourceVersion: rv } }, object: { data: { a: 'b' } } });
    answer = () => ({ allowed: false, status: { message: 'no' } });
    const before = writes(a.calls).filter((w) => !w.options.dryRun).length;
    const denied = await a.request('PUT', '/api/v1/namespaces/ns/configmaps/cm', { metadata: { name: 'cm' }, data: { c: 'd' } });
    expect(denied.status).toBe(400);
    expect(((await denied.json()) as any).message).toBe('admission webhook "hook.example.com" denied the request: no');
    expect(writes(a.calls).filter((w) => !w.options.dryRun).length).toBe(before);
  });

  it('clientConfig.service: the Endpoints address and port of the Service port named', async () => {
    const a = resourceApp();
    a.storeOf('core/namespaces').seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' }, status: { phase: 'Active' } });
    a.storeOf('core/services').seed({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'hooks', namespace: 'sys' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 8443 }] } });
    a.storeOf('core/endpoints').seed({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'hooks', namespace: 'sys' }, subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ name: 'https', port: 8443 }] }] });
    a.storeOf('admissionregistration.k8s.io/validatingwebhookconfigurations').seed({
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'c' },
      webhooks: [{ name: 'svc.example.com', clientConfig: { service: { namespace: 'sys', name: 'hooks', path: '/validate' } }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }], sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 3 }],
    });
    answer = () => ({ allowed: true });
    expect((await a.request('POST', '/api/v1/namespaces/ns/configmaps', { metadata: { name: 'cm' } })).status).toBe(201);
    expect(reviews.map((r) => r.url)).toEqual(['https://10.1.2.3:8443/validate?timeout=3s']);
  });
});

describe('the webhook configurations snapshot', () => {
  const lists = (calls: { method: string; args: unknown[] }[]) => calls.filter((c) => c.method === 'list' && String(c.args[0]).includes('webhookconfigurations')).length;

  it('is read once for requests that find it old at the same moment, and again after a configuration write', async () => {
    const { currentWebhooks } = await import('../../worker/admission-webhooks');
    const a = app('Validating');
    const got = await Promise.all(Array.from({ length: 20 }, () => currentWebhooks(a.env, 1e12)));
    expect(lists(a.calls)).toBe(2); // mutating and validating, once
    expect(got.every((s) => s === got[0] && s.validating.length === 1)).toBe(true);
    // A read begun before a configuration write does not become the snapshot the writer's next request sees.
    const before = currentWebhooks(a.env, 2e12);
    afterWebhookConfigWrite(VALIDATING);
    a.storeOf('admissionregistration.k8s.io/validatingwebhookconfigurations').seed({
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'd' },
      webhooks: [{ name: 'two.example.com', clientConfig: { url: 'https://two.example/' }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }], sideEffects: 'None', admissionReviewVersions: ['v1'] }],
    });
    await before;
    expect((await currentWebhooks(a.env, 2e12)).validating.length).toBe(2);
  });
});
