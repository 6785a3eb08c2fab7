// Core: the LimitRanger admission plugin as kube 1.32's (plugin/pkg/admission/limitranger/admission.go), for pods
// on create (pod specs' resources are immutable, so kube skips updates): Admit fills each container's missing
// requests and limits from the namespace's LimitRanges (type Container: defaultRequest, default) and records what
// it set in the kubernetes.io/limit-ranger annotation; Validate refuses a pod outside a range's min, max or
// maxLimitRequestRatio, per container and for the pod as a whole, with kube's messages (the first failing
// LimitRange's errors, aggregated).

import { limitRange as defaultLimitRange } from '../defaults/core';
import { admissionForbidden, isPod, missingInput, type AdmissionPlugin } from '../attributes';
import { podResources, quantity, resourceMap, show, type ResourceList } from '../resource-lists';
import { compareQuantity, milliValue, value } from '../../quantity';
import type { KubeObject } from '../../object-meta';

type Obj = Record<string, any>;
const ANNOTATION = 'kubernetes.io/limit-ranger';
// resource.MaxMilliValue: values up to this compare in thousandths.
const MAX_MILLI_VALUE = Number.MAX_SAFE_INTEGER / 1000; // int64 max / 1000 in Go; doubles keep exactness below 2^53

export const limitRangerPlugin: AdmissionPlugin = {
  name: 'LimitRanger',
  handles: (a) => isPod(a) && a.subresource === '' && a.operation === 'CREATE',
  admit(a, inputs) {
    const ranges = inputs.limitRanges;
    if (!ranges) throw missingInput('LimitRanger', 'limit ranges');
    for (const range of ranges) defaultResources(a.object as Obj, normalized(range));
  },
  validate(a, inputs) {
    const ranges = inputs.limitRanges;
    if (!ranges) throw missingInput('LimitRanger', 'limit ranges');
    for (const range of ranges) {
      const errors = podLimitErrors(normalized(range), a.object as Obj);
      if (errors.length) throw admissionForbidden(a, aggregate(errors));
    }
  },
};

/** The range with v1 defaults applied (stored ones already have them; kube's informer objects do too). */
function normalized(range: KubeObject): Obj {
  const copy = structuredClone(range) as Obj;
  defaultLimitRange(copy);
  return copy;
}

function items(range: Obj): Obj[] {
  const limits = range.spec?.limits;
  return Array.isArray(limits) ? limits.filter((l) => l && typeof l === 'object') : [];
}

function containers(spec: Obj, field: string): Obj[] {
  const v = spec?.[field];
  return Array.isArray(v) ? v.filter((c) => c && typeof c === 'object') : [];
}

function defaultResources(pod: Obj, range: Obj): void {
  const requests: ResourceList = {};
  const limits: ResourceList = {};
  for (const item of items(range)) {
    if (item.type !== 'Container') continue;
    Object.assign(requests, resourceMap(item.defaultRequest));
    Object.assign(limits, resourceMap(item.default));
  }
  if (!Object.keys(requests).length && !Object.keys(limits).length) return;
  const notes: string[] = [];
  const spec = (pod.spec ?? {}) as Obj;
  for (const c of containers(spec, 'containers')) merge(c, requests, limits, 'container', notes);
  for (const c of containers(spec, 'initContainers')) merge(c, requests, limits, 'init container', notes);
  if (notes.length) {
    pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [ANNOTATION]: 'LimitRanger plugin set: ' + notes.join('; ') };
  }
}

function merge(c: Obj, requests: ResourceList, limits: ResourceList, label: string, notes: string[]): void {
  const resources = (c.resources = c.resources && typeof c.resources === 'object' ? c.resources : {});
  const own = { limits: resourceMap(resources.limits), requests: resourceMap(resources.requests) };
  const setLimits = Object.keys(limits).filter((k) => !(k in own.limits)).sort();
  const setRequests = Object.keys(requests).filter((k) => !(k in own.requests)).sort();
  if (setLimits.length) resources.limits = { ...(resources.limits ?? {}), ...Object.fromEntries(setLimits.map((k) => [k, limits[k]])) };
  if (setRequests.length) resources.requests = { ...(resources.requests ?? {}), ...Object.fromEntries(setRequests.map((k) => [k, requests[k]])) };
  if (setRequests.length) notes.push(`${setRequests.join(', ')} request for ${label} ${c.name ?? ''}`);
  if (setLimits.length) notes.push(`${setLimits.join(', ')} limit for ${label} ${c.name ?? ''}`);
}

