// Every layer: autoscaling/v1 HorizontalPodAutoscaler as a view over the autoscaling/v2 store, as kube keeps one
// storage (v2) for both and converts through the internal type (pkg/apis/autoscaling/v1/conversion.go). v1 knows
// only a CPU utilization target; everything else v2 holds travels in annotations so that a v1 read-modify-write
// loses nothing: other metrics (autoscaling.alpha.kubernetes.io/metrics), current metrics (…/current-metrics),
// conditions (…/conditions) and behavior (…/behavior), each as the JSON of autoscaling/v1's legacy metric types.

type Obj = Record<string, any>;

export const HPA_V1 = 'autoscaling/v1';
export const HPA_V2 = 'autoscaling/v2';
export const HPA_GROUP_RESOURCE = 'autoscaling/horizontalpodautoscalers';

const METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
const CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
const ROUND_TRIP = [METRICS_ANNOTATION, BEHAVIOR_ANNOTATION, CONDITIONS_ANNOTATION, CURRENT_METRICS_ANNOTATION];

/** autoscaling.DefaultCPUUtilization: the implicit v1 target when no metric is given. */
export const DEFAULT_CPU_UTILIZATION = 80;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Drops undefined members, so the JSON keeps Go's omitempty shape and field order. */
function compact(o: Obj): Obj {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

const isCpuUtilization = (m: Obj) => m?.type === 'Resource' && m.resource?.name === 'cpu' && m.resource?.target?.averageUtilization !== undefined;

// ---- v2 → v1 (Convert_autoscaling_*_To_v1_*) ----

function crossRef(r: Obj | undefined): Obj {
  return compact({ kind: r?.kind ?? '', name: r?.name ?? '', apiVersion: r?.apiVersion });
}

function metricSpecToV1(m: Obj): Obj {
  const out: Obj = { type: m.type };
  if (isObj(m.object)) {
    out.object = compact({
      target: crossRef(m.object.describedObject), metricName: m.object.metric?.name ?? '', targetValue: m.object.target?.value ?? '0',
      selector: m.object.metric?.selector, averageValue: m.object.target?.averageValue,
    });
  }
  if (isObj(m.pods)) {
    out.pods = compact({ metricName: m.pods.metric?.name ?? '', targetAverageValue: m.pods.target?.averageValue ?? '0', selector: m.pods.metric?.selector });
  }
  if (isObj(m.resource)) {
    out.resource = compact({ name: m.resource.name, targetAverageUtilization: m.resource.target?.averageUtilization, targetAverageValue: m.resource.target?.averageValue });
  }
  if (isObj(m.containerResource)) {
    const c = m.containerResource;
    out.containerResource = compact({ name: c.name, targetAverageUtilization: c.target?.averageUtilization, targetAverageValue: c.target?.averageValue, container: c.container ?? '' });
  }
  if (isObj(m.external)) {
    const e = m.external;
    out.external = compact({ metricName: e.metric?.name ?? '', metricSelector: e.metric?.selector, targetValue: e.target?.value, targetAverageValue: e.target?.averageValue });
  }
  return out;
}

function metricStatusToV1(m: Obj): Obj {
  const out: Obj = { type: m.type };
  if (isObj(m.object)) {
    out.object = compact({
      target: crossRef(m.object.describedObject), metricName: m.object.metric?.name ?? '', currentValue: m.object.current?.value ?? '0',
      selector: m.object.metric?.selector, averageValue: m.object.current?.averageValue,
    });
  }
  if (isObj(m.pods)) {
    out.pods = compact({ metricName: m.pods.metric?.name ?? '', currentAverageValue: m.pods.current?.averageValue ?? '0', selector: m.pods.metric?.selector });
  }
  if (isObj(m.resource)) {
    out.resource = compact({ name: m.resource.name, currentAverageUtilization: m.resource.current?.averageUtilization, currentAverageValue: m.resource.current?.averageValue ?? '0' });
  }
  if (isObj(m.containerResource)) {
    const c = m.containerResource;
    out.containerResource = compact({
      name: c.name, currentAverageUtilization: c.current?.averageUtilization, currentAverageValue: c.current?.averageValue ?? '0', container: c.container ?? '',
    });
  }
  if (isObj(m.external)) {
    const e = m.external;
    out.external = compact({ metricName: e.metric?.name ?? '', metricSelector: e.metric?.selector, currentValue: e.current?.value ?? '0', currentAverageValue: e.current?.averageValue });
  }
  return out;
}

const condition = (c: Obj) => compact({ type: c.type, status: c.status, lastTransitionTime: c.lastTransitionTime ?? null, reason: c.reason, message: c.message });

/** A stored (v2) HorizontalPodAutoscaler as autoscaling/v1 shows it; anything else (a Status) unchanged. */
export function hpaToV1(obj: Obj): Obj {
  if (!isObj(obj) || obj.kind !== 'HorizontalPodAutoscaler' || obj.apiVersion !== HPA_V2) return obj;
  const spec: Obj = isObj(obj.spec) ? obj.spec : {};
  const status: Obj | undefined = isObj(obj.status) ? obj.status : undefined;
  const metrics: Obj[] = Array.isArray(spec.metrics) ? spec.metrics.filter(isObj) : [];
  const current: Obj[] = Array.isArray(status?.currentMetrics) ? status!.currentMetrics.filter(isObj) : [];
  const conditions: Obj[] = Array.isArray(status?.conditions) ? status!.conditions.filter(isObj) : [];
  const cpu = metrics.find(isCpuUtilization);
  const other = metrics.filter((m) => !isCpuUtilization(m)).map(metricSpecToV1);
  const metadata: Obj = { ...(isObj(obj.metadata) ? obj.metadata : {}) };
  if (other.length || current.length || conditions.length || spec.behavior) {
    const annotations: Obj = { ...(isObj(metadata.annotations) ? metadata.annotations : {}) };
    if (other.length) annotations[METRICS_ANNOTATION] = JSON.stringify(other);
    if (current.length) annotations[CURRENT_METRICS_ANNOTATION] = JSON.stringify(current.map(metricStatusToV1));
    if (spec.behavior) annotations[BEHAVIOR_ANNOTATION] = JSON.stringify(spec.behavior);
    if (conditions.length) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(conditions.map(condition));
    metadata.annotations = annotations;
  }
  const out: Obj = { kind: obj.kind, apiVersion: HPA_V1, metadata };
  out.spec = compact({
    scaleTargetRef: spec.scaleTargetRef, minReplicas: spec.minReplicas, maxReplicas: spec.maxReplicas ?? 0,
    targetCPUUtilizationPercentage: cpu?.resource?.target?.averageUtilization,
  });
  if (status) {
    const cpuNow = current.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu');
    out.status = compact({
      observedGeneration: status.observedGeneration, lastScaleTime: status.lastScaleTime,
      currentReplicas: status.currentReplicas ?? 0, desiredReplicas: status.desiredReplicas ?? 0,
      currentCPUUtilizationPercentage: cpuNow?.resource?.current?.averageUtilization,
    });
  }
  return out;
}

// ---- v1 → v2 (Convert_v1_*_To_autoscaling_*) ----

function metricSpecFromV1(m: Obj): Obj {
  const out: Obj = { type: m.type };
  if (isObj(m.object)) {
    const o = m.object;
    out.object = {
      describedObject: crossRef(o.target), metric: compact({ name: o.metricName ?? '', selector: o.selector }),
      target: compact({ type: o.averageValue === undefined ? 'Value' : 'AverageValue', value: o.targetValue ?? '0', averageValue: o.averageValue }),
    };
  }
  if (isObj(m.pods)) {
    out.pods = { metric: compact({ name: m.pods.metricName ?? '', selector: m.pods.selector }), target: { type: 'AverageValue', averageValue: m.pods.targetAverageValue ?? '0' } };
  }
  for (const key of ['resource', 'containerResource'] as const) {
    const r = m[key];
    if (!isObj(r)) continue;
    const target = compact({
      type: r.targetAverageUtilization === undefined ? 'AverageValue' : 'Utilization',
      averageUtilization: r.targetAverageUtilization, averageValue: r.targetAverageValue,
    });
    out[key] = key === 'resource' ? { name: r.name, target } : { name: r.name, target, container: r.container ?? '' };
  }
  if (isObj(m.external)) {
    const e = m.external;
    out.external = {
      metric: compact({ name: e.metricName ?? '', selector: e.metricSelector }),
      target: compact({ type: e.targetValue === undefined ? 'AverageValue' : 'Value', value: e.targetValue, averageValue: e.targetAverageValue }),
    };
  }
  return out;
}

function metricStatusFromV1(m: Obj): Obj {
  const out: Obj = { type: m.type };
  if (isObj(m.object)) {
    const o = m.object;
    out.object = {
      metric: compact({ name: o.metricName ?? '', selector: o.selector }), current: compact({ value: o.currentValue ?? '0', averageValue: o.averageValue }),
      describedObject: crossRef(o.target),
    };
  }
  if (isObj(m.pods)) {
    out.pods = { metric: compact({ name: m.pods.metricName ?? '', selector: m.pods.selector }), current: { averageValue: m.pods.currentAverageValue ?? '0' } };
  }
  for (const key of ['resource', 'containerResource'] as const) {
    const r = m[key];
    if (!isObj(r)) continue;
    const current = compact({ averageValue: r.currentAverageValue, averageUtilization: r.currentAverageUtilization });
    out[key] = key === 'resource' ? { name: r.name, current } : { name: r.name, current, container: r.container ?? '' };
  }
  if (isObj(m.external)) {
    const e = m.external;
    out.external = { metric: compact({ name: e.metricName ?? '', selector: e.metricSelector }), current: compact({ value: e.currentValue ?? '0', averageValue: e.currentAverageValue }) };
  }
  return out;
}

function parseList(text: unknown): Obj[] | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v.filter(isObj) : undefined;
  } catch {
    return undefined; // kube ignores an annotation it cannot decode
  }
}

