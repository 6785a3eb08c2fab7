// Controllers: the HPA's replica calculator, pure (kubernetes pkg/controller/podautoscaler/replica_calculator.go
// and metrics/utilization.go, 1.32): the pods are sorted into ready, unready (CPU only, in their initialization
// period), missing (no metric) and ignored (deleted, failed, pending); the usage ratio over the ready pods decides,
// within a tolerance of 0.1; missing pods count as using 100% (or the target) on a scale-down and 0 on a scale-up,
// unready ones 0 on a scale-up; a result that flips the direction, or lands in the tolerance, keeps the count.
// Linear in the pods.

type Obj = Record<string, any>;

export const TOLERANCE = 0.1; // --horizontal-pod-autoscaler-tolerance
export const CPU_INITIALIZATION_PERIOD_MS = 5 * 60_000; // --horizontal-pod-autoscaler-cpu-initialization-period
export const INITIAL_READINESS_DELAY_MS = 30_000; // --horizontal-pod-autoscaler-initial-readiness-delay

/** One pod's metric: its value (milli-units for CPU, units otherwise), when it was taken and over what window. */
export interface PodMetric {
  value: number;
  timestamp: number;
  windowMs: number;
}

export type PodMetrics = Map<string, PodMetric>;

export interface ReplicaResult {
  replicas: number;
  utilization?: number; // percent of request (Utilization targets)
  rawValue: number; // the average value, in the metric's units
  timestamp: number;
}

export class MetricError extends Error {}

const parseTime = (t: unknown): number | undefined => {
  if (typeof t !== 'string') return undefined;
  const n = Date.parse(t);
  return Number.isFinite(n) ? n : undefined;
};

/** groupPods: the ready count and the names of the unready, missing and ignored pods. */
export function groupPods(pods: Obj[], metrics: PodMetrics, resource: string, now: number): {
  ready: number; unready: Set<string>; missing: Set<string>; ignored: Set<string>;
} {
  let ready = 0;
  const unready = new Set<string>(), missing = new Set<string>(), ignored = new Set<string>();
  for (const pod of pods) {
    const name = String(pod?.metadata?.name);
    const phase = pod?.status?.phase;
    if (pod?.metadata?.deletionTimestamp || phase === 'Failed' || phase === 'Pending') {
      ignored.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      missing.add(name);
      continue;
    }
    if (resource === 'cpu') {
      const condition = (Array.isArray(pod?.status?.conditions) ? pod.status.conditions : []).find((c: Obj) => c?.type === 'Ready');
      const start = parseTime(pod?.status?.startTime);
      let isUnready: boolean;
      if (!condition || start === undefined) isUnready = true;
      else {
        const transition = parseTime(condition.lastTransitionTime) ?? 0;
        if (start + CPU_INITIALIZATION_PERIOD_MS > now) {
          // In the initialization period: unready, or ready only since after the metric's window began.
          isUnready = condition.status === 'False' || metric.timestamp < transition + metric.windowMs;
        } else {
          // Later: unready only if it never became ready after starting (within the readiness delay).
          isUnready = condition.status === 'False' && start + INITIAL_READINESS_DELAY_MS > transition;
        }
      }
      if (isUnready) {
        unready.add(name);
        continue;
      }
    }
    ready++;
  }
  return { ready, unready, missing, ignored };
}

/** calculatePodRequests: each pod's request for the resource (one container's, or the sum), in milli-units. */
export function podRequests(pods: Obj[], container: string, resource: string, milli: (q: unknown) => number): Map<string, number> {
  const out = new Map<string, number>();
  for (const pod of pods) {
    let total = 0;
    for (const c of Array.isArray(pod?.spec?.containers) ? pod.spec.containers : []) {
      if (container && c?.name !== container) continue;
      const req = c?.resources?.requests?.[resource];
      if (req === undefined) throw new MetricError(`missing request for ${resource} in container ${c?.name} of Pod ${pod?.metadata?.name}`);
      total += milli(req);
    }
    out.set(String(pod?.metadata?.name), total);
  }
  return out;
}

/** GetResourceUtilizationRatio: usage over requests of the pods that have both. */
export function utilizationRatio(metrics: PodMetrics, requests: Map<string, number>, target: number): { ratio: number; utilization: number; raw: number } {
  let metricsTotal = 0, requestsTotal = 0, entries = 0;
  for (const [name, m] of metrics) {
    const req = requests.get(name);
    if (req === undefined) continue; // a metric for a pod the selector no longer picks
    metricsTotal += m.value;
    requestsTotal += req;
    entries++;
  }
  if (requestsTotal === 0) throw new MetricError('no metrics returned matched known pods');
  const utilization = Math.trunc((metricsTotal * 100) / requestsTotal);
  return { ratio: utilization / target, utilization, raw: Math.trunc(metricsTotal / entries) };
}

const latest = (metrics: PodMetrics) => {
  let t = 0;
  for (const m of metrics.values()) t = t === 0 ? m.timestamp : Math.min(t, m.timestamp);
  return t;
};

