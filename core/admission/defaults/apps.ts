// Canonical layer admission: apps/v1 defaulting (kubernetes pkg/apis/apps/v1/defaults.go) plus the
// status zero values the Go structs always serialize. Deployment and ReplicaSet templates are defaulted
// by the same podTemplate, so a deployment controller finds its ReplicaSet by template equality.

import { claimSpec, objectMetaZero, podTemplate } from './pod';
import { fill, fillString, isObject, objects, type Obj } from './fill';

function specOf(obj: Obj): Obj {
  if (!isObject(obj.spec)) obj.spec = {};
  return obj.spec;
}

/** A status whose Go struct has non-omitempty counters: those are always written, as 0. */
function statusZero(obj: Obj, counters: string[]): void {
  if (obj.status === undefined || obj.status === null) obj.status = {};
  if (!isObject(obj.status)) return;
  for (const c of counters) if (obj.status[c] === undefined) obj.status[c] = 0;
}

export function deployment(obj: Obj): void {
  const spec = specOf(obj);
  fill(spec, { replicas: 1 });
  if (!isObject(spec.strategy)) spec.strategy = {};
  fillString(spec.strategy, { type: 'RollingUpdate' });
  if (spec.strategy.type === 'RollingUpdate') {
    if (!isObject(spec.strategy.rollingUpdate)) spec.strategy.rollingUpdate = {};
    fill(spec.strategy.rollingUpdate, { maxUnavailable: '25%', maxSurge: '25%' });
  }
  fill(spec, { revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
  podTemplate(spec.template);
  statusZero(obj, []);
}

export function replicaSet(obj: Obj): void {
  const spec = specOf(obj);
  fill(spec, { replicas: 1 });
  podTemplate(spec.template);
  statusZero(obj, ['replicas']);
}

export function statefulSet(obj: Obj): void {
  const spec = specOf(obj);
  fillString(spec, { podManagementPolicy: 'OrderedReady' });
  if (!isObject(spec.updateStrategy)) spec.updateStrategy = {};
  const strategy = spec.updateStrategy;
  if (!strategy.type) {
    strategy.type = 'RollingUpdate';
    // Only an unset type brings a rollingUpdate block along; an explicit RollingUpdate keeps nil.
    if (!isObject(strategy.rollingUpdate)) strategy.rollingUpdate = {};
  }
  if (strategy.type === 'RollingUpdate' && isObject(strategy.rollingUpdate)) fill(strategy.rollingUpdate, { partition: 0 });
  // StatefulSetAutoDeletePVC (GA in 1.32).
  if (!isObject(spec.persistentVolumeClaimRetentionPolicy)) spec.persistentVolumeClaimRetentionPolicy = {};
  fillString(spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
  fill(spec, { replicas: 1, revisionHistoryLimit: 10 });
  podTemplate(spec.template);
  // Each claim template is a whole PersistentVolumeClaim: metadata, spec volumeMode, status phase Pending.
  for (const claim of objects(spec.volumeClaimTemplates)) {
    objectMetaZero(claim);
    if (!isObject(claim.spec)) claim.spec = {};
    claimSpec(claim.spec);
    if (!isObject(claim.status)) claim.status = {};
    fillString(claim.status, { phase: 'Pending' });
  }
  statusZero(obj, ['availableReplicas', 'replicas']);
}

export function daemonSet(obj: Obj): void {
  const spec = specOf(obj);
  if (!isObject(spec.updateStrategy)) spec.updateStrategy = {};
  fillString(spec.updateStrategy, { type: 'RollingUpdate' });
  if (spec.updateStrategy.type === 'RollingUpdate') {
    if (!isObject(spec.updateStrategy.rollingUpdate)) spec.updateStrategy.rollingUpdate = {};
    fill(spec.updateStrategy.rollingUpdate, { maxUnavailable: 1, maxSurge: 0 });
  }
  fill(spec, { revisionHistoryLimit: 10 });
  podTemplate(spec.template);
  statusZero(obj, ['currentNumberScheduled', 'desiredNumberScheduled', 'numberMisscheduled', 'numberReady']);
}

/** core/v1 SetDefaults_ReplicationController: selector and labels from the template's labels, 1 replica. */
export function replicationController(obj: Obj): void {
  const spec = specOf(obj);
  const templateLabels = isObject(spec.template) && isObject(spec.template.metadata) ? spec.template.metadata.labels : undefined;
  if (isObject(templateLabels) && Object.keys(templateLabels).length) {
    if (!isObject(spec.selector) || !Object.keys(spec.selector).length) spec.selector = { ...templateLabels };
    if (!isObject(obj.metadata.labels) || !Object.keys(obj.metadata.labels).length) obj.metadata.labels = { ...templateLabels };
  }
  fill(spec, { replicas: 1 });
  podTemplate(spec.template);
  statusZero(obj, ['replicas']);
}
