// core/admission/webhook: kube's mutating and validating dispatchers with a fake transport: order, JSON patches,
// reinvocation, failurePolicy, dry run and sideEffects, kube's refusal texts.
import { describe, expect, it } from 'vitest';
import { lookupGroupResource } from '../../../core/registry';
import type { RequestAttributes } from '../../../core/admission/match';
import { webhooksOf, type Webhook } from '../../../core/admission/webhook/config';
import { runMutating, runValidating, type CallResult, type DispatchDeps } from '../../../core/admission/webhook/dispatch';
import { StatusError } from '../../../core/status';
import type { AuthzCheck } from '../../../core/admission/policy/environment';

const pods = lookupGroupResource('core/pods')!;
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', labels: { app: 'web' } }, spec: {} };
const attrs = (over: Partial<RequestAttributes> = {}): RequestAttributes => ({
  operation: 'CREATE', type: pods, subresource: '', namespace: 'ns', name: 'p', object: pod, oldObject: null, dryRun: false,
  user: { username: 'jane', uid: '', groups: [] }, ...over,
});
const rule = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] };
function config(kind: 'Mutating' | 'Validating', name: string, hooks: Record<string, unknown>[]) {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: `${kind}WebhookConfiguration`, metadata: { name }, webhooks: hooks.map((h) => ({ rules: [rule], sideEffects: 'None', clientConfig: { url: 'https://h/' }, ...h })) };
}
type Reply = (req: { uid: string; object: { metadata: { labels?: Record<string, string> } } }) => CallResult | Record<string, unknown>;
function deps(replies: Record<string, Reply>, calls: string[] = [], labels: Record<string, Record<string, string>> = {}): DispatchDeps {
  let n = 0;
  return {
    uid: () => `uid-${++n}`,
    namespaceLabels: async (name) => labels[name] ?? null,
    call: async (hook: Webhook, review: unknown) => {
      calls.push(hook.name);
      const req = (review as { request: Parameters<Reply>[0] }).request;
      const r = replies[hook.name](req);
      if ('ok' in r) return r as CallResult;
      return { ok: true, body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: req.uid, ...r } } };
    },
  };
}
const patch = (ops: unknown[]) => ({ allowed: true, patchType: 'JSONPatch', patch: btoa(JSON.stringify(ops)) });
async function refusal(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e.status;
    throw e;
  }
  throw new Error('admitted');
}

