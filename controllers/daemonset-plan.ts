// Controllers: the pure part of the DaemonSet controller (kubernetes pkg/controller/daemon
// daemon_controller.go, update.go; pkg/controller/daemon/util): which nodes should run the daemon pod
// (nodeName, nodeSelector, required node affinity, taints against the template's tolerations plus the
// default DaemonSet tolerations), the pods to create and delete per node, RollingUpdate with
// maxUnavailable / maxSurge, and the status.

import type { KubeObject } from '../client/types';
import { CONTROLLER_REVISION_HASH } from './controller-history';
import { scaledValue } from './deployment-util';
import { newControllerRef } from './owner-refs';
import { isPodAvailable, isPodReady, podStatus } from './pods';

export const TEMPLATE_GENERATION = 'pod-template-generation'; // extensions.DaemonSetTemplateGenerationKey

interface Toleration { key?: string; operator?: 'Exists' | 'Equal'; value?: string; effect?: string; tolerationSeconds?: number }
interface Taint { key: string; value?: string; effect: string }
interface Requirement { key: string; operator: string; values?: string[] }
interface Term { matchExpressions?: Requirement[]; matchFields?: Requirement[] }
interface PodSpec {
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  hostNetwork?: boolean;
  tolerations?: Toleration[];
  affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: Term[] } } & Record<string, unknown> } & Record<string, unknown>;
}

export interface DsSpec {
  selector?: import('../core/selectors/label-selector').LabelSelectorSpec;
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: PodSpec & Record<string, unknown> };
  minReadySeconds?: number;
  updateStrategy?: { type?: 'RollingUpdate' | 'OnDelete'; rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string } };
}

export const dsSpec = (ds: KubeObject): DsSpec => (ds.spec as DsSpec | undefined) ?? {};

/** AddOrUpdateDaemonPodTolerations: what every daemon pod tolerates, so node problems do not evict it. */
export function withDefaultTolerations(spec: PodSpec): Toleration[] {
  const out = [...(spec.tolerations ?? [])];
  const add = (key: string, effect: string) => {
    if (!out.some((t) => t.key === key && t.effect === effect && (t.operator ?? 'Equal') === 'Exists')) out.push({ key, operator: 'Exists', effect });
  };
  add('node.kubernetes.io/not-ready', 'NoExecute');
  add('node.kubernetes.io/unreachable', 'NoExecute');
  add('node.kubernetes.io/disk-pressure', 'NoSchedule');
  add('node.kubernetes.io/memory-pressure', 'NoSchedule');
  add('node.kubernetes.io/pid-pressure', 'NoSchedule');
  add('node.kubernetes.io/unschedulable', 'NoSchedule');
  if (spec.hostNetwork) add('node.kubernetes.io/network-unavailable', 'NoSchedule');
  return out;
}

function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if ((t.operator ?? 'Equal') === 'Exists') return !t.key || t.key === taint.key;
  return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
}

function requirementMatches(r: Requirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In': return value !== undefined && values.includes(value);
    case 'NotIn': return value === undefined || !values.includes(value);
    case 'Exists': return value !== undefined;
    case 'DoesNotExist': return value === undefined;
    case 'Gt': return value !== undefined && /^-?\d+$/.test(value) && Number(value) > Number(values[0]);
    case 'Lt': return value !== undefined && /^-?\d+$/.test(value) && Number(value) < Number(values[0]);
    default: return false;
  }
}

/** Required node affinity: any term whose expressions (labels) and fields (metadata.name) all match. */
export function nodeMatchesAffinity(spec: PodSpec, node: KubeObject): boolean {
  const terms = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms) return true;
  const labels = (node.metadata.labels as Record<string, string> | undefined) ?? {};
  return terms.some((t) => (t.matchExpressions?.length || t.matchFields?.length)
    && (t.matchExpressions ?? []).every((r) => requirementMatches(r, labels[r.key]))
    && (t.matchFields ?? []).every((r) => requirementMatches(r, r.key === 'metadata.name' ? node.metadata.name : undefined)));
}

