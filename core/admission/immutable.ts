// Canonical layer admission: fields an update may not change (kube validation's
// ValidateImmutableField and friends), by kind. A change answers 422 Invalid, as kube-apiserver does.

import type { KubeObject } from '../object-meta';
import { sameJson } from '../object-meta';
import type { StatusCause } from '../status';
import { roleRefViolations } from '../rbac/role-ref';
import { compareQuantity, parseQuantity, type Quantity } from '../quantity';

type Obj = Record<string, any>;

const at = (obj: Obj, path: string) => path.split('.').reduce<any>((o, k) => (o == null ? undefined : o[k]), obj);
const IMMUTABLE = 'field is immutable';

/** Paths that never change after create, per kind. */
const FIXED: Record<string, string[]> = {
  Deployment: ['spec.selector'],
  ReplicaSet: ['spec.selector'],
  DaemonSet: ['spec.selector'],
  StatefulSet: ['spec.selector', 'spec.serviceName', 'spec.podManagementPolicy', 'spec.volumeClaimTemplates'],
  Job: ['spec.selector', 'spec.completionMode'],
};

export function immutableViolations(kind: string, old: KubeObject, next: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const path of FIXED[kind] ?? []) {
    const before = at(old, path);
    if (before !== undefined && !sameJson(before, at(next, path))) {
      causes.push({ reason: 'FieldValueInvalid', field: path, message: `Invalid value: ${JSON.stringify(at(next, path) ?? null)}: ${IMMUTABLE}` });
    }
  }
  // ConfigMaps and Secrets marked immutable keep their data and the mark (core validation.go).
  if ((kind === 'ConfigMap' || kind === 'Secret') && old.immutable === true) {
    for (const field of ['data', 'binaryData', 'immutable']) {
      if (!sameJson(old[field], next[field])) {
        causes.push({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${IMMUTABLE} when \`immutable\` is set` });
      }
    }
  }
  if (kind === 'Pod' && !sameJson(withoutMutablePodFields(old.spec as Obj), withoutMutablePodFields(next.spec as Obj))) {
    causes.push({
      reason: 'FieldValueForbidden', field: 'spec',
      message: 'Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
    });
  }
  if (kind === 'PersistentVolumeClaim') causes.push(...claimViolations(old as Obj, next as Obj));
  causes.push(...roleRefViolations(kind, old, next));
  return causes;
}

const BETA_CLASS = 'volume.beta.kubernetes.io/storage-class';

function storageOf(list: unknown): Quantity | undefined {
  const v = (list as Obj | undefined)?.storage;
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  try {
    return parseQuantity(String(v));
  } catch {
    return undefined;
  }
}

/**
 * ValidatePersistentVolumeClaimUpdate (kube 1.32, RecoverVolumeExpansionFailure on): the spec is fixed but for
 * volumeName set once, a class set where there was none (retroactive default class), and, for a bound claim, the
 * storage request; that request may shrink only while it stays above status.capacity.
 */
function claimViolations(old: Obj, next: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const before = structuredClone(old.spec ?? {}) as Obj;
  const after = structuredClone(next.spec ?? {}) as Obj;
  if (!before.volumeName) before.volumeName = after.volumeName;
  const oldBeta = old.metadata?.annotations?.[BETA_CLASS];
  const newBeta = next.metadata?.annotations?.[BETA_CLASS];
  if (oldBeta !== newBeta) {
    causes.push({ reason: 'FieldValueInvalid', field: `metadata.annotations[${BETA_CLASS}]`, message: `Invalid value: ${JSON.stringify(newBeta ?? '')}: ${IMMUTABLE}` });
  } else if (oldBeta === undefined && before.storageClassName == null && after.storageClassName != null) {
    after.storageClassName = before.storageClassName;
  }
  if (next.status?.phase === 'Bound' && after.resources?.requests) {
    after.resources.requests.storage = before.resources?.requests?.storage;
    if (after.resources.requests.storage === undefined) delete after.resources.requests.storage;
  }
  if (!sameJson(before, after)) {
    causes.push({ reason: 'FieldValueForbidden', field: 'spec', message: 'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims' });
  }
  const newSize = storageOf(next.spec?.resources?.requests);
  const oldSize = storageOf(old.spec?.resources?.requests);
  if (newSize && oldSize && compareQuantity(newSize, oldSize) < 0) {
    const capacity = storageOf(old.status?.capacity) ?? parseQuantity('0');
    if (compareQuantity(newSize, capacity) <= 0) {
      causes.push({ reason: 'FieldValueForbidden', field: 'spec.resources.requests.storage', message: 'Forbidden: field can not be less than status.capacity' });
    }
  }
  return causes;
}

// Pods: images, activeDeadlineSeconds and tolerations may change; so may the node binding, set once by
// the scheduler through the binding subresource (not modelled here), so an unset nodeName may be filled.
function withoutMutablePodFields(spec: Obj | undefined): Obj {
  const s = structuredClone(spec ?? {});
  for (const c of [...(s.containers ?? []), ...(s.initContainers ?? [])]) delete c.image;
  delete s.activeDeadlineSeconds;
  delete s.tolerations;
  delete s.nodeName;
  return s;
}
