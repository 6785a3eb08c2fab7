// Canonical layer: the update strategies of the subresources that replace one part of an object — a pod's
// ephemeral containers (pkg/registry/core/pod/strategy.go podEphemeralContainersStrategy) and a
// CertificateSigningRequest's approval (pkg/registry/certificates/certificates/strategy.go
// csrApprovalStrategy). Each keeps the stored object and takes only its part from the request, then validates
// that part as kube does. core/strategies/subresource-updates.ts puts them in the types' strategies.

import type { ResourceType } from './registry';
import { sameJson, timestamp, type KubeObject } from './object-meta';
import type { StatusCause } from './status';

type Obj = Record<string, any>;

export interface SubresourceStrategy {
  /** The object to store: `current` with the subresource's part taken from `next`. */
  merge(current: KubeObject, next: KubeObject, now: number): KubeObject;
  /** kube's ValidateUpdate for the subresource (after the metadata checks), in kube's order. */
  validate(merged: KubeObject, current: KubeObject): StatusCause[];
}

// ---- pods/ephemeralcontainers ----

const asList = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x) => x && typeof x === 'object') : []);

/** dropNonEphemeralContainerUpdates: the stored pod, only spec.ephemeralContainers (and the resourceVersion) new. */
function mergeEphemeral(current: KubeObject, next: KubeObject): KubeObject {
  const merged = structuredClone(current) as Obj;
  merged.metadata.resourceVersion = next.metadata?.resourceVersion;
  const containers = (next as Obj).spec?.ephemeralContainers;
  merged.spec ??= {};
  if (containers === undefined || containers === null) delete merged.spec.ephemeralContainers;
  else merged.spec.ephemeralContainers = containers;
  return merged as KubeObject;
}

