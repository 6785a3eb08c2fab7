// Controllers: storage object in-use protection (kubernetes pkg/controller/volume/pvcprotection and
// pvprotection): every claim carries kubernetes.io/pvc-protection and every volume kubernetes.io/pv-protection
// (kube's admission plugin adds them at create; these controllers add them to objects without, as kube's do).
// A claim being deleted keeps its finalizer while a pod that has not finished names it; a volume being
// deleted keeps its finalizer while it is Bound. Each claim sync is linear in its namespace's pods.

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { isConflict, isNotFound, RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';
import type { SharedInformer } from './informers';
import { hasFinalizer, phaseOf, podUsesClaim, PV_PROTECTION, PVC_PROTECTION } from './volume-plan';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

const claimsOfPod = (pod: KubeObject): string[] =>
  (((pod.spec as { volumes?: { persistentVolumeClaim?: { claimName?: string } }[] } | undefined)?.volumes) ?? [])
    .flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : []));

async function setFinalizer(api: Api, ref: typeof RESOURCES.persistentvolumes | typeof RESOURCES.persistentvolumeclaims, o: KubeObject, finalizer: string, on: boolean): Promise<void> {
  const current = (o.metadata.finalizers as string[] | undefined) ?? [];
  const finalizers = on ? [...current, finalizer] : current.filter((f) => f !== finalizer);
  try {
    await api.update(ref, { ...o, metadata: { ...o.metadata, finalizers } });
  } catch (e) {
    if (!isNotFound(e) && !isConflict(e)) throw e; // gone, or changed: the informer brings it back
  }
}

export class PvcProtectionController {
  readonly queue: WorkQueue;

  constructor(private readonly api: Api, private readonly claims: SharedInformer, private readonly pods: SharedInformer, clock: Clock) {
    this.queue = new WorkQueue(clock);
    const enqueue = (c: KubeObject) => this.queue.add(objectKey(c));
    claims.addHandlers({ add: enqueue, update: enqueue });
    // A pod that goes (or finishes) may free a claim being deleted.
    const onPod = (p: KubeObject) => {
      for (const name of claimsOfPod(p)) {
        const c = claims.get(`${p.metadata.namespace}/${name}`);
        if (c?.metadata.deletionTimestamp) this.queue.add(objectKey(c));
      }
    };
    pods.addHandlers({ update: onPod, delete: onPod });
  }

  run(workers = 1): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError('pvc-protection-controller') }));
  }

  async sync(key: string): Promise<void> {
    const c = this.claims.get(key);
    if (!c) return;
    const has = hasFinalizer(c, PVC_PROTECTION);
    if (!c.metadata.deletionTimestamp) {
      if (!has) await setFinalizer(this.api, RESOURCES.persistentvolumeclaims, c, PVC_PROTECTION, true);
      return;
    }
    if (!has) return;
    const inUse = this.pods.byNamespace(c.metadata.namespace ?? '').some((p) => podUsesClaim(p, c.metadata.name!));
    if (!inUse) await setFinalizer(this.api, RESOURCES.persistentvolumeclaims, c, PVC_PROTECTION, false);
  }
}

export class PvProtectionController {
  readonly queue: WorkQueue;

  constructor(private readonly api: Api, private readonly volumes: SharedInformer, clock: Clock) {
    this.queue = new WorkQueue(clock);
    const enqueue = (v: KubeObject) => this.queue.add(objectKey(v));
    volumes.addHandlers({ add: enqueue, update: enqueue });
  }

  run(workers = 1): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError('pv-protection-controller') }));
  }

  async sync(key: string): Promise<void> {
    const v = this.volumes.get(key);
    if (!v) return;
    const has = hasFinalizer(v, PV_PROTECTION);
    if (!v.metadata.deletionTimestamp) {
      if (!has) await setFinalizer(this.api, RESOURCES.persistentvolumes, v, PV_PROTECTION, true);
      return;
    }
    if (has && phaseOf(v) !== 'Bound') await setFinalizer(this.api, RESOURCES.persistentvolumes, v, PV_PROTECTION, false);
  }
}
