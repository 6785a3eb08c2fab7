// Controllers: the pure part of the PersistentVolume loops (kubernetes pkg/controller/volume/persistentvolume
// pv_controller.go, index.go; pkg/controller/volume/pvcprotection, pvprotection): a claim's class and the
// default class, the smallest available volume that satisfies a claim, the volume the simulated provisioner
// makes, and the claim/volume states a binding writes.

import type { KubeObject } from '../client/types';
import { compareQuantity, parseQuantity, type Quantity } from '../core/quantity';
import { selectorMatcher } from './owner-refs';
import { defaultStorageClass, isDefaultStorageClass } from '../core/admission/plugins/default-storage-class';

export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
export const ANN_PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
export const ANN_BETA_CLASS = 'volume.beta.kubernetes.io/storage-class';
export const ANN_DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';
export const ANN_BETA_DEFAULT_CLASS = 'storageclass.beta.kubernetes.io/is-default-class';
export const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION = 'kubernetes.io/pv-protection';
export const SIMULATED_PROVISIONER = 'edgeplane.dev/simulated';

export interface ClaimSpec {
  accessModes?: string[];
  resources?: { requests?: { storage?: string } };
  storageClassName?: string | null;
  volumeName?: string;
  volumeMode?: string;
  selector?: import('../core/selectors/label-selector').LabelSelectorSpec;
}

export interface VolumeSpec {
  capacity?: { storage?: string };
  accessModes?: string[];
  claimRef?: { kind?: string; namespace?: string; name?: string; uid?: string; apiVersion?: string; resourceVersion?: string };
  storageClassName?: string;
  volumeMode?: string;
  persistentVolumeReclaimPolicy?: string;
  nodeAffinity?: unknown;
}

export const claimSpec = (c: KubeObject): ClaimSpec => (c.spec as ClaimSpec | undefined) ?? {};
export const volumeSpec = (v: KubeObject): VolumeSpec => (v.spec as VolumeSpec | undefined) ?? {};
export const phaseOf = (o: KubeObject): string | undefined => (o.status as { phase?: string } | undefined)?.phase;
const annotations = (o: KubeObject): Record<string, string> => (o.metadata.annotations as Record<string, string> | undefined) ?? {};

/** GetPersistentVolumeClaimClass: the beta annotation wins; '' when the claim names none. */
export function claimClass(c: KubeObject): string {
  return annotations(c)[ANN_BETA_CLASS] ?? claimSpec(c).storageClassName ?? '';
}

/** Whether the claim left its class unset (nil, not ""): the default class is then filled in retroactively. */
export const claimWantsDefaultClass = (c: KubeObject): boolean => annotations(c)[ANN_BETA_CLASS] === undefined && claimSpec(c).storageClassName == null;

export function volumeClass(v: KubeObject): string {
  return annotations(v)[ANN_BETA_CLASS] ?? volumeSpec(v).storageClassName ?? '';
}

// The default class as DefaultStorageClass admission picks it (one rule for the plugin and the retroactive default).
export const isDefaultClass = isDefaultStorageClass;
export const defaultClass = defaultStorageClass;

function quantity(text: string | undefined): Quantity | undefined {
  if (!text) return undefined;
  try {
    return parseQuantity(text);
  } catch {
    return undefined;
  }
}

export const requestOf = (c: KubeObject): Quantity | undefined => quantity(claimSpec(c).resources?.requests?.storage);
export const capacityOf = (v: KubeObject): Quantity | undefined => quantity(volumeSpec(v).capacity?.storage);

/** The volume is pre-bound to this claim (by name, and by uid when the ref has one). */
export function preboundTo(v: KubeObject, c: KubeObject): boolean {
  const ref = volumeSpec(v).claimRef;
  return !!ref && ref.name === c.metadata.name && ref.namespace === c.metadata.namespace && (!ref.uid || ref.uid === c.metadata.uid);
}

/**
 * findBestMatchForClaim: a volume pre-bound to the claim, else the smallest Available one of the claim's class
 * whose capacity, access modes, volume mode and labels satisfy it. Linear in the volumes.
 */
