// Scheduler: QueueingHints (kube 1.32, SchedulerQueueingHints on by default): which cluster events could make a
// parked pod schedulable, asked only of the plugins that rejected it. A node added or changed in a way that
// matters to the plugin (isSchedulableAfterNodeChange of NodeUnschedulable, TaintToleration, NodeAffinity and
// NodeResourcesFit), or a bound pod going away (NodeResourcesFit's isSchedulableAfterPodEvent), moves it back to
// the queue; everything else — node heartbeats, conditions, annotations, other pods coming and going unbound —
// leaves it parked. Each hint looks at one node and one pod: a move costs O(parked pods), never O(pods × nodes).

import type { KubeObject } from '../../client/types';
import { passesNodeUnschedulable, untoleratedTaint, type FilterPlugin } from './algorithm';
import { matchesNodeSelectorAndAffinity } from './node-affinity';
import { nodeAllocatable, podRequests } from './resources';

/** A pod found no node while there were none: only a node being added can change that. */
export const NO_NODES = 'NoNodes';
/** VolumeBinding: a pod whose claims are missing, or waiting for their volumes. */
export const VOLUME_BINDING = 'VolumeBinding';
export type RejectorPlugin = FilterPlugin | typeof NO_NODES | typeof VOLUME_BINDING;

export type ClusterEvent =
  | { type: 'NodeAdd'; node: KubeObject }
  | { type: 'NodeUpdate'; old: KubeObject; node: KubeObject }
  | { type: 'AssignedPodDelete'; pod: KubeObject } // deleted, or finished (Succeeded/Failed): its room is free
  | { type: 'StorageChange' }; // a PersistentVolumeClaim, PersistentVolume or StorageClass added or changed

/** isFit: the pod's requests fit the node's allocatable when the node is empty. */
function fitsEmpty(pod: KubeObject, node: KubeObject): boolean {
  const alloc = nodeAllocatable(node);
  const want = podRequests(pod);
  return alloc.pods >= 1 && want.cpu <= alloc.cpu && want.memory <= alloc.memory && want.ephemeral <= alloc.ephemeral;
}

/** haveAnyRequestedResourcesIncreased: more pods allowed, or more of something the pod requests. */
function requestedIncreased(pod: KubeObject, old: KubeObject, node: KubeObject): boolean {
  const [a, b] = [nodeAllocatable(old), nodeAllocatable(node)];
  if (b.pods > a.pods) return true;
  const want = podRequests(pod);
  return (want.cpu > 0 && b.cpu > a.cpu) || (want.memory > 0 && b.memory > a.memory) || (want.ephemeral > 0 && b.ephemeral > a.ephemeral);
}

const nodePasses: Record<Exclude<FilterPlugin, 'NodeResourcesFit'>, (pod: KubeObject, node: KubeObject) => boolean> = {
  NodeUnschedulable: passesNodeUnschedulable,
  TaintToleration: (pod, node) => !untoleratedTaint(pod, node),
  NodeAffinity: matchesNodeSelectorAndAffinity,
};

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * NodeSchedulingPropertiesChange: does the update touch anything a filter reads (labels, taints, unschedulable,
 * allocatable)? Status heartbeats and condition changes do not, so they cost nothing per parked pod.
 */
export function nodeUpdateMatters(old: KubeObject, node: KubeObject): boolean {
  const spec = (n: KubeObject) => (n.spec ?? {}) as { unschedulable?: boolean; taints?: unknown };
  const alloc = (n: KubeObject) => (n.status as { allocatable?: unknown; capacity?: unknown } | undefined);
  return !same(old.metadata.labels, node.metadata.labels) || !same(spec(old).taints, spec(node).taints)
    || !!spec(old).unschedulable !== !!spec(node).unschedulable || !same(alloc(old)?.allocatable ?? alloc(old)?.capacity, alloc(node)?.allocatable ?? alloc(node)?.capacity);
}

/** One plugin's hint: may `event` make `pod`, which `plugin` rejected, schedulable? */
function hint(plugin: RejectorPlugin, pod: KubeObject, event: ClusterEvent): boolean {
  if (plugin === VOLUME_BINDING) return event.type === 'StorageChange' || event.type === 'NodeAdd';
  switch (event.type) {
    case 'StorageChange':
      return false;
    case 'NodeAdd':
      if (plugin === NO_NODES) return true;
      return plugin === 'NodeResourcesFit' ? fitsEmpty(pod, event.node) : nodePasses[plugin](pod, event.node);
    case 'NodeUpdate':
      if (plugin === NO_NODES) return false;
      if (plugin === 'NodeResourcesFit') return fitsEmpty(pod, event.node) && requestedIncreased(pod, event.old, event.node);
      return nodePasses[plugin](pod, event.node) && !nodePasses[plugin](pod, event.old);
    case 'AssignedPodDelete':
      return plugin === 'NodeResourcesFit';
  }
}

/** isPodWorthRequeuing: true when any plugin that rejected the pod says the event may help. */
export function worthRequeuing(rejectors: ReadonlySet<RejectorPlugin>, pod: KubeObject, event: ClusterEvent): boolean {
  for (const plugin of rejectors) if (hint(plugin, pod, event)) return true;
  return false;
}

/**
 * isPodUpdated: the pod changed in a way that may make it schedulable — anything but its status (our own
 * PodScheduled write included), resourceVersion, generation, managedFields and finalizers.
 */
export function isPodUpdated(old: KubeObject, pod: KubeObject): boolean {
  const strip = (p: KubeObject) => {
    const { resourceVersion: _rv, generation: _g, managedFields: _mf, finalizers: _f, ...metadata } = p.metadata as Record<string, unknown>;
    return JSON.stringify([metadata, p.spec]);
  };
  return strip(old) !== strip(pod);
}
