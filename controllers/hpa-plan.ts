// Controllers: the pure part of the HorizontalPodAutoscaler controller (kubernetes pkg/controller/podautoscaler/
// horizontal.go, 1.32): from an HPA, its target's scale, the pods its selector picks and their metrics
// (metrics.k8s.io PodMetrics), the desired replica count, in kube's order — the target at zero disables
// scaling, outside min/max is brought back, else each metric proposes a count (the largest wins; invalid ones
// are skipped unless all are, or the rest would scale down), then the recommendation is stabilized and limited
// (without behavior: a 5-minute scale-down window and at most max(2×current, 4) up; with behavior: its windows,
// policies and selectPolicy over the recent scale events) — plus the status, conditions and events kube writes.
// The per-HPA memory (recommendations, scale events) is the caller's; everything here is linear in the pods,
// metrics and that memory (bounded by the longest window or policy period over the 15 s resync).

import { milliValue } from '../core/quantity';
import { MetricError, rawResourceReplicas, resourceReplicas, type PodMetrics } from './hpa-replicas';

type Obj = Record<string, any>;

export const RESYNC_MS = 15_000; // --horizontal-pod-autoscaler-sync-period
export const DOWNSCALE_STABILIZATION_S = 300; // --horizontal-pod-autoscaler-downscale-stabilization
const SCALE_UP_LIMIT_FACTOR = 2.0;
const SCALE_UP_LIMIT_MINIMUM = 4.0;
// Behavior windows and periods are validated to at most an hour; a stored object bypassing validation is capped.
const MAX_WINDOW_S = 3600;

export interface Scale {
  replicas: number; // spec.replicas
  statusReplicas: number;
  selector: string; // status.selector
}

export interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface HpaEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** The controller's memory of one HPA between syncs (kube's recommendations and scaleUp/DownEvents maps). */
export interface HpaMemory {
  recommendations: { replicas: number; at: number }[];
  scaleUpEvents: { change: number; at: number; outdated: boolean }[];
  scaleDownEvents: { change: number; at: number; outdated: boolean }[];
}

export const newMemory = (): HpaMemory => ({ recommendations: [], scaleUpEvents: [], scaleDownEvents: [] });

const kubeTime = (t: number) => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** setConditionInList: replaced in place (its position kept), its transition time moved only when the status changes. */
export function setCondition(conditions: Condition[], type: string, status: string, reason: string, message: string, now: number): void {
  let c = conditions.find((x) => x.type === type);
  if (!c) {
    c = { type, status: '' };
    conditions.push(c);
  }
  if (c.status !== status) c.lastTransitionTime = kubeTime(now);
  c.status = status;
  c.reason = reason;
  c.message = message;
}