/** PodValidateLimitFunc: every Container item against each container, every Pod item against the pod's totals. */
export function podLimitErrors(range: Obj, pod: Obj): string[] {
  const errors: string[] = [];
  const spec = (pod.spec ?? {}) as Obj;
  for (const item of items(range)) {
    if (item.type === 'Container') {
      for (const field of ['containers', 'initContainers']) {
        for (const c of containers(spec, field)) {
          check(item, 'Container', resourceMap(c.resources?.requests), resourceMap(c.resources?.limits), errors);
        }
      }
    } else if (item.type === 'Pod') {
      check(item, 'Pod', podResources(pod, 'requests'), podResources(pod, 'limits'), errors);
    }
  }
  return errors;
}

function check(item: Obj, limitType: string, requests: ResourceList, limits: ResourceList, errors: string[]): void {
  // Go ranges over maps in no order; sorted here, so a refusal reads the same every time.
  for (const [k, v] of sorted(item.min)) {
    const e = minConstraint(limitType, k, v, requests, limits);
    if (e) errors.push(e);
  }
  for (const [k, v] of sorted(item.max)) {
    const e = maxConstraint(limitType, k, v, requests, limits);
    if (e) errors.push(e);
  }
  for (const [k, v] of sorted(item.maxLimitRequestRatio)) {
    const e = ratioConstraint(limitType, k, v, requests, limits);
    if (e) errors.push(e);
  }
}

function sorted(v: unknown): [string, string][] {
  return Object.entries(resourceMap(v)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function minConstraint(limitType: string, name: string, enforced: string, requests: ResourceList, limits: ResourceList): string | undefined {
  const has = { req: name in requests, lim: name in limits };
  if (!has.req) return `minimum ${name} usage per ${limitType} is ${show(enforced)}.  No request is specified`;
  if (compareQuantity(quantity(requests[name]), quantity(enforced)) < 0) return `minimum ${name} usage per ${limitType} is ${show(enforced)}, but request is ${show(requests[name])}`;
  if (has.lim && compareQuantity(quantity(limits[name]), quantity(enforced)) < 0) return `minimum ${name} usage per ${limitType} is ${show(enforced)}, but limit is ${show(limits[name])}`;
  return undefined;
}

function maxConstraint(limitType: string, name: string, enforced: string, requests: ResourceList, limits: ResourceList): string | undefined {
  const has = { req: name in requests, lim: name in limits };
  if (!has.lim) return `maximum ${name} usage per ${limitType} is ${show(enforced)}.  No limit is specified`;
  if (compareQuantity(quantity(limits[name]), quantity(enforced)) > 0) return `maximum ${name} usage per ${limitType} is ${show(enforced)}, but limit is ${show(limits[name])}`;
  if (has.req && compareQuantity(quantity(requests[name]), quantity(enforced)) > 0) return `maximum ${name} usage per ${limitType} is ${show(enforced)}, but request is ${show(requests[name])}`;
  return undefined;
}

function ratioConstraint(limitType: string, name: string, enforced: string, requests: ResourceList, limits: ResourceList): string | undefined {
  const [req, lim] = compared(requests[name], limits[name], enforced);
  if (!(name in requests) || req === 0) return `${name} max limit to request ratio per ${limitType} is ${show(enforced)}, but no request is specified or request is 0`;
  if (!(name in limits) || lim === 0) return `${name} max limit to request ratio per ${limitType} is ${show(enforced)}, but no limit is specified or limit is 0`;
  const observed = lim / req;
  const enforcedValue = value(enforced);
  const over = enforcedValue <= MAX_MILLI_VALUE ? observed * 1000 > milliValue(enforced) : observed > enforcedValue;
  if (over) return `${name} max limit to request ratio per ${limitType} is ${show(enforced)}, but provided ratio is ${observed.toFixed(6)}`;
  return undefined;
}

/** requestLimitEnforcedValues: thousandths when all three fit, else whole units. */
function compared(request: string | undefined, limit: string | undefined, enforced: string): [number, number] {
  const r = value(request ?? '0');
  const l = value(limit ?? '0');
  const e = value(enforced);
  if (r <= MAX_MILLI_VALUE && l <= MAX_MILLI_VALUE && e <= MAX_MILLI_VALUE) return [milliValue(request ?? '0'), milliValue(limit ?? '0')];
  return [r, l];
}

/** utilerrors.NewAggregate(...).Error(): one message as is, several in brackets, duplicates once. */
export function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

