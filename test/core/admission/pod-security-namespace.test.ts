// PodSecurity on Namespaces as kube 1.32's ValidateNamespace (k8s.io/pod-security-admission/admission): label
// parsing (PolicyToEvaluate's fail-closed enforce, fail-open audit/warn, and its field errors), the 422 on a create
// or a changed bad label, the exempt-namespace warning, when an update asks for the existing pods to be evaluated,
// and that evaluation's warnings (grouping, wording, order, kube's 3000-pod and 1 s limits) over a paged pod list.
import { describe, expect, it } from 'vitest';
import { executeWrite, type WriteRequest } from '../../../core/writes';
import { lookupGroupResource } from '../../../core/registry';
import type { AdmissionFollowUp, AdmissionInputs } from '../../../core/admission/attributes';
import { policyToEvaluate } from '../../../core/admission/pod-security/policy';
import { evaluateNamespacePods, ExistingPodsCheck, type PodPageSource } from '../../../core/admission/pod-security/existing-pods';
import { memoryStore } from '../memory-store';
import { statusOf } from '../status-of';

const namespaces = lookupGroupResource('core/namespaces')!;
const pods = lookupGroupResource('core/pods')!;
const L = 'pod-security.kubernetes.io/';

function write(store: ReturnType<typeof memoryStore>['store'], req: WriteRequest, inputs: AdmissionInputs = {}) {
  const warnings: string[] = [];
  const followUp: AdmissionFollowUp = {};
  const res = executeWrite(store, { type: namespaces, now: Date.UTC(2026, 0, 2), newUid: () => 'uid-1', randomSuffix: () => 'x7k2q', warnings, admission: { inputs, dryRun: false, followUp } }, req);
  return { res, warnings, followUp };
}
const nsBody = (name: string, labels: Record<string, string>) => JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
const create = (name: string, labels: Record<string, string>): WriteRequest => ({ verb: 'create', namespace: '', body: nsBody(name, labels) });
const relabel = (name: string, labels: Record<string, string>): WriteRequest => ({
  verb: 'patch', namespace: '', name, subresource: '', patchType: 'application/merge-patch+json', body: JSON.stringify({ metadata: { labels } }),
});

describe('PolicyToEvaluate', () => {
  it('keeps privileged:latest for missing labels, fails enforce closed and audit/warn open, and names each bad label', () => {
    expect(policyToEvaluate(undefined)).toEqual({ policy: { enforce: { level: 'privileged', version: 'latest' }, audit: { level: 'privileged', version: 'latest' }, warn: { level: 'privileged', version: 'latest' } }, errors: [] });
    const { policy, errors } = policyToEvaluate({
      [`${L}enforce`]: 'strict', [`${L}enforce-version`]: 'v1.29', [`${L}audit`]: 'Baseline', [`${L}warn`]: 'baseline', [`${L}warn-version`]: 'v1.05',
    });
    expect(policy).toEqual({
      enforce: { level: 'restricted', version: 'v1.29' }, audit: { level: 'privileged', version: 'latest' }, warn: { level: 'baseline', version: 'latest' },
    });
    expect(errors).toEqual([
      { reason: 'FieldValueInvalid', field: `metadata.labels[${L}enforce]`, message: 'Invalid value: "strict": must be one of privileged, baseline, restricted' },
      { reason: 'FieldValueInvalid', field: `metadata.labels[${L}audit]`, message: 'Invalid value: "Baseline": must be one of privileged, baseline, restricted' },
      { reason: 'FieldValueInvalid', field: `metadata.labels[${L}warn-version]`, message: 'Invalid value: "v1.05": must be "latest" or "v1.x"' },
    ]);
    // strconv.Atoi: a minor beyond int64 does not parse; one within it does.
    expect(policyToEvaluate({ [`${L}enforce-version`]: 'v1.9223372036854775808' }).errors).toHaveLength(1);
    expect(policyToEvaluate({ [`${L}enforce-version`]: 'v1.9223372036854775807' }).errors).toHaveLength(0);
  });
});

