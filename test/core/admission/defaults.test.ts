// Defaulting per kind: the input is what kubectl (or a client) sends, the expected object is what
// kube-apiserver 1.32 answers for it (`kubectl create ... -o json`), apart from server metadata.
import { describe, expect, it } from 'vitest';
import { applyDefaults } from '../../../core/admission/defaults';
import { defaultPullPolicy } from '../../../core/admission/defaults/pod';
import type { KubeObject } from '../../../core/object-meta';
import { executeWrite, type WriteStore } from '../../../core/writes';
import { lookupGroupResource } from '../../../core/registry';
import { memoryStore } from '../memory-store';

function defaulted(obj: Record<string, unknown>): KubeObject {
  const o = structuredClone(obj) as KubeObject;
  applyDefaults(o);
  return o;
}

// The pod spec kube answers for a single `{name, image}` container in a template.
const templateSpec = (image = 'nginx', pullPolicy = 'Always') => ({
  containers: [{
    name: 'nginx', image, imagePullPolicy: pullPolicy, resources: {},
    terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File',
  }],
  dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', schedulerName: 'default-scheduler',
  securityContext: {}, terminationGracePeriodSeconds: 30,
});

describe('apps/v1', () => {
  it('Deployment (kubectl create deployment web --image=nginx)', () => {
    const sent = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 3, selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } },
      },
    };
    expect(defaulted(sent)).toEqual({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 3, selector: { matchLabels: { app: 'web' } },
        template: { metadata: { creationTimestamp: null, labels: { app: 'web' } }, spec: templateSpec() },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        revisionHistoryLimit: 10, progressDeadlineSeconds: 600,
      },
      status: {},
    });
  });

  it('Deployment with Recreate gets no rollingUpdate, and a partial rollingUpdate is completed', () => {
    const recreate = defaulted({ kind: 'Deployment', metadata: { name: 'a' }, spec: { strategy: { type: 'Recreate' } } });
    expect((recreate.spec as any).strategy).toEqual({ type: 'Recreate' });
    const partial = defaulted({ kind: 'Deployment', metadata: { name: 'a' }, spec: { strategy: { rollingUpdate: { maxSurge: 1 } } } });
    expect((partial.spec as any).strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } });
    expect((partial.spec as any).replicas).toBe(1);
  });

  it('ReplicaSet: replicas only, and the same template as its Deployment', () => {
    const rs = defaulted({
      kind: 'ReplicaSet', metadata: { name: 'web-1' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
    });
    expect(rs.spec).toEqual({
      replicas: 1, selector: { matchLabels: { app: 'web' } },
      template: { metadata: { creationTimestamp: null, labels: { app: 'web' } }, spec: templateSpec() },
    });
    expect(rs.status).toEqual({ replicas: 0 });
  });

  it('StatefulSet, with a volume claim template', () => {
    const sts = defaulted({
      kind: 'StatefulSet', metadata: { name: 'db' },
      spec: {
        serviceName: 'db', selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      },
    });
    expect(sts.spec).toEqual({
      serviceName: 'db', selector: { matchLabels: { app: 'db' } }, replicas: 1, revisionHistoryLimit: 10,
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      template: { metadata: { creationTimestamp: null, labels: { app: 'db' } }, spec: templateSpec('nginx:1.27', 'IfNotPresent') },
      volumeClaimTemplates: [{
        metadata: { name: 'data', creationTimestamp: null },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
        status: { phase: 'Pending' },
      }],
    });
    expect(sts.status).toEqual({ replicas: 0, availableReplicas: 0 });
  });

  it('StatefulSet with an explicit RollingUpdate type keeps rollingUpdate unset', () => {
    const sts = defaulted({ kind: 'StatefulSet', metadata: { name: 'db' }, spec: { updateStrategy: { type: 'RollingUpdate' } } });
    expect((sts.spec as any).updateStrategy).toEqual({ type: 'RollingUpdate' });
  });

  it('DaemonSet', () => {
    const ds = defaulted({ kind: 'DaemonSet', metadata: { name: 'agent' }, spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } } });
    expect(ds.spec).toEqual({
      revisionHistoryLimit: 10,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      template: { metadata: { creationTimestamp: null }, spec: templateSpec() },
    });
    expect(ds.status).toEqual({ currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 });
  });
});

