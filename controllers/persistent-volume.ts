// Controllers: the PersistentVolume controller (kubernetes pkg/controller/volume/persistentvolume, run as
// persistent-volume-binder) with a simulated dynamic provisioner. A claim without a class gets the default
// StorageClass (retroactive default class, GA in 1.28). An unbound claim binds to the smallest Available
// volume that satisfies it (claimRef on the volume, volumeName and the bind annotations on the claim, both
// phases Bound); with none, its class provisions one — at once for Immediate classes, after the scheduler
// has written volume.kubernetes.io/selected-node for WaitForFirstConsumer ones. Provisioners other than
// edgeplane.dev/simulated are left to an external provisioner, as kube does (ExternalProvisioning event). A
// volume whose claim is gone is Released and, under reclaimPolicy Delete, deleted.
// Each sync is linear in the volumes (claims) and only reacts to objects that exist.

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { isAlreadyExists, isConflict, isNotFound, RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';
import type { EventRecorder } from './events';
import type { SharedInformer } from './informers';
import {
  ANN_BETA_STORAGE_PROVISIONER, ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_PROVISIONED_BY, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER,
  boundClaimStatus, claimClass, expandedVolume, claimRefOf, claimSpec, claimWantsDefaultClass, defaultClass, findMatchingVolume, phaseOf, preboundTo,
  provisionedVolume, SIMULATED_PROVISIONER, volumeSpec,
} from './volume-plan';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

export const COMPONENT = 'persistentvolume-controller';

export interface PersistentVolumeDeps {
  api: Api;
  claims: SharedInformer;
  volumes: SharedInformer;
  classes: SharedInformer;
  recorder: EventRecorder;
  provisionerRecorder: EventRecorder; // the simulated provisioner's events (source: its name)
  clock: Clock;
}

const CLAIM = 'claim:';
const VOLUME = 'volume:';
const annotationsOf = (o: KubeObject): Record<string, string> => (o.metadata.annotations as Record<string, string> | undefined) ?? {};

export class PersistentVolumeController {
  readonly queue: WorkQueue;

  constructor(private readonly d: PersistentVolumeDeps) {
    this.queue = new WorkQueue(d.clock);
    const onClaim = (c: KubeObject) => {
      this.queue.add(CLAIM + objectKey(c));
      const vol = claimSpec(c).volumeName;
      if (vol) this.queue.add(VOLUME + vol);
    };
    d.claims.addHandlers({
      add: onClaim, update: onClaim,
      delete: (c) => {
        const vol = claimSpec(c).volumeName;
        if (vol) this.queue.add(VOLUME + vol);
        // A volume pre-bound to it (provisioned, not yet bound) is released too.
        for (const v of d.volumes.list()) if (preboundTo(v, c)) this.queue.add(VOLUME + v.metadata.name);
      },
    });
    const onVolume = (v: KubeObject) => {
      this.queue.add(VOLUME + v.metadata.name);
      const ref = volumeSpec(v).claimRef;
      if (ref?.name) this.queue.add(`${CLAIM}${ref.namespace}/${ref.name}`);
    };
    d.volumes.addHandlers({ add: onVolume, update: onVolume, delete: onVolume });
    // A new or changed class may unblock pending claims.
    const onClass = () => { for (const c of d.claims.list()) if (!claimSpec(c).volumeName) this.queue.add(CLAIM + objectKey(c)); };
    d.classes.addHandlers({ add: onClass, update: onClass });
  }

  run(workers = 2): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(COMPONENT) }));
  }

  async sync(key: string): Promise<void> {
    if (key.startsWith(CLAIM)) {
      const c = this.d.claims.get(key.slice(CLAIM.length));
      if (c) await this.syncClaim(c);
    } else if (key.startsWith(VOLUME)) {
      const v = this.d.volumes.get(key.slice(VOLUME.length));
      if (v) await this.syncVolume(v);
    }
  }

  private async writeClaimStatus(c: KubeObject, status: Record<string, unknown>): Promise<void> {
    if (JSON.stringify(c.status ?? {}) === JSON.stringify(status)) return;
    await this.d.api.update(RESOURCES.persistentvolumeclaims, { ...c, status }, 'status');
  }

  private async syncClaim(c: KubeObject): Promise<void> {
    if (c.metadata.deletionTimestamp) return;
    if (claimWantsDefaultClass(c)) {
      const def = defaultClass(this.d.classes.list());
      if (def) {
        await this.d.api.update(RESOURCES.persistentvolumeclaims, { ...c, spec: { ...claimSpec(c), storageClassName: def.metadata.name } });
        return; // the update brings the claim back
      }
    }
    const spec = claimSpec(c);
    if (spec.volumeName) return this.syncBoundClaim(c, spec.volumeName);
    const volume = findMatchingVolume(c, this.d.volumes.list());
    if (volume) return this.bind(c, volume);
    if (phaseOf(c) !== 'Pending') await this.writeClaimStatus(c, { ...(c.status ?? {}), phase: 'Pending' });
    const className = claimClass(c);
    if (!className) {
      this.d.recorder.event(c, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      return;
    }
    const sc = this.d.classes.get(className);
    if (!sc) {
      this.d.recorder.event(c, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
      return;
    }
    const mode = (sc as { volumeBindingMode?: string }).volumeBindingMode ?? 'Immediate';
    const node = annotationsOf(c)[ANN_SELECTED_NODE];
    if (mode === 'WaitForFirstConsumer' && !node) {
      this.d.recorder.event(c, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
      return;
    }
    const provisioner = (sc as { provisioner?: string }).provisioner ?? '';
    if (annotationsOf(c)[ANN_STORAGE_PROVISIONER] !== provisioner) {
      // setClaimProvisioner: the claim names who provisions it, then the provisioner acts on the updated claim.
      await this.d.api.update(RESOURCES.persistentvolumeclaims, {
        ...c, metadata: { ...c.metadata, annotations: { ...annotationsOf(c), [ANN_STORAGE_PROVISIONER]: provisioner, [ANN_BETA_STORAGE_PROVISIONER]: provisioner } },
      });
      this.d.recorder.event(c, 'Normal', 'ExternalProvisioning',
        `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`);
      return;
    }
    if (provisioner !== SIMULATED_PROVISIONER) return; // an external provisioner's job
    this.d.provisionerRecorder.event(c, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${c.metadata.namespace}/${c.metadata.name}"`);
    const pv = provisionedVolume(c, sc, mode === 'WaitForFirstConsumer' ? node : undefined);
    try {
      await this.d.api.create(RESOURCES.persistentvolumes, '', pv);
    } catch (e) {
      if (!isAlreadyExists(e)) {
        this.d.provisionerRecorder.event(c, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${className}": ${(e as Error).message}`);
        throw e;
      }
    }
    this.d.provisionerRecorder.event(c, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pv.metadata.name}`);
  }

  /**
   * bind: the volume's claimRef (bound-by-controller when the controller chose the volume: it had no claimRef), its
   * phase, then the claim's volumeName (bound-by-controller whenever the controller sets it) and phase.
   */
  private async bind(c: KubeObject, v: KubeObject): Promise<void> {
    let volume = v;
    const ref = volumeSpec(v).claimRef;
    if (!ref || ref.uid !== c.metadata.uid) {
      const annotations = !ref ? { ...annotationsOf(v), [ANN_BOUND_BY_CONTROLLER]: 'yes' } : annotationsOf(v);
      volume = await this.d.api.update(RESOURCES.persistentvolumes, { ...v, metadata: { ...v.metadata, annotations }, spec: { ...volumeSpec(v), claimRef: claimRefOf(c) } });
    }
    if (phaseOf(volume) !== 'Bound') volume = await this.d.api.update(RESOURCES.persistentvolumes, { ...volume, status: { phase: 'Bound' } }, 'status');
    const annotations: Record<string, string> = { ...annotationsOf(c), [ANN_BIND_COMPLETED]: 'yes' };
    if (!claimSpec(c).volumeName) annotations[ANN_BOUND_BY_CONTROLLER] = 'yes';
    let claim = c;
    if (claimSpec(c).volumeName !== v.metadata.name || JSON.stringify(annotations) !== JSON.stringify(annotationsOf(c))) {
      claim = await this.d.api.update(RESOURCES.persistentvolumeclaims, { ...c, metadata: { ...c.metadata, annotations }, spec: { ...claimSpec(c), volumeName: v.metadata.name } });
    }
    await this.writeClaimStatus(claim, boundClaimStatus(volume));
  }

  private async syncBoundClaim(c: KubeObject, volumeName: string): Promise<void> {
    const v = this.d.volumes.get(volumeName);
    if (!v) {
      if (phaseOf(c) !== 'Lost' && phaseOf(c) === 'Bound') {
        this.d.recorder.event(c, 'Warning', 'ClaimLost', 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
        await this.writeClaimStatus(c, { phase: 'Lost' });
      }
      return;
    }
    const ref = volumeSpec(v).claimRef;
    if (ref && ref.uid && ref.uid !== c.metadata.uid) {
      this.d.recorder.event(c, 'Warning', 'ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly');
      return;
    }
    if (!ref || !ref.uid || annotationsOf(c)[ANN_BIND_COMPLETED] !== 'yes') return this.bind(c, v);
    if (phaseOf(v) !== 'Bound') await this.d.api.update(RESOURCES.persistentvolumes, { ...v, status: { phase: 'Bound' } }, 'status');
    // A claim grown past its volume (PersistentVolumeClaimResize admitted it): the simulated provisioner's volume
    // is expanded at once, and the claim's status.capacity follows the volume's.
    const grown = expandedVolume(c, v);
    if (grown) {
      this.d.provisionerRecorder.event(c, 'Normal', 'Resizing', `External resizer is resizing volume ${v.metadata.name}`);
      const resized = await this.d.api.update(RESOURCES.persistentvolumes, grown);
      this.d.provisionerRecorder.event(c, 'Normal', 'VolumeResizeSuccessful', 'Resize volume succeeded');
      return this.writeClaimStatus(c, boundClaimStatus(resized));
    }
    await this.writeClaimStatus(c, boundClaimStatus(v));
  }

  private async syncVolume(v: KubeObject): Promise<void> {
    const ref = volumeSpec(v).claimRef;
    const setPhase = async (phase: string) => {
      if (phaseOf(v) !== phase) await this.d.api.update(RESOURCES.persistentvolumes, { ...v, status: { phase } }, 'status');
    };
    if (!ref?.name) return setPhase('Available');
    let claim = this.d.claims.get(`${ref.namespace}/${ref.name}`);
    if (!claim) {
      // The cache may not show a claim just created: ask the API before releasing anything.
      try {
        claim = await this.d.api.get(RESOURCES.persistentvolumeclaims, ref.namespace!, ref.name);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    if (claim && (!ref.uid || ref.uid === claim.metadata.uid)) {
      if (claimSpec(claim).volumeName === v.metadata.name) return setPhase('Bound');
      this.queue.add(CLAIM + objectKey(claim)); // pre-bound: the claim's sync binds it
      return setPhase('Available');
    }
    // The claim is gone: released, then reclaimed.
    await setPhase('Released');
    const policy = volumeSpec(v).persistentVolumeReclaimPolicy ?? 'Retain';
    if (policy !== 'Delete' || v.metadata.deletionTimestamp) return;
    if (annotationsOf(v)[ANN_PROVISIONED_BY] !== SIMULATED_PROVISIONER) return; // another plugin's volume: its deleter's job
    try {
      await this.d.api.delete(RESOURCES.persistentvolumes, '', v.metadata.name!);
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) {
        this.d.recorder.event(v, 'Warning', 'VolumeFailedDelete', (e as Error).message);
        throw e;
      }
    }
  }
}
