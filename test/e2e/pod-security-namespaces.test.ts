// PodSecurity on Namespaces through the real gateway, as kube-apiserver 1.32's ValidateNamespace: bad
// pod-security.kubernetes.io labels refuse the namespace with kube's 422 (kubectl prints it), an `enforce` label
// made stricter answers warnings about the pods already there (grouped as kube groups them, also on
// --dry-run=server), an exempt namespace is told its policy is ignored, and a namespace of 3,500 pods gets kube's
// "only checked against the first 3000" while another tenant's requests keep their latency.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running } from './fixtures';
import { Victim } from './hostile';

let r: Running;
const L = 'pod-security.kubernetes.io/';

beforeAll(async () => {
  r = await startTestGateway({ vars: { POD_SECURITY_EXEMPT_NAMESPACES: 'legacy' } });
}, 120_000);
afterAll(() => stopTestGateway(r));

const nsYaml = (name: string, labels: Record<string, string>) =>
  `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n  labels:\n${Object.entries(labels).map(([k, v]) => `    ${k}: "${v}"`).join('\n')}\n`;
const pod = (name: string, spec: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } });
/** The Warning headers' texts (`299 - "<text>"`), in order. */
const warningsOf = (headers: Headers) => (headers.get('warning') ?? '').split(/,\s*(?=299 )/).filter(Boolean).map((w) => JSON.parse(w.replace(/^299 - /, '')) as string);

async function makePods(ns: string, pods: object[], parallel = 16): Promise<void> {
  for (let i = 0; i < pods.length; i += parallel) {
    const made = await Promise.all(pods.slice(i, i + parallel).map((p) => http(r, 'POST', `/api/v1/namespaces/${ns}/pods`, p)));
    for (const m of made) if (m.status !== 201) throw new Error(`pod create: ${m.status} ${m.text.slice(0, 200)}`);
  }
}

