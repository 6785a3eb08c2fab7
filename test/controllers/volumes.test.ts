import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { RESOURCES } from '../../controllers/api-client';
import { unmountableVolume } from '../../controllers/kubelet/volumes';
import { PersistentVolumeController } from '../../controllers/persistent-volume';
import { volumeFilter, volumePreFilter } from '../../controllers/scheduler/volume-binding';
import { claimsForOrdinal, podForOrdinal } from '../../controllers/statefulset-plan';
import { defaultClass, expandedVolume, findMatchingVolume } from '../../controllers/volume-plan';
import { PvcProtectionController } from '../../controllers/volume-protection';
import { FakeApi, FakeClock, FakeInformer, FakeRecorder } from './fakes';

const NS = 'default';

function claim(name: string, spec: Record<string, unknown> = {}, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: NS, uid: `uid-${name}`, resourceVersion: '1', ...extra },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
  };
}

function volume(name: string, size: string, spec: Record<string, unknown> = {}, labels?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name, uid: `uid-${name}`, resourceVersion: '1', ...(labels ? { labels } : {}) },
    spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', ...spec }, status: { phase: 'Available' },
  };
}

const sc = (name: string, extra: Record<string, unknown> = {}, isDefault = false): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass',
  metadata: { name, creationTimestamp: '2026-01-01T00:00:00Z', ...(isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}) },
  provisioner: 'edgeplane.dev/simulated', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate', ...extra,
});

function pvSetup(objects: { claims?: KubeObject[]; volumes?: KubeObject[]; classes?: KubeObject[] }) {
  const api = new FakeApi();
  const claims = new FakeInformer(), volumes = new FakeInformer(), classes = new FakeInformer();
  for (const c of objects.claims ?? []) { claims.add(c); api.put(RESOURCES.persistentvolumeclaims, c); }
  for (const v of objects.volumes ?? []) { volumes.add(v); api.put(RESOURCES.persistentvolumes, v); }
  for (const s of objects.classes ?? []) classes.add(s);
  const recorder = new FakeRecorder(), provisionerRecorder = new FakeRecorder();
  const c = new PersistentVolumeController({ api, claims, volumes, classes, recorder, provisionerRecorder, clock: new FakeClock() });
  return { api, c, recorder, provisionerRecorder };
}

describe('volume matching', () => {
  it('picks the smallest Available volume of the class that satisfies size, modes and selector', () => {
    const vols = [
      volume('big', '10Gi'), volume('small', '500Mi'), volume('fit', '2Gi'), volume('rox', '1Gi', { accessModes: ['ReadOnlyMany'] }),
      volume('other', '1Gi', { storageClassName: 'fast' }), volume('taken', '1Gi', { claimRef: { name: 'x', namespace: NS } }),
    ];
    expect(findMatchingVolume(claim('c', { storageClassName: 'manual' }), vols)?.metadata.name).toBe('fit');
    expect(findMatchingVolume(claim('c', { storageClassName: 'manual', selector: { matchLabels: { tier: 'gold' } } }), vols)).toBeUndefined();
    expect(findMatchingVolume(claim('x', { storageClassName: 'manual' }), vols)?.metadata.name).toBe('taken'); // pre-bound wins
  });

  it('takes the newest default class', () => {
    const older = sc('a', {}, true);
    const newer = { ...sc('b', {}, true), metadata: { ...sc('b', {}, true).metadata, creationTimestamp: '2026-02-01T00:00:00Z' } };
    expect(defaultClass([older, newer, sc('c')])?.metadata.name).toBe('b');
    expect(defaultClass([sc('c')])).toBeUndefined();
  });

  it('expands only the simulated provisioner\'s volume, only to a larger request', () => {
    const provisioned = volume('pv', '1Gi');
    provisioned.metadata.annotations = { 'pv.kubernetes.io/provisioned-by': 'edgeplane.dev/simulated' };
    const grown = claim('c', { resources: { requests: { storage: '3Gi' } } });
    expect((expandedVolume(grown, provisioned)?.spec as any).capacity.storage).toBe('3Gi');
    expect(expandedVolume(claim('c'), provisioned)).toBeUndefined();
    expect(expandedVolume(grown, volume('static', '1Gi'))).toBeUndefined();
  });
});

