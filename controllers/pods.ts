// Controllers: what kube's controllers read from pods (pkg/api/v1/pod/util.go, controller_utils.go).

import type { KubeObject } from '../client/types';

interface Condition { type: string; status: string; lastTransitionTime?: string }
interface PodStatus { phase?: string; conditions?: Condition[]; containerStatuses?: { restartCount?: number }[] }

export const podStatus = (pod: KubeObject): PodStatus => (pod.status as PodStatus | undefined) ?? {};

/** IsPodActive: not terminal and not being deleted. */
export function isPodActive(pod: KubeObject): boolean {
  const phase = podStatus(pod).phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

export function readyCondition(pod: KubeObject): Condition | undefined {
  return podStatus(pod).conditions?.find((c) => c.type === 'Ready');
}

export const isPodReady = (pod: KubeObject): boolean => readyCondition(pod)?.status === 'True';

/** IsPodAvailable: Ready for at least minReadySeconds, measured from the Ready condition's transition. */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, now: number): boolean {
  const ready = readyCondition(pod);
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : NaN;
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= now;
}

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * ActivePodsWithRanks.Less (controller_utils.go), without the co-location rank: the pods to delete
 * first come first — unassigned, then Pending < Unknown < Running, not ready, lower deletion cost, ready
 * for less time, more restarts, newer.
 */
export function compareForDeletion(a: KubeObject, b: KubeObject): number {
  const spec = (p: KubeObject) => (p.spec as { nodeName?: string } | undefined) ?? {};
  const assigned = (p: KubeObject) => (spec(p).nodeName ? 1 : 0);
  if (assigned(a) !== assigned(b)) return assigned(a) - assigned(b);
  const phase = (p: KubeObject) => PHASE_RANK[podStatus(p).phase ?? 'Pending'] ?? 0;
  if (phase(a) !== phase(b)) return phase(a) - phase(b);
  const ready = (p: KubeObject) => (isPodReady(p) ? 1 : 0);
  if (ready(a) !== ready(b)) return ready(a) - ready(b);
  const cost = (p: KubeObject) => Number((p.metadata.annotations as Record<string, string> | undefined)?.['controller.kubernetes.io/pod-deletion-cost'] ?? 0) || 0;
  if (cost(a) !== cost(b)) return cost(a) - cost(b);
  if (ready(a) && ready(b)) {
    const since = (p: KubeObject) => Date.parse(readyCondition(p)?.lastTransitionTime ?? '') || 0;
    if (since(a) !== since(b)) return since(b) - since(a); // ready more recently goes first
  }
  const restarts = (p: KubeObject) => Math.max(0, ...(podStatus(p).containerStatuses ?? []).map((c) => c.restartCount ?? 0));
  if (restarts(a) !== restarts(b)) return restarts(b) - restarts(a);
  const created = (p: KubeObject) => Date.parse(String(p.metadata.creationTimestamp ?? '')) || 0;
  if (created(a) !== created(b)) return created(b) - created(a);
  return String(a.metadata.uid ?? '') < String(b.metadata.uid ?? '') ? -1 : 1;
}
