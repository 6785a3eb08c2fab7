// Scheduler: the scheduler cache (pkg/scheduler/backend/cache): per node, the sum of what the pods bound
// to it (or assumed on it by this scheduler, before the informer shows the binding) request, their count,
// and how many pods of each owner it runs, kept incrementally so a scheduling cycle is O(nodes).

import type { KubeObject } from '../../client/types';
import { podRequests, type Resources } from './resources';

export interface NodeUsage {
  requested: Resources; // real requests (filtering)
  nonZero: Resources; // with the 100m/200Mi defaults (scoring)
  pods: number;
  owners: Map<string, number>; // controller owner uid → pods on this node
}

export interface Placed {
  key: string;
  node: string;
  requested: Resources;
  nonZero: Resources;
  owner: string | undefined;
  priority: number; // spec.priority (preemption picks victims by it)
}

export const podPriority = (pod: KubeObject): number => (pod.spec as { priority?: number } | undefined)?.priority ?? 0;

/** The uid of the pod's controller (ReplicaSet, Job, ...), which the spread score groups by. */
export function controllerUid(pod: KubeObject): string | undefined {
  const refs = (pod.metadata.ownerReferences ?? []) as { controller?: boolean; uid?: string }[];
  return refs.find((r) => r.controller)?.uid;
}

const isTerminal = (pod: KubeObject) => {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
};

const emptyUsage = (): NodeUsage => ({ requested: { cpu: 0, memory: 0, ephemeral: 0 }, nonZero: { cpu: 0, memory: 0, ephemeral: 0 }, pods: 0, owners: new Map() });

function shift(u: NodeUsage, p: Placed, sign: 1 | -1): void {
  for (const k of ['cpu', 'memory', 'ephemeral'] as const) {
    u.requested[k] += sign * p.requested[k];
    u.nonZero[k] += sign * p.nonZero[k];
  }
  u.pods += sign;
  if (p.owner) {
    const n = (u.owners.get(p.owner) ?? 0) + sign;
    if (n > 0) u.owners.set(p.owner, n);
    else u.owners.delete(p.owner);
  }
}

export class NodeUsageCache {
  private readonly usage = new Map<string, NodeUsage>();
  private readonly placed = new Map<string, Placed>(); // pod key → where it counts
  private readonly byNode = new Map<string, Map<string, Placed>>(); // node → the pods counted on it (preemption)

  /** A pod as the informer shows it: counted on its node while bound and not terminal. */
  observe(key: string, pod: KubeObject): void {
    const node = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    if (!node || isTerminal(pod)) {
      // An unbound pod stays counted where this scheduler assumed it until the binding shows or fails.
      if (!node && this.placed.has(key) && !isTerminal(pod)) return;
      return this.forget(key);
    }
    this.place(key, pod, node);
  }

  /** Counts the pod on `node` before the binding comes back through the informer (assume). */
  assume(key: string, pod: KubeObject, node: string): void {
    this.place(key, pod, node);
  }

  forget(key: string): void {
    const prior = this.placed.get(key);
    if (!prior) return;
    this.placed.delete(key);
    const on = this.byNode.get(prior.node);
    on?.delete(key);
    if (on?.size === 0) this.byNode.delete(prior.node);
    const u = this.usage.get(prior.node);
    if (u) shift(u, prior, -1);
  }

  nodeOf(key: string): string | undefined {
    return this.placed.get(key)?.node;
  }

  /** The pods counted on `node` (bound or assumed). */
  podsOn(node: string): Placed[] {
    return [...(this.byNode.get(node)?.values() ?? [])];
  }

  get(node: string): NodeUsage {
    return this.usage.get(node) ?? emptyUsage();
  }

  private place(key: string, pod: KubeObject, node: string): void {
    const prior = this.placed.get(key);
    if (prior?.node === node) return;
    this.forget(key);
    const p: Placed = { key, node, requested: podRequests(pod), nonZero: podRequests(pod, true), owner: controllerUid(pod), priority: podPriority(pod) };
    this.placed.set(key, p);
    let on = this.byNode.get(node);
    if (!on) this.byNode.set(node, (on = new Map()));
    on.set(key, p);
    let u = this.usage.get(node);
    if (!u) this.usage.set(node, (u = emptyUsage()));
    shift(u, p, 1);
  }
}
