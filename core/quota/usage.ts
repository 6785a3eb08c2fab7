// Core: what one object costs against a ResourceQuota, as kube 1.32's quota evaluators count it
// (pkg/quota/v1/evaluator/core: pods, services, persistentvolumeclaims; apiserver's generic object count for
// every other type), and which quotas an object falls under (scopes and scopeSelector, pods only). Shared by the
// ResourceQuota admission plugin (core/admission/plugins/resource-quota.ts) and the quota controller
// (controllers/resourcequota.ts), so a charge and a recount agree.

import type { ResourceType } from '../registry';
import { addLists, podResources, resourceMap, type ResourceList } from '../admission/resource-lists';
import { value } from '../quantity';

type Obj = Record<string, any>;

// Types whose legacy quota name is the resource itself (core/v1 ResourceServices, ResourceConfigMaps, ...).
const LEGACY_COUNTED = new Set(['pods', 'services', 'configmaps', 'secrets', 'persistentvolumeclaims', 'replicationcontrollers', 'resourcequotas']);
const NATIVE_COMPUTE = new Set(['cpu', 'memory', 'ephemeral-storage']);
const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';

/** count/<resource>[.<group>]: the generic object count name of a type. */
export function countName(type: Pick<ResourceType, 'group' | 'resource'>): string {
  return type.group ? `count/${type.resource}.${type.group}` : `count/${type.resource}`;
}

const isPodType = (type: Pick<ResourceType, 'group' | 'kind'>) => type.group === '' && type.kind === 'Pod';

/** A pod in a terminal phase uses nothing (podEvaluator QuotaV1Pod); nor does one being deleted past its grace. */
export function podCounts(pod: Obj, now: number): boolean {
  const phase = pod?.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const deleted = pod?.metadata?.deletionTimestamp;
  const grace = pod?.metadata?.deletionGracePeriodSeconds;
  if (deleted && typeof grace === 'number' && Date.parse(deleted) + grace * 1000 < now) return false;
  return true;
}

/** The resources an object uses, under every name a quota may limit them by. */
export function usage(type: ResourceType, obj: Obj): ResourceList {
  const out: ResourceList = { [countName(type)]: '1' };
  if (type.group === '' && LEGACY_COUNTED.has(type.resource)) out[type.resource] = '1';
  if (isPodType(type)) return { ...out, ...podCompute(obj) };
  if (type.group === '' && type.kind === 'Service') {
    const spec = (obj?.spec ?? {}) as Obj;
    const ports = Array.isArray(spec.ports) ? spec.ports.length : 0;
    if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') out['services.nodeports'] = String(ports);
    if (spec.type === 'LoadBalancer') out['services.loadbalancers'] = '1';
    return out;
  }
  if (type.group === '' && type.kind === 'PersistentVolumeClaim') {
    const storage = obj?.spec?.resources?.requests?.storage;
    const cls = obj?.spec?.storageClassName;
    if (storage !== undefined) out['requests.storage'] = String(storage);
    if (typeof cls === 'string' && cls) {
      out[`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`] = '1';
      if (storage !== undefined) out[`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`] = String(storage);
    }
  }
  return out;
}

/** podComputeUsageHelper over the pod's effective requests and limits. */
function podCompute(pod: Obj): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(podResources(pod, 'requests'))) {
    if (NATIVE_COMPUTE.has(k) || k.startsWith('hugepages-')) {
      out[k] = v;
      out[`requests.${k}`] = v;
    } else if (k.includes('/') && !k.startsWith('kubernetes.io/') && !k.startsWith('requests.')) {
      out[`requests.${k}`] = v; // extended resources are quota'd as requests.<name> only
    }
  }
  for (const [k, v] of Object.entries(podResources(pod, 'limits'))) {
    if (NATIVE_COMPUTE.has(k)) out[`limits.${k}`] = v;
  }
  return out;
}

