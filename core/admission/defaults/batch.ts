// Canonical layer admission: batch/v1 Job defaulting (kubernetes pkg/apis/batch/v1/defaults.go
// SetDefaults_Job) and the selector the Job strategy generates on create
// (pkg/registry/batch/job/strategy.go generateSelector).

import { podTemplate } from './pod';
import { fill, isObject, objects, type Obj } from './fill';

// batch/v1 types.go label keys.
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const LEGACY_JOB_NAME_LABEL = 'job-name';
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';

// math.MaxInt32: the backoffLimit when backoffLimitPerIndex governs retries instead.
const MAX_INT32 = 2147483647;

export function job(obj: Obj): void {
  if (!isObject(obj.spec)) obj.spec = {};
  const spec = obj.spec;
  if (isObject(spec.template)) generateSelector(obj, spec.template);
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  fill(spec, { parallelism: 1, backoffLimit: spec.backoffLimitPerIndex != null ? MAX_INT32 : 6 });
  // A Job without labels takes its template's (after the generated ones were added, as kube's response shows).
  const templateLabels = spec.template?.metadata?.labels;
  if (isObject(templateLabels) && !(isObject(obj.metadata.labels) && Object.keys(obj.metadata.labels).length)) {
    obj.metadata.labels = { ...templateLabels };
  }
  fill(spec, { completionMode: 'NonIndexed', suspend: false });
  if (isObject(spec.podFailurePolicy)) {
    for (const rule of objects(spec.podFailurePolicy.rules)) {
      for (const pattern of objects(rule.onPodConditions)) if (!pattern.status) pattern.status = 'True';
    }
  }
  // JobPodReplacementPolicy (beta, on in 1.32).
  fill(spec, { podReplacementPolicy: isObject(spec.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed' });
  fill(spec, { manualSelector: false });
  podTemplate(spec.template);
  if (obj.status === undefined || obj.status === null) obj.status = {};
}

/**
 * Unless the client manages the selector itself (manualSelector: true), the pods are labelled with the
 * job's name and uid and selected by the uid. Runs once the uid exists (create); on an update the
 * labels are already there and nothing changes.
 */
function generateSelector(obj: Obj, template: Obj): void {
  const uid = obj.metadata?.uid;
  if (spec(obj).manualSelector === true || !uid) return;
  if (!isObject(template.metadata)) template.metadata = {};
  if (!isObject(template.metadata.labels)) template.metadata.labels = {};
  const labels = template.metadata.labels;
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) labels[key] ??= obj.metadata.name;
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) labels[key] ??= uid;
  const s = spec(obj);
  if (!isObject(s.selector)) s.selector = {};
  if (!isObject(s.selector.matchLabels)) s.selector.matchLabels = {};
  s.selector.matchLabels[CONTROLLER_UID_LABEL] ??= uid;
}

const spec = (obj: Obj): Obj => obj.spec;
