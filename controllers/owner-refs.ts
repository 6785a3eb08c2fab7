// Controllers: ownerReferences as kube's controllers use them (metav1.NewControllerRef,
// GetControllerOf) and the ControllerRefManager's claim decision (controller_ref_manager.go ClaimObject):
// adopt matching orphans, release owned objects that stopped matching, ignore other controllers' objects.

import type { KubeObject } from '../client/types';
import { matchesLabels, selectorFromLabelSelector, type LabelSelectorSpec } from '../core/selectors/label-selector';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export function ownerRefs(obj: KubeObject): OwnerReference[] {
  return (obj.metadata.ownerReferences as OwnerReference[] | undefined) ?? [];
}

export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return ownerRefs(obj).find((r) => r.controller === true);
}

export function newControllerRef(owner: KubeObject): OwnerReference {
  return { apiVersion: owner.apiVersion!, kind: owner.kind!, name: owner.metadata.name!, uid: owner.metadata.uid as string, controller: true, blockOwnerDeletion: true };
}

export const isDeleting = (obj: KubeObject): boolean => !!obj.metadata.deletionTimestamp;

export function labelsOf(obj: KubeObject): Record<string, string> {
  return (obj.metadata.labels as Record<string, string> | undefined) ?? {};
}

/** A selector matcher; a selector that does not parse matches nothing. */
export function selectorMatcher(spec: LabelSelectorSpec | undefined): (labels: Record<string, string>) => boolean {
  try {
    const sel = selectorFromLabelSelector(spec);
    return (labels) => matchesLabels(sel, labels);
  } catch {
    return () => false;
  }
}

export type ClaimDecision = 'keep' | 'adopt' | 'release' | 'ignore';

/** ClaimObject's decision for one candidate, given the owner and whether its selector matches. */
export function claimDecision(owner: KubeObject, candidate: KubeObject, matches: boolean): ClaimDecision {
  const ref = controllerOf(candidate);
  if (ref) {
    if (ref.uid !== owner.metadata.uid) return 'ignore';
    if (matches) return 'keep';
    return isDeleting(owner) ? 'keep' : 'release';
  }
  if (isDeleting(owner) || !matches || isDeleting(candidate)) return 'ignore';
  if (candidate.metadata.namespace !== owner.metadata.namespace) return 'ignore';
  return 'adopt';
}

/** SMP bodies for adoption and release (ownerRefControllerPatch, GenerateDeleteOwnerRefStrategicMergeBytes). */
export function adoptPatch(owner: KubeObject, candidate: KubeObject): unknown {
  return { metadata: { ownerReferences: [newControllerRef(owner)], uid: candidate.metadata.uid } };
}

export function releasePatch(ownerUid: string, candidate: KubeObject): unknown {
  return { metadata: { ownerReferences: [{ $patch: 'delete', uid: ownerUid }], uid: candidate.metadata.uid } };
}