describe('PersistentVolume controller', () => {
  it('gives a claim without a class the default one', async () => {
    const { api, c } = pvSetup({ claims: [claim('c')], classes: [sc('standard', {}, true)] });
    await c.sync(`claim:${NS}/c`);
    const [w] = api.writes('update', 'persistentvolumeclaims');
    expect((w!.body as any).spec.storageClassName).toBe('standard');
  });

  it('waits for the first consumer, then provisions on the selected node', async () => {
    const wffc = sc('standard', { volumeBindingMode: 'WaitForFirstConsumer' });
    let t = pvSetup({ claims: [claim('c', { storageClassName: 'standard' })], classes: [wffc] });
    await t.c.sync(`claim:${NS}/c`);
    expect(t.recorder.events.map((e) => [e.reason, e.message])).toEqual([['WaitForFirstConsumer', 'waiting for first consumer to be created before binding']]);
    expect(t.api.writes('create')).toHaveLength(0);

    const selected = claim('c', { storageClassName: 'standard' }, { annotations: { 'volume.kubernetes.io/selected-node': 'node-2' } });
    t = pvSetup({ claims: [selected], classes: [wffc] });
    await t.c.sync(`claim:${NS}/c`);
    // First the claim names its provisioner.
    const annotated = t.api.writes('update', 'persistentvolumeclaims').map((w) => (w.body as any).metadata.annotations).at(-1);
    expect(annotated).toMatchObject({ 'volume.kubernetes.io/storage-provisioner': 'edgeplane.dev/simulated', 'volume.beta.kubernetes.io/storage-provisioner': 'edgeplane.dev/simulated' });
    expect(t.recorder.events.map((e) => e.reason)).toEqual(['ExternalProvisioning']);

    const named = claim('c', { storageClassName: 'standard' }, { annotations: { ...annotated } });
    t = pvSetup({ claims: [named], classes: [wffc] });
    await t.c.sync(`claim:${NS}/c`);
    const [pv] = t.api.writes('create', 'persistentvolumes');
    expect(pv!.name).toBe('pvc-uid-c');
    expect((pv!.body as any).spec).toMatchObject({
      capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Delete', storageClassName: 'standard',
      claimRef: { kind: 'PersistentVolumeClaim', namespace: NS, name: 'c', uid: 'uid-c' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-2'] }] }] } },
    });
    expect(t.provisionerRecorder.events.map((e) => [e.reason, e.message])).toEqual([
      ['Provisioning', `External provisioner is provisioning volume for claim "${NS}/c"`], ['ProvisioningSucceeded', 'Successfully provisioned volume pvc-uid-c'],
    ]);
  });

  it('leaves other provisioners to themselves, and says when the class is missing', async () => {
    let t = pvSetup({ claims: [claim('c', { storageClassName: 'ebs' })], classes: [sc('ebs', { provisioner: 'ebs.csi.aws.com' })] });
    await t.c.sync(`claim:${NS}/c`);
    expect(t.recorder.events[0]!.message).toBe("Waiting for a volume to be created either by the external provisioner 'ebs.csi.aws.com' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.");
    t = pvSetup({ claims: [claim('c', { storageClassName: 'gone' })] });
    await t.c.sync(`claim:${NS}/c`);
    expect(t.recorder.events.map((e) => [e.type, e.reason, e.message])).toEqual([['Warning', 'ProvisioningFailed', 'storageclass.storage.k8s.io "gone" not found']]);
  });

  it('binds a static volume: claimRef, phases, volumeName and the bind annotations', async () => {
    const { api, c } = pvSetup({ claims: [claim('c', { storageClassName: 'manual' })], volumes: [volume('v', '2Gi')] });
    await c.sync(`claim:${NS}/c`);
    const pvWrites = api.writes('update', 'persistentvolumes');
    expect((pvWrites[0]!.body as any).spec.claimRef).toMatchObject({ name: 'c', uid: 'uid-c' });
    expect((pvWrites[0]!.body as any).metadata.annotations).toEqual({ 'pv.kubernetes.io/bound-by-controller': 'yes' });
    const claimWrites = api.writes('update', 'persistentvolumeclaims');
    expect((claimWrites[0]!.body as any).spec.volumeName).toBe('v');
    expect((claimWrites[0]!.body as any).metadata.annotations).toEqual({ 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
    expect(claimWrites.at(-1)!.subresource).toBe('status');
    expect((claimWrites.at(-1)!.body as any).status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '2Gi' } });
  });

  it('releases a volume whose claim is gone, and deletes it under reclaimPolicy Delete when it provisioned it', async () => {
    const provisioned = volume('pvc-1', '1Gi', { claimRef: { name: 'gone', namespace: NS, uid: 'u' }, persistentVolumeReclaimPolicy: 'Delete' });
    provisioned.metadata.annotations = { 'pv.kubernetes.io/provisioned-by': 'edgeplane.dev/simulated' };
    provisioned.status = { phase: 'Bound' };
    const { api, c } = pvSetup({ volumes: [provisioned] });
    await c.sync('volume:pvc-1');
    expect((api.writes('update', 'persistentvolumes')[0]!.body as any).status).toEqual({ phase: 'Released' });
    expect(api.writes('delete', 'persistentvolumes').map((w) => w.name)).toEqual(['pvc-1']);
  });
});

describe('PVC protection', () => {
  it('adds the finalizer, and removes it from a deleted claim once no live pod uses it', async () => {
    const api = new FakeApi();
    const claims = new FakeInformer(), pods = new FakeInformer();
    const ctl = new PvcProtectionController(api, claims, pods, new FakeClock());
    claims.add(claim('c'));
    await ctl.sync(`${NS}/c`);
    expect((api.writes('update')[0]!.body as any).metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    const user: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: NS }, spec: { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'c' } }] }, status: { phase: 'Running' } };
    pods.add(user);
    claims.add(claim('c', {}, { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['kubernetes.io/pvc-protection'] }));
    await ctl.sync(`${NS}/c`);
    expect(api.writes('update')).toHaveLength(1); // kept: in use
    pods.add({ ...user, status: { phase: 'Succeeded' } });
    await ctl.sync(`${NS}/c`);
    expect((api.writes('update')[1]!.body as any).metadata.finalizers).toEqual([]);
  });
});

