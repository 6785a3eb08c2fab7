// Storage end to end: kubectl against the real gateway with the controller manager running the
// PersistentVolume controller and its simulated provisioner, PVC/PV protection, the scheduler's volume
// binding and the simulated kubelets' mounts. A StatefulSet with volumeClaimTemplates reaches Ready on bound
// claims of the default StorageClass (WaitForFirstConsumer); a static PersistentVolume binds to a claim that
// fits it; a claim in use is kept by its finalizer; a pod whose ConfigMap is missing waits with FailedMount.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';

const NS = 'store';

async function must(r: Running, args: string[], stdin?: string) {
  const res = await kubectl(r, args, stdin);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

const get = async (r: Running, path: string): Promise<any> => (await http(r, 'GET', path)).json;
const eventsOf = async (r: Running, kind: string, name: string): Promise<any[]> =>
  (await get(r, `/api/v1/namespaces/${NS}/events?fieldSelector=${encodeURIComponent(`involvedObject.kind=${kind},involvedObject.name=${name}`)}`)).items;

describe('volumes', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '3' } });
    await must(r, ['create', 'namespace', NS]);
  });
  afterAll(() => stopTestGateway(r));

  it('brings a StatefulSet with volumeClaimTemplates to Ready on bound, provisioned claims', async () => {
    await must(r, ['apply', '-f', '-'], `apiVersion: v1
kind: Service
metadata: {name: web, namespace: ${NS}}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web, namespace: ${NS}}
spec:
  serviceName: web
  replicas: 2
  selector: {matchLabels: {app: web}}
  persistentVolumeClaimRetentionPolicy: {whenDeleted: Delete, whenScaled: Retain}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx
        volumeMounts: [{name: www, mountPath: /usr/share/nginx/html}]
  volumeClaimTemplates:
  - metadata: {name: www}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`);
    const out = await must(r, ['-n', NS, 'rollout', 'status', 'statefulset/web', '--timeout=60s']);
    expect(out).toContain('partitioned roll out complete: 2 new pods have been updated...');
    const claims = (await get(r, `/api/v1/namespaces/${NS}/persistentvolumeclaims`)).items;
    expect(claims.map((c: any) => c.metadata.name).sort()).toEqual(['www-web-0', 'www-web-1']);
    const sts = await get(r, `/apis/apps/v1/namespaces/${NS}/statefulsets/web`);
    for (const c of claims) {
      expect(c.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } });
      expect(c.spec.storageClassName).toBe('standard');
      expect(c.spec.volumeName).toBe(`pvc-${c.metadata.uid}`);
      expect(c.metadata.labels).toEqual({ app: 'web' });
      expect(c.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
      expect(c.metadata.annotations).toMatchObject({
        'pv.kubernetes.io/bind-completed': 'yes', 'volume.kubernetes.io/storage-provisioner': 'edgeplane.dev/simulated',
        'volume.kubernetes.io/selected-node': expect.stringMatching(/^node-\d$/),
      });
      expect(c.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'StatefulSet', name: 'web', uid: sts.metadata.uid })]);
      const pv = await get(r, `/api/v1/persistentvolumes/${c.spec.volumeName}`);
      expect(pv.status.phase).toBe('Bound');
      expect(pv.spec.claimRef).toMatchObject({ kind: 'PersistentVolumeClaim', namespace: NS, name: c.metadata.name, uid: c.metadata.uid });
      expect(pv.spec.persistentVolumeReclaimPolicy).toBe('Delete');
      expect(pv.metadata.finalizers).toEqual(['kubernetes.io/pv-protection']);
      expect(pv.metadata.annotations['pv.kubernetes.io/provisioned-by']).toBe('edgeplane.dev/simulated');
      // The pod runs where its volume is.
      const pod = await get(r, `/api/v1/namespaces/${NS}/pods/web-${c.metadata.name.at(-1)}`);
      expect(pv.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values).toEqual([pod.spec.nodeName]);
      expect(pod.spec.volumes[0]).toEqual({ name: 'www', persistentVolumeClaim: { claimName: c.metadata.name } });
    }
    const table = await must(r, ['-n', NS, 'get', 'pvc']);
    expect(table).toMatch(/www-web-0\s+Bound\s+pvc-\S+\s+1Gi\s+RWO\s+standard/);
    const events = await eventsOf(r, 'PersistentVolumeClaim', 'www-web-0');
    expect(events.map((e) => e.reason)).toEqual(expect.arrayContaining(['WaitForFirstConsumer', 'ExternalProvisioning', 'Provisioning', 'ProvisioningSucceeded']));

    // Deleting the set deletes its claims (whenDeleted: Delete), and then the volumes (reclaimPolicy Delete).
    await must(r, ['-n', NS, 'delete', 'statefulset', 'web']);
    await waitFor('the claims and volumes to go with the set', async () => {
      const left = (await get(r, `/api/v1/namespaces/${NS}/persistentvolumeclaims`)).items.length + (await get(r, '/api/v1/persistentvolumes')).items.length;
      return left === 0 ? true : undefined;
    }, 60_000);
  }, 150_000);

  it('binds a static volume, and keeps a claim in use until its pod is gone', async () => {
    await must(r, ['apply', '-f', '-'], `apiVersion: v1
kind: PersistentVolume
metadata: {name: manual, labels: {tier: gold}}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: ""
  hostPath: {path: /data/manual}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: ${NS}}
spec:
  storageClassName: ""
  accessModes: [ReadWriteOnce]
  selector: {matchLabels: {tier: gold}}
  resources: {requests: {storage: 2Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: user, namespace: ${NS}}
spec:
  containers: [{name: c, image: busybox}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
`);
    await must(r, ['-n', NS, 'wait', '--for=jsonpath={.status.phase}=Bound', 'pvc/data', '--timeout=30s']);
    const claim = await get(r, `/api/v1/namespaces/${NS}/persistentvolumeclaims/data`);
    expect(claim.spec.volumeName).toBe('manual');
    expect(claim.status.capacity).toEqual({ storage: '5Gi' });
    expect(claim.metadata.annotations).toMatchObject({ 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
    const pv = await get(r, '/api/v1/persistentvolumes/manual');
    expect(pv.metadata.annotations['pv.kubernetes.io/bound-by-controller']).toBe('yes');
    await must(r, ['-n', NS, 'wait', '--for=condition=Ready', 'pod/user', '--timeout=30s']);

    // In use: deleting the claim leaves it Terminating behind its finalizer until the pod goes.
    await must(r, ['-n', NS, 'delete', 'pvc', 'data', '--wait=false']);
    const terminating = await get(r, `/api/v1/namespaces/${NS}/persistentvolumeclaims/data`);
    expect(terminating.metadata.deletionTimestamp).toBeDefined();
    expect(terminating.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    expect(await must(r, ['-n', NS, 'get', 'pvc', 'data'])).toMatch(/data\s+Terminating\s+manual/);
    await must(r, ['-n', NS, 'delete', 'pod', 'user']);
    await waitFor('the claim to go once unused', async () => ((await http(r, 'GET', `/api/v1/namespaces/${NS}/persistentvolumeclaims/data`)).status === 404 ? true : undefined));
    // Retain: the volume stays, Released.
    await must(r, ['wait', '--for=jsonpath={.status.phase}=Released', 'pv/manual', '--timeout=30s']);
  }, 90_000);

  it('keeps a pod whose ConfigMap is missing in ContainerCreating with FailedMount, until it exists', async () => {
    await must(r, ['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: needs-config, namespace: ${NS}}
spec:
  containers: [{name: c, image: busybox}]
  volumes: [{name: cfg, configMap: {name: settings}}]
`);
    const [event] = await waitFor('a FailedMount event', async () => {
      const ev = (await eventsOf(r, 'Pod', 'needs-config')).filter((e) => e.reason === 'FailedMount');
      return ev.length ? ev : undefined;
    });
    expect(event).toMatchObject({ type: 'Warning', source: { component: 'kubelet' }, message: 'MountVolume.SetUp failed for volume "cfg" : configmap "settings" not found' });
    const pod = await get(r, `/api/v1/namespaces/${NS}/pods/needs-config`);
    expect(pod.status.phase).toBe('Pending');
    expect(pod.status.containerStatuses[0].state.waiting.reason).toBe('ContainerCreating');
    await must(r, ['-n', NS, 'create', 'configmap', 'settings', '--from-literal=a=b']);
    await must(r, ['-n', NS, 'wait', '--for=condition=Ready', 'pod/needs-config', '--timeout=40s']);
  }, 90_000);

  it('does not schedule a pod whose claim does not exist', async () => {
    await must(r, ['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: orphan, namespace: ${NS}}
spec:
  containers: [{name: c, image: busybox}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: nowhere}}]
`);
    const [event] = await waitFor('a FailedScheduling event', async () => {
      const ev = (await eventsOf(r, 'Pod', 'orphan')).filter((e) => e.reason === 'FailedScheduling');
      return ev.length ? ev : undefined;
    });
    expect(event.message).toBe('0/3 nodes are available: persistentvolumeclaim "nowhere" not found. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.');
  });
});