export function findMatchingVolume(c: KubeObject, volumes: KubeObject[]): KubeObject | undefined {
  const spec = claimSpec(c);
  const want = requestOf(c);
  const cls = claimClass(c);
  const modes = spec.accessModes ?? [];
  const matches = spec.selector ? selectorMatcher(spec.selector) : () => true;
  let best: KubeObject | undefined;
  let bestSize: Quantity | undefined;
  for (const v of volumes) {
    if (v.metadata.deletionTimestamp) continue;
    const vs = volumeSpec(v);
    if (preboundTo(v, c)) return v;
    if (vs.claimRef || (phaseOf(v) !== undefined && phaseOf(v) !== 'Available')) continue;
    if (volumeClass(v) !== cls) continue;
    if ((vs.volumeMode ?? 'Filesystem') !== (spec.volumeMode ?? 'Filesystem')) continue;
    if (!modes.every((m) => (vs.accessModes ?? []).includes(m))) continue;
    const size = capacityOf(v);
    if (!size || (want && compareQuantity(size, want) < 0)) continue;
    if (!matches((v.metadata.labels as Record<string, string> | undefined) ?? {})) continue;
    if (!bestSize || compareQuantity(size, bestSize) < 0) {
      best = v;
      bestSize = size;
    }
  }
  return best;
}

/** The claimRef a binding writes on the volume (ObjectReference field order). */
export function claimRefOf(c: KubeObject): NonNullable<VolumeSpec['claimRef']> {
  return { kind: 'PersistentVolumeClaim', namespace: c.metadata.namespace, name: c.metadata.name, uid: c.metadata.uid as string, apiVersion: 'v1', resourceVersion: c.metadata.resourceVersion as string };
}

/**
 * The volume the simulated provisioner makes for a claim (local-path style, as kind's provisioner): named
 * pvc-<claim uid>, the claim's size and modes, the class's reclaim policy, pre-bound to the claim, and pinned to
 * the node the scheduler selected when the class waits for the first consumer.
 */
export function provisionedVolume(c: KubeObject, sc: KubeObject, node: string | undefined): KubeObject {
  const spec = claimSpec(c);
  const name = `pvc-${c.metadata.uid}`;
  const pvSpec: Record<string, unknown> = {
    capacity: { storage: spec.resources?.requests?.storage ?? '1Gi' },
    hostPath: { path: `/var/local-path-provisioner/${name}_${c.metadata.namespace}_${c.metadata.name}`, type: 'DirectoryOrCreate' },
    accessModes: spec.accessModes ?? ['ReadWriteOnce'],
    claimRef: claimRefOf(c),
    persistentVolumeReclaimPolicy: (sc as { reclaimPolicy?: string }).reclaimPolicy ?? 'Delete',
    storageClassName: sc.metadata.name,
    volumeMode: spec.volumeMode ?? 'Filesystem',
  };
  if (node) {
    pvSpec.nodeAffinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } };
  }
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name, annotations: { [ANN_PROVISIONED_BY]: (sc as { provisioner?: string }).provisioner ?? SIMULATED_PROVISIONER } }, spec: pvSpec };
}

/** The claim's status once bound to `v`. */
export function boundClaimStatus(v: KubeObject): Record<string, unknown> {
  return { phase: 'Bound', accessModes: volumeSpec(v).accessModes ?? [], capacity: { ...(volumeSpec(v).capacity ?? {}) } };
}

/**
 * The simulated provisioner's volume grown to a bound claim's larger request (the external-resizer's job, expansion
 * being instant here), or undefined when there is nothing to grow: another plugin's volume, or one big enough.
 */
export function expandedVolume(c: KubeObject, v: KubeObject): KubeObject | undefined {
  if (annotations(v)[ANN_PROVISIONED_BY] !== SIMULATED_PROVISIONER) return undefined;
  const want = requestOf(c);
  const have = capacityOf(v);
  if (!want || (have && compareQuantity(want, have) <= 0)) return undefined;
  return { ...v, spec: { ...volumeSpec(v), capacity: { ...(volumeSpec(v).capacity ?? {}), storage: claimSpec(c).resources!.requests!.storage! } } };
}

/** Whether a live pod (not finished) names the claim among its volumes: then the claim is in use. */
export function podUsesClaim(pod: KubeObject, claim: string): boolean {
  const phase = phaseOf(pod);
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const volumes = ((pod.spec as { volumes?: { persistentVolumeClaim?: { claimName?: string }; ephemeral?: unknown; name?: string }[] } | undefined)?.volumes ?? []);
  return volumes.some((v) => v.persistentVolumeClaim?.claimName === claim || (v.ephemeral !== undefined && `${pod.metadata.name}-${v.name}` === claim));
}

export const hasFinalizer = (o: KubeObject, f: string): boolean => ((o.metadata.finalizers as string[] | undefined) ?? []).includes(f);
