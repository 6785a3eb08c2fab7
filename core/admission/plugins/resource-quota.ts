// Core: the ResourceQuota admission plugin as kube 1.32's (plugin/pkg/admission/resourcequota, its controller.go
// checkRequest), for creates and for updates of Services and claims (charged what they use beyond the old
// object): every quota of the namespace whose status.hard names a resource the object uses
// and whose scopes select it must have usage for those resources ("status unknown" until the quota controller
// has counted), a pod must state the requests/limits a cpu or memory quota limits ("must specify"), and the
// usage plus the object's must stay within hard ("exceeded quota", with kube's sorted name=value lists). The
// charge itself — status.used raised with the quota's resourceVersion as precondition — is made by the front
// door (worker/quota-charge.ts) from `quotaCharges`, so concurrent creates cannot both take the last unit.

import type { ResourceType } from '../../registry';
import type { KubeObject } from '../../object-meta';
import { admissionForbidden, missingInput, type AdmissionAttributes, type AdmissionPlugin } from '../attributes';
import { addLists, compare, resourceMap, show, usageBeyond, type ResourceList } from '../resource-lists';
import { matchingResources, scopesMatch, usage } from '../../quota/usage';

type Obj = Record<string, any>;

// The resources for which a pod's containers must each make an explicit request or limit (podEvaluator Constraints).
const VALIDATION_SET = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

export const resourceQuotaPlugin: AdmissionPlugin = {
  name: 'ResourceQuota',
  handles: (a) => a.subresource === '' && a.type.namespaced && (a.operation === 'CREATE' || chargedOnUpdate(a.type)),
  validate(a, inputs) {
    if (inputs.quotaCharged) return; // the front door charged this very object already
    const quotas = inputs.resourceQuotas;
    if (!quotas) throw missingInput('ResourceQuota', 'resource quotas');
    quotaCharges(a, quotas);
  },
};

/** The evaluators that handle updates in kube 1.32: services and claims (pods only with in-place resize, off in 1.32). */
export const chargedOnUpdate = (type: ResourceType): boolean => type.group === '' && (type.kind === 'Service' || type.kind === 'PersistentVolumeClaim');

/**
 * What the request adds: on a create the object's usage, on an update what the object uses beyond the old one
 * (kube charges an update only its increase: a Service becoming a LoadBalancer, a claim growing).
 */
export function usageDelta(a: AdmissionAttributes): ResourceList {
  const delta = usage(a.type, a.object as Obj);
  if (a.operation !== 'UPDATE') return delta;
  if (!a.oldObject?.metadata?.resourceVersion) return usageBeyond(delta, {});
  return usageBeyond(delta, usage(a.type, a.oldObject as Obj));
}

export interface QuotaCharge {
  quota: KubeObject;
  used: ResourceList; // status.used with this object's usage added
}

/** checkRequest: the charges the object makes, or kube's refusal (thrown). */
export function quotaCharges(a: AdmissionAttributes, quotas: readonly KubeObject[]): QuotaCharge[] {
  const obj = a.object as Obj;
  // The object's usage only once a quota limits it (kube's checkRequest returns at once without quotas): computing it
  // for every create was 2.9% of a store-only create's CPU (bench/profile.ts writes-64).
  let delta: ResourceList | undefined;
  const charges: QuotaCharge[] = [];
  if (a.operation === 'UPDATE') {
    if (!quotas.length) return charges;
    delta = usageDelta(a);
    if (!Object.keys(delta).length) return charges; // nothing more used: nothing to check
  }
  const ordered = [...quotas].sort((x, y) => ((x.metadata.name ?? '') < (y.metadata.name ?? '') ? -1 : 1));
  for (const quota of ordered) {
    const q = quota as Obj;
    const hard = resourceMap(q.status?.hard);
    const restricted = matchingResources(a.type, Object.keys(hard));
    if (!restricted.length || !scopesMatch(a.type, q, obj)) continue;
    const missing = constraintsError(a.type, obj, restricted);
    if (missing) throw admissionForbidden(a, `failed quota: ${quota.metadata.name}: ${missing}`);
    const used = resourceMap(q.status?.used);
    const unknown = restricted.filter((r) => !(r in used));
    if (unknown.length) throw admissionForbidden(a, `status unknown for quota: ${quota.metadata.name}, resources: ${[...unknown].sort().join(',')}`);
    delta ??= usageDelta(a);
    const requested = mask(delta, Object.keys(hard));
    if (!Object.keys(requested).length) continue;
    const newUsed = addLists(used, requested);
    const exceeded = Object.keys(requested).filter((k) => compare(newUsed[k], hard[k]) > 0);
    if (exceeded.length) {
      throw admissionForbidden(a, `exceeded quota: ${quota.metadata.name}, requested: ${pretty(mask(requested, exceeded))}, used: ${pretty(mask(used, exceeded))}, limited: ${pretty(mask(hard, exceeded))}`);
    }
    charges.push({ quota, used: newUsed });
  }
  return charges;
}

function mask(list: ResourceList, names: string[]): ResourceList {
  const keep = new Set(names);
  return Object.fromEntries(Object.entries(list).filter(([k]) => keep.has(k)));
}

/** prettyPrint: name=value, sorted by name, comma-separated. */
function pretty(list: ResourceList): string {
  return Object.keys(list).sort().map((k) => `${k}=${show(list[k])}`).join(',');
}

/** podEvaluator.Constraints: each container must name every cpu/memory resource a quota limits. */
function constraintsError(type: ResourceType, pod: Obj, restricted: string[]): string | undefined {
  if (!(type.group === '' && type.kind === 'Pod')) return undefined;
  const required = restricted.filter((r) => VALIDATION_SET.has(r));
  if (!required.length) return undefined;
  const missing = new Map<string, Set<string>>();
  const spec = (pod.spec ?? {}) as Obj;
  for (const field of ['containers', 'initContainers']) {
    for (const c of Array.isArray(spec[field]) ? spec[field] : []) {
      const req = resourceMap(c?.resources?.requests);
      const lim = resourceMap(c?.resources?.limits);
      const has = new Set<string>();
      for (const k of ['cpu', 'memory']) {
        if (k in req) has.add(k).add(`requests.${k}`);
        if (k in lim) has.add(`limits.${k}`);
      }
      for (const r of required) {
        if (has.has(r)) continue;
        if (!missing.has(r)) missing.set(r, new Set());
        missing.get(r)!.add(String(c?.name ?? ''));
      }
    }
  }
  if (!missing.size) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}