/** NodeShouldRunDaemonPod: may a new pod go there (shouldRun), may an existing one stay (shouldContinueRunning). */
export function nodeShouldRun(ds: KubeObject, node: KubeObject): { shouldRun: boolean; shouldContinueRunning: boolean } {
  const spec = dsSpec(ds).template?.spec ?? {};
  const no = { shouldRun: false, shouldContinueRunning: false };
  if (spec.nodeName && spec.nodeName !== node.metadata.name) return no;
  const labels = (node.metadata.labels as Record<string, string> | undefined) ?? {};
  if (!Object.entries(spec.nodeSelector ?? {}).every(([k, v]) => labels[k] === v)) return no;
  if (!nodeMatchesAffinity(spec, node)) return no;
  const tolerations = withDefaultTolerations(spec);
  const taints = ((node.spec as { taints?: Taint[] } | undefined)?.taints ?? []).filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
  const untolerated = taints.filter((taint) => !tolerations.some((t) => tolerates(t, taint)));
  return { shouldRun: untolerated.length === 0, shouldContinueRunning: !untolerated.some((t) => t.effect === 'NoExecute') };
}

/** GetTargetNodeName: the node a daemon pod is bound to, or targets through its matchFields affinity. */
export function targetNode(pod: KubeObject): string | undefined {
  const spec = (pod.spec as PodSpec | undefined) ?? {};
  if (spec.nodeName) return spec.nodeName;
  for (const t of spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    const f = (t.matchFields ?? []).find((r) => r.key === 'metadata.name' && r.operator === 'In' && r.values?.length === 1);
    if (f) return f.values![0];
  }
  return undefined;
}

export const hashOfPod = (pod: KubeObject): string => ((pod.metadata.labels as Record<string, string> | undefined) ?? {})[CONTROLLER_REVISION_HASH] ?? '';

/** The daemon pod for one node: the template, the default tolerations and a node affinity to just that node. */
export function podForNode(ds: KubeObject, node: string, hash: string): KubeObject {
  const t = dsSpec(ds).template ?? {};
  const spec = structuredClone(t.spec ?? {}) as PodSpec & Record<string, unknown>;
  spec.tolerations = withDefaultTolerations(spec);
  // ReplaceDaemonSetPodNodeNameNodeAffinity: every required term names this node by metadata.name.
  const field: Requirement = { key: 'metadata.name', operator: 'In', values: [node] };
  const affinity = spec.affinity ?? {};
  const nodeAffinity = affinity.nodeAffinity ?? {};
  const terms = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  const newTerms = terms.length ? terms.map((term) => ({ ...term, matchFields: [field] })) : [{ matchFields: [field] }];
  spec.affinity = { ...affinity, nodeAffinity: { ...nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: newTerms } } };
  const metadata: Record<string, unknown> = {
    generateName: `${ds.metadata.name}-`, namespace: ds.metadata.namespace,
    labels: { ...(t.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH]: hash, [TEMPLATE_GENERATION]: String(ds.metadata.generation ?? 1) },
    ownerReferences: [newControllerRef(ds)],
  };
  if (t.metadata?.annotations) metadata.annotations = { ...t.metadata.annotations };
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

const byAge = (a: KubeObject, b: KubeObject) => String(a.metadata.creationTimestamp ?? '').localeCompare(String(b.metadata.creationTimestamp ?? '')) || String(a.metadata.name).localeCompare(String(b.metadata.name));
const failed = (p: KubeObject) => podStatus(p).phase === 'Failed';

export interface DsPlan {
  create: string[]; // node names
  delete: KubeObject[];
}

export interface DsNodeView {
  node: KubeObject;
  shouldRun: boolean;
  shouldContinueRunning: boolean;
  pods: KubeObject[]; // the daemon pods targeting it, oldest first, not being deleted
}

/** Groups the DaemonSet's pods by node and evaluates every node. Pods on nodes that do not exist are returned as orphans. */
export function viewNodes(ds: KubeObject, nodes: KubeObject[], pods: KubeObject[]): { views: DsNodeView[]; orphans: KubeObject[] } {
  const byNode = new Map<string, KubeObject[]>();
  for (const p of pods) {
    if (p.metadata.deletionTimestamp) continue;
    const n = targetNode(p);
    if (!n) continue;
    let list = byNode.get(n);
    if (!list) byNode.set(n, (list = []));
    list.push(p);
  }
  const views = nodes.map((node) => {
    const list = (byNode.get(node.metadata.name!) ?? []).sort(byAge);
    byNode.delete(node.metadata.name!);
    return { node, ...nodeShouldRun(ds, node), pods: list };
  });
  return { views, orphans: [...byNode.values()].flat() };
}

/**
 * manage + rollingUpdate: a pod for every node that should run one and has none, failed pods replaced,
 * duplicates removed, pods off nodes they may not stay on; then old-revision pods replaced within
 * maxUnavailable (delete first) or maxSurge (new pod first, old deleted once the new one is available).
 */
