// Controllers: the Deployment controller's pure rules (kubernetes pkg/controller/deployment/util/
// deployment_util.go): surge/unavailability fenceposts, the new ReplicaSet's size, proportional scaling,
// template hashes and equality, revisions, status and conditions.

import type { KubeObject } from '../client/types';
import type { LabelSelectorSpec } from '../core/selectors/label-selector';
import { fnv1a32 } from '../core/hash';

export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
export const POD_TEMPLATE_HASH = 'pod-template-hash';
// Deployment annotations not copied to its ReplicaSets (annotationsToSkip).
const SKIPPED_ANNOTATIONS = new Set([
  'kubectl.kubernetes.io/last-applied-configuration', REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS,
  'deprecated.deployment.rollback.to',
]);

export type IntOrString = number | string;

export interface DeploymentSpec {
  replicas?: number;
  selector?: LabelSelectorSpec;
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: unknown };
  strategy?: { type?: string; rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString } };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
}

export interface Condition {
  type: string;
  status: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  conditions?: Condition[];
  collisionCount?: number;
}

interface RsView { spec?: { replicas?: number; template?: unknown; minReadySeconds?: number }; status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number } }

export const dSpec = (d: KubeObject): DeploymentSpec => (d.spec as DeploymentSpec | undefined) ?? {};
export const dStatus = (d: KubeObject): DeploymentStatus => (d.status as DeploymentStatus | undefined) ?? {};
export const specReplicas = (rs: KubeObject | undefined): number => (rs ? ((rs as RsView).spec?.replicas ?? 0) : 0);
export const statusReplicas = (rs: KubeObject | undefined): number => (rs ? ((rs as RsView).status?.replicas ?? 0) : 0);
export const readyReplicas = (rs: KubeObject | undefined): number => (rs ? ((rs as RsView).status?.readyReplicas ?? 0) : 0);
export const availableReplicas = (rs: KubeObject | undefined): number => (rs ? ((rs as RsView).status?.availableReplicas ?? 0) : 0);
export const sum = (rss: (KubeObject | undefined)[], f: (rs: KubeObject | undefined) => number): number => rss.reduce((n, rs) => n + f(rs), 0);

/** intstr.GetScaledValueFromIntOrPercent: a percentage of `total`, rounded up or down. */
export function scaledValue(v: IntOrString | undefined, total: number, roundUp: boolean): number {
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) {
    const n = Number(v);
    if (Number.isInteger(n)) return n;
    throw new Error(`invalid value for IntOrString: invalid value "${v}"`);
  }
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/** ResolveFenceposts: surge rounds up, unavailability down; both zero makes unavailability 1. */
export function resolveFenceposts(maxSurge: IntOrString | undefined, maxUnavailable: IntOrString | undefined, desired: number): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge ?? 0, desired, true);
  let unavailable = scaledValue(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export const isRollingUpdate = (d: KubeObject): boolean => (dSpec(d).strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
export const replicasOf = (d: KubeObject): number => dSpec(d).replicas ?? 1;

export function maxUnavailable(d: KubeObject): number {
  const replicas = replicasOf(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  const ru = dSpec(d).strategy?.rollingUpdate;
  const { unavailable } = resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicas);
  return Math.min(unavailable, replicas);
}

export function maxSurge(d: KubeObject): number {
  if (!isRollingUpdate(d)) return 0;
  const ru = dSpec(d).strategy?.rollingUpdate;
  return resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicasOf(d)).surge;
}

/** NewRSNewReplicas: how big the new ReplicaSet may be now. */
export function newRSNewReplicas(d: KubeObject, allRSs: KubeObject[], newRS: KubeObject): number {
  if (!isRollingUpdate(d)) return replicasOf(d);
  const current = sum(allRSs, specReplicas);
  const maxTotal = replicasOf(d) + maxSurge(d);
  if (current >= maxTotal) return specReplicas(newRS);
  const scaleUp = Math.min(maxTotal - current, replicasOf(d) - specReplicas(newRS));
  return specReplicas(newRS) + scaleUp;
}

// --- template hash and equality -------------------------------------------------------------------

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, val) => (val && typeof val === 'object' && !Array.isArray(val)
    ? Object.fromEntries(Object.keys(val).sort().map((k) => [k, (val as Record<string, unknown>)[k]]))
    : val));
}

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * ComputeHash: FNV-32a of the template and collision count, as decimal text, each digit mapped into
 * rand.SafeEncodeString's alphabet. kube hashes a Go %v dump; any stable hash of the canonical template
 * serves, as only stability and uniqueness matter.
 */
export function computeHash(template: unknown, collisionCount?: number): string {
  const h = fnv1a32(canonical(template) + (collisionCount !== undefined ? `#${collisionCount}` : ''));
  return [...String(h)].map((c) => SAFE_ALPHABET[c.charCodeAt(0) % SAFE_ALPHABET.length]).join('');
}