/** A milli-value as resource.NewMilliQuantity(v, DecimalSI).String(): "250m", "64M", "33554432". */
export function milliQuantity(milli: number): string {
  if (milli === 0) return '0';
  const suffix: Record<number, string> = { [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
  let m = Math.trunc(milli);
  let exp = -3;
  while (m % 1000 === 0 && exp < 18) {
    m /= 1000;
    exp += 3;
  }
  return `${m}${suffix[exp]}`;
}

// ---- metrics (pkg/controller/podautoscaler/metrics/client.go getPodMetrics / getContainerMetrics) ----

/** PodMetrics items as the calculator's per-pod values (milli-units): the pod's sum, or one container's. */
export function podMetricValues(items: Obj[], resource: string, container: string, namespace: string): PodMetrics {
  const out: PodMetrics = new Map();
  for (const m of items) {
    const containers: Obj[] = Array.isArray(m?.containers) ? m.containers : [];
    const base = { timestamp: Date.parse(m?.timestamp) || 0, windowMs: parseDurationMs(m?.window) };
    if (container) {
      const c = containers.find((x) => x?.name === container);
      if (!c) throw new MetricError(`container ${container} not present in metrics for pod ${namespace}/${m?.metadata?.name}`);
      if (c.usage?.[resource] === undefined) continue;
      out.set(String(m.metadata.name), { ...base, value: milliValue(c.usage[resource]) });
      continue;
    }
    let sum = 0;
    let missing = containers.length === 0;
    for (const c of containers) {
      if (c?.usage?.[resource] === undefined) {
        missing = true;
        break;
      }
      sum += milliValue(c.usage[resource]);
    }
    if (!missing) out.set(String(m.metadata.name), { ...base, value: sum });
  }
  return out;
}

/** A Go duration as metrics-server writes windows ("15s", "1m0s", "10.5s"); 0 for anything else. */
function parseDurationMs(text: unknown): number {
  if (typeof text !== 'string' || text.length > 32) return 0;
  let total = 0;
  const re = /(\d+(?:\.\d+)?)(h|ms|m|s)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) total += Number(m[1]) * ({ h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as Record<string, number>)[m[2]!]!;
  return total;
}

// ---- one sync ----

/** What a sync found: the metrics the HPA's pods have, or why there are none (a failed metrics API list). */
export interface SyncInputs {
  hpa: Obj;
  scale: Scale;
  pods: Obj[]; // the pods in the HPA's namespace its target's selector picks
  podMetrics: Obj[] | { error: string }; // PodMetrics items for that selector
  /** validateAndParseSelector's refusal of a selector that does not parse or whose pods another HPA also
   * controls: its event and condition reason (InvalidSelector, AmbiguousSelector) and message. */
  selectorError?: { reason: string; message: string };
  now: number;
  memory: HpaMemory;
}

export interface SyncPlan {
  currentReplicas: number;
  desiredReplicas: number;
  rescale: boolean;
  rescaleReason: string;
  /** status as it stands before the scale write (conditions set so far, current metrics). */
  status: Obj;
  events: HpaEvent[];
  /** A failure that ended the sync early (kube returns it and requeues). */
  error?: string;
}

interface MetricProposal {
  replicas: number;
  name: string;
  timestamp: number;
  status: Obj;
}

interface MetricFailure {
  condition: { reason: string; message: string };
  error: string;
}

export function hpaSpec(hpa: Obj): { minReplicas: number; maxReplicas: number; metrics: Obj[]; behavior: Obj | undefined } {
  const s = hpa?.spec ?? {};
  return {
    minReplicas: Number.isInteger(s.minReplicas) ? s.minReplicas : 1,
    maxReplicas: Number.isInteger(s.maxReplicas) ? s.maxReplicas : 1,
    metrics: Array.isArray(s.metrics) ? s.metrics : [],
    behavior: typeof s.behavior === 'object' && s.behavior !== null ? s.behavior : undefined,
  };
}

/** The selector text's label requirements as a predicate; undefined when it does not parse. */
export type SelectorParser = (text: string) => ((labels: Record<string, string>) => boolean) | { error: string };

/**
 * reconcileAutoscaler after the scale is read: the desired count, the rescale reason, the status and events.
 * The caller writes the scale when `rescale`, then finishes with rescaled() or rescaleFailed().
 */
export function planSync(inp: SyncInputs): SyncPlan {
  const { hpa, scale, now, memory } = inp;
  const spec = hpaSpec(hpa);
  const status: Obj = structuredClone(hpa.status ?? {});
  const conditions: Condition[] = Array.isArray(status.conditions) ? status.conditions : [];
  status.conditions = conditions;
  const events: HpaEvent[] = [];
  setCondition(conditions, 'AbleToScale', 'True', 'SucceededGetScale', 'the HPA controller was able to get the target\'s current scale', now);
  const currentReplicas = scale.replicas;
  if (memory.recommendations.length === 0) memory.recommendations.push({ replicas: currentReplicas, at: now });
  let desiredReplicas = 0;
  let rescaleReason = '';
  let rescale = true;
  let metricStatuses: Obj[] | undefined;
  const finish = (extra: Partial<SyncPlan> = {}): SyncPlan => ({ currentReplicas, desiredReplicas, rescale, rescaleReason, status, events, ...extra });
  if (currentReplicas === 0 && spec.minReplicas !== 0) {
    desiredReplicas = 0;
    rescale = false;
    setCondition(conditions, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero', now);
  } else if (currentReplicas > spec.maxReplicas) {
    rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
    desiredReplicas = spec.maxReplicas;
  } else if (currentReplicas < spec.minReplicas) {
    rescaleReason = 'Current number of replicas below Spec.MinReplicas';
    desiredReplicas = spec.minReplicas;
  } else {
    const computed = computeReplicasForMetrics(inp, spec.metrics, conditions, events);
    metricStatuses = computed.statuses;
    if (computed.replicas === -1) {
      setStatus(status, currentReplicas, status.desiredReplicas ?? 0, metricStatuses, false, now);
      events.push({ type: 'Warning', reason: 'FailedComputeMetricsReplicas', message: computed.error! });
      return finish({ rescale: false, desiredReplicas: status.desiredReplicas ?? 0, error: `failed to compute desired number of replicas based on listed metrics: ${computed.error}` });
    }
    let rescaleMetric = '';
    if (computed.replicas > desiredReplicas) {
      desiredReplicas = computed.replicas;
      rescaleMetric = computed.name;
    }
    if (desiredReplicas > currentReplicas) rescaleReason = `${rescaleMetric} above target`;
    if (desiredReplicas < currentReplicas) rescaleReason = 'All metrics below target';
    desiredReplicas = spec.behavior
      ? normalizeWithBehaviors(spec, spec.behavior, memory, currentReplicas, desiredReplicas, conditions, now)
      : normalize(spec, memory, currentReplicas, desiredReplicas, conditions, now);
    rescale = desiredReplicas !== currentReplicas;
  }
  if (!rescale) desiredReplicas = currentReplicas;
  setStatus(status, currentReplicas, desiredReplicas, metricStatuses, false, now);
  return finish();
}

/** After a successful scale write: kube's condition, event, scale-event record and lastScaleTime. */
export function rescaled(plan: SyncPlan, hpa: Obj, memory: HpaMemory, now: number): void {
  const conditions = plan.status.conditions as Condition[];
  setCondition(conditions, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${plan.desiredReplicas}`, now);
  plan.events.push({ type: 'Normal', reason: 'SuccessfulRescale', message: `New size: ${plan.desiredReplicas}; reason: ${plan.rescaleReason}` });
  const behavior = hpaSpec(hpa).behavior;
  if (behavior) storeScaleEvent(behavior, memory, plan.currentReplicas, plan.desiredReplicas, now);
  plan.status.lastScaleTime = kubeTime(now);
}

/** After a failed scale write: the desired count stays what the status said. */
export function rescaleFailed(plan: SyncPlan, error: string, now: number): void {
  plan.events.push({ type: 'Warning', reason: 'FailedRescale', message: `New size: ${plan.desiredReplicas}; reason: ${plan.rescaleReason}; error: ${error}` });
  setCondition(plan.status.conditions, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${error}`, now);
  plan.status.desiredReplicas = plan.status.previousDesired;
}

/** The status when the scale cannot be read (FailedGetScale), everything else kept. */
export function failedGetScale(hpa: Obj, error: string, now: number): { status: Obj; event: HpaEvent } {
  const status: Obj = structuredClone(hpa.status ?? {});
  status.conditions = Array.isArray(status.conditions) ? status.conditions : [];
  setCondition(status.conditions, 'AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${error}`, now);
  return { status: orderStatus(status), event: { type: 'Warning', reason: 'FailedGetScale', message: error } };
}

/** setStatus: currentReplicas, desiredReplicas, currentMetrics replaced; lastScaleTime and conditions kept. */
function setStatus(status: Obj, current: number, desired: number, metrics: Obj[] | undefined, _rescale: boolean, _now: number): void {
  status.previousDesired = status.desiredReplicas ?? 0;
  status.currentReplicas = current;
  status.desiredReplicas = desired;
  if (metrics && metrics.length) status.currentMetrics = metrics;
  else delete status.currentMetrics;
}

/** The status in the API's field order, internal fields dropped (the JSON kube writes). */
export function orderStatus(status: Obj): Obj {
  const out: Obj = {};
  if (status.observedGeneration !== undefined) out.observedGeneration = status.observedGeneration;
  if (status.lastScaleTime) out.lastScaleTime = status.lastScaleTime;
  out.currentReplicas = status.currentReplicas ?? 0;
  out.desiredReplicas = status.desiredReplicas ?? 0;
  if (Array.isArray(status.currentMetrics) && status.currentMetrics.length) out.currentMetrics = status.currentMetrics;
  if (Array.isArray(status.conditions) && status.conditions.length) {
    out.conditions = status.conditions.map((c: Condition) => {
      const o: Obj = { type: c.type, status: c.status };
      if (c.lastTransitionTime) o.lastTransitionTime = c.lastTransitionTime;
      if (c.reason) o.reason = c.reason;
      if (c.message) o.message = c.message;
      return o;
    });
  }
  return out;
}

// ---- computeReplicasForMetrics ----

function computeReplicasForMetrics(inp: SyncInputs, metrics: Obj[], conditions: Condition[], events: HpaEvent[]): {
  replicas: number; name: string; timestamp: number; statuses: Obj[]; error?: string;
} {
  const { scale, now } = inp;
  if (!scale.selector) {
    events.push({ type: 'Warning', reason: 'SelectorRequired', message: 'selector is required' });
    setCondition(conditions, 'ScalingActive', 'False', 'InvalidSelector', 'the HPA target\'s scale is missing a selector', now);
    return { replicas: -1, name: '', timestamp: 0, statuses: [], error: 'selector is required' };
  }
  if (inp.selectorError) {
    const { reason, message } = inp.selectorError;
    events.push({ type: 'Warning', reason, message });
    setCondition(conditions, 'ScalingActive', 'False', reason, message, now);
    return { replicas: -1, name: '', timestamp: 0, statuses: [], error: message };
  }
  const statuses: Obj[] = metrics.map(() => ({ type: '' }));
  let replicas = 0, name = '', timestamp = 0, invalid = 0;
  let firstFailure: MetricFailure | undefined;
  metrics.forEach((spec, i) => {
    const r = computeReplicasForMetric(inp, spec);
    if ('error' in r) {
      if (!firstFailure) firstFailure = r;
      events.push({ type: 'Warning', reason: r.condition.reason, message: r.eventMessage });
      invalid++;
      return;
    }
    statuses[i] = r.status;
    if (replicas === 0 || r.replicas > replicas) {
      replicas = r.replicas;
      name = r.name;
      timestamp = r.timestamp;
    }
  });
  const error = firstFailure ? `invalid metrics (${invalid} invalid out of ${metrics.length}), first error is: ${firstFailure.error}` : undefined;
  if (invalid >= metrics.length || (invalid > 0 && replicas < scale.replicas)) {
    if (firstFailure) setCondition(conditions, 'ScalingActive', 'False', firstFailure.condition.reason, firstFailure.condition.message, now);
    return { replicas: -1, name: '', timestamp: 0, statuses, error: error ?? 'no metrics' };
  }
  setCondition(conditions, 'ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${name}`, now);
  return { replicas, name, timestamp, statuses, error };
}

const unableToCompute = (reason: string, error: string, wrapped: string): MetricFailure & { eventMessage: string } => ({
  condition: { reason, message: `the HPA was unable to compute the replica count: ${error}` }, error: wrapped, eventMessage: error,
});

function computeReplicasForMetric(inp: SyncInputs, spec: Obj): MetricProposal | (MetricFailure & { eventMessage: string }) {
  const type = spec?.type;
  if (type === 'Resource' || type === 'ContainerResource') {
    const container = type === 'ContainerResource';
    const src = container ? spec.containerResource : spec.resource;
    const reason = container ? 'FailedGetContainerResourceMetric' : 'FailedGetResourceMetric';
    const r = resourceMetric(inp, String(src?.name ?? ''), container ? String(src?.container ?? '') : '', src?.target ?? {}, type);
    if ('error' in r) {
      const wrapped = container ? `failed to get ${src?.container} container metric value: ${r.error}` : `failed to get ${src?.name} resource metric value: ${r.error}`;
      return unableToCompute(reason, r.error, wrapped);
    }
    return r;
  }
  // Pods, Object and External metrics come from the custom and external metrics APIs, which nothing serves here.
  const reasons: Record<string, [string, string]> = {
    Pods: ['FailedGetPodsMetric', `unable to get metric ${spec?.pods?.metric?.name}: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered`],
    Object: ['FailedGetObjectMetric', `unable to get metric ${spec?.object?.metric?.name}: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered`],
    External: ['FailedGetExternalMetric', `unable to get external metric ${spec?.external?.metric?.name}: unable to fetch metrics from external metrics API: no external metrics API (external.metrics.k8s.io) registered`],
  };
  const known = reasons[String(type)];
  if (known) return unableToCompute(known[0], known[1], `failed to get ${String(type).toLowerCase()} metric value: ${known[1]}`);
  const err = `unknown metric source type "${String(type)}"`;
  return unableToCompute('InvalidMetricSourceType', err, err);
}

/** computeStatusForResourceMetricGeneric: AverageValue first, else AverageUtilization. */
function resourceMetric(inp: SyncInputs, resource: string, container: string, target: Obj, type: string): MetricProposal | { error: string } {
  const { scale, pods, now } = inp;
  const key = type === 'ContainerResource' ? 'containerResource' : 'resource';
  const fetch = (): PodMetrics | string => {
    if (!Array.isArray(inp.podMetrics)) return `unable to get metrics for resource ${resource}: unable to fetch metrics from resource metrics API: ${inp.podMetrics.error}`;
    if (inp.podMetrics.length === 0) return `unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`;
    try {
      return podMetricValues(inp.podMetrics, resource, container, inp.hpa?.metadata?.namespace ?? '');
    } catch (e) {
      return `unable to get metrics for resource ${resource}: ${(e as Error).message}`;
    }
  };
  const describe = (current: Obj) => (key === 'resource' ? { type, resource: { name: resource, current } } : { type, containerResource: { name: resource, container, current } });
  if (target.averageValue !== undefined) {
    const metrics = fetch();
    if (typeof metrics === 'string') return { error: `failed to get ${resource} usage: ${metrics}` };
    try {
      const r = rawResourceReplicas({ currentReplicas: scale.replicas, targetAverage: milliValue(target.averageValue), resource, pods, metrics, now });
      return { replicas: r.replicas, name: `${resource} resource`, timestamp: r.timestamp, status: describe({ averageValue: milliQuantity(r.rawValue) }) };
    } catch (e) {
      return { error: `failed to get ${resource} usage: ${(e as Error).message}` };
    }
  }
  if (target.averageUtilization === undefined) {
    return { error: 'invalid resource metric source: neither an average utilization target nor an average value (usage) target was set' };
  }
  const metrics = fetch();
  if (typeof metrics === 'string') return { error: `failed to get ${resource} utilization: ${metrics}` };
  try {
    const r = resourceReplicas({ currentReplicas: scale.replicas, targetUtilization: Number(target.averageUtilization), resource, container, pods, metrics, now, milli: milliValue });
    const name = type === 'ContainerResource' ? `${resource} container resource utilization (percentage of request)` : `${resource} resource utilization (percentage of request)`;
    return { replicas: r.replicas, name, timestamp: r.timestamp, status: describe({ averageUtilization: r.utilization, averageValue: milliQuantity(r.rawValue) }) };
  } catch (e) {
    return { error: `failed to get ${resource} utilization: ${(e as Error).message}` };
  }
}

// ---- normalization without behavior (normalizeDesiredReplicas) ----

function normalize(spec: ReturnType<typeof hpaSpec>, memory: HpaMemory, current: number, desired: number, conditions: Condition[], now: number): number {
  const stabilized = stabilize(memory, desired, now);
  if (stabilized !== desired) {
    setCondition(conditions, 'AbleToScale', 'True', 'ScaleDownStabilized', 'recent recommendations were higher than current one, applying the highest recent recommendation', now);
  } else {
    setCondition(conditions, 'AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size', now);
  }
  const [out, reason, message] = withRules(current, stabilized, spec.minReplicas, spec.maxReplicas);
  setCondition(conditions, 'ScalingLimited', out === stabilized ? 'False' : 'True', reason, message, now);
  return out;
}

/** stabilizeRecommendation: the highest recommendation of the window; the oldest stale one is replaced. */
function stabilize(memory: HpaMemory, desired: number, now: number): number {
  let max = desired;
  let stale = -1;
  const cutoff = now - DOWNSCALE_STABILIZATION_S * 1000;
  memory.recommendations.forEach((rec, i) => {
    if (rec.at < cutoff) stale = i;
    else if (rec.replicas > max) max = rec.replicas;
  });
  if (stale >= 0) memory.recommendations[stale] = { replicas: desired, at: now };
  else memory.recommendations.push({ replicas: desired, at: now });
  return max;
}

/** convertDesiredReplicasWithRules. */
function withRules(current: number, desired: number, min: number, max: number): [number, string, string] {
  const scaleUpLimit = Math.max(SCALE_UP_LIMIT_FACTOR * current, SCALE_UP_LIMIT_MINIMUM);
  let maximum: number, reason: string, message: string;
  if (max > scaleUpLimit) {
    maximum = scaleUpLimit;
    reason = 'ScaleUpLimit';
    message = 'the desired replica count is increasing faster than the maximum scale rate';
  } else {
    maximum = max;
    reason = 'TooManyReplicas';
    message = 'the desired replica count is more than the maximum replica count';
  }
  if (desired < min) return [min, 'TooFewReplicas', 'the desired replica count is less than the minimum replica count'];
  if (desired > maximum) return [maximum, reason, message];
  return [desired, 'DesiredWithinRange', 'the desired count is within the acceptable range'];
}

// ---- normalization with behavior (normalizeDesiredReplicasWithBehaviors) ----

interface Rules {
  stabilizationWindowSeconds: number;
  selectPolicy: string;
  policies: { type: string; value: number; periodSeconds: number }[];
}

function rulesOf(r: Obj | undefined, defaultWindow: number): Rules {
  const window = Number.isInteger(r?.stabilizationWindowSeconds) ? r!.stabilizationWindowSeconds : defaultWindow;
  const policies = (Array.isArray(r?.policies) ? r!.policies : [])
    .filter((p: Obj) => (p?.type === 'Pods' || p?.type === 'Percent') && Number.isFinite(p?.value) && Number.isFinite(p?.periodSeconds))
    .map((p: Obj) => ({ type: p.type, value: p.value, periodSeconds: Math.min(Math.max(0, p.periodSeconds), MAX_WINDOW_S) }));
  return { stabilizationWindowSeconds: Math.min(Math.max(0, window), MAX_WINDOW_S), selectPolicy: typeof r?.selectPolicy === 'string' ? r!.selectPolicy : 'Max', policies };
}

function normalizeWithBehaviors(
  spec: ReturnType<typeof hpaSpec>, behavior: Obj, memory: HpaMemory, current: number, desired: number, conditions: Condition[], now: number,
): number {
  const up = rulesOf(behavior.scaleUp, 0);
  const down = rulesOf(behavior.scaleDown, DOWNSCALE_STABILIZATION_S);
  const [stabilized, reason, message] = stabilizeWithBehaviors(memory, up, down, current, desired, now);
  if (stabilized !== desired) setCondition(conditions, 'AbleToScale', 'True', reason, message, now);
  else setCondition(conditions, 'AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size', now);
  const [out, limitReason, limitMessage] = withBehaviorRate(memory, up, down, spec.minReplicas, spec.maxReplicas, current, stabilized, now);
  setCondition(conditions, 'ScalingLimited', out === stabilized ? 'False' : 'True', limitReason, limitMessage, now);
  return out;
}

function stabilizeWithBehaviors(memory: HpaMemory, up: Rules, down: Rules, current: number, desired: number, now: number): [number, string, string] {
  let recommendation = desired;
  const upward = desired >= current;
  const delay = upward ? up.stabilizationWindowSeconds : down.stabilizationWindowSeconds;
  const better = upward ? Math.min : Math.max;
  const reason = upward ? 'ScaleUpStabilized' : 'ScaleDownStabilized';
  const message = upward
    ? 'recent recommendations were lower than current one, applying the lowest recent recommendation'
    : 'recent recommendations were higher than current one, applying the highest recent recommendation';
  const obsoleteCutoff = now - Math.max(up.stabilizationWindowSeconds, down.stabilizationWindowSeconds) * 1000;
  const cutoff = now - delay * 1000;
  let stale = -1;
  memory.recommendations.forEach((rec, i) => {
    if (rec.at > cutoff) recommendation = better(rec.replicas, recommendation);
    if (rec.at < obsoleteCutoff) stale = i;
  });
  if (stale >= 0) memory.recommendations[stale] = { replicas: desired, at: now };
  else memory.recommendations.push({ replicas: desired, at: now });
  return [recommendation, reason, message];
}

const changeInPeriod = (periodS: number, events: HpaMemory['scaleUpEvents'], now: number) => {
  const cutoff = now - periodS * 1000;
  let n = 0;
  for (const e of events) if (e.at > cutoff) n += e.change;
  return n;
};

function withBehaviorRate(memory: HpaMemory, up: Rules, down: Rules, min: number, max: number, current: number, desired: number, now: number): [number, string, string] {
  if (desired > current) {
    let limit = scaleUpLimit(current, memory.scaleUpEvents, up, now);
    if (limit < current) limit = current;
    let maximum = max, reason = 'TooManyReplicas', message = 'the desired replica count is more than the maximum replica count';
    if (maximum > limit) {
      maximum = limit;
      reason = 'ScaleUpLimit';
      message = 'the desired replica count is increasing faster than the maximum scale rate';
    }
    if (desired > maximum) return [maximum, reason, message];
  } else if (desired < current) {
    let limit = scaleDownLimit(current, memory.scaleDownEvents, down, now);
    if (limit > current) limit = current;
    let minimum = min, reason = 'TooFewReplicas', message = 'the desired replica count is less than the minimum replica count';
    if (minimum < limit) {
      minimum = limit;
      reason = 'ScaleDownLimit';
      message = 'the desired replica count is decreasing faster than the maximum scale rate';
    }
    if (desired < minimum) return [minimum, reason, message];
  }
  return [desired, 'DesiredWithinRange', 'the desired count is within the acceptable range'];
}

/** calculateScaleUpLimitWithScalingRules. */
function scaleUpLimit(current: number, events: HpaMemory['scaleUpEvents'], rules: Rules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const minChange = rules.selectPolicy === 'Min';
  let result = minChange ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
  for (const p of rules.policies) {
    const start = current - changeInPeriod(p.periodSeconds, events, now);
    const proposed = p.type === 'Pods' ? start + p.value : Math.ceil(start * (1 + p.value / 100));
    result = minChange ? Math.min(result, proposed) : Math.max(result, proposed);
  }
  return result;
}

/** calculateScaleDownLimitWithBehaviors. */
function scaleDownLimit(current: number, events: HpaMemory['scaleDownEvents'], rules: Rules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const minChange = rules.selectPolicy === 'Min';
  let result = minChange ? Number.MIN_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
  for (const p of rules.policies) {
    const start = current + changeInPeriod(p.periodSeconds, events, now);
    const proposed = p.type === 'Pods' ? start - p.value : Math.trunc(start * (1 - p.value / 100));
    result = minChange ? Math.max(result, proposed) : Math.min(result, proposed);
  }
  return result;
}

/** storeScaleEvent: the change recorded, replacing one older than the longest policy period. */
function storeScaleEvent(behavior: Obj, memory: HpaMemory, prev: number, next: number, now: number): void {
  const upward = next > prev;
  const rules = upward ? rulesOf(behavior.scaleUp, 0) : rulesOf(behavior.scaleDown, DOWNSCALE_STABILIZATION_S);
  const events = upward ? memory.scaleUpEvents : memory.scaleDownEvents;
  const longest = rules.policies.reduce((m, p) => Math.max(m, p.periodSeconds), 0);
  const cutoff = now - longest * 1000;
  for (const e of events) if (e.at < cutoff) e.outdated = true;
  const entry = { change: upward ? next - prev : prev - next, at: now, outdated: false };
  const old = events.findIndex((e) => e.outdated);
  if (old >= 0) events[old] = entry;
  else events.push(entry);
}