describe('PodSecurity on Namespaces', () => {
  it("refuses bad labels on create and on an update that changes them, with kube's Invalid status", async () => {
    const created = await kubectl(r, ['apply', '-f', '-'], nsYaml('bad', { [`${L}enforce`]: 'strict', [`${L}audit-version`]: 'v1.x' }));
    expect(created.code).not.toBe(0);
    // kubectl lists the causes of kube's aggregated message.
    expect(created.stderr).toContain(`The Namespace "bad" is invalid: \n* metadata.labels[${L}enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted\n`
      + `* metadata.labels[${L}audit-version]: Invalid value: "v1.x": must be "latest" or "v1.x"`);
    const posted = await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: 'bad', labels: { [`${L}enforce`]: 'strict', [`${L}audit-version`]: 'v1.x' } } });
    expect(posted.json).toMatchObject({
      code: 422, reason: 'Invalid',
      message: `Namespace "bad" is invalid: [metadata.labels[${L}enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted, `
        + `metadata.labels[${L}audit-version]: Invalid value: "v1.x": must be "latest" or "v1.x"]`,
    });
    expect((await http(r, 'GET', '/api/v1/namespaces/bad')).status).toBe(404);
    expect((await kubectl(r, ['create', 'namespace', 'team'])).code).toBe(0);
    const res = await http(r, 'PATCH', '/api/v1/namespaces/team', { metadata: { labels: { [`${L}warn`]: 'loud' } } }, { 'content-type': 'application/merge-patch+json' });
    expect(res.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
      message: `Namespace "team" is invalid: metadata.labels[${L}warn]: Invalid value: "loud": must be one of privileged, baseline, restricted`,
      details: { name: 'team', kind: 'Namespace', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "loud": must be one of privileged, baseline, restricted', field: `metadata.labels[${L}warn]` }] },
    });
  });

  it('warns about the pods already there when enforce gets stricter, grouped and worded as kube, also on a server dry run', async () => {
    await makePods('team', [
      pod('web-2', { hostNetwork: true }), pod('web-1', { hostNetwork: true }), pod('web-3', { hostPID: true }), pod('fine'),
      pod('admin', { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] }),
    ]);
    const dry = await kubectl(r, ['label', 'namespace', 'team', `${L}enforce=baseline`, '--dry-run=server']);
    expect(dry.code, dry.stderr).toBe(0);
    const expected = [
      'Warning: existing pods in namespace "team" violate the new PodSecurity enforce level "baseline:latest"',
      'Warning: admin: privileged',
      'Warning: web-1 (and 2 other pods): host namespaces',
    ];
    expect(dry.stderr.trim().split('\n')).toEqual(expected);
    expect((await http(r, 'GET', '/api/v1/namespaces/team')).json.metadata.labels?.[`${L}enforce`]).toBeUndefined();
    const applied = await kubectl(r, ['label', 'namespace', 'team', `${L}enforce=baseline`]);
    expect(applied.stderr.trim().split('\n')).toEqual(expected);
    // Relaxing, or changing only warn, checks nothing; a new version of the same level does.
    expect((await kubectl(r, ['label', 'namespace', 'team', `${L}warn=restricted`])).stderr).toBe('');
    const pinned = await http(r, 'PATCH', '/api/v1/namespaces/team', { metadata: { labels: { [`${L}enforce-version`]: 'v1.30' } } }, { 'content-type': 'application/merge-patch+json' });
    expect(pinned.status).toBe(200);
    expect(warningsOf(pinned.headers)).toEqual([
      'existing pods in namespace "team" violate the new PodSecurity enforce level "baseline:v1.30"', 'admin: privileged', 'web-1 (and 2 other pods): host namespaces',
    ]);
    expect((await kubectl(r, ['label', 'namespace', 'team', `${L}enforce=privileged`, '--overwrite'])).stderr).toBe('');
  });

  it('tells an exempt namespace that its policy is ignored, without checking its pods', async () => {
    expect((await kubectl(r, ['create', 'namespace', 'legacy'])).code).toBe(0);
    await makePods('legacy', [pod('old', { hostNetwork: true })]);
    const labelled = await kubectl(r, ['label', 'namespace', 'legacy', `${L}enforce=restricted`, `${L}audit=baseline`]);
    expect(labelled.code).toBe(0);
    expect(labelled.stderr.trim()).toBe('Warning: namespace "legacy" is exempt from Pod Security, and the policy (enforce=restricted:latest, audit=baseline:latest) will be ignored');
  });

  it('checks at most 3000 of a large namespace\'s pods, as kube, while another tenant keeps its latency', async () => {
    expect((await kubectl(r, ['create', 'namespace', 'crowd'])).code).toBe(0);
    await makePods('crowd', Array.from({ length: 3500 }, (_, i) => pod(`p-${String(i).padStart(4, '0')}`, i % 2 ? { hostNetwork: true } : {})));
    const victim = await Victim.create(r, 'psa-victim');
    const levels = ['baseline', 'restricted'];
    const { result, report } = await victim.during('namespace pod checks', async () => {
      const answers: string[][] = [];
      for (let i = 0; i < 6; i++) {
        // Each update pins a new version of a stricter level: every one evaluates the namespace's pods.
        const res = await http(r, 'PATCH', '/api/v1/namespaces/crowd', { metadata: { labels: { [`${L}enforce`]: levels[i % 2], [`${L}enforce-version`]: `v1.${20 + i}` } } }, { 'content-type': 'application/merge-patch+json' });
        expect(res.status).toBe(200);
        answers.push(warningsOf(res.headers));
      }
      return answers;
    });
    expect(report.failures).toEqual([]);
    // kube's bounds: at most 3000 pods (fewer if the 1 s ran out first), pods checked in name order here.
    for (const [i, answer] of result.entries()) {
      const checked = Number(/^new PodSecurity enforce level only checked against the first (\d+) of 3500 existing pods$/.exec(answer[0]!)?.[1]);
      expect(checked).toBeGreaterThan(0);
      expect(checked).toBeLessThanOrEqual(3000);
      expect(answer.slice(1)).toEqual([
        `existing pods in namespace "crowd" violate the new PodSecurity enforce level "${levels[i % 2]}:v1.${20 + i}"`,
        ...(i % 2 ? [] : [`p-0001 (and ${Math.floor(checked / 2) - 1} other pods): host namespaces`]),
      ].concat(i % 2 ? answer.slice(2) : []));
    }
  }, 300_000);
});