describe('ValidateNamespace', () => {
  it('refuses a create with a bad label with kube\'s Invalid status, and admits good labels', () => {
    const { store } = memoryStore();
    expect(statusOf(() => write(store, create('bad', { [`${L}enforce`]: 'strict', [`${L}warn-version`]: '1.30' })))).toMatchObject({
      code: 422, reason: 'Invalid',
      message: `Namespace "bad" is invalid: [metadata.labels[${L}enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted, `
        + `metadata.labels[${L}warn-version]: Invalid value: "1.30": must be "latest" or "v1.x"]`,
      details: { name: 'bad', kind: 'Namespace', causes: [{ reason: 'FieldValueInvalid', field: `metadata.labels[${L}enforce]` }, { field: `metadata.labels[${L}warn-version]` }] },
    });
    expect(write(store, create('good', { [`${L}enforce`]: 'baseline' })).res.code).toBe(201);
  });

  it('refuses an update only when it changes the bad labels; asks for the pods only when enforce gets stricter or changes version', () => {
    const { store, objects } = memoryStore();
    // A namespace stored with a bad label before (as a bootstrap or raw write could leave it) may keep it.
    objects.set('team', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', uid: 'u', resourceVersion: '1', creationTimestamp: '2026-01-01T00:00:00Z', labels: { [`${L}audit`]: 'loud' } } } as never);
    expect(write(store, relabel('team', { other: 'x' })).res.code).toBe(200);
    expect(statusOf(() => write(store, relabel('team', { [`${L}audit`]: 'louder' }))).message)
      .toBe(`Namespace "team" is invalid: metadata.labels[${L}audit]: Invalid value: "louder": must be one of privileged, baseline, restricted`);
    const tighten = write(store, relabel('team', { [`${L}audit`]: null as never, [`${L}enforce`]: 'baseline' }));
    expect(tighten.res.code).toBe(200);
    expect(tighten.followUp).toEqual({ podSecurityPods: { namespace: 'team', level: 'baseline', version: 'latest' } });
    expect(write(store, relabel('team', { [`${L}enforce`]: 'restricted' })).followUp.podSecurityPods).toMatchObject({ level: 'restricted' });
    expect(write(store, relabel('team', { [`${L}enforce`]: 'baseline' })).followUp).toEqual({}); // relaxed
    expect(write(store, relabel('team', { [`${L}enforce-version`]: 'v1.30' })).followUp.podSecurityPods).toEqual({ namespace: 'team', level: 'baseline', version: 'v1.30' });
    expect(write(store, relabel('team', { [`${L}warn`]: 'restricted' })).followUp).toEqual({}); // enforce unchanged
    expect(write(store, relabel('team', { [`${L}enforce`]: 'privileged' })).followUp).toEqual({});
  });

  it('tells an exempt namespace its policy is ignored, and evaluates none of its pods', () => {
    const { store } = memoryStore();
    // A create by POST carries no namespace in kube's attributes: never exempt.
    expect(write(store, create('kube-system', { [`${L}enforce`]: 'baseline' }), { podSecurityExempt: 'namespace' }).warnings)
      .toEqual(['namespace "kube-system" is exempt from Pod Security, and the policy (enforce=baseline:latest) will be ignored']);
    const up = write(store, relabel('kube-system', { [`${L}enforce`]: 'restricted', [`${L}warn-version`]: 'v1.30' }), { podSecurityExempt: 'namespace' });
    expect(up.followUp).toEqual({});
    expect(up.warnings).toEqual(['namespace "kube-system" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored']);
    expect(write(store, relabel('kube-system', { [`${L}audit`]: 'baseline', [`${L}enforce`]: 'privileged' }), { podSecurityExempt: 'namespace' }).warnings).toEqual([]);
    expect(write(store, relabel('kube-system', { [`${L}audit`]: 'restricted', [`${L}enforce`]: 'baseline' }), { podSecurityExempt: 'namespace' }).warnings)
      .toEqual(['namespace "kube-system" is exempt from Pod Security, and the policy (enforce=baseline:latest, audit=restricted:latest) will be ignored']);
  });

  it('notes labels that do not parse on a pod\'s audit event', () => {
    const { store } = memoryStore();
    const auditAnnotations: Record<string, string> = {};
    const inputs: AdmissionInputs = {
      namespace: { metadata: { name: 'ns', labels: { [`${L}warn`]: 'nope' } } }, serviceAccounts: { default: { metadata: { name: 'default', namespace: 'ns' } } },
      priorityClasses: [], limitRanges: [], resourceQuotas: [],
    };
    executeWrite(store, { type: pods, now: 0, newUid: () => 'u', randomSuffix: () => 'x7k2q', auditAnnotations, admission: { inputs, dryRun: false } },
      { verb: 'create', namespace: 'ns', body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }) });
    expect(auditAnnotations).toEqual({
      [`${L}error`]: `Failed to parse policy: metadata.labels[${L}warn]: Invalid value: "nope": must be one of privileged, baseline, restricted`,
      [`${L}enforce-policy`]: 'privileged:latest',
    });
  });
});

