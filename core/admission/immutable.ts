// Canonical layer admission: fields an update may not change (kube validation's
// ValidateImmutableField and friends), by kind. A change answers 422 Invalid, as kube-apiserver does.

import type { KubeObject } from '../object-meta';
import { sameJson } from '../object-meta';
import type { StatusCause } from '../status';
import { roleRefViolations } from '../rbac/role-ref';

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
  causes.push(...roleRefViolations(kind, old, next));
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