// Fields an ephemeral container may not set (validateEphemeralContainers: ports, probes, lifecycle, resources, resizePolicy).
const EPHEMERAL_FORBIDDEN = ['ports', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle', 'resources', 'resizePolicy', 'restartPolicy'];

/**
 * validateFieldAllowList compares each field with its Go zero value: nil for the pointers and slices, and for
 * `resources` (a struct, which kubectl debug sends as `{}`) a value whose limits, requests and claims are all unset.
 */
function isZero(field: string, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (field !== 'resources' || typeof v !== 'object' || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  return ['limits', 'requests', 'claims'].every((k) => r[k] === undefined || r[k] === null);
}

/**
 * ValidatePodEphemeralContainersUpdate: each new container named, with an image, a name no other container of the
 * pod has, none of the fields only regular containers have; existing ones neither removed nor changed.
 */
function validateEphemeral(merged: KubeObject, current: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = (merged as Obj).spec ?? {};
  const old = asList((current as Obj).spec?.ephemeralContainers);
  const now = asList(spec.ephemeralContainers);
  const regular = new Set([...asList(spec.containers), ...asList(spec.initContainers)].map((c) => c.name));
  const seen = new Set<string>();
  now.forEach((c, i) => {
    const path = `spec.ephemeralContainers[${i}]`;
    const name = typeof c.name === 'string' ? c.name : '';
    if (!name) causes.push({ reason: 'FieldValueRequired', field: `${path}.name`, message: 'Required value' });
    else if (seen.has(name) || regular.has(name)) causes.push({ reason: 'FieldValueDuplicate', field: `${path}.name`, message: `Duplicate value: ${JSON.stringify(name)}` });
    seen.add(name);
    if (!c.image) causes.push({ reason: 'FieldValueRequired', field: `${path}.image`, message: 'Required value' });
    for (const f of EPHEMERAL_FORBIDDEN) {
      if (!isZero(f, c[f])) causes.push({ reason: 'FieldValueForbidden', field: `${path}.${f}`, message: 'Forbidden: cannot be set for an Ephemeral Container' });
    }
  });
  const byName = new Map(now.map((c) => [c.name, c]));
  for (const c of old) {
    const after = byName.get(c.name);
    if (!after) {
      causes.push({ reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers', message: `Forbidden: existing ephemeral containers ${JSON.stringify(c.name)} may not be removed\n` });
    } else if (!sameJson(after, c)) {
      causes.push({ reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers', message: `Forbidden: existing ephemeral containers ${JSON.stringify(c.name)} may not be changed\n` });
    }
  }
  return causes;
}

// ---- certificatesigningrequests/approval ----

/**
 * csrApprovalStrategy PrepareForUpdate: spec and everything but status.conditions kept; the conditions' times
 * filled in (populateConditionTimestamps): lastUpdateTime now when unset, lastTransitionTime the old condition's
 * when its status did not change, else now.
 */
function mergeApproval(current: KubeObject, next: KubeObject, now: number): KubeObject {
  const merged = structuredClone(current) as Obj;
  merged.metadata.resourceVersion = next.metadata?.resourceVersion;
  const conditions = asList((next as Obj).status?.conditions).map((c) => ({ ...c }));
  const old = new Map(asList((current as Obj).status?.conditions).map((c) => [c.type, c]));
  for (const c of conditions) {
    if (!c.lastUpdateTime) c.lastUpdateTime = timestamp(now);
    if (!c.lastTransitionTime) {
      const before = old.get(c.type);
      c.lastTransitionTime = before && before.status === c.status && before.lastTransitionTime ? before.lastTransitionTime : timestamp(now);
    }
  }
  merged.status ??= {};
  if (conditions.length) merged.status.conditions = conditions;
  else delete merged.status.conditions;
  return merged as KubeObject;
}

/** validateConditions (certificates validation): Approved and Denied exclude each other; types appear once. */
function validateApproval(merged: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const conditions = asList((merged as Obj).status?.conditions);
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditions.forEach((c, i) => {
    const path = `status.conditions[${i}]`;
    if (!c.type) causes.push({ reason: 'FieldValueRequired', field: `${path}.type`, message: 'Required value' });
    if (c.type === 'Approved' || c.type === 'Denied' || c.type === 'Failed') {
      if (seen.has(c.type)) causes.push({ reason: 'FieldValueDuplicate', field: `${path}.type`, message: `Duplicate value: ${JSON.stringify(c.type)}` });
      seen.add(c.type);
    }
    if (c.type === 'Approved') {
      approved = true;
      if (c.status !== 'True') causes.push({ reason: 'FieldValueNotSupported', field: `${path}.status`, message: `Unsupported value: ${JSON.stringify(c.status ?? '')}: supported values: "True"` });
    }
    if (c.type === 'Denied') {
      denied = true;
      if (c.status !== 'True') causes.push({ reason: 'FieldValueNotSupported', field: `${path}.status`, message: `Unsupported value: ${JSON.stringify(c.status ?? '')}: supported values: "True"` });
      if (approved) causes.push({ reason: 'FieldValueInvalid', field: `${path}.type`, message: `Invalid value: "Denied": Approved and Denied conditions are mutually exclusive` });
    }
    if (c.type === 'Approved' && denied) {
      causes.push({ reason: 'FieldValueInvalid', field: `${path}.type`, message: `Invalid value: "Approved": Approved and Denied conditions are mutually exclusive` });
    }
  });
  return causes;
}

/** The strategy of `type`'s `subresource`, when it has one of its own (not status, scale or finalize). */
export function subresourceStrategy(type: Pick<ResourceType, 'group' | 'kind'>, subresource: string): SubresourceStrategy | undefined {
  if (subresource === 'ephemeralcontainers' && type.group === '' && type.kind === 'Pod') {
    return { merge: mergeEphemeral, validate: validateEphemeral };
  }
  if (subresource === 'approval' && type.group === 'certificates.k8s.io' && type.kind === 'CertificateSigningRequest') {
    return { merge: mergeApproval, validate: validateApproval };
  }
  return undefined;
}