const pod = (name: string, spec: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } });

describe('existing pods at the new enforce level', () => {
  it('groups pods failing for the same reasons under the first by name, in kube\'s words and order', () => {
    const check = new ExistingPodsCheck('team', { level: 'baseline', version: 'latest' }, ['gvisor']);
    const hostPath = { volumes: [{ name: 'h', hostPath: { path: '/' } }] };
    // Grouped by the reasons alone (ForbiddenReason): hostNetwork and hostIPC are both "host namespaces".
    for (const p of [pod('web-2', { hostNetwork: true }), pod('web-1', { hostIPC: true }), pod('web-3', { hostNetwork: true }), pod('fine'),
      pod('admin', { hostPID: true, containers: [{ name: 'c', image: 'x', securityContext: { privileged: true } }] }),
      pod('db-1', hostPath), pod('db-0', hostPath), pod('sandboxed', { runtimeClassName: 'gvisor', hostNetwork: true })]) check.add(p);
    expect(check.warnings(7)).toEqual([
      'existing pods in namespace "team" violate the new PodSecurity enforce level "baseline:latest"',
      'admin: host namespaces, privileged',
      'db-0 (and 1 other pod): hostPath volumes',
      'web-1 (and 2 other pods): host namespaces',
    ]);
    expect(new ExistingPodsCheck('team', { level: 'restricted', version: 'v1.30' }).warnings(0)).toEqual([]);
  });

  const page = (items: object[], cont = '', remaining?: number) => new Response(JSON.stringify({
    kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '9', ...(cont ? { continue: cont } : {}), ...(remaining !== undefined ? { remainingItemCount: remaining } : {}) }, items,
  }));

  it('reads pages until the list ends, within 3000 pods, and counts the pods it did not check', async () => {
    const total = 4000;
    const calls: number[] = [];
    const source: PodPageSource = {
      now: () => 0,
      async list(_ns, limit, cont) {
        calls.push(limit);
        const from = cont ? Number(cont) : 0;
        const to = Math.min(total, from + limit);
        const items = Array.from({ length: to - from }, (_, i) => pod(`p-${String(from + i).padStart(5, '0')}`, { hostNetwork: true }));
        return to < total ? page(items, String(to), total - to) : page(items);
      },
    };
    const warnings = await evaluateNamespacePods(source, { namespace: 'big', level: 'baseline', version: 'latest' }, []);
    expect(calls.reduce((a, b) => a + b, 0)).toBe(3000);
    expect(warnings).toEqual([
      'new PodSecurity enforce level only checked against the first 3000 of 4000 existing pods',
      'existing pods in namespace "big" violate the new PodSecurity enforce level "baseline:latest"',
      'p-00000 (and 2999 other pods): host namespaces',
    ]);
  });

  it('stops after kube\'s 1 s, halves a page too large to read, and reports a list that fails at once', async () => {
    let clock = 0;
    const slow: PodPageSource = {
      now: () => clock,
      async list(_ns, _limit, cont) {
        clock += 600;
        return cont ? page([pod('b', { hostPID: true })], 'c2', 50) : page([pod('a', { hostPID: true })], 'c1', 51);
      },
    };
    expect(await evaluateNamespacePods(slow, { namespace: 'n', level: 'baseline', version: 'latest' }, [])).toEqual([
      'new PodSecurity enforce level only checked against the first 2 of 52 existing pods',
      'existing pods in namespace "n" violate the new PodSecurity enforce level "baseline:latest"',
      'a (and 1 other pod): host namespaces',
    ]);
    const limits: number[] = [];
    const huge: PodPageSource = {
      now: () => 0,
      async list(_ns, limit) {
        limits.push(limit);
        // Over 4 MiB unless asked for a page of at most 31 pods.
        const items = Array.from({ length: limit }, (_, i) => ({ ...pod(`h${i}`), metadata: { name: `h${i}`, annotations: { big: limit > 31 ? 'x'.repeat(140_000) : 'x' } } }));
        return page(items);
      },
    };
    expect(await evaluateNamespacePods(huge, { namespace: 'n', level: 'restricted', version: 'latest' }, [])).toHaveLength(2);
    expect(limits).toEqual([250, 125, 62, 31]);
    const failing: PodPageSource = { now: () => 0, list: async () => new Response('{}', { status: 500 }) };
    expect(await evaluateNamespacePods(failing, { namespace: 'n', level: 'baseline', version: 'latest' }, [])).toEqual(['failed to list pods while checking new PodSecurity enforce level']);
  });
});
