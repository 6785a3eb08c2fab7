// Scheduler: one scheduling cycle as pure logic (pkg/scheduler/schedule_one.go with the default plugins
// that matter here): Filter (NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit — the first
// failing plugin decides a node's reasons), Score (NodeResourcesFit LeastAllocated ×1,
// NodeResourcesBalancedAllocation ×1, TaintToleration ×3, NodeAffinity ×2, spread of the owner's pods ×2),
// selectHost (highest total, ties broken at random), and the FitError message of a pod that fits nowhere.

import type { KubeObject } from '../../client/types';
import { matchesNodeSelectorAndAffinity, preferredAffinityWeight } from './node-affinity';
import type { NodeUsage } from './node-info';
import { controllerUid } from './node-info';
import { nodeAllocatable, podRequests } from './resources';
import { firstUntolerated, nodeTaints, podTolerations, toleratesAny } from './taints';

export const UNSCHEDULABLE_TAINT = 'node.kubernetes.io/unschedulable';

/** The filter plugins, by their kube names: a parked pod remembers which rejected it (queueing-hints.ts). */
export type FilterPlugin = 'NodeUnschedulable' | 'TaintToleration' | 'NodeAffinity' | 'NodeResourcesFit';

export interface FilterResult {
  reasons: string[]; // empty: the node fits
  // UnschedulableAndUnresolvable: removing pods (preemption) would not help on this node.
  unresolvable: boolean;
  plugin?: FilterPlugin | 'VolumeBinding'; // the plugin that rejected the node
}

const FITS: FilterResult = { reasons: [], unresolvable: false };

/** NodeUnschedulable: a cordoned node takes only pods that tolerate its unschedulable taint. */
export function passesNodeUnschedulable(pod: KubeObject, node: KubeObject): boolean {
  return !(node.spec as { unschedulable?: boolean } | undefined)?.unschedulable
    || toleratesAny(podTolerations(pod), { key: UNSCHEDULABLE_TAINT, effect: 'NoSchedule' });
}

/** TaintToleration: the first NoSchedule/NoExecute taint the pod does not tolerate, if any. */
export function untoleratedTaint(pod: KubeObject, node: KubeObject) {
  return firstUntolerated(nodeTaints(node), podTolerations(pod), ['NoSchedule', 'NoExecute']);
}

