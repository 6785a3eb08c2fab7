// Canonical layer: kube's two-phase namespace deletion (pkg/registry/core/namespace/storage/storage.go
// Delete, finalize REST, ShouldDeleteNamespaceDuringUpdate), used while the namespace controller runs
// (CONTROLLERS on). The first DELETE of a namespace whose spec.finalizers is not empty only marks it
// (deletionTimestamp, phase Terminating); later DELETEs answer the object until spec.finalizers is empty;
// PUT namespaces/<n>/finalize changes spec.finalizers alone; an update that leaves a deleting namespace
// with no finalizers of either kind deletes it.

import type { KubeObject } from '../object-meta';
import type { ResourceType } from '../registry';

export const isNamespaceType = (type: ResourceType): boolean => type.group === '' && type.kind === 'Namespace' && !type.custom;

const specFinalizers = (ns: KubeObject): string[] => ((ns.spec as { finalizers?: string[] } | undefined)?.finalizers) ?? [];

/** spec.finalizers still holds the namespace. */
export const namespaceHeld = (ns: KubeObject): boolean => specFinalizers(ns).length > 0;

/** The namespace as its first DELETE leaves it. */
export function markNamespaceDeleting(current: KubeObject, now: string): KubeObject {
  const marked = structuredClone(current);
  marked.metadata.deletionTimestamp = now;
  marked.metadata.deletionGracePeriodSeconds = 0;
  marked.status = { ...((marked.status as Record<string, unknown> | undefined) ?? {}), phase: 'Terminating' };
  return marked;
}

/** finalizeStrategy.PrepareForUpdate: only spec.finalizers comes from the request. */
export function mergeFinalize(current: KubeObject, next: KubeObject): KubeObject {
  const merged = structuredClone(current);
  const finalizers = ((next.spec as { finalizers?: string[] } | undefined)?.finalizers) ?? [];
  merged.spec = { ...((merged.spec as Record<string, unknown> | undefined) ?? {}), finalizers };
  if (!finalizers.length) delete (merged.spec as { finalizers?: string[] }).finalizers;
  return merged;
}
