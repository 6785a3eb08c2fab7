// Controllers: the pure part of the StatefulSet controller (kubernetes pkg/controller/statefulset
// stateful_set_control.go updateStatefulSet, stateful_set_utils.go): which pod to create or delete next —
// ordinals 0..replicas−1 in order, each waiting for the one before to be Running and Ready under
// OrderedReady (all at once under Parallel), condemned ordinals removed highest first, and a RollingUpdate
// replacing pods from the highest ordinal down to the partition, one at a time — and the status.

import type { KubeObject } from '../client/types';
import { CONTROLLER_REVISION_HASH, templateOf } from './controller-history';
import { newControllerRef } from './owner-refs';
import { isPodAvailable, isPodReady, podStatus } from './pods';
import { BURST_REPLICAS } from './replicaset';
import { firstPendingIndexes, withIndexes } from '../core/job-indexes';

export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

export interface StsSpec {
  replicas?: number;
  serviceName?: string;
  podManagementPolicy?: 'OrderedReady' | 'Parallel';
  minReadySeconds?: number;
  updateStrategy?: { type?: 'RollingUpdate' | 'OnDelete'; rollingUpdate?: { partition?: number } | null };
  selector?: import('../core/selectors/label-selector').LabelSelectorSpec;
}

export interface StsStatus {
  observedGeneration?: number;
  replicas: number;
  readyReplicas?: number;
  currentReplicas?: number;
  updatedReplicas?: number;
  currentRevision?: string;
  updateRevision?: string;
  collisionCount?: number;
  availableReplicas: number;
}

export const stsSpec = (s: KubeObject): StsSpec => (s.spec as StsSpec | undefined) ?? {};

/** getOrdinal: the ordinal of a pod named <set>-<n>, or undefined when it is not one of this set's names. */
export function ordinalOf(set: KubeObject, pod: KubeObject): number | undefined {
  const prefix = `${set.metadata.name}-`;
  const name = pod.metadata.name ?? '';
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : undefined;
}

export const revisionOfPod = (pod: KubeObject): string => ((pod.metadata.labels as Record<string, string> | undefined) ?? {})[CONTROLLER_REVISION_HASH] ?? '';

const terminal = (pod: KubeObject) => ['Failed', 'Succeeded'].includes(podStatus(pod).phase ?? '');
export const isRunningAndReady = (pod: KubeObject): boolean => podStatus(pod).phase === 'Running' && isPodReady(pod);
const healthy = (pod: KubeObject) => isRunningAndReady(pod) && !pod.metadata.deletionTimestamp;

export interface StsActions {
  create: number[]; // ordinals
  delete: KubeObject[];
}

/**
 * The most pods one sync creates under Parallel: kube's controller creates every missing ordinal in one sync
 * (slowStartBatch over a slice of spec.replicas entries); edgeplane takes ReplicaSet's burstReplicas, so the work
 * of a sync follows the pods that exist, never the replicas a user asked for (issue 18: 2^31−1 replicas).
 */
export const MAX_STATEFUL_CREATES_PER_SYNC = BURST_REPLICAS;

