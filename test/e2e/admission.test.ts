// The admission chain through the real gateway with kubectl v1.32 (core/admission/chain.ts): ServiceAccount
// (default account, kube-api-access projected volume, refusal of a missing account) and Priority (class
// resolution, globalDefault, refusal of a missing class), LimitRanger (defaults, refusals) and ResourceQuota (the
// N+1th pod refused with kube's message, status kept by the quota controller, the ReplicaSet controller backing
// off), with kube-apiserver's messages.
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

describe('LimitRanger admission', () => {
  it('defaults requests and limits and refuses a pod over max', async () => {
    await kubectl(r, ['create', 'namespace', 'limits']);
    await waitFor('default account', async () => ((await http(r, 'GET', '/api/v1/namespaces/limits/serviceaccounts/default')).status === 200 ? true : undefined));
    const lr = `apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: lr\n  namespace: limits\nspec:\n  limits:\n  - type: Container\n    default:\n      cpu: 500m\n    defaultRequest:\n      cpu: 100m\n      memory: 64Mi\n    max:\n      cpu: "1"\n`;
    expect((await kubectl(r, ['apply', '-f', '-'], lr)).code).toBe(0);
    expect((await kubectl(r, ['run', 'web', '-n', 'limits', '--image=nginx'])).code).toBe(0);
    const pod = JSON.parse((await kubectl(r, ['get', 'pod', 'web', '-n', 'limits', '-o', 'json'])).stdout);
    expect(pod.spec.containers[0].resources).toEqual({ limits: { cpu: '500m' }, requests: { cpu: '100m', memory: '64Mi' } });
    expect(pod.metadata.annotations['kubernetes.io/limit-ranger']).toBe('LimitRanger plugin set: cpu, memory request for container web; cpu limit for container web');
    const big = await kubectl(r, ['run', 'big', '-n', 'limits', '--image=nginx', '--overrides={"spec":{"containers":[{"name":"big","image":"nginx","resources":{"limits":{"cpu":"2"}}}]}}']);
    expect(big.stderr.trim()).toBe('Error from server (Forbidden): pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  });
});

describe('ResourceQuota admission and controller', () => {
  const Q = 'quota';
  const used = async () => (await http(r, 'GET', `/api/v1/namespaces/${Q}/resourcequotas/q`)).json?.status?.used?.pods;

  beforeAll(async () => {
    await kubectl(r, ['create', 'namespace', Q]);
    await waitFor('default account', async () => ((await http(r, 'GET', `/api/v1/namespaces/${Q}/serviceaccounts/default`)).status === 200 ? true : undefined));
    expect((await kubectl(r, ['create', 'quota', 'q', '-n', Q, '--hard=pods=2,count/configmaps=10'])).code).toBe(0);
    // The quota controller fills status.hard and status.used.
    await waitFor('quota counted', async () => ((await used()) === '0' ? true : undefined));
  });

  it('refuses the third pod with kube\'s exact message and gives the unit back when a pod goes', async () => {
    for (const name of ['one', 'two']) expect((await kubectl(r, ['run', name, '-n', Q, '--image=nginx'])).code).toBe(0);
    expect(await used()).toBe('2');
    const third = await kubectl(r, ['run', 'three', '-n', Q, '--image=nginx']);
    expect(third.stderr.trim()).toBe('Error from server (Forbidden): pods "three" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
    const described = (await kubectl(r, ['describe', 'quota', 'q', '-n', Q])).stdout;
    expect(described).toMatch(/pods\s+2\s+2/);
    expect((await kubectl(r, ['delete', 'pod', 'one', '-n', Q, '--grace-period=0', '--force'])).code).toBe(0);
    await waitFor('unit given back', async () => ((await used()) === '1' ? true : undefined));
    expect((await kubectl(r, ['run', 'three', '-n', Q, '--image=nginx'])).code).toBe(0);
    await kubectl(r, ['delete', 'pod', '--all', '-n', Q, '--grace-period=0', '--force']);
    await waitFor('quota empty', async () => ((await used()) === '0' ? true : undefined));
  });

  it('has the ReplicaSet controller back off on the refusal: 2 of 5 pods, FailedCreate events, no tight loop', async () => {
    expect((await kubectl(r, ['create', 'deployment', 'web', '-n', Q, '--image=nginx', '--replicas=5'])).code).toBe(0);
    const failed = await waitFor('FailedCreate', async () => {
      const events = (await http(r, 'GET', `/api/v1/namespaces/${Q}/events?fieldSelector=reason%3DFailedCreate`)).json?.items ?? [];
      return events.length ? events : undefined;
    });
    expect(failed[0].message).toMatch(/^Error creating: pods "web-[a-z0-9]+-[a-z0-9]{5}" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2$/);
    const pods = (await http(r, 'GET', `/api/v1/namespaces/${Q}/pods`)).json.items;
    expect(pods).toHaveLength(2);
    // Pod status changes resync the ReplicaSet (and retry the create) as in kube; once both pods run, only the work
    // queue's per-key exponential backoff (5 ms doubling) paces the retries: a handful in three seconds, where a
    // controller that retried at once on every refusal or status write would make hundreds.
    await waitFor('both pods running', async () => {
      const items = (await http(r, 'GET', `/api/v1/namespaces/${Q}/pods`)).json.items;
      return items.length === 2 && items.every((p: any) => p.status?.phase === 'Running') ? true : undefined;
    });
    const refusals = async () => {
      const events = (await http(r, 'GET', `/api/v1/namespaces/${Q}/events?fieldSelector=reason%3DFailedCreate`)).json?.items ?? [];
      return events.reduce((n: number, e: any) => n + (e.count ?? 1), 0);
    };
    const before = await refusals();
    await new Promise((res) => setTimeout(res, 3000)); // an observation window for a rate, not a wait for a result
    const during = (await refusals()) - before;
    console.log(`FailedCreate refusals in a 3 s window with 2 running pods: ${during}`);
    expect(during).toBeLessThan(10);
    expect((await http(r, 'GET', `/api/v1/namespaces/${Q}/pods`)).json.items).toHaveLength(2);
    const rs = (await http(r, 'GET', `/apis/apps/v1/namespaces/${Q}/replicasets`)).json.items[0];
    expect(rs.status.conditions?.find((c: any) => c.type === 'ReplicaFailure')).toMatchObject({ status: 'True', reason: 'FailedCreate' });
  });
});

describe('PodSecurity admission', () => {
  it('refuses a privileged pod under enforce=restricted and warns under warn', async () => {
    await kubectl(r, ['create', 'namespace', 'secure']);
    await waitFor('default account', async () => ((await http(r, 'GET', '/api/v1/namespaces/secure/serviceaccounts/default')).status === 200 ? true : undefined));
    expect((await kubectl(r, ['label', 'namespace', 'secure', 'pod-security.kubernetes.io/enforce=restricted'])).code).toBe(0);
    const privileged = await kubectl(r, ['run', 'root', '-n', 'secure', '--image=nginx', '--privileged']);
    expect(privileged.stderr.trim()).toBe('Error from server (Forbidden): pods "root" is forbidden: violates PodSecurity "restricted:latest": '
      + 'privileged (container "root" must not set securityContext.privileged=true), '
      + 'allowPrivilegeEscalation != false (container "root" must set securityContext.allowPrivilegeEscalation=false), '
      + 'unrestricted capabilities (container "root" must set securityContext.capabilities.drop=["ALL"]), '
      + 'runAsNonRoot != true (pod or container "root" must set securityContext.runAsNonRoot=true), '
      + 'seccompProfile (pod or container "root" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")');

    await kubectl(r, ['create', 'namespace', 'warned']);
    await waitFor('default account', async () => ((await http(r, 'GET', '/api/v1/namespaces/warned/serviceaccounts/default')).status === 200 ? true : undefined));
    await kubectl(r, ['label', 'namespace', 'warned', 'pod-security.kubernetes.io/warn=baseline']);
    const warned = await kubectl(r, ['run', 'root', '-n', 'warned', '--image=nginx', '--privileged']);
    expect(warned.code).toBe(0);
    expect(warned.stderr.trim()).toBe('Warning: would violate PodSecurity "baseline:latest": privileged (container "root" must not set securityContext.privileged=true)');
    const deploy = await kubectl(r, ['create', 'deployment', 'd', '-n', 'warned', '--image=nginx', '--dry-run=server', '-o', 'name', '--', 'sleep', '1']);
    expect(deploy.code).toBe(0);
    const hostNet = await kubectl(r, ['apply', '-f', '-'], `apiVersion: apps/v1
kind: Deployment
metadata:
  name: hostnet
  namespace: warned
spec:
  selector:
    matchLabels: {app: h}
  template:
    metadata:
      labels: {app: h}
    spec:
      hostNetwork: true
      containers:
      - name: c
        image: nginx
`);
    expect(hostNet.stderr.trim()).toBe('Warning: would violate PodSecurity "baseline:latest": host namespaces (hostNetwork)');
  });
});