describe('scheduler VolumeBinding and kubelet mounts', () => {
  const pod = (volumes: unknown[]): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: NS }, spec: { volumes } });
  const node = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } } });

  it('refuses missing, deleting and unbound Immediate claims, and keeps to a bound volume\'s node', () => {
    const wffc = sc('standard', { volumeBindingMode: 'WaitForFirstConsumer' });
    const claims: Record<string, KubeObject> = {
      deleting: claim('deleting', {}, { deletionTimestamp: 'x' }), immediate: claim('immediate', { storageClassName: 'fast' }),
      waiting: claim('waiting', { storageClassName: 'standard' }), bound: claim('bound', { volumeName: 'pv-b' }),
    };
    const pinned = volume('pv-b', '1Gi', { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] }] } } });
    const lookup = { claim: (_: string, n: string) => claims[n], volume: (n: string) => (n === 'pv-b' ? pinned : undefined), storageClass: (n: string) => (n === 'standard' ? wffc : n === 'fast' ? sc('fast') : undefined) };
    const pvc = (n: string) => ({ name: 'd', persistentVolumeClaim: { claimName: n } });
    expect(volumePreFilter(pod([pvc('none')]), lookup).error).toBe('persistentvolumeclaim "none" not found');
    expect(volumePreFilter(pod([pvc('deleting')]), lookup).error).toBe('persistentvolumeclaim "deleting" is being deleted');
    expect(volumePreFilter(pod([pvc('immediate')]), lookup).error).toBe('pod has unbound immediate PersistentVolumeClaims');
    const ok = volumePreFilter(pod([pvc('waiting'), pvc('bound')]), lookup);
    expect(ok.claims).toHaveLength(2);
    expect(volumeFilter(ok.claims!, node('node-1'))).toBeUndefined();
    expect(volumeFilter(ok.claims!, node('node-2'))).toBe('node(s) had volume node affinity conflict');
  });

  it('reports the first volume that cannot be mounted with kube\'s message', () => {
    const lookup = { configMap: (_: string, n: string) => n === 'there', secret: () => false, claim: (_: string, n: string) => (n === 'pending' ? claim('pending') : undefined) };
    expect(unmountableVolume(pod([{ name: 'a', configMap: { name: 'there' } }, { name: 'b', secret: { secretName: 's', optional: true } }]), lookup)).toBeUndefined();
    expect(unmountableVolume(pod([{ name: 'cfg', configMap: { name: 'missing' } }]), lookup)).toBe('MountVolume.SetUp failed for volume "cfg" : configmap "missing" not found');
    expect(unmountableVolume(pod([{ name: 's', secret: { secretName: 'tls' } }]), lookup)).toBe('MountVolume.SetUp failed for volume "s" : secret "tls" not found');
    expect(unmountableVolume(pod([{ name: 'd', persistentVolumeClaim: { claimName: 'pending' } }]), lookup)).toBe(
      `Unable to attach or mount volumes: unmounted volumes=[d], unattached volumes=[], failed to process volumes=[d]: error processing PVC ${NS}/pending: PVC ${NS}/pending has non-bound phase ("") or empty pvc.Spec.VolumeName ("")`);
  });
});

describe('StatefulSet claims', () => {
  it('names claims <template>-<set>-<ordinal> with the selector labels, and mounts them in the pod', () => {
    const set: KubeObject = {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', namespace: NS, uid: 'set-uid' },
      spec: {
        selector: { matchLabels: { app: 'db' } }, persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete' },
        volumeClaimTemplates: [{ metadata: { name: 'data', labels: { tier: 'x' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      },
    };
    const [c] = claimsForOrdinal(set, 2);
    expect(c!.claim.metadata).toMatchObject({ name: 'data-db-2', labels: { tier: 'x', app: 'db' } });
    expect(c!.claim.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'set-uid', controller: false, blockOwnerDeletion: true }]);
    const revision: KubeObject = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'db-1' }, data: { spec: { template: { metadata: { labels: { app: 'db' } }, spec: { volumes: [{ name: 'data', emptyDir: {} }, { name: 'conf', configMap: { name: 'c' } }] } } } } } as any;
    const pod = podForOrdinal(set, revision, 2);
    expect((pod.spec as any).volumes).toEqual([{ name: 'data', persistentVolumeClaim: { claimName: 'data-db-2' } }, { name: 'conf', configMap: { name: 'c' } }]);
  });
});