function withoutHash(template: unknown): unknown {
  const t = structuredClone((template ?? {}) as { metadata?: { labels?: Record<string, string> } });
  if (t.metadata?.labels) {
    delete t.metadata.labels[POD_TEMPLATE_HASH];
    if (Object.keys(t.metadata.labels).length === 0) delete t.metadata.labels;
  }
  return t;
}

/** EqualIgnoreHash: templates equal apart from the pod-template-hash label. */
export function equalIgnoreHash(a: unknown, b: unknown): boolean {
  return canonical(withoutHash(a)) === canonical(withoutHash(b));
}

const created = (o: KubeObject) => Date.parse(String(o.metadata.creationTimestamp ?? '')) || 0;

/** ReplicaSetsByCreationTimestamp: oldest first, then by name. */
export function byCreation(a: KubeObject, b: KubeObject): number {
  return created(a) - created(b) || (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0);
}

/** FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's. */
export function findNewReplicaSet(d: KubeObject, rss: KubeObject[]): KubeObject | undefined {
  return [...rss].sort(byCreation).find((rs) => equalIgnoreHash((rs.spec as RsView['spec'])?.template, dSpec(d).template));
}

export function revisionOf(o: KubeObject | undefined): number {
  const v = Number((o?.metadata.annotations as Record<string, string> | undefined)?.[REVISION] ?? '');
  return Number.isInteger(v) && v > 0 ? v : 0;
}

export const maxRevision = (rss: KubeObject[]): number => rss.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);

/** The annotations a ReplicaSet copies from its Deployment, plus revision and replica annotations. */
export function newReplicaSetAnnotations(d: KubeObject, revision: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((d.metadata.annotations as Record<string, string> | undefined) ?? {})) {
    if (!SKIPPED_ANNOTATIONS.has(k)) out[k] = v;
  }
  out[REVISION] = String(revision);
  out[DESIRED_REPLICAS] = String(replicasOf(d));
  out[MAX_REPLICAS] = String(replicasOf(d) + maxSurge(d));
  return out;
}

/**
 * SetNewReplicaSetAnnotations for an existing new ReplicaSet: bumps its revision when older ones are
 * newer (a rollback), recording the old number in revision-history. Returns the annotations if changed.
 */
export function updatedRevisionAnnotations(rs: KubeObject, newRevision: number): Record<string, string> | undefined {
  const ann = { ...((rs.metadata.annotations as Record<string, string> | undefined) ?? {}) };
  const old = revisionOf(rs);
  if (old >= newRevision) return undefined;
  ann[REVISION] = String(newRevision);
  if (old > 0) ann[REVISION_HISTORY] = ann[REVISION_HISTORY] ? `${ann[REVISION_HISTORY]},${old}` : String(old);
  return ann;
}

/** SetReplicasAnnotations: desired and max replicas; undefined when already so. */
export function replicasAnnotations(rs: KubeObject, desired: number, max: number): Record<string, string> | undefined {
  const ann = { ...((rs.metadata.annotations as Record<string, string> | undefined) ?? {}) };
  if (ann[DESIRED_REPLICAS] === String(desired) && ann[MAX_REPLICAS] === String(max)) return undefined;
  ann[DESIRED_REPLICAS] = String(desired);
  ann[MAX_REPLICAS] = String(max);
  return ann;
}

// --- scaling --------------------------------------------------------------------------------------

/** FindActiveOrLatest: the only active ReplicaSet, or the newest when none is active; undefined otherwise. */
export function findActiveOrLatest(newRS: KubeObject | undefined, oldRSs: KubeObject[]): KubeObject | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const all = [...oldRSs, ...(newRS ? [newRS] : [])];
  const active = all.filter((rs) => specReplicas(rs) > 0);
  if (active.length === 0) return newRS ?? [...oldRSs].sort(byCreation).at(-1);
  return active.length === 1 ? active[0] : undefined;
}

export function isSaturated(d: KubeObject, rs: KubeObject | undefined): boolean {
  if (!rs) return false;
  const desired = Number((rs.metadata.annotations as Record<string, string> | undefined)?.[DESIRED_REPLICAS]);
  return specReplicas(rs) === replicasOf(d) && desired === replicasOf(d) && availableReplicas(rs) === replicasOf(d);
}

/** getReplicaSetFraction: this ReplicaSet's share of a resize, from its max-replicas annotation. */
export function replicaSetFraction(rs: KubeObject, d: KubeObject): number {
  if (replicasOf(d) === 0) return -specReplicas(rs);
  const deploymentReplicas = replicasOf(d) + maxSurge(d);
  const annotated = Number((rs.metadata.annotations as Record<string, string> | undefined)?.[MAX_REPLICAS]);
  const base = Number.isInteger(annotated) && annotated > 0 ? annotated : (dStatus(d).replicas ?? 0);
  if (base === 0) return 0;
  const newSize = (specReplicas(rs) * deploymentReplicas) / base;
  return Math.round(newSize) - specReplicas(rs);
}

/**
 * The sizes `scale` (sync.go) gives active ReplicaSets when a Deployment is resized mid-rollout:
 * proportional to each one's max-replicas annotation, leftovers to the largest. Returns name → size.
 */