describe('batch/v1', () => {
  it('Job (kubectl create job pi --image=perl): selector and labels generated from name and uid', () => {
    const job = defaulted({
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi', uid: 'u-1' },
      spec: { template: { metadata: {}, spec: { containers: [{ name: 'pi', image: 'perl:5.34' }], restartPolicy: 'Never' } } },
    });
    const labels = {
      'batch.kubernetes.io/controller-uid': 'u-1', 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': 'u-1', 'job-name': 'pi',
    };
    expect(job).toEqual({
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi', uid: 'u-1', labels },
      spec: {
        parallelism: 1, completions: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false,
        podReplacementPolicy: 'TerminatingOrFailed', manualSelector: false,
        selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } },
        template: {
          metadata: { creationTimestamp: null, labels },
          spec: { ...templateSpec('perl:5.34', 'IfNotPresent'), containers: [{ ...templateSpec('perl:5.34', 'IfNotPresent').containers[0], name: 'pi' }], restartPolicy: 'Never' },
        },
      },
      status: {},
    });
  });

  it('Job: parallelism alone leaves completions unset; manualSelector generates nothing; podFailurePolicy', () => {
    const job = defaulted({
      kind: 'Job', metadata: { name: 'j', uid: 'u', labels: { team: 'a' } },
      spec: {
        parallelism: 3, manualSelector: true, selector: { matchLabels: { x: 'y' } },
        podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] },
        template: { metadata: { labels: { x: 'y' } }, spec: { containers: [] } },
      },
    });
    const spec = job.spec as any;
    expect(spec.completions).toBeUndefined();
    expect(spec.parallelism).toBe(3);
    expect(spec.selector).toEqual({ matchLabels: { x: 'y' } });
    expect(spec.template.metadata.labels).toEqual({ x: 'y' });
    expect(spec.podReplacementPolicy).toBe('Failed');
    expect(spec.podFailurePolicy.rules[0].onPodConditions[0].status).toBe('True');
    expect(job.metadata.labels).toEqual({ team: 'a' });
  });
});

