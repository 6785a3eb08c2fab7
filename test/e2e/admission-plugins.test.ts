// The admission plugins issue 23 left for last, through the real gateway with kubectl v1.32 and the control loops
// on: DefaultStorageClass (the newest default class), PersistentVolumeClaimResize (growth only where the class
// allows it, shrinking refused by validation, the simulated volume expanded), NodeRestriction (a kubelet's
// identity through impersonation, as `kubectl --as=system:node:<n> --as-group=system:nodes`), ResourceQuota
// charging updates (a Service turned NodePort, a claim grown), PodSecurity's audit mode and exemptions on the
// audit log — kube-apiserver 1.32's messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, waitFor, type Running } from './fixtures';

let r: Running;
const NS = 'plug';
const AS_NODE = ['--as=system:node:node-1', '--as-group=system:nodes'];

beforeAll(async () => {
  r = await startTestGateway({
    vars: {
      CONTROLLERS: 'on', SIMULATED_NODES: '2',
      POD_SECURITY_EXEMPT_USERNAMES: 'ops', POD_SECURITY_EXEMPT_NAMESPACES: 'legacy', POD_SECURITY_EXEMPT_RUNTIME_CLASSES: 'gvisor',
    },
  });
  for (const ns of [NS, 'quota', 'psa', 'legacy']) expect((await kubectl(r, ['create', 'namespace', ns])).code).toBe(0);
  await waitFor('default accounts', async () => {
    for (const ns of [NS, 'quota', 'psa', 'legacy']) if ((await http(r, 'GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status !== 200) return undefined;
    return true;
  });
}, 120_000);
afterAll(() => stopTestGateway(r));

async function must(args: string[], stdin?: string): Promise<string> {
  const res = await kubectl(r, args, stdin);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}
const json = async (args: string[]) => JSON.parse(await must([...args, '-o', 'json']));

const claimYaml = (name: string, ns: string, cls?: string, size = '1Gi') => `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ${name}, namespace: ${ns}}
spec:
  accessModes: [ReadWriteOnce]
${cls === undefined ? '' : `  storageClassName: "${cls}"\n`}  resources: {requests: {storage: ${size}}}
`;
const classYaml = (name: string, extra = '') => `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: ${name}}
provisioner: edgeplane.dev/simulated
volumeBindingMode: Immediate
${extra}`;
const bound = (name: string, ns = NS) => waitFor(`${name} bound`, async () => {
  const c = (await http(r, 'GET', `/api/v1/namespaces/${ns}/persistentvolumeclaims/${name}`)).json;
  return c?.status?.phase === 'Bound' ? c : undefined;
});

describe('DefaultStorageClass', () => {
  it('gives a claim without a class the newest default class, and leaves an explicit "" alone', async () => {
    await must(['apply', '-f', '-'], claimYaml('first', NS));
    expect((await json(['get', 'pvc', 'first', '-n', NS])).spec.storageClassName).toBe('standard');
    // A second default, newer (and last by name, so only "newest" picks it): 1.32 picks the newest rather than
    // refusing. creationTimestamp has second resolution: the wait is the clock's, not a race's.
    await new Promise((done) => setTimeout(done, 1100));
    await must(['apply', '-f', '-'], classYaml('zz-newer').replace('metadata: {name: zz-newer}', "metadata: {name: zz-newer, annotations: {storageclass.kubernetes.io/is-default-class: 'true'}}"));
    await must(['apply', '-f', '-'], claimYaml('second', NS));
    expect((await json(['get', 'pvc', 'second', '-n', NS])).spec.storageClassName).toBe('zz-newer');
    // Re-applied as sent (no class), server-side, the claim keeps the class admission gave it: no immutability error.
    for (let i = 0; i < 2; i++) await must(['apply', '--server-side', '-f', '-'], claimYaml('applied', NS));
    await must(['apply', '-f', '-'], claimYaml('none', NS, ''));
    expect((await json(['get', 'pvc', 'none', '-n', NS])).spec.storageClassName).toBe('');
    await must(['delete', 'storageclass', 'zz-newer']);
  });
});

describe('PersistentVolumeClaimResize', () => {
  it('grows a bound claim whose class allows it, expanding its volume; refuses other classes and shrinking', async () => {
    await must(['apply', '-f', '-'], `${classYaml('grow', 'allowVolumeExpansion: true\n')}---\n${classYaml('fixed')}`);
    await must(['apply', '-f', '-'], `${claimYaml('big', NS, 'grow')}---\n${claimYaml('small', NS, 'fixed')}`);
    await bound('big');
    await bound('small');
    await must(['patch', 'pvc', 'big', '-n', NS, '-p', '{"spec":{"resources":{"requests":{"storage":"3Gi"}}}}']);
    const grown = await waitFor('capacity 3Gi', async () => {
      const c = (await http(r, 'GET', `/api/v1/namespaces/${NS}/persistentvolumeclaims/big`)).json;
      return c?.status?.capacity?.storage === '3Gi' ? c : undefined;
    });
    expect((await json(['get', 'pv', grown.spec.volumeName])).spec.capacity.storage).toBe('3Gi');

    const refused = await kubectl(r, ['patch', 'pvc', 'small', '-n', NS, '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe('Error from server (Forbidden): persistentvolumeclaims "small" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');

    const shrink = await kubectl(r, ['patch', 'pvc', 'big', '-n', NS, '-p', '{"spec":{"resources":{"requests":{"storage":"1Gi"}}}}']);
    expect(shrink.code).toBe(1);
    expect(shrink.stderr.trim()).toBe('The PersistentVolumeClaim "big" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity');

    const unbound = await kubectl(r, ['patch', 'pvc', 'first', '-n', NS, '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']);
    expect(unbound.code).toBe(1);
    expect(unbound.stderr.trim()).toBe('The PersistentVolumeClaim "first" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims');
  });
});

describe('NodeRestriction', () => {
  it('keeps a kubelet to its own Node: not another node, not its taints or restricted labels', async () => {
    const other = await kubectl(r, ['label', 'node', 'node-2', 'team=a', ...AS_NODE]);
    expect(other.stderr.trim()).toBe('Error from server (Forbidden): nodes "node-2" is forbidden: node "node-1" is not allowed to modify node "node-2"');
    const restricted = await kubectl(r, ['label', 'node', 'node-1', 'node-restriction.kubernetes.io/pool=gpu', ...AS_NODE]);
    expect(restricted.stderr.trim()).toBe('Error from server (Forbidden): nodes "node-1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/pool');
    const taint = await kubectl(r, ['taint', 'node', 'node-1', 'dedicated=x:NoSchedule', ...AS_NODE]);
    expect(taint.stderr.trim()).toBe('Error from server (Forbidden): nodes "node-1" is forbidden: node "node-1" is not allowed to modify taints');
    await must(['label', 'node', 'node-1', 'team=a', ...AS_NODE]);
    // The cluster admin may do all of it.
    await must(['label', 'node', 'node-1', 'node-restriction.kubernetes.io/pool=gpu']);
  });

  it('lets a kubelet create only its mirror pods and delete only pods bound to it', async () => {
    const plain = await kubectl(r, ['run', 'sneaky', '-n', NS, '--image=nginx', ...AS_NODE]);
    expect(plain.stderr.trim()).toBe('Error from server (Forbidden): pods "sneaky" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node-1" can only create mirror pods');
    const node = await json(['get', 'node', 'node-1']);
    const mirror = (name: string, nodeName: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${NS}
  annotations: {kubernetes.io/config.mirror: mirror-hash}
  ownerReferences: [{apiVersion: v1, kind: Node, name: node-1, uid: ${node.metadata.uid}, controller: true}]
spec:
  nodeName: ${nodeName}
  containers: [{name: c, image: nginx}]
`;
    await must(['create', '-f', '-', ...AS_NODE], mirror('static-web-node-1', 'node-1'));
    const elsewhere = await kubectl(r, ['create', '-f', '-', ...AS_NODE], mirror('static-web-node-2', 'node-2'));
    expect(elsewhere.stderr.trim()).toBe('Error from server (Forbidden): error when creating "STDIN": pods "static-web-node-2" is forbidden: node "node-1" can only create pods with spec.nodeName set to itself');

    await must(['run', 'theirs', '-n', NS, '--image=nginx', '--overrides={"spec":{"nodeName":"node-2"}}']);
    const del = await kubectl(r, ['delete', 'pod', 'theirs', '-n', NS, '--wait=false', ...AS_NODE]);
    expect(del.stderr.trim()).toBe('Error from server (Forbidden): pods "theirs" is forbidden: node "node-1" can only delete pods with spec.nodeName set to itself');
    const evict = await http(r, 'POST', `/api/v1/namespaces/${NS}/pods/theirs/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'theirs' } },
      { 'Impersonate-User': 'system:node:node-1', 'Impersonate-Group': 'system:nodes' });
    expect(evict.status).toBe(403);
    expect(evict.json.message).toBe('pods "theirs" is forbidden: node node-1 can only evict pods with spec.nodeName set to itself');
    // node-1's kubelet deletes the mirror pod it has no static pod for, as its own: NodeRestriction lets it.
    await waitFor('orphan mirror pod deleted', async () => ((await http(r, 'GET', `/api/v1/namespaces/${NS}/pods/static-web-node-1`)).status === 404 ? true : undefined));
    // The simulated kubelets themselves keep working under the plugin: node-2 runs its pod.
    await waitFor('theirs running', async () => ((await http(r, 'GET', `/api/v1/namespaces/${NS}/pods/theirs`)).json?.status?.phase === 'Running' ? true : undefined));
  });
});

describe('ResourceQuota on updates', () => {
  it('charges a Service turned NodePort and a grown claim, refusing beyond the quota with kube\'s message', async () => {
    await must(['apply', '-f', '-'], `apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: quota}
spec:
  hard: {services.nodeports: "1", services.loadbalancers: "0", requests.storage: 3Gi}
`);
    const used = async () => (await http(r, 'GET', '/api/v1/namespaces/quota/resourcequotas/q')).json?.status?.used;
    await waitFor('quota counted', used);
    // Within the quota a Service may turn NodePort; turned back, the quota controller gives the port back.
    await must(['create', 'service', 'clusterip', 'one', '-n', 'quota', '--tcp=80:80']);
    await must(['patch', 'service', 'one', '-n', 'quota', '-p', '{"spec":{"type":"NodePort"}}']);
    expect((await used())['services.nodeports']).toBe('1');
    await must(['patch', 'service', 'one', '-n', 'quota', '--type=json', '-p', '[{"op":"replace","path":"/spec/type","value":"ClusterIP"},{"op":"remove","path":"/spec/ports/0/nodePort"}]']);
    await waitFor('nodeport given back', async () => ((await used())['services.nodeports'] === '0' ? true : undefined));
    await must(['create', 'service', 'clusterip', 'web', '-n', 'quota', '--tcp=80:80', '--tcp=81:81']);
    const nodePort = await kubectl(r, ['patch', 'service', 'web', '-n', 'quota', '-p', '{"spec":{"type":"NodePort"}}']);
    expect(nodePort.stderr.trim()).toBe('Error from server (Forbidden): services "web" is forbidden: exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1');
    expect((await json(['get', 'service', 'web', '-n', 'quota'])).spec.type).toBe('ClusterIP');

    await must(['apply', '-f', '-'], `${classYaml('grow', 'allowVolumeExpansion: true\n')}---\n${claimYaml('data', 'quota', 'grow')}`);
    await bound('data', 'quota');
    await must(['patch', 'pvc', 'data', '-n', 'quota', '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']);
    expect((await json(['get', 'quota', 'q', '-n', 'quota'])).status.used['requests.storage']).toBe('2Gi');
    const over = await kubectl(r, ['patch', 'pvc', 'data', '-n', 'quota', '-p', '{"spec":{"resources":{"requests":{"storage":"5Gi"}}}}']);
    expect(over.stderr.trim()).toBe('Error from server (Forbidden): persistentvolumeclaims "data" is forbidden: exceeded quota: q, requested: requests.storage=3Gi, used: requests.storage=2Gi, limited: requests.storage=3Gi');
  });
});

describe('PodSecurity audit and exemptions', () => {
  const privileged = (name: string, ns: string, extra = '') => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${ns}}
spec:
${extra}  containers: [{name: c, image: nginx, securityContext: {privileged: true}}]
`;
  const annotationsOf = async (name: string, ns: string) => waitFor(`audit event of ${name}`, async () => {
    const log = (await http(r, 'GET', '/_edgeplane/audit?limit=5000')).json;
    const ev = (log.items as any[]).find((e) => e.verb === 'create' && e.objectRef?.resource === 'pods' && e.objectRef?.name === name && e.objectRef?.namespace === ns && e.stage === 'ResponseComplete');
    return ev?.annotations;
  });

  it('records audit-mode violations on the audit event and admits the pod', async () => {
    await must(['label', 'namespace', 'psa', 'pod-security.kubernetes.io/audit=baseline', 'pod-security.kubernetes.io/enforce=baseline', 'pod-security.kubernetes.io/enforce-version=v1.32']);
    await must(['label', 'namespace', 'psa', 'pod-security.kubernetes.io/enforce-', 'pod-security.kubernetes.io/enforce-version-']);
    await must(['apply', '-f', '-'], privileged('loud', 'psa'));
    expect(await annotationsOf('loud', 'psa')).toMatchObject({
      'pod-security.kubernetes.io/enforce-policy': 'privileged:latest',
      'pod-security.kubernetes.io/audit-violations': 'would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)',
    });
  });

  it('does not evaluate exempt users, namespaces and runtimeClasses, and says which', async () => {
    for (const ns of ['psa', 'legacy']) await must(['label', 'namespace', ns, 'pod-security.kubernetes.io/enforce=restricted', '--overwrite']);
    const refused = await kubectl(r, ['apply', '-f', '-'], privileged('denied', 'psa'));
    expect(refused.stderr).toContain('pods "denied" is forbidden: violates PodSecurity "restricted:latest": privileged');
    // The refusal's audit event carries the policy enforced and what audit mode found, as kube's does.
    const denied = await waitFor('audit event of the refusal', async () => {
      const log = (await http(r, 'GET', '/_edgeplane/audit?limit=5000')).json;
      return (log.items as any[]).find((e) => e.verb === 'create' && e.stage === 'ResponseComplete' && e.responseStatus?.code === 403
        && String(e.responseStatus?.message).startsWith('pods "denied" is forbidden'))?.annotations;
    });
    expect(denied).toMatchObject({
      'pod-security.kubernetes.io/enforce-policy': 'restricted:latest',
      'pod-security.kubernetes.io/audit-violations': 'would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)',
    });
    await must(['apply', '-f', '-', '--as=ops', '--as-group=system:masters'], privileged('by-ops', 'psa'));
    expect((await annotationsOf('by-ops', 'psa'))['pod-security.kubernetes.io/exempt']).toBe('user');
    await must(['apply', '-f', '-'], privileged('old', 'legacy'));
    expect((await annotationsOf('old', 'legacy'))['pod-security.kubernetes.io/exempt']).toBe('namespace');
    await must(['apply', '-f', '-'], privileged('sandboxed', 'psa', '  runtimeClassName: gvisor\n'));
    expect((await annotationsOf('sandboxed', 'psa'))['pod-security.kubernetes.io/exempt']).toBe('runtimeClass');
  });
});

describe('ServiceAccount on pods/ephemeralcontainers', () => {
  it("holds ephemeral containers to the account's mountable secrets, with kube's plain-error 500", async () => {
    await must(['apply', '-f', '-'], `apiVersion: v1
kind: ServiceAccount
metadata: {name: builder, namespace: ${NS}, annotations: {kubernetes.io/enforce-mountable-secrets: "true"}}
secrets: [{name: allowed}]
---
apiVersion: v1
kind: Pod
metadata: {name: built, namespace: ${NS}}
spec:
  serviceAccountName: builder
  automountServiceAccountToken: false
  containers: [{name: c, image: nginx}]
`);
    const ok = await kubectl(r, ['debug', 'built', '-n', NS, '--image=busybox', '-c', 'dbg', '--', 'sleep', '100']);
    expect(ok.code, ok.stderr).toBe(0);
    const sneaky = await http(r, 'PATCH', `/api/v1/namespaces/${NS}/pods/built/ephemeralcontainers`, {
      spec: { ephemeralContainers: [{ name: 'dbg2', image: 'busybox', envFrom: [{ secretRef: { name: 'other' } }] }] },
    }, { 'content-type': 'application/strategic-merge-patch+json' });
    expect(sneaky.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500,
      message: 'ephemeral container dbg2 with envFrom referencing secret.secretName="other" is not allowed because service account builder does not reference that secret',
    });
    const pod = (await http(r, 'GET', `/api/v1/namespaces/${NS}/pods/built`)).json;
    expect(pod.spec.ephemeralContainers.map((c: { name: string }) => c.name)).toEqual(['dbg']);
  });
});