function parseObject(text: unknown): Obj | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const v = JSON.parse(text);
    return isObj(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An autoscaling/v1 HorizontalPodAutoscaler written through the view, as the v2 store keeps it. `partial` (a
 * server-side apply configuration) converts only the fields present: no implicit CPU target.
 */
export function hpaFromV1(obj: Obj, partial = false): Obj {
  if (!isObj(obj) || obj.apiVersion !== HPA_V1) return obj;
  const out: Obj = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion') out.apiVersion = HPA_V2;
    else if (k !== 'spec' && k !== 'status') out[k] = v;
  }
  const metadata: Obj = isObj(obj.metadata) ? { ...obj.metadata } : {};
  const annotations: Obj = isObj(metadata.annotations) ? { ...metadata.annotations } : {};
  if (isObj(obj.spec)) {
    const s = obj.spec;
    const metrics: Obj[] = (parseList(annotations[METRICS_ANNOTATION]) ?? []).map(metricSpecFromV1);
    if (typeof s.targetCPUUtilizationPercentage === 'number' || (s.targetCPUUtilizationPercentage !== undefined && s.targetCPUUtilizationPercentage !== null)) {
      metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: s.targetCPUUtilizationPercentage } } });
    }
    if (!metrics.length && !partial) {
      metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } });
    }
    const spec: Obj = {};
    for (const [k, v] of Object.entries(s)) if (k !== 'targetCPUUtilizationPercentage') spec[k] = v;
    if (metrics.length) spec.metrics = metrics;
    const behavior = parseObject(annotations[BEHAVIOR_ANNOTATION]);
    if (behavior) spec.behavior = behavior;
    out.spec = spec;
  }
  if (isObj(obj.status)) {
    const s = obj.status;
    const status: Obj = {};
    for (const [k, v] of Object.entries(s)) if (k !== 'currentCPUUtilizationPercentage') status[k] = v;
    const current = parseList(annotations[CURRENT_METRICS_ANNOTATION]);
    if (current) status.currentMetrics = current.map(metricStatusFromV1);
    else if (s.currentCPUUtilizationPercentage !== undefined && s.currentCPUUtilizationPercentage !== null) {
      status.currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: s.currentCPUUtilizationPercentage } } }];
    }
    const conditions = parseList(annotations[CONDITIONS_ANNOTATION]);
    if (conditions) status.conditions = conditions.map(condition);
    out.status = status;
  }
  if (ROUND_TRIP.some((a) => a in annotations)) {
    for (const a of ROUND_TRIP) delete annotations[a];
    if (Object.keys(annotations).length) metadata.annotations = annotations;
    else delete metadata.annotations;
    out.metadata = metadata;
  }
  return out;
}