describe('core/v1', () => {
  it('Pod: spec, containers, probes, env, volumes, QoS', () => {
    const pod = defaulted({
      kind: 'Pod', metadata: { name: 'p' },
      spec: {
        containers: [{
          name: 'app', image: 'registry.example:5000/team/app:v1',
          ports: [{ containerPort: 8080 }],
          env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
            { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } }],
          livenessProbe: { httpGet: { port: 8080 } },
          readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 5 },
          lifecycle: { preStop: { httpGet: { port: 80, path: '/stop' } } },
          resources: { limits: { cpu: '1', memory: '1Gi' } },
        }],
        volumes: [
          { name: 'cfg', configMap: { name: 'c' } }, { name: 'sec', secret: { secretName: 's' } },
          { name: 'scratch' }, { name: 'host', hostPath: { path: '/tmp' } },
          { name: 'api', projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { downwardAPI: { items: [{ path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } }] } }] } },
        ],
      },
      status: { phase: 'Pending' },
    });
    expect(pod.spec).toEqual({
      containers: [{
        name: 'app', image: 'registry.example:5000/team/app:v1', imagePullPolicy: 'IfNotPresent',
        terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File',
        ports: [{ containerPort: 8080, protocol: 'TCP' }],
        env: [{ name: 'NODE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
          { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '0' } } }],
        livenessProbe: { httpGet: { port: 8080, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
        readinessProbe: { tcpSocket: { port: 8080 }, timeoutSeconds: 1, periodSeconds: 5, successThreshold: 1, failureThreshold: 3 },
        lifecycle: { preStop: { httpGet: { port: 80, path: '/stop', scheme: 'HTTP' } } },
        resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } },
      }],
      volumes: [
        { name: 'cfg', configMap: { name: 'c', defaultMode: 420 } }, { name: 'sec', secret: { secretName: 's', defaultMode: 420 } },
        { name: 'scratch', emptyDir: {} }, { name: 'host', hostPath: { path: '/tmp', type: '' } },
        { name: 'api', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }, { downwardAPI: { items: [{ path: 'ns', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } }] } },
      ],
      dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', schedulerName: 'default-scheduler', securityContext: {},
      terminationGracePeriodSeconds: 30, enableServiceLinks: true,
    });
    expect(pod.status).toEqual({ phase: 'Pending', qosClass: 'Guaranteed' });
  });

  it('Pod: QoS classes, hostNetwork ports, and kept client values', () => {
    const best = defaulted({ kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'a' }] }, status: {} });
    expect(best.status).toEqual({ qosClass: 'BestEffort' });
    const burst = defaulted({ kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'a', resources: { requests: { cpu: '100m' } } }] }, status: {} });
    expect(burst.status).toEqual({ qosClass: 'Burstable' });
    const host = defaulted({
      kind: 'Pod', metadata: { name: 'p' },
      spec: { hostNetwork: true, restartPolicy: 'Never', terminationGracePeriodSeconds: 0, enableServiceLinks: false, containers: [{ name: 'c', image: 'a', ports: [{ containerPort: 53, protocol: 'UDP' }] }] },
    });
    const spec = host.spec as any;
    expect(spec.containers[0].ports).toEqual([{ containerPort: 53, protocol: 'UDP', hostPort: 53 }]);
    expect(spec).toMatchObject({ restartPolicy: 'Never', terminationGracePeriodSeconds: 0, enableServiceLinks: false });
  });

  it.each([
    ['nginx', 'Always'], ['nginx:latest', 'Always'], ['nginx:1.27', 'IfNotPresent'],
    ['nginx@sha256:0123456789012345678901234567890123456789012345678901234567890123', 'IfNotPresent'],
    ['nginx:latest@sha256:0123456789012345678901234567890123456789012345678901234567890123', 'Always'],
    ['localhost:5000/app', 'Always'], ['localhost:5000/app:v2', 'IfNotPresent'], ['NGINX', 'IfNotPresent'], ['', 'IfNotPresent'],
  ])('imagePullPolicy for %j is %s', (image, policy) => {
    expect(defaultPullPolicy(image)).toBe(policy);
  });

  it('Service (kubectl expose --port=80 --target-port=8080)', () => {
    const svc = defaulted({
      kind: 'Service', metadata: { name: 'web' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }, { name: 'dns', port: 53, protocol: 'UDP' }] },
    });
    expect(svc.spec).toEqual({
      selector: { app: 'web' }, type: 'ClusterIP', sessionAffinity: 'None', internalTrafficPolicy: 'Cluster',
      ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }, { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 }],
    });
    expect(svc.status).toEqual({ loadBalancer: {} });
  });

  it('Service of type LoadBalancer, NodePort, ExternalName; ClientIP affinity', () => {
    const lb = defaulted({ kind: 'Service', metadata: { name: 'a' }, spec: { type: 'LoadBalancer', sessionAffinity: 'ClientIP', ports: [{ port: 443 }] } });
    expect(lb.spec).toMatchObject({
      externalTrafficPolicy: 'Cluster', internalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true,
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
    });
    const np = defaulted({ kind: 'Service', metadata: { name: 'a' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } });
    expect(np.spec).toMatchObject({ externalTrafficPolicy: 'Cluster', internalTrafficPolicy: 'Cluster' });
    expect((np.spec as any).allocateLoadBalancerNodePorts).toBeUndefined();
    const ext = defaulted({ kind: 'Service', metadata: { name: 'a' }, spec: { type: 'ExternalName', externalName: 'example.com' } });
    expect(ext.spec).toEqual({ type: 'ExternalName', externalName: 'example.com', sessionAffinity: 'None' });
  });

  it('Namespace: the kubernetes finalizer and the metadata.name label', () => {
    const ns = defaulted({ kind: 'Namespace', metadata: { name: 'shop', labels: { team: 'a' } } });
    expect(ns).toEqual({
      kind: 'Namespace', metadata: { name: 'shop', labels: { team: 'a', 'kubernetes.io/metadata.name': 'shop' } },
      spec: { finalizers: ['kubernetes'] },
    });
  });

  it('Secret: type Opaque; stringData merged into data as base64 and dropped', () => {
    const s = defaulted({ kind: 'Secret', metadata: { name: 's' }, data: { a: 'eA==', b: 'eQ==' }, stringData: { b: 'pässword', c: 'z' } });
    expect(s).toEqual({ kind: 'Secret', metadata: { name: 's' }, type: 'Opaque', data: { a: 'eA==', b: 'cMOkc3N3b3Jk', c: 'eg==' } });
    const typed = defaulted({ kind: 'Secret', metadata: { name: 's' }, type: 'kubernetes.io/tls', stringData: {} });
    expect(typed).toEqual({ kind: 'Secret', metadata: { name: 's' }, type: 'kubernetes.io/tls' });
  });

  it('Node: an empty spec, and allocatable from capacity', () => {
    const n = defaulted({ kind: 'Node', metadata: { name: 'n' }, status: { capacity: { cpu: '4', pods: '110' } } });
    expect(n).toEqual({ kind: 'Node', metadata: { name: 'n' }, spec: {}, status: { capacity: { cpu: '4', pods: '110' }, allocatable: { cpu: '4', pods: '110' } } });
    const reported = defaulted({ kind: 'Node', metadata: { name: 'n' }, spec: { podCIDR: '10.244.1.0/24' }, status: { capacity: { cpu: '4' }, allocatable: { cpu: '3' } } });
    expect(reported.status).toEqual({ capacity: { cpu: '4' }, allocatable: { cpu: '3' } });
  });

  it('Endpoints ports and Event zero values', () => {
    const ep = defaulted({ kind: 'Endpoints', metadata: { name: 'e' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] });
    expect(ep.subsets).toEqual([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, protocol: 'TCP' }] }]);
    const ev = defaulted({ kind: 'Event', metadata: { name: 'e' }, reason: 'Started', involvedObject: { kind: 'Pod', name: 'p' } });
    expect(ev).toEqual({
      kind: 'Event', metadata: { name: 'e' }, reason: 'Started', involvedObject: { kind: 'Pod', name: 'p' }, source: {},
      firstTimestamp: null, lastTimestamp: null, eventTime: null, reportingComponent: '', reportingInstance: '',
    });
  });
});

