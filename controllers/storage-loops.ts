// Controllers: the storage loops — the PersistentVolume controller with the simulated provisioner, and PVC/PV
// in-use protection — built from the manager's shared informers, each writing with its own ServiceAccount
// identity (persistent-volume-binder, pvc-protection-controller, pv-protection-controller).

import type { ControllerAccount } from '../core/auth/internal-identity';
import { RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';
import { ApiEventRecorder } from './events';
import type { InformerFactory, SharedInformer } from './informers';
import { PersistentVolumeController, COMPONENT as PV_COMPONENT } from './persistent-volume';
import { PvcProtectionController, PvProtectionController } from './volume-protection';
import { SIMULATED_PROVISIONER } from './volume-plan';
import type { WorkQueue } from './workqueue';

export interface StorageLoopDeps {
  informers: InformerFactory;
  pods: SharedInformer;
  clock: Clock;
  apiFor: (account: ControllerAccount) => Promise<Api>;
}

export async function storageLoops(d: StorageLoopDeps): Promise<{ queues: Record<string, WorkQueue>; run(): Promise<void>[] }> {
  const { informers, clock } = d;
  const claims = informers.for(RESOURCES.persistentvolumeclaims);
  const volumes = informers.for(RESOURCES.persistentvolumes);
  const pvApi = await d.apiFor('persistent-volume-binder');
  const pv = new PersistentVolumeController({
    api: pvApi, claims, volumes, classes: informers.for(RESOURCES.storageclasses), clock,
    recorder: new ApiEventRecorder(pvApi, PV_COMPONENT, clock),
    // An external provisioner's events carry its name as the source (sig-storage-lib-external-provisioner).
    provisionerRecorder: new ApiEventRecorder(pvApi, SIMULATED_PROVISIONER, clock),
  });
  const pvc = new PvcProtectionController(await d.apiFor('pvc-protection-controller'), claims, d.pods, clock);
  const pvp = new PvProtectionController(await d.apiFor('pv-protection-controller'), volumes, clock);
  return {
    queues: { volumes: pv.queue, pvcprotection: pvc.queue, pvprotection: pvp.queue },
    run: () => [...pv.run(2), ...pvc.run(1), ...pvp.run(1)],
  };
}