/** The next pods to create or delete. `pods` are the set's own pods. Linear in the pods (plus the creates). */
export function planStatefulSet(set: KubeObject, pods: KubeObject[], updateRevision: string): StsActions {
  const spec = stsSpec(set);
  const monotonic = spec.podManagementPolicy !== 'Parallel';
  const replicas = spec.replicas ?? 1;
  const byOrdinal = new Map<number, KubeObject>();
  const condemned: [number, KubeObject][] = [];
  for (const p of pods) {
    const ord = ordinalOf(set, p);
    if (ord === undefined) continue;
    if (ord < replicas) byOrdinal.set(ord, p);
    else condemned.push([ord, p]);
  }
  condemned.sort((a, b) => b[0] - a[0]);
  const ordinals = [...byOrdinal.keys()].sort((a, b) => a - b);
  const out: StsActions = { create: [], delete: [] };
  if (monotonic) {
    // OrderedReady: in order, stopping at the first ordinal missing, failed or not yet Running and Ready — so at
    // most one more step than there are pods.
    for (let ord = 0; ord < replicas; ord++) {
      const pod = byOrdinal.get(ord);
      if (!pod) {
        out.create.push(ord);
        return out;
      }
      if (terminal(pod) && !pod.metadata.deletionTimestamp) {
        out.delete.push(pod); // a failed pod is deleted, then made again
        return out;
      }
      if (!healthy(pod)) return out;
    }
  } else {
    for (const ord of ordinals) {
      const pod = byOrdinal.get(ord)!;
      if (terminal(pod) && !pod.metadata.deletionTimestamp) out.delete.push(pod);
    }
    // The lowest missing ordinals, found between the existing ones.
    out.create = firstPendingIndexes(withIndexes([], ordinals), MAX_STATEFUL_CREATES_PER_SYNC, replicas);
  }
  for (const [, pod] of condemned) {
    if (pod.metadata.deletionTimestamp) {
      if (monotonic) return out;
      continue;
    }
    out.delete.push(pod);
    if (monotonic) return out;
  }
  if (out.create.length || out.delete.length) return out;
  if ((spec.updateStrategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return out;
  // Every ordinal below replicas exists here (none was missing), so this walks the pods, highest first.
  const partition = spec.updateStrategy?.rollingUpdate?.partition ?? 0;
  for (let i = ordinals.length - 1; i >= 0 && ordinals[i]! >= partition; i--) {
    const pod = byOrdinal.get(ordinals[i]!)!;
    if (revisionOfPod(pod) !== updateRevision && !pod.metadata.deletionTimestamp) {
      out.delete.push(pod);
      return out;
    }
    if (!healthy(pod)) return out;
  }
  return out;
}

/** newVersionedStatefulSetPod: below the partition a pod is made from the current revision. */
export function revisionForOrdinal(set: KubeObject, ordinal: number): 'current' | 'update' {
  const spec = stsSpec(set);
  const ru = spec.updateStrategy?.rollingUpdate;
  if ((spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') return ru && ordinal < (ru.partition ?? 0) ? 'current' : 'update';
  return ordinal < ((set.status as StsStatus | undefined)?.currentReplicas ?? 0) ? 'current' : 'update';
}

/** The pod for `ordinal` from a revision's template: stable name, hostname and subdomain, identity labels. */
export function podForOrdinal(set: KubeObject, revision: KubeObject, ordinal: number): KubeObject {
  const t = templateOf(revision);
  const name = `${set.metadata.name}-${ordinal}`;
  const spec = structuredClone(t.spec ?? {}) as Record<string, unknown>;
  spec.hostname = name;
  const serviceName = stsSpec(set).serviceName;
  if (serviceName) spec.subdomain = serviceName;
  const metadata: Record<string, unknown> = {
    name, namespace: set.metadata.namespace,
    labels: { ...(t.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH]: revision.metadata.name!, [POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(ordinal) },
    ownerReferences: [newControllerRef(set)],
  };
  if (t.metadata?.annotations) metadata.annotations = { ...t.metadata.annotations };
  const claims = claimsForOrdinal(set, ordinal);
  if (claims.length) {
    // updateStorage: a volume per claim template (replacing the template's volume of that name), then the others.
    const names = new Set(claims.map((c) => c.template));
    const others = ((spec.volumes as { name?: string }[] | undefined) ?? []).filter((v) => !names.has(v.name ?? ''));
    spec.volumes = [...claims.map((c) => ({ name: c.template, persistentVolumeClaim: { claimName: c.claim.metadata.name } })), ...others];
  }
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

interface ClaimTemplate { metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> }

/**
 * getPersistentVolumeClaims: the claims of an ordinal, <template>-<set>-<ordinal>, with the template's labels and
 * the set's selector matchLabels; a retention policy of whenDeleted: Delete makes the set their owner (kube 1.32,
 * StatefulSetAutoDeletePVC), so the garbage collector deletes them with it.
 */
export function claimsForOrdinal(set: KubeObject, ordinal: number): { template: string; claim: KubeObject }[] {
  const templates = ((set.spec as { volumeClaimTemplates?: ClaimTemplate[] } | undefined)?.volumeClaimTemplates) ?? [];
  const matchLabels = (stsSpec(set).selector as { matchLabels?: Record<string, string> } | undefined)?.matchLabels ?? {};
  const deleteWithSet = retentionPolicy(set).whenDeleted === 'Delete';
  return templates.map((t) => {
    const metadata: Record<string, unknown> = {
      name: `${t.metadata?.name}-${set.metadata.name}-${ordinal}`, namespace: set.metadata.namespace,
      labels: { ...(t.metadata?.labels ?? {}), ...matchLabels },
    };
    if (t.metadata?.annotations) metadata.annotations = { ...t.metadata.annotations };
    if (deleteWithSet) metadata.ownerReferences = [{ ...newControllerRef(set), controller: false }];
    return { template: t.metadata?.name ?? '', claim: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata, spec: structuredClone(t.spec ?? {}) } };
  });
}

export function retentionPolicy(set: KubeObject): { whenDeleted: string; whenScaled: string } {
  const p = (set.spec as { persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string; whenScaled?: string } } | undefined)?.persistentVolumeClaimRetentionPolicy;
  return { whenDeleted: p?.whenDeleted ?? 'Retain', whenScaled: p?.whenScaled ?? 'Retain' };
}

/** The status of the set over its pods (computeReplicaStatus + completeRollingUpdate). */
export function stsStatusOf(set: KubeObject, pods: KubeObject[], currentRevision: string, updateRevision: string, now: number): StsStatus {
  const spec = stsSpec(set);
  let replicas = 0, ready = 0, available = 0, current = 0, updated = 0;
  for (const p of pods) {
    if (ordinalOf(set, p) === undefined) continue;
    replicas++;
    if (isRunningAndReady(p)) {
      ready++;
      if (isPodAvailable(p, spec.minReadySeconds ?? 0, now)) available++;
    }
    if (p.metadata.deletionTimestamp) continue;
    if (revisionOfPod(p) === currentRevision) current++;
    if (revisionOfPod(p) === updateRevision) updated++;
  }
  const prior = (set.status as StsStatus | undefined) ?? { replicas: 0, availableReplicas: 0 };
  let currentRev = currentRevision;
  if ((spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate' && updated === replicas && ready === replicas) {
    current = updated;
    currentRev = updateRevision;
  }
  // Field order as the Go struct serializes it.
  const status = {} as StsStatus;
  if (set.metadata.generation !== undefined) status.observedGeneration = set.metadata.generation as number;
  status.replicas = replicas;
  if (ready) status.readyReplicas = ready;
  if (current) status.currentReplicas = current;
  if (updated) status.updatedReplicas = updated;
  status.currentRevision = currentRev;
  status.updateRevision = updateRevision;
  status.collisionCount = prior.collisionCount ?? 0;
  status.availableReplicas = available;
  return status;
}
