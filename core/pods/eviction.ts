// Canonical layer: the pods/eviction subresource (kube's EvictionREST, pkg/registry/core/pod/storage/
// eviction.go). POST /api/v1/namespaces/<ns>/pods/<name>/eviction with a policy/v1 Eviction deletes the pod
// with the Eviction's deleteOptions — gracefully, as any DELETE — and answers 201 with a Success Status.
// A running pod that one PodDisruptionBudget selects is evicted only while the budget allows a disruption:
// the eviction takes one (disruptionsAllowed − 1, the pod recorded in disruptedPods) before the delete, or is
// refused with 429 and kube's message (checkAndDecrement); two budgets selecting the pod are a 500.

import { badRequest, forbidden, internalError, StatusError, type Status } from '../status';
import { matchesLabels, selectorFromLabelSelector, type LabelSelectorSpec } from '../selectors/label-selector';

interface Eviction { metadata?: { name?: string }; deleteOptions?: Record<string, unknown> | null }

/** The DeleteOptions body the eviction deletes with; throws the 400 of a malformed Eviction. */
export function evictionDeleteOptions(body: string, name: string): string {
  let e: Eviction;
  try {
    e = JSON.parse(body) as Eviction;
  } catch (err) {
    throw new StatusError(badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`));
  }
  if (typeof e !== 'object' || e === null || Array.isArray(e)) throw new StatusError(badRequest('Eviction must be an object'));
  if (e.metadata?.name !== undefined && e.metadata.name !== name) throw new StatusError(badRequest('name in URL does not match name in Eviction object'));
  return JSON.stringify(e.deleteOptions ?? {});
}

export const EVICTION_SUCCESS = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

interface PodView {
  metadata?: { name?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  status?: { phase?: string; conditions?: { type?: string; status?: string }[] };
}

export interface PdbView {
  metadata: { name?: string; generation?: number; resourceVersion?: string; [k: string]: unknown };
  spec?: { selector?: LabelSelectorSpec | null; unhealthyPodEvictionPolicy?: string };
  status?: {
    observedGeneration?: number; disruptedPods?: Record<string, string>; disruptionsAllowed?: number; currentHealthy?: number; desiredHealthy?: number;
    expectedPods?: number; conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string; observedGeneration?: number }[];
  };
  [k: string]: unknown;
}

export const MAX_DISRUPTED_POD_SIZE = 2000;
export const EVICTION_REFUSED_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget.";

/** canIgnorePDB: finished, pending and deleting pods are deleted without asking any budget. */
export function canIgnorePdb(pod: PodView): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata?.deletionTimestamp;
}

/** getPodDisruptionBudgets: the budgets selecting the pod; a nil or empty selector selects nothing here. */
export function budgetsFor(pod: PodView, pdbs: PdbView[]): PdbView[] {
  const labels = pod.metadata?.labels ?? {};
  return pdbs.filter((pdb) => {
    const spec = pdb.spec?.selector;
    if (!spec || (!(spec.matchLabels && Object.keys(spec.matchLabels).length) && !spec.matchExpressions?.length)) return false;
    try {
      return matchesLabels(selectorFromLabelSelector(spec), labels);
    } catch {
      return false;
    }
  });
}

const refused = (cause: string): Status => ({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: EVICTION_REFUSED_MESSAGE, reason: 'TooManyRequests',
  details: { causes: [{ reason: 'DisruptionBudget', message: cause }] }, code: 429,
});

export type EvictionVerdict =
  | { kind: 'delete' } // no budget stands in the way
  | { kind: 'decrement'; pdb: PdbView } // the budget with one disruption taken, to write before the delete
  | { kind: 'refuse'; status: Status };

/**
 * The eviction's verdict for `pod` against its namespace's budgets (EvictionREST.Create and checkAndDecrement,
 * kube 1.32); `now` stamps disruptedPods. Linear in the budgets.
 */
export function evictionVerdict(pod: PodView, pdbs: PdbView[], now: number, dryRun: boolean): EvictionVerdict {
  if (canIgnorePdb(pod)) return { kind: 'delete' };
  const matching = budgetsFor(pod, pdbs);
  if (matching.length === 0) return { kind: 'delete' };
  if (matching.length > 1) return { kind: 'refuse', status: internalError('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.') };
  const pdb = matching[0]!;
  const status = pdb.status ?? {};
  const ready = (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  if (!ready) {
    if (pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow') return { kind: 'delete' };
    if ((status.currentHealthy ?? 0) >= (status.desiredHealthy ?? 0) && (status.desiredHealthy ?? 0) > 0) return { kind: 'delete' };
  }
  const name = pdb.metadata.name ?? '';
  if ((status.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0)) return { kind: 'refuse', status: refused(`The disruption budget ${name} is still being processed by the server.`) };
  const allowed = status.disruptionsAllowed ?? 0;
  if (allowed < 0) return { kind: 'refuse', status: forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, name, 'pdb disruptions allowed is negative') };
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_POD_SIZE) {
    return { kind: 'refuse', status: forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller') };
  }
  if (allowed === 0) return { kind: 'refuse', status: refused(`The disruption budget ${name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`) };
  if (dryRun) return { kind: 'delete' };
  const next = structuredClone(pdb);
  const ns = next.status ?? (next.status = {});
  ns.disruptionsAllowed = allowed - 1;
  if (ns.disruptionsAllowed === 0) {
    // UpdateDisruptionAllowedCondition
    const conditions = ns.conditions ?? [];
    const prior = conditions.find((c) => c.type === 'DisruptionAllowed');
    const at = new Date(Math.floor(now / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    const c = { type: 'DisruptionAllowed', status: 'False', ...(pdb.metadata.generation !== undefined ? { observedGeneration: pdb.metadata.generation } : {}),
      lastTransitionTime: prior?.status === 'False' && prior.lastTransitionTime ? prior.lastTransitionTime : at, reason: 'InsufficientPods', message: '' };
    ns.conditions = [...conditions.filter((x) => x.type !== 'DisruptionAllowed'), c];
  }
  ns.disruptedPods = { ...(ns.disruptedPods ?? {}), [pod.metadata?.name ?? '']: new Date(Math.floor(now / 1000) * 1000).toISOString().replace('.000Z', 'Z') };
  return { kind: 'decrement', pdb: next };
}
