// Scheduler: the VolumeBinding plugin as pure logic (pkg/scheduler/framework/plugins/volumebinding, kube 1.32):
// PreFilter reads the pod's claims — a missing or deleting claim, or an unbound claim of an Immediate class,
// makes the pod unschedulable everywhere — Filter keeps the nodes a bound volume's nodeAffinity allows (and,
// for a claim already given a node by volume.kubernetes.io/selected-node, that node only), and PreBind gives
// each unbound WaitForFirstConsumer claim the chosen node; the pod is bound once all its claims are.
// Linear in the pod's volumes.

import type { KubeObject } from '../../client/types';
import { ANN_SELECTED_NODE, claimClass, claimSpec, volumeSpec } from '../volume-plan';
import { termMatches, type NodeSelectorTerm } from './node-affinity';

export interface VolumeLookup {
  claim(namespace: string, name: string): KubeObject | undefined;
  volume(name: string): KubeObject | undefined;
  storageClass(name: string): KubeObject | undefined;
}

export interface PodClaim {
  claim: KubeObject;
  volume?: KubeObject; // the bound volume
  selectedNode?: string;
}

export type VolumePreFilter = { claims: PodClaim[]; error?: undefined } | { error: string; claims?: undefined };

const claimNames = (pod: KubeObject): string[] =>
  (((pod.spec as { volumes?: { name?: string; persistentVolumeClaim?: { claimName?: string }; ephemeral?: unknown }[] } | undefined)?.volumes) ?? [])
    .flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : v.ephemeral !== undefined ? [`${pod.metadata.name}-${v.name}`] : []));

export function volumePreFilter(pod: KubeObject, lookup: VolumeLookup): VolumePreFilter {
  const ns = pod.metadata.namespace ?? '';
  const claims: PodClaim[] = [];
  for (const name of claimNames(pod)) {
    const claim = lookup.claim(ns, name);
    if (!claim) return { error: `persistentvolumeclaim "${name}" not found` };
    if (claim.metadata.deletionTimestamp) return { error: `persistentvolumeclaim "${name}" is being deleted` };
    const volumeName = claimSpec(claim).volumeName;
    if (volumeName) {
      claims.push({ claim, volume: lookup.volume(volumeName) });
      continue;
    }
    const sc = lookup.storageClass(claimClass(claim));
    const delayed = (sc as { volumeBindingMode?: string } | undefined)?.volumeBindingMode === 'WaitForFirstConsumer';
    if (!delayed) return { error: 'pod has unbound immediate PersistentVolumeClaims' };
    const selected = (claim.metadata.annotations as Record<string, string> | undefined)?.[ANN_SELECTED_NODE];
    claims.push({ claim, ...(selected ? { selectedNode: selected } : {}) });
  }
  return { claims };
}

/** Filter: the reason `node` cannot take the pod's volumes, or undefined. */
export function volumeFilter(claims: PodClaim[], node: KubeObject): string | undefined {
  for (const c of claims) {
    if (c.volume) {
      const terms = (volumeSpec(c.volume).nodeAffinity as { required?: { nodeSelectorTerms?: NodeSelectorTerm[] } } | undefined)?.required?.nodeSelectorTerms;
      if (terms && !terms.some((t) => termMatches(t, node))) return 'node(s) had volume node affinity conflict';
    } else if (c.selectedNode && c.selectedNode !== node.metadata.name) {
      return "node(s) didn't find available persistent volumes to bind";
    }
  }
  return undefined;
}

/** The claims still waiting for a volume (unbound), which the pod's binding waits for. */
export const unboundClaims = (claims: PodClaim[]): PodClaim[] => claims.filter((c) => !c.volume);