/** The pods' metrics without the ignored and unready pods (kube's groupPods and removeMetricsForPods), or kube's errors. */
function readyMetrics(pods: Obj[], all: PodMetrics, resource: string, now: number): { metrics: PodMetrics; groups: ReturnType<typeof groupPods> } {
  const metrics = new Map(all);
  if (pods.length === 0) throw new MetricError('no pods returned by selector while calculating replica count');
  const groups = groupPods(pods, metrics, resource, now);
  for (const n of groups.ignored) metrics.delete(n);
  for (const n of groups.unready) metrics.delete(n);
  if (metrics.size === 0) throw new MetricError('did not receive metrics for targeted pods (pods might be unready)');
  return { metrics, groups };
}

/** GetResourceReplicas: a Utilization target (percent of request). */
export function resourceReplicas(args: {
  currentReplicas: number; targetUtilization: number; resource: string; container: string; pods: Obj[]; metrics: PodMetrics; now: number;
  milli: (q: unknown) => number;
}): ReplicaResult {
  const { currentReplicas, targetUtilization, resource, container, pods, now } = args;
  const { metrics, groups } = readyMetrics(pods, args.metrics, resource, now);
  const requests = podRequests(pods, container, resource, args.milli);
  const timestamp = latest(metrics);
  const first = utilizationRatio(metrics, requests, targetUtilization);
  const scaleUpWithUnready = groups.unready.size > 0 && first.ratio > 1.0;
  const keep = { replicas: currentReplicas, utilization: first.utilization, rawValue: first.raw, timestamp };
  if (!scaleUpWithUnready && groups.missing.size === 0) {
    if (Math.abs(1.0 - first.ratio) <= TOLERANCE) return keep;
    return { ...keep, replicas: Math.ceil(first.ratio * groups.ready) };
  }
  if (groups.missing.size > 0) {
    // On a scale-down a missing pod counts as using all its request (or the target, if above 100%); on a scale-up, nothing.
    const fallback = Math.max(100, targetUtilization);
    for (const n of groups.missing) {
      if (first.ratio < 1.0) metrics.set(n, { value: ((requests.get(n) ?? 0) * fallback) / 100, timestamp, windowMs: 0 });
      else if (first.ratio > 1.0) metrics.set(n, { value: 0, timestamp, windowMs: 0 });
    }
  }
  if (scaleUpWithUnready) for (const n of groups.unready) metrics.set(n, { value: 0, timestamp, windowMs: 0 });
  const second = utilizationRatio(metrics, requests, targetUtilization);
  if (Math.abs(1.0 - second.ratio) <= TOLERANCE || (first.ratio < 1.0 && second.ratio > 1.0) || (first.ratio > 1.0 && second.ratio < 1.0)) return keep;
  const replicas = Math.ceil(second.ratio * metrics.size);
  if ((second.ratio < 1.0 && replicas > currentReplicas) || (second.ratio > 1.0 && replicas < currentReplicas)) return keep;
  return { ...keep, replicas };
}

/** GetRawResourceReplicas / calcPlainMetricReplicas: an AverageValue target (milli-units per pod). */
export function rawResourceReplicas(args: {
  currentReplicas: number; targetAverage: number; resource: string; pods: Obj[]; metrics: PodMetrics; now: number;
}): ReplicaResult {
  const { currentReplicas, targetAverage, resource, pods, now } = args;
  const { metrics, groups } = readyMetrics(pods, args.metrics, resource, now);
  const timestamp = latest(metrics);
  const usage = (m: PodMetrics) => {
    let total = 0;
    for (const v of m.values()) total += v.value;
    return { ratio: total / m.size / targetAverage, average: Math.trunc(total / m.size) };
  };
  const first = usage(metrics);
  const scaleUpWithUnready = groups.unready.size > 0 && first.ratio > 1.0;
  const keep = { replicas: currentReplicas, rawValue: first.average, timestamp };
  if (!scaleUpWithUnready && groups.missing.size === 0) {
    if (Math.abs(1.0 - first.ratio) <= TOLERANCE) return keep;
    return { ...keep, replicas: Math.ceil(first.ratio * groups.ready) };
  }
  for (const n of groups.missing) {
    if (first.ratio < 1.0) metrics.set(n, { value: targetAverage, timestamp, windowMs: 0 });
    else metrics.set(n, { value: 0, timestamp, windowMs: 0 });
  }
  if (scaleUpWithUnready) for (const n of groups.unready) metrics.set(n, { value: 0, timestamp, windowMs: 0 });
  const second = usage(metrics);
  if (Math.abs(1.0 - second.ratio) <= TOLERANCE || (first.ratio < 1.0 && second.ratio > 1.0) || (first.ratio > 1.0 && second.ratio < 1.0)) return keep;
  const replicas = Math.ceil(second.ratio * metrics.size);
  if ((second.ratio < 1.0 && replicas > currentReplicas) || (second.ratio > 1.0 && replicas < currentReplicas)) return keep;
  return { ...keep, replicas };
}