export function planDaemonSet(ds: KubeObject, views: DsNodeView[], orphans: KubeObject[], hash: string, now: number): DsPlan {
  const spec = dsSpec(ds);
  const minReady = spec.minReadySeconds ?? 0;
  const rolling = (spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
  const desired = views.filter((v) => v.shouldRun).length;
  const maxSurge = rolling ? scaledValue(spec.updateStrategy?.rollingUpdate?.maxSurge ?? 0, desired, true) : 0;
  const maxUnavailable = rolling ? scaledValue(spec.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1, desired, true) : 0;
  const plan: DsPlan = { create: [], delete: [...orphans] };
  const available = (p: KubeObject) => isPodAvailable(p, minReady, now);
  let unavailable = 0;
  const oldOnly: DsNodeView[] = [];
  const surged: DsNodeView[] = [];
  for (const v of views) {
    const live = v.pods.filter((p) => !failed(p));
    plan.delete.push(...v.pods.filter(failed));
    if (!v.shouldContinueRunning || (!v.shouldRun && !live.length)) {
      plan.delete.push(...live);
      continue;
    }
    if (!v.shouldRun) continue; // may stay where it is, but no new pod
    if (!live.length) {
      plan.create.push(v.node.metadata.name!);
      unavailable++;
      continue;
    }
    const fresh = live.filter((p) => hashOfPod(p) === hash);
    const old = live.filter((p) => hashOfPod(p) !== hash);
    // One pod per node: the oldest of each revision stays (with surge, one new next to one old).
    if (fresh.length > 1) plan.delete.push(...fresh.slice(1));
    if (old.length > 1) plan.delete.push(...old.slice(1));
    if (fresh.length && old.length) {
      if (maxSurge > 0 && !available(fresh[0])) surged.push(v);
      else plan.delete.push(old[0]);
      if (!available(fresh[0]) && !(old[0] && available(old[0]))) unavailable++;
      continue;
    }
    const pod = fresh[0] ?? old[0];
    if (!available(pod)) unavailable++;
    if (!fresh.length && rolling) oldOnly.push(v);
  }
  if (!rolling) return plan;
  if (maxSurge > 0) {
    // New pods next to old ones, at most maxSurge nodes surging at once.
    let budget = maxSurge - surged.length;
    for (const v of oldOnly) {
      if (budget <= 0) break;
      if (!available(v.pods[0])) { plan.delete.push(v.pods[0]); continue; }
      plan.create.push(v.node.metadata.name!);
      budget--;
    }
    return plan;
  }
  // Old unavailable pods go at once; available ones only within maxUnavailable.
  let budget = maxUnavailable - unavailable;
  for (const v of oldOnly) {
    const pod = v.pods.find((p) => !failed(p))!;
    if (!available(pod)) plan.delete.push(pod);
    else if (budget > 0) {
      plan.delete.push(pod);
      budget--;
    }
  }
  return plan;
}

export interface DsStatus {
  currentNumberScheduled: number;
  numberMisscheduled: number;
  desiredNumberScheduled: number;
  numberReady: number;
  observedGeneration?: number;
  updatedNumberScheduled?: number;
  numberAvailable?: number;
  numberUnavailable?: number;
  collisionCount?: number;
}

/** updateDaemonSetStatus's counts, in the Go struct's field order (omitempty fields left out at 0). */
export function dsStatusOf(ds: KubeObject, views: DsNodeView[], hash: string, now: number): DsStatus {
  const minReady = dsSpec(ds).minReadySeconds ?? 0;
  let desired = 0, current = 0, mis = 0, ready = 0, available = 0, updated = 0;
  for (const v of views) {
    const live = v.pods.filter((p) => !failed(p));
    if (v.shouldRun) {
      desired++;
      if (live.length) {
        current++;
        const pod = live[0];
        if (isPodReady(pod)) {
          ready++;
          if (isPodAvailable(pod, minReady, now)) available++;
        }
        if (live.some((p) => hashOfPod(p) === hash)) updated++;
      }
    } else if (live.length) mis++;
  }
  const status: DsStatus = { currentNumberScheduled: current, numberMisscheduled: mis, desiredNumberScheduled: desired, numberReady: ready };
  if (ds.metadata.generation !== undefined) status.observedGeneration = ds.metadata.generation as number;
  if (updated) status.updatedNumberScheduled = updated;
  if (available) status.numberAvailable = available;
  if (desired - available > 0) status.numberUnavailable = desired - available;
  const prior = (ds.status as DsStatus | undefined)?.collisionCount;
  if (prior) status.collisionCount = prior;
  return status;
}