/** The names of `hard` an object of `type` can use (evaluator MatchingResources). */
export function matchingResources(type: ResourceType, hard: string[]): string[] {
  const count = countName(type);
  return hard.filter((name) => {
    if (name === count) return true;
    if (type.group === '' && LEGACY_COUNTED.has(type.resource) && name === type.resource) return true;
    if (isPodType(type)) {
      return ['cpu', 'memory', 'ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage'].includes(name)
        || (name.startsWith('requests.') && name !== 'requests.storage');
    }
    if (type.group === '' && type.kind === 'Service') return name === 'services.nodeports' || name === 'services.loadbalancers';
    if (type.group === '' && type.kind === 'PersistentVolumeClaim') return name === 'requests.storage' || name.includes(STORAGE_CLASS_SUFFIX);
    return false;
  });
}

export interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values?: string[];
}

/** helper.GetScopeSelectorsFromQuota: spec.scopes as Exists requirements, then scopeSelector's. */
export function quotaScopes(quota: Obj): ScopeRequirement[] {
  const out: ScopeRequirement[] = [];
  for (const s of Array.isArray(quota?.spec?.scopes) ? quota.spec.scopes : []) out.push({ scopeName: String(s), operator: 'Exists' });
  const exprs = quota?.spec?.scopeSelector?.matchExpressions;
  for (const e of Array.isArray(exprs) ? exprs : []) {
    if (e && typeof e === 'object') out.push({ scopeName: String(e.scopeName), operator: String(e.operator), values: Array.isArray(e.values) ? e.values.map(String) : [] });
  }
  return out;
}

/** Whether the quota's scopes select the object: no scope selects everything; scopes select pods only. */
export function scopesMatch(type: ResourceType, quota: Obj, obj: Obj): boolean {
  const scopes = quotaScopes(quota);
  if (!scopes.length) return true;
  if (!isPodType(type)) return false;
  return scopes.every((s) => podMatchesScope(s, obj));
}

function podMatchesScope(s: ScopeRequirement, pod: Obj): boolean {
  const spec = (pod?.spec ?? {}) as Obj;
  switch (s.scopeName) {
    case 'Terminating':
      return typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0;
    case 'NotTerminating':
      return !(typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0);
    case 'BestEffort':
      return isBestEffort(pod);
    case 'NotBestEffort':
      return !isBestEffort(pod);
    case 'PriorityClass': {
      const name = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
      if (s.operator === 'Exists') return name !== '';
      if (s.operator === 'DoesNotExist') return name === '';
      if (s.operator === 'In') return (s.values ?? []).includes(name);
      if (s.operator === 'NotIn') return !(s.values ?? []).includes(name);
      return false;
    }
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespaceAffinity(spec);
    default:
      return false;
  }
}

/** qos.GetPodQOS == BestEffort: no container requests or limits cpu or memory. */
function isBestEffort(pod: Obj): boolean {
  const spec = (pod?.spec ?? {}) as Obj;
  for (const field of ['initContainers', 'containers']) {
    for (const c of Array.isArray(spec[field]) ? spec[field] : []) {
      const req = resourceMap(c?.resources?.requests);
      const lim = resourceMap(c?.resources?.limits);
      for (const k of ['cpu', 'memory']) if ((k in req && value(req[k]) !== 0) || (k in lim && value(lim[k]) !== 0)) return false;
    }
  }
  return true;
}

function usesCrossNamespaceAffinity(spec: Obj): boolean {
  const terms: Obj[] = [];
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = spec?.affinity?.[kind];
    for (const t of Array.isArray(a?.requiredDuringSchedulingIgnoredDuringExecution) ? a.requiredDuringSchedulingIgnoredDuringExecution : []) terms.push(t);
    for (const w of Array.isArray(a?.preferredDuringSchedulingIgnoredDuringExecution) ? a.preferredDuringSchedulingIgnoredDuringExecution : []) terms.push(w?.podAffinityTerm ?? {});
  }
  return terms.some((t) => (Array.isArray(t?.namespaces) && t.namespaces.length > 0) || t?.namespaceSelector !== undefined);
}

/** The usage of many objects, summed (the quota controller's recount). */
export function totalUsage(type: ResourceType, objects: Iterable<Obj>, names: string[], quota: Obj): ResourceList {
  let total: ResourceList = Object.fromEntries(names.map((n) => [n, '0']));
  const wanted = new Set(names);
  for (const obj of objects) {
    if (!scopesMatch(type, quota, obj)) continue;
    const u = usage(type, obj);
    total = addLists(total, Object.fromEntries(Object.entries(u).filter(([k]) => wanted.has(k))));
  }
  return total;
}
