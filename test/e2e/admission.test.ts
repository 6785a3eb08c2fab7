// The admission chain through the real gateway with kubectl v1.32 (core/admission/chain.ts): ServiceAccount
// (default account, kube-api-access projected volume, refusal of a missing account) and Priority (class
// resolution, globalDefault, refusal of a missing class), with kube-apiserver's messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, waitFor, type Running } from './fixtures';

let r: Running;
const NS = 'adm';

beforeAll(async () => {
  r = await startTestGateway({ vars: { CONTROLLERS: 'on' } });
  expect((await kubectl(r, ['create', 'namespace', NS])).code).toBe(0);
  // The ServiceAccount controller creates `default` in the new namespace.
  await waitFor('default account', async () => ((await http(r, 'GET', `/api/v1/namespaces/${NS}/serviceaccounts/default`)).status === 200 ? true : undefined));
}, 120_000);
afterAll(() => stopTestGateway(r));

const podYaml = (name: string, spec = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${NS}
spec:
  containers:
  - name: c
    image: nginx
${spec}`;

describe('ServiceAccount admission', () => {
  it('gives a pod the default account and the kube-api-access token volume', async () => {
    expect((await kubectl(r, ['apply', '-f', '-'], podYaml('plain'))).stderr).toBe('');
    const pod = JSON.parse((await kubectl(r, ['get', 'pod', 'plain', '-n', NS, '-o', 'json'])).stdout);
    expect(pod.spec.serviceAccountName).toBe('default');
    expect(pod.spec.serviceAccount).toBe('default');
    const volume = pod.spec.volumes.find((v: any) => v.name.startsWith('kube-api-access-'));
    expect(volume.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(volume.projected.sources.map((s: any) => Object.keys(s)[0])).toEqual(['serviceAccountToken', 'configMap', 'downwardAPI']);
    expect(pod.spec.containers[0].volumeMounts).toEqual([{ name: volume.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    expect(pod.spec).toMatchObject({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
  });

  it('refuses a pod naming a missing account with kube\'s 403', async () => {
    const res = await kubectl(r, ['create', '-f', '-'], podYaml('robot', '  serviceAccountName: robot'));
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe(`Error from server (Forbidden): error when creating "STDIN": pods "robot" is forbidden: error looking up service account ${NS}/robot: serviceaccount "robot" not found`);
    expect((await http(r, 'GET', `/api/v1/namespaces/${NS}/pods/robot`)).status).toBe(404);
    // Once the account exists the same pod is admitted, without a token when the account opts out.
    await kubectl(r, ['apply', '-f', '-'], `apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: robot\n  namespace: ${NS}\nautomountServiceAccountToken: false\n`);
    expect((await kubectl(r, ['create', '-f', '-'], podYaml('robot', '  serviceAccountName: robot'))).code).toBe(0);
    const pod = JSON.parse((await kubectl(r, ['get', 'pod', 'robot', '-n', NS, '-o', 'json'])).stdout);
    expect(pod.spec.volumes).toBeUndefined();
  });
});

describe('Priority admission', () => {
  it('resolves a PriorityClass and refuses a missing one with kube\'s message', async () => {
    expect((await kubectl(r, ['create', 'priorityclass', 'high', '--value=1000', '--preemption-policy=Never'])).code).toBe(0);
    expect((await kubectl(r, ['create', '-f', '-'], podYaml('important', '  priorityClassName: high'))).code).toBe(0);
    const pod = JSON.parse((await kubectl(r, ['get', 'pod', 'important', '-n', NS, '-o', 'json'])).stdout);
    expect(pod.spec).toMatchObject({ priorityClassName: 'high', priority: 1000, preemptionPolicy: 'Never' });
    const missing = await kubectl(r, ['create', '-f', '-'], podYaml('lost', '  priorityClassName: nope'));
    expect(missing.stderr.trim()).toBe('Error from server (Forbidden): error when creating "STDIN": pods "lost" is forbidden: no PriorityClass with name nope was found');
  });

  it('applies the globalDefault class and allows only one', async () => {
    expect((await kubectl(r, ['create', 'priorityclass', 'everyone', '--value=10', '--global-default=true'])).code).toBe(0);
    const second = await kubectl(r, ['create', 'priorityclass', 'another', '--value=20', '--global-default=true']);
    expect(second.stderr.trim()).toBe('error: failed to create priorityclass: priorityclasses.scheduling.k8s.io "another" is forbidden: PriorityClass everyone is marked as default. Only one default can exist');
    expect((await kubectl(r, ['create', '-f', '-'], podYaml('defaulted'))).code).toBe(0);
    const pod = JSON.parse((await kubectl(r, ['get', 'pod', 'defaulted', '-n', NS, '-o', 'json'])).stdout);
    expect(pod.spec).toMatchObject({ priorityClassName: 'everyone', priority: 10, preemptionPolicy: 'PreemptLowerPriority' });
  });
});