describe('mutating webhooks', () => {
  it('run in configuration-name order, each seeing the last patch', async () => {
    const hooks = webhooksOf('mutating', [config('Mutating', 'b', [{ name: 'b.example.com' }]), config('Mutating', 'a', [{ name: 'a.example.com' }])]);
    const calls: string[] = [];
    const out = await runMutating(hooks, attrs(), deps({
      'a.example.com': () => patch([{ op: 'add', path: '/metadata/labels/a', value: '1' }]),
      'b.example.com': (r) => (r.object.metadata.labels?.a === '1' ? patch([{ op: 'add', path: '/metadata/labels/b', value: '2' }]) : { allowed: false }),
    }, calls));
    expect(calls).toEqual(['a.example.com', 'b.example.com']);
    expect(out.changed).toBe(true);
    expect(out.object!.metadata.labels).toEqual({ app: 'web', a: '1', b: '2' });
    expect(out.auditAnnotations['mutation.webhook.admission.k8s.io/round_0_index_0']).toBe('{"configuration":"a","webhook":"a.example.com","mutated":true}');
  });
  it('reinvokes an IfNeeded webhook once when a later one changed the object', async () => {
    const hooks = webhooksOf('mutating', [config('Mutating', 'a', [{ name: 'first', reinvocationPolicy: 'IfNeeded' }, { name: 'second' }])]);
    const calls: string[] = [];
    await runMutating(hooks, attrs(), deps({ first: () => ({ allowed: true }), second: () => patch([{ op: 'add', path: '/metadata/labels/x', value: 'y' }]) }, calls));
    expect(calls).toEqual(['first', 'second', 'first']);
    const never: string[] = [];
    await runMutating(webhooksOf('mutating', [config('Mutating', 'a', [{ name: 'first' }, { name: 'second' }])]), attrs(), deps({ first: () => ({ allowed: true }), second: () => patch([{ op: 'add', path: '/metadata/labels/x', value: 'y' }]) }, never));
    expect(never).toEqual(['first', 'second']);
  });
  it('a denial carries kube text and code', async () => {
    const hooks = webhooksOf('mutating', [config('Mutating', 'a', [{ name: 'deny.example.com' }])]);
    const s = await refusal(runMutating(hooks, attrs(), deps({ 'deny.example.com': () => ({ allowed: false, status: { code: 403, message: 'no pods today' } }) })));
    expect(s).toMatchObject({ code: 403, message: 'admission webhook "deny.example.com" denied the request: no pods today' });
    const bare = await refusal(runMutating(hooks, attrs(), deps({ 'deny.example.com': () => ({ allowed: false }) })));
    expect(bare).toMatchObject({ code: 400, message: 'admission webhook "deny.example.com" denied the request without explanation' });
  });
  it('a failing call refuses under Fail and is skipped under Ignore', async () => {
    const fail = webhooksOf('mutating', [config('Mutating', 'a', [{ name: 'slow' }])]);
    const down = () => ({ ok: false as const, reason: 'Post "https://h/?timeout=10s": context deadline exceeded' });
    const s = await refusal(runMutating(fail, attrs(), deps({ slow: down })));
    expect(s).toMatchObject({ code: 500, message: 'Internal error occurred: failed calling webhook "slow": failed to call webhook: Post "https://h/?timeout=10s": context deadline exceeded' });
    const ignore = webhooksOf('mutating', [config('Mutating', 'a', [{ name: 'slow', failurePolicy: 'Ignore' }])]);
    const out = await runMutating(ignore, attrs(), deps({ slow: down }));
    expect(out.changed).toBe(false);
    const wrongUid = await refusal(runMutating(fail, attrs(), deps({ slow: () => ({ ok: true, body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'other', allowed: true } } }) })));
    expect(wrongUid.message).toBe('Internal error occurred: failed calling webhook "slow": received invalid webhook response: expected response.uid="uid-1", got "other"');
  });
  it('dry run: a webhook with side effects refuses (400); None is called', async () => {
    const hooks = webhooksOf('mutating', [config('Mutating', 'a', [{ name: 'fx', sideEffects: 'Some' }])]);
    const s = await refusal(runMutating(hooks, attrs({ dryRun: true }), deps({ fx: () => ({ allowed: true }) })));
    expect(s).toMatchObject({ code: 400, reason: 'BadRequest', message: 'admission webhook "fx" does not support dry run' });
    const calls: string[] = [];
    await runMutating(webhooksOf('mutating', [config('Mutating', 'a', [{ name: 'ok' }])]), attrs({ dryRun: true }), deps({ ok: () => ({ allowed: true }) }, calls));
    expect(calls).toEqual(['ok']);
  });
  it('selectors and matchConditions skip the call; a condition error under Fail is 403', async () => {
    const calls: string[] = [];
    const hooks = webhooksOf('mutating', [config('Mutating', 'a', [
      { name: 'ns', namespaceSelector: { matchLabels: { team: 'a' } } },
      { name: 'obj', objectSelector: { matchLabels: { app: 'db' } } },
      { name: 'cond', matchConditions: [{ name: 'not-jane', expression: "request.userInfo.username != 'jane'" }] },
      { name: 'yes', matchConditions: [{ name: 'web', expression: "object.metadata.labels.app == 'web'" }] },
    ])]);
    await runMutating(hooks, attrs(), deps({ ns: () => ({ allowed: true }), obj: () => ({ allowed: true }), cond: () => ({ allowed: true }), yes: () => ({ allowed: true }) }, calls, { ns: { team: 'b' } }));
    expect(calls).toEqual(['yes']);
    const broken = webhooksOf('mutating', [config('Mutating', 'a', [{ name: 'x', matchConditions: [{ name: 'bad', expression: 'object.nope.deeper' }] }])]);
    const s = await refusal(runMutating(broken, attrs(), deps({ x: () => ({ allowed: true }) })));
    expect(s.code).toBe(403);
    expect(s.message).toMatch(/^pods "p" is forbidden: expression 'object.nope.deeper' resulted in error/);
  });
});

