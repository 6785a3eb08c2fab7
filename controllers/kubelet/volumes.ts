// Simulated kubelets: the volume manager's wait before containers start (pkg/kubelet/volumemanager): a pod's
// ConfigMap and Secret volumes must exist (unless optional) and its claims must be bound, else the pod stays
// in ContainerCreating and the kubelet reports FailedMount with kube's message, retrying with its backoff
// (500 ms doubling to 2 m 2 s, nestedpendingoperations' exponential backoff). Linear in the pod's volumes.

import type { KubeObject } from '../../client/types';

export interface MountLookup {
  configMap(namespace: string, name: string): boolean;
  secret(namespace: string, name: string): boolean;
  claim(namespace: string, name: string): KubeObject | undefined;
}

interface Volume {
  name?: string;
  configMap?: { name?: string; optional?: boolean };
  secret?: { secretName?: string; optional?: boolean };
  persistentVolumeClaim?: { claimName?: string };
}

export const MOUNT_INITIAL_BACKOFF_MS = 500;
export const MOUNT_MAX_BACKOFF_MS = 122_000;

export const mountBackoffMs = (failures: number): number => Math.min(MOUNT_MAX_BACKOFF_MS, MOUNT_INITIAL_BACKOFF_MS * 2 ** Math.min(failures, 20));

/** The FailedMount message of the first volume that cannot be mounted yet, or undefined when all can. */
export function unmountableVolume(pod: KubeObject, lookup: MountLookup): string | undefined {
  const ns = pod.metadata.namespace ?? '';
  for (const v of ((pod.spec as { volumes?: Volume[] } | undefined)?.volumes ?? [])) {
    if (v.configMap?.name && !v.configMap.optional && !lookup.configMap(ns, v.configMap.name)) {
      return `MountVolume.SetUp failed for volume "${v.name}" : configmap "${v.configMap.name}" not found`;
    }
    if (v.secret?.secretName && !v.secret.optional && !lookup.secret(ns, v.secret.secretName)) {
      return `MountVolume.SetUp failed for volume "${v.name}" : secret "${v.secret.secretName}" not found`;
    }
    const claimName = v.persistentVolumeClaim?.claimName;
    if (claimName) {
      const claim = lookup.claim(ns, claimName);
      const prefix = `Unable to attach or mount volumes: unmounted volumes=[${v.name}], unattached volumes=[], failed to process volumes=[${v.name}]: error processing PVC ${ns}/${claimName}`;
      if (!claim) return `${prefix}: failed to fetch PVC from API server: persistentvolumeclaims "${claimName}" not found`;
      const phase = (claim.status as { phase?: string } | undefined)?.phase ?? '';
      const volumeName = (claim.spec as { volumeName?: string } | undefined)?.volumeName ?? '';
      if (phase !== 'Bound' || !volumeName) return `${prefix}: PVC ${ns}/${claimName} has non-bound phase ("${phase}") or empty pvc.Spec.VolumeName ("${volumeName}")`;
    }
  }
  return undefined;
}