export function proportionalSizes(d: KubeObject, activeRSs: KubeObject[]): Map<string, number> {
  const allowed = replicasOf(d) > 0 ? replicasOf(d) + maxSurge(d) : 0;
  const toAdd = allowed - sum(activeRSs, specReplicas);
  const sizes = new Map<string, number>();
  if (toAdd === 0) return sizes;
  // Largest first when growing, smallest first when shrinking (ReplicaSetsBySizeNewer / SizeOlder).
  const sorted = [...activeRSs].sort((a, b) => {
    const bySize = toAdd > 0 ? specReplicas(b) - specReplicas(a) : specReplicas(a) - specReplicas(b);
    return bySize || (toAdd > 0 ? byCreation(b, a) : byCreation(a, b));
  });
  let added = 0;
  for (const rs of sorted) {
    let proportion = 0;
    if (specReplicas(rs) !== 0 && added !== toAdd) {
      const fraction = replicaSetFraction(rs, d);
      const remaining = toAdd - added;
      proportion = toAdd > 0 ? Math.min(fraction, remaining) : Math.max(fraction, remaining);
    }
    sizes.set(rs.metadata.name!, specReplicas(rs) + proportion);
    added += proportion;
  }
  if (sorted.length > 0 && added !== toAdd) {
    const first = sorted[0].metadata.name!;
    sizes.set(first, Math.max(0, sizes.get(first)! + toAdd - added));
  }
  return sizes;
}

// --- status ---------------------------------------------------------------------------------------

export const AVAILABLE = 'Available';
export const PROGRESSING = 'Progressing';
export const REPLICA_FAILURE = 'ReplicaFailure';

export function getCondition(status: DeploymentStatus, type: string): Condition | undefined {
  return status.conditions?.find((c) => c.type === type);
}

/** SetDeploymentCondition: no change when status and reason are the same; the transition time survives a same-status update. */
export function setCondition(status: DeploymentStatus, cond: Condition): void {
  const current = getCondition(status, cond.type);
  if (current && current.status === cond.status && current.reason === cond.reason) return;
  if (current && current.status === cond.status) cond.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== cond.type), cond];
}

export function removeCondition(status: DeploymentStatus, type: string): void {
  if (!status.conditions) return;
  status.conditions = status.conditions.filter((c) => c.type !== type);
  if (status.conditions.length === 0) delete status.conditions;
}

export function newCondition(type: string, status: string, reason: string, message: string, now: string): Condition {
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

/** calculateStatus (sync.go): counts over the ReplicaSets and the Available condition. */
export function calculateStatus(d: KubeObject, allRSs: KubeObject[], newRS: KubeObject | undefined, now: string): DeploymentStatus {
  const available = sum(allRSs, availableReplicas);
  const status: DeploymentStatus = {};
  if (d.metadata.generation) status.observedGeneration = d.metadata.generation as number;
  const replicas = sum(allRSs, statusReplicas);
  if (replicas) status.replicas = replicas;
  if (statusReplicas(newRS)) status.updatedReplicas = statusReplicas(newRS);
  const ready = sum(allRSs, readyReplicas);
  if (ready) status.readyReplicas = ready;
  if (available) status.availableReplicas = available;
  const unavailable = Math.max(0, sum(allRSs, specReplicas) - available);
  if (unavailable) status.unavailableReplicas = unavailable;
  const prior = dStatus(d);
  if (prior.collisionCount !== undefined) status.collisionCount = prior.collisionCount;
  if (prior.conditions) status.conditions = structuredClone(prior.conditions);
  if (available >= replicasOf(d) - maxUnavailable(d)) {
    setCondition(status, newCondition(AVAILABLE, 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', now));
  } else {
    setCondition(status, newCondition(AVAILABLE, 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.', now));
  }
  return status;
}

/** DeploymentComplete: every replica updated and available, and the newest spec observed. */
export function deploymentComplete(d: KubeObject, s: DeploymentStatus): boolean {
  const r = replicasOf(d);
  return (s.updatedReplicas ?? 0) === r && (s.replicas ?? 0) === r && (s.availableReplicas ?? 0) === r
    && (s.observedGeneration ?? 0) >= ((d.metadata.generation as number | undefined) ?? 0);
}

/** DeploymentProgressing: more updated, ready or available replicas, or fewer old ones. */
export function deploymentProgressing(d: KubeObject, s: DeploymentStatus): boolean {
  const old = dStatus(d);
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) || (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0)
    || (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0) || oldOld > newOld;
}

/** DeploymentTimedOut: no progress for progressDeadlineSeconds since the Progressing condition's last update. */
export function deploymentTimedOut(d: KubeObject, s: DeploymentStatus, now: number): boolean {
  const deadline = dSpec(d).progressDeadlineSeconds;
  if (deadline === undefined) return false;
  const cond = getCondition(s, PROGRESSING);
  if (!cond) return false;
  if (cond.reason === 'NewReplicaSetAvailable') return false;
  if (cond.reason === 'ProgressDeadlineExceeded') return true;
  return (Date.parse(cond.lastUpdateTime ?? '') || now) + deadline * 1000 < now;
}
