// The admission chain through the store's write path (core/writes.ts executeWrite with env.admission): the
// ServiceAccount and Priority plugins as kube 1.32 admits pods and PriorityClasses.
import { describe, expect, it } from 'vitest';
import { executeWrite, type WriteRequest, type WriteStore } from '../../../core/writes';
import { lookupGroupResource } from '../../../core/registry';
import type { KubeObject } from '../../../core/object-meta';
import type { AdmissionInputs } from '../../../core/admission/chain';
import { memoryStore } from '../memory-store';
import { statusOf } from '../status-of';

const pods = lookupGroupResource('core/pods')!;
const priorityClasses = lookupGroupResource('scheduling.k8s.io/priorityclasses')!;
const account = (extra: Record<string, unknown> = {}, name = 'default'): KubeObject => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'ns' }, ...extra });
const pc = (name: string, value: number, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, preemptionPolicy: 'PreemptLowerPriority', ...extra,
});

function run(store: WriteStore, req: WriteRequest, inputs: AdmissionInputs, type = pods) {
  return executeWrite(store, {
    type, now: Date.UTC(2026, 0, 2), newUid: () => 'uid-1', randomSuffix: () => 'x7k2q', admission: { inputs, dryRun: false },
  }, req);
}

const pod = (spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', ...meta }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});
const create = (body: string): WriteRequest => ({ verb: 'create', namespace: 'ns', body });
const podInputs = (extra: AdmissionInputs = {}): AdmissionInputs => ({ serviceAccounts: { default: account() }, priorityClasses: [], limitRanges: [], resourceQuotas: [], namespace: { metadata: { name: 'ns' } }, ...extra });

describe('ServiceAccount admission', () => {
  it('sets the default account and mounts the kube-api-access projected volume in every container', () => {
    const { store } = memoryStore();
    const body = pod({ initContainers: [{ name: 'i', image: 'busybox' }] });
    const spec = (run(store, create(body), podInputs()).body as any).spec;
    expect(spec.serviceAccountName).toBe('default');
    expect(spec.serviceAccount).toBe('default');
    const mount = { name: 'kube-api-access-x7k2q', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
    expect(spec.containers[0].volumeMounts).toEqual([mount]);
    expect(spec.initContainers[0].volumeMounts).toEqual([mount]);
    expect(spec.volumes).toEqual([{
      name: 'kube-api-access-x7k2q',
      projected: {
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
        defaultMode: 420,
      },
    }]);
  });

  it('refuses a missing account with kube\'s 403, naming generateName when the pod has no name yet', () => {
    const { store, commits } = memoryStore();
    const status = statusOf(() => run(store, create(pod({ serviceAccountName: 'robot' }, { name: undefined, generateName: 'job-' })), { serviceAccounts: { robot: null }, priorityClasses: [], limitRanges: [], resourceQuotas: [], namespace: { metadata: { name: 'ns' } } }));
    expect(status).toMatchObject({
      code: 403, reason: 'Forbidden',
      message: 'pods "job-" is forbidden: error looking up service account ns/robot: serviceaccount "robot" not found',
      details: { name: 'job-', kind: 'pods' },
    });
    expect(commits()).toBe(0);
  });

  it('fails closed when the front door did not read the account', () => {
    const { store } = memoryStore();
    expect(statusOf(() => run(store, create(pod({ serviceAccountName: 'robot' })), podInputs())).code).toBe(500);
  });

  it('honours automountServiceAccountToken (pod first, then account) and an existing mount at the path', () => {
    const { store } = memoryStore();
    const off = run(store, create(pod({}, { name: 'a' })), podInputs({ serviceAccounts: { default: account({ automountServiceAccountToken: false }) } })).body as any;
    expect(off.spec.volumes).toBeUndefined();
    const podWins = run(store, create(pod({ automountServiceAccountToken: true }, { name: 'b' })), podInputs({ serviceAccounts: { default: account({ automountServiceAccountToken: false }) } })).body as any;
    expect(podWins.spec.volumes).toHaveLength(1);
    const mounted = run(store, create(pod({
      containers: [{ name: 'c', image: 'nginx', volumeMounts: [{ name: 'own', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] }],
      volumes: [{ name: 'own', emptyDir: {} }],
    }, { name: 'c' })), podInputs()).body as any;
    expect(mounted.spec.volumes.map((v: any) => v.name)).toEqual(['own']);
  });

  it('copies the account\'s imagePullSecrets and enforces mountable secrets when annotated', () => {
    const { store } = memoryStore();
    const sa = account({ imagePullSecrets: [{ name: 'reg' }], secrets: [{ name: 'ok' }], metadata: { name: 'default', namespace: 'ns', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } } });
    const got = run(store, create(pod({}, { name: 'a' })), podInputs({ serviceAccounts: { default: sa } })).body as any;
    expect(got.spec.imagePullSecrets).toEqual([{ name: 'reg' }]);
    const status = statusOf(() => run(store, create(pod({ volumes: [{ name: 'v', secret: { secretName: 'other' } }] }, { name: 'b' })), podInputs({ serviceAccounts: { default: sa } })));
    expect(status.message).toBe('pods "b" is forbidden: volume with secret.secretName="other" is not allowed because service account default does not reference that secret');
  });

  it('refuses mirror pods that name an account', () => {
    const { store } = memoryStore();
    const status = statusOf(() => run(store, create(pod({ serviceAccountName: 'default', nodeName: 'node-1' }, { annotations: { 'kubernetes.io/config.mirror': 'x' } })), podInputs()));
    expect(status.message).toBe('pods "p" is forbidden: a mirror pod may not reference service accounts');
  });
});

describe('Priority admission', () => {
  it('gives priority 0 and PreemptLowerPriority without classes, and a named class\'s value', () => {
    const { store } = memoryStore();
    const plain = (run(store, create(pod({}, { name: 'a' })), podInputs()).body as any).spec;
    expect(plain).toMatchObject({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
    expect(plain.priorityClassName).toBeUndefined();
    const high = (run(store, create(pod({ priorityClassName: 'high' }, { name: 'b' })), podInputs({ priorityClasses: [pc('high', 1000, { preemptionPolicy: 'Never' })] })).body as any).spec;
    expect(high).toMatchObject({ priorityClassName: 'high', priority: 1000, preemptionPolicy: 'Never' });
  });

  it('uses the lowest globalDefault class', () => {
    const { store } = memoryStore();
    const classes = [pc('a', 50, { globalDefault: true }), pc('b', 10, { globalDefault: true }), pc('c', 5)];
    expect((run(store, create(pod()), podInputs({ priorityClasses: classes })).body as any).spec).toMatchObject({ priorityClassName: 'b', priority: 10 });
  });

  it('refuses a missing class and a stated priority that differs, with kube\'s messages', () => {
    const { store } = memoryStore();
    expect(statusOf(() => run(store, create(pod({ priorityClassName: 'nope' })), podInputs()))).toMatchObject({
      code: 403, message: 'pods "p" is forbidden: no PriorityClass with name nope was found',
    });
    expect(statusOf(() => run(store, create(pod({ priority: 7 })), podInputs())).message)
      .toBe('pods "p" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name');
  });

  it('keeps priority on an update that leaves it out', () => {
    const { store } = memoryStore();
    run(store, create(pod({ priorityClassName: 'high' })), podInputs({ priorityClasses: [pc('high', 1000)] }));
    const current = store.get('ns/p') as any;
    delete current.spec.priority;
    delete current.spec.preemptionPolicy;
    current.metadata.labels = { a: 'b' };
    const updated = run(store, { verb: 'update', namespace: 'ns', name: 'p', subresource: '', body: JSON.stringify(current) }, {}).body as any;
    expect(updated.spec.priority).toBe(1000);
    expect(updated.metadata.labels).toEqual({ a: 'b' });
  });

  it('allows one globalDefault PriorityClass', () => {
    const { store } = memoryStore();
    const body = JSON.stringify(pc('second', 5, { globalDefault: true }));
    expect(statusOf(() => run(store, create(body), { priorityClasses: [pc('first', 1, { globalDefault: true })] }, priorityClasses))).toMatchObject({
      code: 403, message: 'priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass first is marked as default. Only one default can exist',
    });
  });
});

describe('LimitRanger admission', () => {
  const range = (limits: unknown[]): KubeObject => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr', namespace: 'ns' }, spec: { limits } });
  const withResources = (resources: unknown, name = 'p') => pod({ containers: [{ name: 'c', image: 'nginx', resources }] }, { name });

  it('defaults requests and limits and records them in kubernetes.io/limit-ranger', () => {
    const { store } = memoryStore();
    const lr = range([{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' } }]);
    const got = run(store, create(withResources({ limits: { memory: '128Mi' } })), podInputs({ limitRanges: [lr] })).body as any;
    // The pod's own defaulting made requests.memory = limits.memory before admission.
    expect(got.spec.containers[0].resources).toEqual({ limits: { memory: '128Mi', cpu: '500m' }, requests: { memory: '128Mi', cpu: '100m' } });
    expect(got.metadata.annotations['kubernetes.io/limit-ranger']).toBe('LimitRanger plugin set: cpu request for container c; cpu limit for container c');
  });

  it('takes default requests from max and min as v1 defaulting does', () => {
    const { store } = memoryStore();
    const got = run(store, create(withResources({})), podInputs({ limitRanges: [range([{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } }])] })).body as any;
    expect(got.spec.containers[0].resources).toEqual({ limits: { cpu: '2' }, requests: { cpu: '2', memory: '64Mi' } });
  });

  it('refuses a container outside min, max and maxLimitRequestRatio with kube\'s messages', () => {
    const { store } = memoryStore();
    const lr = [range([{ type: 'Container', max: { cpu: '1' }, maxLimitRequestRatio: { memory: '2' } }])];
    expect(statusOf(() => run(store, create(withResources({ limits: { cpu: '2' } })), podInputs({ limitRanges: lr }))).message)
      .toBe('pods "p" is forbidden: [maximum cpu usage per Container is 1, but limit is 2, memory max limit to request ratio per Container is 2, but no request is specified or request is 0]');
    expect(statusOf(() => run(store, create(withResources({ limits: { cpu: '1', memory: '1Gi' }, requests: { memory: '256Mi' } })), podInputs({ limitRanges: lr }))).message)
      .toBe('pods "p" is forbidden: memory max limit to request ratio per Container is 2, but provided ratio is 4.000000');
    const min = [range([{ type: 'Pod', min: { memory: '1Gi' } }])];
    expect(statusOf(() => run(store, create(withResources({ requests: { memory: '100Mi' } })), podInputs({ limitRanges: min }))).message)
      .toBe('pods "p" is forbidden: minimum memory usage per Pod is 1Gi, but request is 100Mi');
    expect(statusOf(() => run(store, create(withResources({})), podInputs({ limitRanges: min }))).message)
      .toBe('pods "p" is forbidden: minimum memory usage per Pod is 1Gi.  No request is specified');
  });
});

describe('ResourceQuota admission', () => {
  const quota = (hard: Record<string, string>, used: Record<string, string> | undefined, spec: Record<string, unknown> = {}, name = 'q'): KubeObject => ({
    apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: 'ns', resourceVersion: '5' },
    spec: { hard, ...spec }, status: used ? { hard, used } : {},
  });
  const withCpu = (name: string, cpu?: string) => pod({ containers: [{ name: 'c', image: 'nginx', ...(cpu ? { resources: { requests: { cpu }, limits: { cpu } } } : {}) }] }, { name });

  it('refuses the pod beyond the count with kube\'s exact message, and admits within it', () => {
    const { store } = memoryStore();
    expect(run(store, create(withCpu('a')), podInputs({ resourceQuotas: [quota({ pods: '2' }, { pods: '1' })] })).code).toBe(201);
    expect(statusOf(() => run(store, create(withCpu('b')), podInputs({ resourceQuotas: [quota({ pods: '2', 'count/pods': '5' }, { pods: '2', 'count/pods': '2' })] })))).toMatchObject({
      code: 403, reason: 'Forbidden', message: 'pods "b" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2',
    });
  });

  it('checks compute sums, demands explicit requests, and waits for the controller\'s count', () => {
    const { store } = memoryStore();
    const q = quota({ 'requests.cpu': '1', 'limits.cpu': '1' }, { 'requests.cpu': '800m', 'limits.cpu': '800m' });
    expect(statusOf(() => run(store, create(withCpu('a', '300m')), podInputs({ resourceQuotas: [q] }))).message)
      .toBe('pods "a" is forbidden: exceeded quota: q, requested: limits.cpu=300m,requests.cpu=300m, used: limits.cpu=800m,requests.cpu=800m, limited: limits.cpu=1,requests.cpu=1');
    expect(statusOf(() => run(store, create(withCpu('b')), podInputs({ resourceQuotas: [q] }))).message)
      .toBe('pods "b" is forbidden: failed quota: q: must specify limits.cpu for: c; requests.cpu for: c');
    expect(statusOf(() => run(store, create(withCpu('c', '1m')), podInputs({ resourceQuotas: [quota({ pods: '3', cpu: '2', 'count/pods': '9' }, { pods: '1' })] }))).message)
      .toBe('pods "c" is forbidden: status unknown for quota: q, resources: count/pods,cpu');
    // A quota the controller has not seen yet (no status.hard) limits nothing, as in kube.
    expect(run(store, create(withCpu('d', '1m')), podInputs({ resourceQuotas: [quota({ pods: '0' }, undefined)] })).code).toBe(201);
  });

  it('applies scopes to pods only, and counts other types by count/<resource>', () => {
    const { store } = memoryStore();
    const bestEffort = quota({ pods: '0' }, { pods: '0' }, { scopes: ['BestEffort'] });
    expect(run(store, create(withCpu('a', '100m')), podInputs({ resourceQuotas: [bestEffort] })).code).toBe(201);
    expect(statusOf(() => run(store, create(withCpu('b')), podInputs({ resourceQuotas: [bestEffort] }))).message).toMatch(/exceeded quota: q, requested: pods=1/);
    const cms = quota({ 'count/configmaps': '1', configmaps: '4' }, { 'count/configmaps': '1', configmaps: '1' });
    const configmaps = lookupGroupResource('core/configmaps')!;
    expect(statusOf(() => run(store, create(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } })), { resourceQuotas: [cms] }, configmaps)).message)
      .toBe('configmaps "cm" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1');
  });
});

describe('PodSecurity admission', () => {
  const ns = (labels: Record<string, string>): KubeObject => ({ metadata: { name: 'ns', labels } });
  const restricted = ns({ 'pod-security.kubernetes.io/enforce': 'restricted' });

  it('refuses a privileged pod under restricted with kube\'s message, checks in the registry\'s order', () => {
    const { store } = memoryStore();
    const body = pod({ containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] });
    expect(statusOf(() => run(store, create(body), podInputs({ namespace: restricted })))).toMatchObject({
      code: 403, reason: 'Forbidden',
      message: 'pods "p" is forbidden: violates PodSecurity "restricted:latest": privileged (container "c" must not set securityContext.privileged=true), '
        + 'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), '
        + 'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), '
        + 'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), '
        + 'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    });
  });

  it('admits a conforming pod, and baseline allows what restricted refuses', () => {
    const { store } = memoryStore();
    const good = pod({
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{ name: 'c', image: 'nginx', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
    }, { name: 'good' });
    expect(run(store, create(good), podInputs({ namespace: restricted })).code).toBe(201);
    const baseline = ns({ 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.30' });
    expect(run(store, create(pod({}, { name: 'plain' })), podInputs({ namespace: baseline })).code).toBe(201);
    expect(statusOf(() => run(store, create(pod({ hostNetwork: true, volumes: [{ name: 'h', hostPath: { path: '/' } }] }, { name: 'h' })), podInputs({ namespace: baseline }))).message)
      .toBe('pods "h" is forbidden: violates PodSecurity "baseline:v1.30": host namespaces (hostNetwork), hostPath volumes (volume "h")');
  });

  it('warns under warn without refusing, and an unparsable level enforces restricted', () => {
    const { store } = memoryStore();
    const warnings: string[] = [];
    executeWrite(store, {
      type: pods, now: 0, newUid: () => 'u', randomSuffix: () => 'x7k2q', warnings,
      admission: { inputs: podInputs({ namespace: ns({ 'pod-security.kubernetes.io/warn': 'baseline' }) }), dryRun: false },
    }, create(pod({ containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, hostPort: 8080 }] }] })));
    expect(warnings).toEqual(['would violate PodSecurity "baseline:latest": hostPort (container "c" uses hostPort 8080)']);
    expect(statusOf(() => run(store, create(pod({}, { name: 'q' })), podInputs({ namespace: ns({ 'pod-security.kubernetes.io/enforce': 'strict' }) }))).message)
      .toMatch(/^pods "q" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false/);
  });
});
