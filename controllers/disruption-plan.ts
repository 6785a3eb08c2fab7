// Controllers: the pure part of the disruption controller (kubernetes pkg/controller/disruption/disruption.go,
// 1.32): a PodDisruptionBudget's pods, how many are expected (minAvailable as a number counts the pods; a
// percentage or maxUnavailable counts the replicas their controllers want), how many must stay healthy, how
// many are, and the status that gives — disruptionsAllowed and the DisruptionAllowed condition — with the
// disruptedPods map of recent evictions pruned once the pods are deleting or 2 minutes have passed.

import type { KubeObject } from '../client/types';
import { kubeTime } from './events';
import { controllerOf } from './owner-refs';
import { isPodReady } from './pods';
import { scaledValue, type IntOrString } from './deployment-util';
import { matchesLabels, selectorFromLabelSelector } from '../core/selectors/label-selector';

export const DELETION_TIMEOUT_MS = 2 * 60_000; // DeletionTimeout: an eviction not followed by a deletion this long is forgotten

export interface PdbSpec {
  minAvailable?: IntOrString;
  maxUnavailable?: IntOrString;
  selector?: import('../core/selectors/label-selector').LabelSelectorSpec | null;
  unhealthyPodEvictionPolicy?: 'IfHealthyBudget' | 'AlwaysAllow';
}

export interface PdbCondition { type: string; status: string; observedGeneration?: number; lastTransitionTime?: string; reason: string; message: string }

export interface PdbStatus {
  observedGeneration?: number;
  disruptedPods?: Record<string, string>;
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  conditions?: PdbCondition[];
}

export const pdbSpec = (pdb: KubeObject): PdbSpec => (pdb.spec as PdbSpec | undefined) ?? {};
export const pdbStatus = (pdb: KubeObject): Partial<PdbStatus> => (pdb.status as Partial<PdbStatus> | undefined) ?? {};

/** The PDB's pods: policy/v1 — a null selector matches none, an empty one every pod of the namespace. */
export function pdbMatcher(pdb: KubeObject): (pod: KubeObject) => boolean {
  const sel = pdbSpec(pdb).selector;
  if (sel == null) return () => false;
  try {
    const s = selectorFromLabelSelector(sel);
    return (pod) => matchesLabels(s, (pod.metadata.labels as Record<string, string> | undefined) ?? {});
  } catch {
    return () => false;
  }
}

/** The replicas a pod's controller wants (a ReplicaSet counts as its Deployment), or an error naming the pod. */
export interface ScaleLookup {
  replicas(kind: string, namespace: string, name: string, uid: string): { key: string; replicas: number } | undefined;
}

/** getExpectedScale: the sum of the replicas of the pods' distinct controllers. Linear in the pods. */
export function expectedScale(pods: KubeObject[], lookup: ScaleLookup): { expected: number } | { error: string } {
  const seen = new Map<string, number>();
  for (const pod of pods) {
    const ref = controllerOf(pod);
    if (!ref) return { error: `found no controller ref for pod "${pod.metadata.name}"` };
    const scale = lookup.replicas(ref.kind, pod.metadata.namespace ?? '', ref.name, ref.uid);
    if (!scale) return { error: `found no controllers for pod "${pod.metadata.name}"` };
    seen.set(scale.key, scale.replicas);
  }
  let expected = 0;
  for (const n of seen.values()) expected += n;
  return { expected };
}

export const isHealthy = (pod: KubeObject): boolean => !pod.metadata.deletionTimestamp && isPodReady(pod);

/**
 * The status the controller writes (or the error that becomes a SyncFailed condition). `pods` are the PDB's pods;
 * `now` prunes disruptedPods. Also says when the next disruptedPods entry expires.
 */
export function computePdbStatus(pdb: KubeObject, pods: KubeObject[], lookup: ScaleLookup, now: number): { status: PdbStatus; recheckMs?: number } | { error: string } {
  const spec = pdbSpec(pdb);
  let expectedCount: number, desiredHealthy: number;
  try {
    if (spec.maxUnavailable !== undefined) {
      const scale = expectedScale(pods, lookup);
      if ('error' in scale) return scale;
      expectedCount = scale.expected;
      desiredHealthy = Math.max(0, expectedCount - scaledValue(spec.maxUnavailable, expectedCount, true));
    } else if (typeof spec.minAvailable === 'number') {
      expectedCount = pods.length;
      desiredHealthy = spec.minAvailable;
    } else if (typeof spec.minAvailable === 'string') {
      const scale = expectedScale(pods, lookup);
      if ('error' in scale) return scale;
      expectedCount = scale.expected;
      desiredHealthy = scaledValue(spec.minAvailable, expectedCount, true);
    } else {
      expectedCount = pods.length;
      desiredHealthy = 0;
    }
  } catch (e) {
    return { error: (e as Error).message };
  }
  // buildDisruptedPodMap: an eviction is counted until the pod is deleting, or for DeletionTimeout.
  const byName = new Map(pods.map((p) => [p.metadata.name!, p]));
  const disrupted: Record<string, string> = {};
  let recheckMs: number | undefined;
  for (const [name, at] of Object.entries(pdbStatus(pdb).disruptedPods ?? {})) {
    const pod = byName.get(name);
    if (!pod || pod.metadata.deletionTimestamp) continue;
    const expires = Date.parse(at) + DELETION_TIMEOUT_MS;
    if (!(expires > now)) continue;
    disrupted[name] = at;
    recheckMs = Math.min(recheckMs ?? Infinity, expires - now);
  }
  let currentHealthy = 0;
  for (const p of pods) if (isHealthy(p) && !(p.metadata.name! in disrupted)) currentHealthy++;
  const disruptionsAllowed = Math.max(0, currentHealthy - desiredHealthy);
  const status: PdbStatus = { disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods: expectedCount };
  if (pdb.metadata.generation !== undefined) status.observedGeneration = pdb.metadata.generation as number;
  if (Object.keys(disrupted).length) status.disruptedPods = disrupted;
  status.conditions = [withAllowedCondition(pdb, disruptionsAllowed > 0 ? 'True' : 'False', disruptionsAllowed > 0 ? 'SufficientPods' : 'InsufficientPods', '', now)];
  // Field order as the Go struct serializes it.
  const ordered: PdbStatus = {
    ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
    ...(status.disruptedPods ? { disruptedPods: status.disruptedPods } : {}),
    disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods: expectedCount, conditions: status.conditions,
  };
  return { status: ordered, ...(recheckMs !== undefined ? { recheckMs } : {}) };
}

/** The DisruptionAllowed condition, keeping lastTransitionTime while the status stays. */
export function withAllowedCondition(pdb: KubeObject, status: 'True' | 'False', reason: string, message: string, now: number): PdbCondition {
  const prior = (pdbStatus(pdb).conditions ?? []).find((c) => c.type === 'DisruptionAllowed');
  const lastTransitionTime = prior && prior.status === status && prior.lastTransitionTime ? prior.lastTransitionTime : kubeTime(now);
  const c: PdbCondition = { type: 'DisruptionAllowed', status, reason, message, lastTransitionTime };
  if (pdb.metadata.generation !== undefined) c.observedGeneration = pdb.metadata.generation as number;
  return { type: c.type, status: c.status, ...(c.observedGeneration !== undefined ? { observedGeneration: c.observedGeneration } : {}), lastTransitionTime, reason, message };
}