/** Runs the filter plugins in kube's order for `pod` on `node`, whose bound pods use `usage`. */
export function filterNode(pod: KubeObject, node: KubeObject, usage: NodeUsage): FilterResult {
  if (!passesNodeUnschedulable(pod, node)) return { reasons: ['node(s) were unschedulable'], unresolvable: true, plugin: 'NodeUnschedulable' };
  const taint = untoleratedTaint(pod, node);
  if (taint) return { reasons: [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`], unresolvable: true, plugin: 'TaintToleration' };
  if (!matchesNodeSelectorAndAffinity(pod, node)) return { reasons: ["node(s) didn't match Pod's node affinity/selector"], unresolvable: true, plugin: 'NodeAffinity' };
  // NodeResourcesFit (fitsRequest): the pod count first, then each requested resource.
  const alloc = nodeAllocatable(node);
  const want = podRequests(pod);
  const reasons: string[] = [];
  if (usage.pods + 1 > alloc.pods) reasons.push('Too many pods');
  if (want.cpu > 0 && want.cpu > alloc.cpu - usage.requested.cpu) reasons.push('Insufficient cpu');
  if (want.memory > 0 && want.memory > alloc.memory - usage.requested.memory) reasons.push('Insufficient memory');
  if (want.ephemeral > 0 && want.ephemeral > alloc.ephemeral - usage.requested.ephemeral) reasons.push('Insufficient ephemeral-storage');
  return reasons.length ? { reasons, unresolvable: false, plugin: 'NodeResourcesFit' } : FITS;
}

const MAX_SCORE = 100;

/** leastRequestedScore: the free share after placing the pod, 0 when it would not fit. */
function leastRequested(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return ((capacity - requested) * MAX_SCORE) / capacity;
}

export interface Candidate {
  node: KubeObject;
  usage: NodeUsage;
}

/** Per node, the weighted sum of the scores (after each plugin's normalization), in `candidates`' order. */
export function scoreNodes(pod: KubeObject, candidates: Candidate[]): number[] {
  const want = podRequests(pod, true);
  const owner = controllerUid(pod);
  const tolerations = podTolerations(pod);
  const raw = candidates.map(({ node, usage }) => {
    const alloc = nodeAllocatable(node);
    const cpu = usage.nonZero.cpu + want.cpu;
    const memory = usage.nonZero.memory + want.memory;
    const least = Math.floor((leastRequested(cpu, alloc.cpu) + leastRequested(memory, alloc.memory)) / 2);
    // balanced_allocation.go: 1 − standard deviation of the requested fractions (two resources: |a − b| / 2).
    const fc = alloc.cpu ? Math.min(1, cpu / alloc.cpu) : 1;
    const fm = alloc.memory ? Math.min(1, memory / alloc.memory) : 1;
    const balanced = Math.floor((1 - Math.abs(fc - fm) / 2) * MAX_SCORE);
    const preferNoSchedule = nodeTaints(node).filter((t) => t.effect === 'PreferNoSchedule' && !toleratesAny(tolerations, t)).length;
    return { least, balanced, preferNoSchedule, affinity: preferredAffinityWeight(pod, node), siblings: owner ? (usage.owners.get(owner) ?? 0) : 0 };
  });
  const maxOf = (f: (r: (typeof raw)[number]) => number) => raw.reduce((m, r) => Math.max(m, f(r)), 0);
  const maxTaints = maxOf((r) => r.preferNoSchedule);
  const maxAffinity = maxOf((r) => r.affinity);
  const maxSiblings = maxOf((r) => r.siblings);
  return raw.map((r) => {
    // DefaultNormalizeScore: scaled to 0..100 by the maximum, reversed where fewer is better.
    const taint = maxTaints ? MAX_SCORE - Math.floor((r.preferNoSchedule * MAX_SCORE) / maxTaints) : MAX_SCORE;
    const affinity = maxAffinity ? Math.floor((r.affinity * MAX_SCORE) / maxAffinity) : 0;
    const spread = maxSiblings ? MAX_SCORE - Math.floor((r.siblings * MAX_SCORE) / maxSiblings) : MAX_SCORE;
    return r.least + r.balanced + 3 * taint + 2 * affinity + 2 * spread;
  });
}

/** selectHost: the highest score; among equals, each is picked with equal chance (reservoir sampling). */
export function selectHost(scores: number[], random: () => number = Math.random): number {
  let best = -1;
  let ties = 0;
  for (let i = 0; i < scores.length; i++) {
    if (best < 0 || scores[i] > scores[best]) {
      best = i;
      ties = 1;
    } else if (scores[i] === scores[best]) {
      ties++;
      if (random() * ties < 1) best = i;
    }
  }
  return best;
}

/** "3 Insufficient cpu, 1 node(s) were unschedulable" — FitError's histogram, sorted as strings. */
function histogram(reasons: Iterable<string>): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([r, n]) => `${n} ${r}`).sort().join(', ');
}

/** FitError.Error() alone: what a pod that preempted (PostFilter succeeded) is told. */
export function fitErrorHead(results: FilterResult[]): string {
  return `0/${results.length} nodes are available: ${histogram(results.flatMap((r) => r.reasons))}.`;
}

/**
 * FitError.Error() followed by DefaultPreemption's PostFilter message (framework/types.go, preemption.go),
 * for a pod no node fits. Preemption never finds victims here: every pod has priority 0 (no PriorityClasses),
 * so a node short of resources has "No preemption victims found for incoming pod" and one failing an
 * unresolvable filter "Preemption is not helpful for scheduling".
 */
export function fitErrorMessage(pod: KubeObject, results: FilterResult[]): string {
  const n = results.length;
  if (n === 0) return 'no nodes available to schedule pods';
  const head = fitErrorHead(results);
  if ((pod.spec as { preemptionPolicy?: string } | undefined)?.preemptionPolicy === 'Never') {
    return `${head} preemption: not eligible due to preemptionPolicy=Never.`;
  }
  const preemption = histogram(results.map((r) => (r.unresolvable ? 'Preemption is not helpful for scheduling' : 'No preemption victims found for incoming pod')));
  return `${head} preemption: 0/${n} nodes are available: ${preemption}.`;
}
