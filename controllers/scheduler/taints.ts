// Scheduler and node lifecycle: taints and tolerations (core/v1 toleration.go ToleratesTaint).

import type { KubeObject } from '../../client/types';

export interface Taint { key: string; value?: string; effect: string; timeAdded?: string }
export interface Toleration { key?: string; operator?: string; value?: string; effect?: string; tolerationSeconds?: number }

/** Toleration.ToleratesTaint: effect empty or equal; key empty (with Exists) or equal; Exists, or Equal values. */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  const op = t.operator || 'Equal';
  if (op === 'Exists') return true;
  if (op !== 'Equal' || !t.key) return false; // an empty key only goes with Exists
  return (t.value ?? '') === (taint.value ?? '');
}

export const toleratesAny = (tolerations: Toleration[], taint: Taint): boolean => tolerations.some((t) => tolerates(t, taint));

/** The first taint with one of `effects` that no toleration tolerates (FindMatchingUntoleratedTaint). */
export function firstUntolerated(taints: Taint[], tolerations: Toleration[], effects: string[]): Taint | undefined {
  return taints.find((taint) => effects.includes(taint.effect) && !toleratesAny(tolerations, taint));
}

export const nodeTaints = (node: KubeObject): Taint[] => ((node.spec as { taints?: Taint[] } | undefined)?.taints ?? []);
export const podTolerations = (pod: KubeObject): Toleration[] => ((pod.spec as { tolerations?: Toleration[] } | undefined)?.tolerations ?? []);