/** A store reply (object, list, Table, Status) as autoscaling/v1. */
export function replyToHpaV1(text: string): string {
  let obj: Obj;
  try {
    obj = JSON.parse(text) as Obj;
  } catch {
    return text;
  }
  if (obj.kind === 'HorizontalPodAutoscalerList' && obj.apiVersion === HPA_V2) {
    obj.apiVersion = HPA_V1;
    obj.items = ((obj.items as Obj[] | null) ?? []).map(hpaToV1);
  } else if (obj.kind === 'Table' && Array.isArray(obj.rows)) {
    for (const row of obj.rows as { object?: Obj }[]) if (row.object) row.object = hpaToV1(row.object);
  } else {
    obj = hpaToV1(obj);
  }
  return JSON.stringify(obj);
}

/** A watch frame (`{"type":…,"object":…}` and a newline) as autoscaling/v1. */
export function frameToHpaV1(text: string): string {
  try {
    const frame = JSON.parse(text) as Obj;
    const o = frame.object;
    // A bookmark's object carries only kind, apiVersion and metadata: only its apiVersion changes.
    if (frame.type === 'BOOKMARK' && isObj(o) && o.apiVersion === HPA_V2) o.apiVersion = HPA_V1;
    else if (isObj(o) && o.kind === 'Table' && Array.isArray(o.rows)) {
      for (const row of o.rows as { object?: Obj }[]) if (row.object) row.object = hpaToV1(row.object);
    } else if (isObj(o)) frame.object = hpaToV1(o);
    return `${JSON.stringify(frame)}\n`;
  } catch {
    return text;
  }
}