describe('other groups', () => {
  it('RoleBinding subjects and roleRef get the RBAC group; ServiceAccounts keep none', () => {
    const rb = defaulted({
      kind: 'RoleBinding', metadata: { name: 'b' }, roleRef: { kind: 'Role', name: 'r' },
      subjects: [{ kind: 'User', name: 'jane' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' }],
    });
    expect(rb).toEqual({
      kind: 'RoleBinding', metadata: { name: 'b' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
      subjects: [
        { kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' },
        { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' },
      ],
    });
  });

  it('EndpointSlice ports and conditions; Lease spec', () => {
    const slice = defaulted({ kind: 'EndpointSlice', metadata: { name: 's' }, addressType: 'IPv4', ports: [{ port: 80 }], endpoints: [{ addresses: ['10.0.0.1'] }] });
    expect(slice).toEqual({
      kind: 'EndpointSlice', metadata: { name: 's' }, addressType: 'IPv4',
      ports: [{ port: 80, name: '', protocol: 'TCP' }], endpoints: [{ addresses: ['10.0.0.1'], conditions: {} }],
    });
    expect(defaulted({ kind: 'Lease', metadata: { name: 'l' } })).toEqual({ kind: 'Lease', metadata: { name: 'l' }, spec: {} });
  });
});

describe('defaulting is idempotent', () => {
  it.each(['Pod', 'Service', 'Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'Secret', 'Namespace', 'EndpointSlice', 'RoleBinding'])('%s', (kind) => {
    const once = defaulted({
      kind, metadata: { name: 'x', uid: 'u' }, stringData: { a: 'b' },
      spec: { ports: [{ port: 1 }], template: { spec: { containers: [{ name: 'c', image: 'i', livenessProbe: { exec: {} } }], volumes: [{ name: 'v' }] } }, containers: [{ name: 'c', image: 'i' }] },
      subjects: [{ kind: 'User', name: 'u' }], roleRef: {}, ports: [{ port: 1 }], status: {},
    });
    expect(defaulted(once)).toEqual(once);
  });
});

describe('through the write path', () => {
  const env = (gr: string) => ({ type: lookupGroupResource(gr)!, now: 0, newUid: () => 'uid-7', randomSuffix: () => 'abcde' });

  it.each([
    ['apps/deployments', { metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } }],
    ['batch/jobs', { metadata: { name: 'j' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } }],
    ['core/services', { metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } }],
    ['core/secrets', { metadata: { name: 's' }, stringData: { password: 'x' } }],
    ['core/namespaces', { metadata: { name: 'n' } }],
  ])('an update of %s repeating the create body is a no-op (no new revision)', (gr, body) => {
    const { store, commits } = memoryStore();
    const created = executeWrite(store, env(gr), { verb: 'create', namespace: gr === 'core/namespaces' ? '' : 'ns', body: JSON.stringify(body) });
    expect(created.code).toBe(201);
    const name = (body.metadata as { name: string }).name;
    // A Job's generated selector is immutable, so an update must carry it (as kubectl's do, from a GET).
    const again = gr === 'batch/jobs'
      ? { ...body, metadata: { ...body.metadata, uid: 'uid-7' }, spec: (created.body as KubeObject).spec }
      : body;
    const updated = executeWrite(store, env(gr), { verb: 'update', namespace: gr === 'core/namespaces' ? '' : 'ns', name, subresource: '', body: JSON.stringify(again) });
    expect(updated.code).toBe(200);
    expect(commits()).toBe(1);
    expect(updated.body).toEqual(created.body);
  });

  it('a Secret update with stringData changes data and stores no stringData', () => {
    const { store } = memoryStore();
    executeWrite(store, env('core/secrets'), { verb: 'create', namespace: 'ns', body: JSON.stringify({ metadata: { name: 's' }, data: { a: 'YQ==' } }) });
    const res = executeWrite(store, env('core/secrets'), {
      verb: 'patch', namespace: 'ns', name: 's', subresource: '', patchType: 'application/merge-patch+json', body: JSON.stringify({ stringData: { b: 'bee' } }),
    });
    expect(res.body).toMatchObject({ data: { a: 'YQ==', b: 'YmVl' }, type: 'Opaque' });
    expect((res.body as KubeObject).stringData).toBeUndefined();
    expect(store.get('ns/s')!.stringData).toBeUndefined();
  });
});

describe('service addresses', () => {
  const env = { type: lookupGroupResource('core/services')!, now: 0, newUid: () => 'uid-1', randomSuffix: () => 'abcde' };
  const store: WriteStore = { get: () => undefined, objects: () => [], commit: (_t, _k, o) => o };
  const create = (spec: Record<string, unknown>) =>
    (executeWrite(store, env, { verb: 'create', namespace: 'ns', body: JSON.stringify({ metadata: { name: 's' }, spec }) }).body as KubeObject).spec;

  it('a headless service with a selector is single-stack IPv4 with clusterIPs [None]', () => {
    expect(create({ clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 5432 }] })).toMatchObject({
      clusterIP: 'None', clusterIPs: ['None'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', type: 'ClusterIP',
    });
  });

  it('a headless service without a selector requires dual-stack, served as IPv4 here', () => {
    expect(create({ clusterIP: 'None', ports: [{ port: 80 }] })).toMatchObject({
      clusterIP: 'None', clusterIPs: ['None'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'RequireDualStack',
    });
  });

  it('an ExternalName service gets no address fields', () => {
    const spec = create({ type: 'ExternalName', externalName: 'example.com' }) as Record<string, unknown>;
    expect(spec.clusterIP).toBeUndefined();
    expect(spec.ipFamilies).toBeUndefined();
  });
});