describe('matchConditions with authorizer', () => {
  it('asks the real authorizer for the request\'s user, then matches on its answer', async () => {
    const hooks = webhooksOf('validating', [config('Validating', 'a', [
      { name: 'admins-skip', matchConditions: [{ name: 'not-admin', expression: "!authorizer.group('').resource('nodes').check('delete').allowed()" }] },
      { name: 'own', matchConditions: [{ name: 'may-get', expression: "authorizer.requestResource.check('get').allowed()" }] },
    ])]);
    const asked: AuthzCheck[] = [];
    const d: DispatchDeps = {
      ...deps({ 'admins-skip': () => ({ allowed: false, status: { message: 'no' } }), own: () => ({ allowed: true }) }),
      authorize: async (c) => {
        asked.push(c);
        return { allowed: c.resource === 'pods', reason: '' };
      },
    };
    const out = await runValidating(hooks, attrs(), d);
    // jane may not delete nodes: admins-skip matches and denies; she may get pods: own is called too.
    expect(out.deny?.message).toBe('admission webhook "admins-skip" denied the request: no');
    expect(asked).toEqual([
      { user: '', verb: 'delete', group: '', resource: 'nodes', subresource: '', namespace: '', name: '' },
      { user: '', verb: 'get', group: '', resource: 'pods', subresource: '', namespace: 'ns', name: 'p' },
    ]);
    const admin: DispatchDeps = { ...deps({ 'admins-skip': () => ({ allowed: false }), own: () => ({ allowed: true }) }), authorize: async () => ({ allowed: true, reason: '' }) };
    expect((await runValidating(hooks, attrs(), admin)).deny).toBeUndefined();
  });
  it('without an authorizer to ask, the check is an errored decision (failurePolicy decides)', async () => {
    const hooks = webhooksOf('validating', [config('Validating', 'a', [{ name: 'x', failurePolicy: 'Fail', matchConditions: [{ name: 'e', expression: "authorizer.path('/healthz').check('get').errored()" }] }])]);
    const calls: string[] = [];
    await runValidating(hooks, attrs(), deps({ x: () => ({ allowed: true }) }, calls));
    expect(calls).toEqual(['x']);
  });
});

describe('validating webhooks', () => {
  it('all are called at once; the first refusal in order wins; warnings and audit annotations are kept', async () => {
    const hooks = webhooksOf('validating', [config('Validating', 'v', [{ name: 'one' }, { name: 'two' }, { name: 'three' }])]);
    const calls: string[] = [];
    const out = await runValidating(hooks, attrs(), deps({
      one: () => ({ allowed: true, warnings: ['careful'], auditAnnotations: { k: 'v' } }),
      two: () => ({ allowed: false, status: { message: 'two says no' } }),
      three: () => ({ allowed: false, status: { message: 'three says no' } }),
    }, calls));
    expect(calls).toEqual(['one', 'two', 'three']);
    expect(out.deny?.message).toBe('admission webhook "two" denied the request: two says no');
    expect(out.warnings).toEqual(['careful']);
    expect(out.auditAnnotations).toEqual({ 'one/k': 'v' });
  });
  it('a validating webhook may not patch', async () => {
    const hooks = webhooksOf('validating', [config('Validating', 'v', [{ name: 'one' }])]);
    const out = await runValidating(hooks, attrs(), deps({ one: () => patch([]) }));
    expect(out.deny?.message).toBe('Internal error occurred: failed calling webhook "one": received invalid webhook response: validating webhook may not return response.patch');
  });
});
