// Scheduler: DefaultPreemption's PostFilter as pure logic (pkg/scheduler/framework/preemption, kube 1.32): for a
// pod that fits nowhere and may preempt (preemptionPolicy PreemptLowerPriority), each node rejected only for its
// resources is tried without every pod of lower priority; if the pod then fits, victims are reprieved highest
// priority first while it still fits (selectVictimsOnNode). The node chosen has the lowest highest-victim
// priority, then the lowest sum of victim priorities, then the fewest victims (pickOneNodeForPreemption, without
// the PodDisruptionBudget criterion). Linear in the pods on the nodes tried (n·log n for the sort).

import type { KubeObject } from '../../client/types';
import { filterNode, type FilterResult } from './algorithm';
import { podPriority, type NodeUsage, type Placed } from './node-info';

export interface PreemptionCandidate { node: string; victims: Placed[] }

function shifted(usage: NodeUsage, p: Placed, sign: 1 | -1): NodeUsage {
  const u: NodeUsage = { requested: { ...usage.requested }, nonZero: { ...usage.nonZero }, pods: usage.pods + sign, owners: usage.owners };
  for (const k of ['cpu', 'memory', 'ephemeral'] as const) {
    u.requested[k] += sign * p.requested[k];
    u.nonZero[k] += sign * p.nonZero[k];
  }
  return u;
}

/** selectVictimsOnNode: the lower-priority pods whose removal lets `pod` fit on `node` (after reprieves), or undefined. */
export function victimsOnNode(pod: KubeObject, node: KubeObject, usage: NodeUsage, onNode: Placed[]): Placed[] | undefined {
  const prio = podPriority(pod);
  const lower = onNode.filter((p) => p.priority < prio);
  if (!lower.length) return undefined;
  let state = usage;
  for (const p of lower) state = shifted(state, p, -1);
  if (filterNode(pod, node, state).reasons.length) return undefined;
  // Reprieve the most important first: a pod stays when the preemptor still fits with it back.
  lower.sort((a, b) => b.priority - a.priority);
  const victims: Placed[] = [];
  for (const p of lower) {
    const back = shifted(state, p, 1);
    if (!filterNode(pod, node, back).reasons.length) state = back;
    else victims.push(p);
  }
  return victims;
}

/** The node to preempt on, or undefined when no node gets the pod to fit by preemption. */
export function pickPreemption(pod: KubeObject, nodes: { node: KubeObject; usage: NodeUsage; result: FilterResult; onNode: Placed[] }[]): PreemptionCandidate | undefined {
  if ((pod.spec as { preemptionPolicy?: string } | undefined)?.preemptionPolicy === 'Never') return undefined;
  let best: { c: PreemptionCandidate; max: number; sum: number } | undefined;
  for (const n of nodes) {
    if (n.result.unresolvable) continue;
    const victims = victimsOnNode(pod, n.node, n.usage, n.onNode);
    if (!victims?.length) continue;
    const max = Math.max(...victims.map((v) => v.priority));
    const sum = victims.reduce((s, v) => s + v.priority, 0);
    const better = !best || max < best.max || (max === best.max && (sum < best.sum || (sum === best.sum && victims.length < best.c.victims.length)));
    if (better) best = { c: { node: n.node.metadata.name!, victims }, max, sum };
  }
  return best?.c;
}
