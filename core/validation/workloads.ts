// Core: apps/v1 and batch/v1 workload validation with kube-apiserver's (v1.32) messages and order, after
// pkg/apis/apps/validation (ValidateDeployment, ValidateReplicaSet, ValidateStatefulSet, ValidateDaemonSet)
// and pkg/apis/batch/validation (ValidateJob). Defaulted fields read with their defaults when absent.
import { goIntOrString, goLabelSelector, goStatefulSetRollingUpdate, goStrategy, goStringMap } from './go-values';
import {
  forbidden, invalidValue, isDNS1123Subdomain, notSupported, regexError, required, validateAnnotations, validateLabels,
} from './names';
import { validateIndexedHostname, validateIndexLimits, validateJobSpecUpdate, validateSuccessAndReplacement } from './job';
import { validatePodTemplate } from './pod';
import { selectorIsEmpty, selectorMatches, validateLabelSelector } from './selector';
import { Causes, isObj, type Obj } from './shape';

const MISMATCH = '`selector` does not match template `labels`';

function nonNegative(v: Causes, value: number | undefined, path: string): void {
  if (value !== undefined && value < 0) v.add(invalidValue(path, value, 'must be greater than or equal to 0'));
}

/** An int32 field defaulted to `dflt` when absent. */
function intField(v: Causes, spec: Obj, field: string, path: string, dflt?: number): number | undefined {
  return spec[field] === undefined ? dflt : v.int(spec[field], `${path}.${field}`);
}

interface Template {
  obj: Obj | undefined;
  labels: unknown;
  restartPolicy: string | undefined; // undefined: of the wrong type (already reported)
  hasActiveDeadline: boolean;
}

function readTemplate(v: Causes, spec: Obj, path: string): Template {
  const obj = v.obj(spec.template, `${path}.template`);
  const meta = obj && typeof obj.metadata === 'object' && obj.metadata !== null ? (obj.metadata as Obj) : {};
  const podSpec = obj && typeof obj.spec === 'object' && obj.spec !== null ? (obj.spec as Obj) : {};
  const rp = podSpec.restartPolicy === undefined ? 'Always' : typeof podSpec.restartPolicy === 'string' ? podSpec.restartPolicy : undefined;
  return { obj, labels: meta.labels, restartPolicy: rp, hasActiveDeadline: podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null };
}

/** The selector block shared by Deployment, ReplicaSet and StatefulSet. */
function requiredSelector(v: Causes, spec: Obj, path: string, what: string): Obj | undefined {
  const sel = v.obj(spec.selector, `${path}.selector`);
  if (spec.selector === undefined || spec.selector === null) {
    v.add(required(`${path}.selector`));
  } else if (sel) {
    validateLabelSelector(v, sel, `${path}.selector`);
    if (selectorIsEmpty(sel)) v.add(invalidValue(`${path}.selector`, goLabelSelector(sel), `empty selector is invalid for ${what}`));
  }
  return sel;
}

/** The label match of ValidatePodTemplateSpecForReplicaSet/StatefulSet: skipped for an empty selector. */
function checkMatch(v: Causes, raw: unknown, sel: Obj | undefined, t: Template, path: string): void {
  if (sel && selectorIsEmpty(sel)) return;
  if (raw !== undefined && raw !== null && !sel) return; // of the wrong type, already reported
  if (selectorMatches(sel, t.labels) === false) v.add(invalidValue(`${path}.template.metadata.labels`, goStringMap(t.labels), MISMATCH));
}

function alwaysRestart(v: Causes, t: Template, path: string): void {
  if (t.restartPolicy !== undefined && t.restartPolicy !== 'Always') {
    v.add(notSupported(`${path}.template.spec.restartPolicy`, t.restartPolicy, ['Always']));
  }
}

/** ValidatePodTemplateSpecForReplicaSet. */
function replicaSetTemplate(v: Causes, spec: Obj, sel: Obj | undefined, path: string, owner: string): void {
  const t = readTemplate(v, spec, path);
  checkMatch(v, spec.selector, sel, t, path);
  validatePodTemplate(v, t.obj, `${path}.template`);
  alwaysRestart(v, t, path);
  if (t.hasActiveDeadline) v.add(forbidden(`${path}.template.spec.activeDeadlineSeconds`, `activeDeadlineSeconds in ${owner} is not Supported`));
}

export function validateDeployment(v: Causes, obj: Obj): void {
  const path = 'spec';
  const spec = v.obj(obj.spec, path) ?? {};
  nonNegative(v, intField(v, spec, 'replicas', path, 1), `${path}.replicas`);
  const sel = requiredSelector(v, spec, path, 'deployment');
  replicaSetTemplate(v, spec, sel, path, 'ReplicaSet');
  validateDeploymentStrategy(v, spec.strategy, `${path}.strategy`);
  const minReady = intField(v, spec, 'minReadySeconds', path, 0);
  nonNegative(v, minReady, `${path}.minReadySeconds`);
  nonNegative(v, intField(v, spec, 'revisionHistoryLimit', path), `${path}.revisionHistoryLimit`);
  const pds = intField(v, spec, 'progressDeadlineSeconds', path, 600);
  if (pds !== undefined) {
    nonNegative(v, pds, `${path}.progressDeadlineSeconds`);
    if (pds <= (minReady ?? 0)) v.add(invalidValue(`${path}.progressDeadlineSeconds`, pds, 'must be greater than minReadySeconds'));
  }
}

function validateDeploymentStrategy(v: Causes, raw: unknown, path: string): void {
  const strategy = v.obj(raw, path) ?? {};
  const type = strategy.type === undefined ? 'RollingUpdate' : v.str(strategy.type, `${path}.type`);
  if (type === undefined) return;
  const ru = strategy.rollingUpdate;
  if (type === 'Recreate') {
    if (ru !== undefined && ru !== null) v.add(forbidden(`${path}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'"));
  } else if (type === 'RollingUpdate') {
    const r = v.obj(ru, `${path}.rollingUpdate`) ?? {};
    const p = `${path}.rollingUpdate`;
    const maxUnavailable = r.maxUnavailable === undefined ? '25%' : v.intOrString(r.maxUnavailable, `${p}.maxUnavailable`);
    const maxSurge = r.maxSurge === undefined ? '25%' : v.intOrString(r.maxSurge, `${p}.maxSurge`);
    positiveIntOrPercent(v, maxUnavailable, `${p}.maxUnavailable`);
    positiveIntOrPercent(v, maxSurge, `${p}.maxSurge`);
    if (maxUnavailable !== undefined && maxSurge !== undefined && intOrPercentValue(maxUnavailable) === 0 && intOrPercentValue(maxSurge) === 0) {
      v.add(invalidValue(`${p}.maxUnavailable`, goIntOrString(maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
    }
    notMoreThan100Percent(v, maxUnavailable, `${p}.maxUnavailable`);
  } else {
    v.add(notSupported(path, goStrategy('DeploymentStrategy', 'RollingUpdateDeployment', type, ru), ['Recreate', 'RollingUpdate']));
  }
}

const PERCENT = /^[0-9]+%$/;

function positiveIntOrPercent(v: Causes, value: number | string | undefined, path: string): void {
  if (typeof value === 'string') {
    if (!PERCENT.test(value)) {
      v.add(invalidValue(path, goIntOrString(value), regexError("a valid percent string must be a numeric string followed by an ending '%'", '[0-9]+%', '1%', '93%')));
    }
  } else if (typeof value === 'number') {
    nonNegative(v, value, path);
  }
}

function percentValue(value: number | string | undefined): number | undefined {
  return typeof value === 'string' && PERCENT.test(value) ? Number(value.slice(0, -1)) : undefined;
}

/** getIntOrPercentValue: a percentage's number, an int's value, 0 for anything else. */
function intOrPercentValue(value: number | string): number {
  const pct = percentValue(value);
  if (pct !== undefined) return pct;
  return typeof value === 'number' ? value : 0;
}

function notMoreThan100Percent(v: Causes, value: number | string | undefined, path: string): void {
  const pct = percentValue(value);
  if (pct !== undefined && pct > 100) v.add(invalidValue(path, goIntOrString(value!), 'must not be greater than 100%'));
}

export function validateReplicaSet(v: Causes, obj: Obj): void {
  const path = 'spec';
  const spec = v.obj(obj.spec, path) ?? {};
  nonNegative(v, intField(v, spec, 'replicas', path, 1), `${path}.replicas`);
  nonNegative(v, intField(v, spec, 'minReadySeconds', path, 0), `${path}.minReadySeconds`);
  // kube's ReplicaSet message says "deployment" too (the code was copied).
  const sel = requiredSelector(v, spec, path, 'deployment');
  replicaSetTemplate(v, spec, sel, path, 'ReplicaSet');
}

export function validateStatefulSet(v: Causes, obj: Obj): void {
  const path = 'spec';
  const spec = v.obj(obj.spec, path) ?? {};
  const pmp = spec.podManagementPolicy === undefined ? 'OrderedReady' : v.str(spec.podManagementPolicy, `${path}.podManagementPolicy`);
  if (pmp === '') v.add(required(`${path}.podManagementPolicy`));
  else if (pmp !== undefined && pmp !== 'OrderedReady' && pmp !== 'Parallel') {
    v.add(invalidValue(`${path}.podManagementPolicy`, pmp, "must be 'OrderedReady' or 'Parallel'"));
  }
  const us = v.obj(spec.updateStrategy, `${path}.updateStrategy`) ?? {};
  const usType = us.type === undefined ? 'RollingUpdate' : v.str(us.type, `${path}.updateStrategy.type`);
  const ru = us.rollingUpdate;
  if (usType === '') v.add(required(`${path}.updateStrategy`));
  else if (usType === 'OnDelete') {
    const r = v.obj(ru, `${path}.updateStrategy.rollingUpdate`);
    if (r) v.add(invalidValue(`${path}.updateStrategy.rollingUpdate`, goStatefulSetRollingUpdate(r), "only allowed for updateStrategy 'RollingUpdate'"));
  } else if (usType === 'RollingUpdate') {
    const r = v.obj(ru, `${path}.updateStrategy.rollingUpdate`);
    if (r) {
      const p = `${path}.updateStrategy.rollingUpdate`;
      nonNegative(v, intField(v, r, 'partition', p), `${p}.partition`);
      const mu = r.maxUnavailable === undefined ? undefined : v.intOrString(r.maxUnavailable, `${p}.maxUnavailable`);
      if (mu !== undefined) {
        positiveIntOrPercent(v, mu, `${p}.maxUnavailable`);
        if (intOrPercentValue(mu) === 0) v.add(invalidValue(`${p}.maxUnavailable`, goIntOrString(mu), 'cannot be 0'));
        notMoreThan100Percent(v, mu, `${p}.maxUnavailable`);
      }
    }
  } else if (usType !== undefined) {
    const shown = goStrategy('StatefulSetUpdateStrategy', 'RollingUpdateStatefulSetStrategy', usType, ru);
    v.add(invalidValue(`${path}.updateStrategy`, shown, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = v.obj(spec.persistentVolumeClaimRetentionPolicy, `${path}.persistentVolumeClaimRetentionPolicy`);
  if (retention) {
    for (const field of ['whenDeleted', 'whenScaled']) {
      const p = `${path}.persistentVolumeClaimRetentionPolicy.${field}`;
      const value = retention[field] === undefined ? 'Retain' : v.str(retention[field], p);
      if (value !== undefined && value !== 'Retain' && value !== 'Delete') v.add(notSupported(p, value, ['Retain', 'Delete']));
    }
  }
  nonNegative(v, intField(v, spec, 'replicas', path, 1), `${path}.replicas`);
  nonNegative(v, intField(v, spec, 'minReadySeconds', path, 0), `${path}.minReadySeconds`);
  const ordinals = v.obj(spec.ordinals, `${path}.ordinals`);
  if (ordinals) nonNegative(v, intField(v, ordinals, 'start', `${path}.ordinals`, 0), `${path}.ordinals.start`);
  const sel = requiredSelector(v, spec, path, 'statefulset');
  // ValidatePodTemplateSpecForStatefulSet: the match, the template's labels and annotations. kube does
  // not validate a StatefulSet's pod spec (a TODO upstream), only its restartPolicy and deadline.
  const t = readTemplate(v, spec, path);
  checkMatch(v, spec.selector, sel, t, path);
  const meta = t.obj && typeof t.obj.metadata === 'object' && t.obj.metadata !== null ? (t.obj.metadata as Obj) : {};
  v.add(...labelsAndAnnotations(meta, `${path}.template`));
  alwaysRestart(v, t, path);
  if (t.hasActiveDeadline) v.add(forbidden(`${path}.template.spec.activeDeadlineSeconds`, 'activeDeadlineSeconds in StatefulSet is not Supported'));
  validateClaimTemplates(v, spec.volumeClaimTemplates, `${path}.volumeClaimTemplates`);
}

function labelsAndAnnotations(meta: Obj, path: string) {
  return [...validateLabels(meta.labels, `${path}.labels`), ...validateAnnotations(meta.annotations, `${path}.annotations`)];
}

/**
 * volumeClaimTemplates are not validated by ValidateStatefulSet in 1.32 beyond decoding; we check only
 * the shape a decoder would enforce (objects with a valid name), which the StatefulSet controller needs.
 */
function validateClaimTemplates(v: Causes, list: unknown, path: string): void {
  v.objs(list, path).forEach((pvc, i) => {
    const meta = v.obj(pvc.metadata, `${path}[${i}].metadata`) ?? {};
    const name = v.str(meta.name, `${path}[${i}].metadata.name`);
    if (name) for (const m of isDNS1123Subdomain(name)) v.add(invalidValue(`${path}[${i}].metadata.name`, name, m));
    v.obj(pvc.spec, `${path}[${i}].spec`);
  });
}

export function validateDaemonSet(v: Causes, obj: Obj): void {
  const path = 'spec';
  const spec = v.obj(obj.spec, path) ?? {};
  const sel = v.obj(spec.selector, `${path}.selector`);
  if (sel) validateLabelSelector(v, sel, `${path}.selector`);
  const t = readTemplate(v, spec, path);
  // ValidateDaemonSetSpec matches even an empty selector and reports a nil one only through the match.
  if ((spec.selector === undefined || spec.selector === null || sel) && selectorMatches(sel, t.labels) === false) {
    v.add(invalidValue(`${path}.template.metadata.labels`, goStringMap(t.labels), MISMATCH));
  }
  if (sel && selectorIsEmpty(sel)) v.add(invalidValue(`${path}.selector`, goLabelSelector(sel), 'empty selector is invalid for daemonset'));
  validatePodTemplate(v, t.obj, `${path}.template`);
  alwaysRestart(v, t, path);
  if (t.hasActiveDeadline) v.add(forbidden(`${path}.template.spec.activeDeadlineSeconds`, 'activeDeadlineSeconds in DaemonSet is not Supported'));
  nonNegative(v, intField(v, spec, 'minReadySeconds', path, 0), `${path}.minReadySeconds`);
  nonNegative(v, intField(v, spec, 'templateGeneration', path, 0), `${path}.templateGeneration`);
  validateDaemonSetUpdateStrategy(v, spec.updateStrategy, `${path}.updateStrategy`);
  nonNegative(v, intField(v, spec, 'revisionHistoryLimit', path), `${path}.revisionHistoryLimit`);
}

function validateDaemonSetUpdateStrategy(v: Causes, raw: unknown, path: string): void {
  const s = v.obj(raw, path) ?? {};
  const type = s.type === undefined ? 'RollingUpdate' : v.str(s.type, `${path}.type`);
  if (type === undefined || type === 'OnDelete') return;
  if (type !== 'RollingUpdate') {
    v.add(notSupported(path, goStrategy('DaemonSetUpdateStrategy', 'RollingUpdateDaemonSet', type, s.rollingUpdate), ['RollingUpdate', 'OnDelete']));
    return;
  }
  const p = `${path}.rollingUpdate`;
  const r = v.obj(s.rollingUpdate, p) ?? {};
  const mu = r.maxUnavailable === undefined ? 1 : v.intOrString(r.maxUnavailable, `${p}.maxUnavailable`);
  const ms = r.maxSurge === undefined ? 0 : v.intOrString(r.maxSurge, `${p}.maxSurge`);
  positiveIntOrPercent(v, mu, `${p}.maxUnavailable`);
  positiveIntOrPercent(v, ms, `${p}.maxSurge`);
  notMoreThan100Percent(v, mu, `${p}.maxUnavailable`);
  notMoreThan100Percent(v, ms, `${p}.maxSurge`);
  if (mu === undefined || ms === undefined) return;
  const hasUnavailable = intOrPercentValue(mu) !== 0;
  const hasSurge = intOrPercentValue(ms) !== 0;
  if (hasUnavailable && hasSurge) v.add(invalidValue(`${p}.maxSurge`, goIntOrString(ms), 'may not be set when maxUnavailable is non-zero'));
  else if (!hasUnavailable && !hasSurge) v.add(required(`${p}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
}

export function validateJob(v: Causes, obj: Obj, old?: Obj): void {
  const path = 'spec';
  const spec = v.obj(obj.spec, path) ?? {};
  const parallelism = intField(v, spec, 'parallelism', path);
  nonNegative(v, parallelism, `${path}.parallelism`);
  const completions = intField(v, spec, 'completions', path);
  nonNegative(v, completions, `${path}.completions`);
  nonNegative(v, intField(v, spec, 'activeDeadlineSeconds', path), `${path}.activeDeadlineSeconds`);
  nonNegative(v, intField(v, spec, 'backoffLimit', path), `${path}.backoffLimit`);
  nonNegative(v, intField(v, spec, 'ttlSecondsAfterFinished', path), `${path}.ttlSecondsAfterFinished`);
  const numbers = { parallelism, completions, mode: v.str(spec.completionMode, `${path}.completionMode`) };
  validateIndexLimits(v, spec, path, numbers);
  validateSuccessAndReplacement(v, spec, path, numbers);
  const t = readTemplate(v, spec, path);
  validatePodTemplate(v, t.obj, `${path}.template`);
  const rp = t.restartPolicy;
  if (rp === 'Always' || rp === '') {
    v.add(required(`${path}.template.spec.restartPolicy`, 'valid values: "OnFailure", "Never"'));
  } else if (rp !== undefined && rp !== 'OnFailure' && rp !== 'Never') {
    v.add(notSupported(`${path}.template.spec.restartPolicy`, rp, ['OnFailure', 'Never']));
  } else if (spec.podFailurePolicy !== undefined && spec.podFailurePolicy !== null && rp !== 'Never') {
    v.add(invalidValue(`${path}.template.spec.restartPolicy`, rp, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  // kube generates the selector (and the template labels it matches) unless manualSelector is true,
  // so an absent selector is only required of a manual one.
  const manual = v.bool(spec.manualSelector, `${path}.manualSelector`) === true;
  const sel = v.obj(spec.selector, `${path}.selector`);
  if (spec.selector === undefined || spec.selector === null) {
    if (manual) v.add(required(`${path}.selector`));
  } else if (sel) {
    validateLabelSelector(v, sel, `${path}.selector`);
  }
  if ((sel || manual) && selectorMatches(sel, t.labels) === false) {
    v.add(invalidValue(`${path}.template.metadata.labels`, goStringMap(t.labels), MISMATCH));
  }
  validateIndexedHostname(v, (obj.metadata as Obj | undefined)?.name, numbers);
  if (old && isObj(old.spec)) validateJobSpecUpdate(v, spec, old.spec, numbers);
}

/** core/v1 ValidateReplicationControllerSpec: a map selector that must be non-empty and match the template. */
export function validateReplicationController(v: Causes, obj: Obj): void {
  const path = 'spec';
  const spec = v.obj(obj.spec, path) ?? {};
  nonNegative(v, intField(v, spec, 'minReadySeconds', path, 0), `${path}.minReadySeconds`);
  // Validation runs before defaulting here: an empty selector reads as the template's labels it defaults to.
  let sel = spec.selector === undefined || spec.selector === null ? {} : v.obj(spec.selector, `${path}.selector`);
  const tmeta = (spec.template as Obj | undefined)?.metadata as Obj | undefined;
  if (sel && Object.keys(sel).length === 0 && tmeta && typeof tmeta.labels === 'object' && tmeta.labels !== null && !Array.isArray(tmeta.labels)) {
    sel = tmeta.labels as Obj;
  }
  if (sel && Object.keys(sel).length === 0) v.add(required(`${path}.selector`));
  else if (sel) for (const c of validateLabels(sel, `${path}.selector`)) v.add(c);
  nonNegative(v, intField(v, spec, 'replicas', path, 1), `${path}.replicas`);
  if (spec.template === undefined || spec.template === null) {
    v.add(required(`${path}.template`));
    return;
  }
  const t = readTemplate(v, spec, path);
  if (sel && Object.keys(sel).length && selectorMatches({ matchLabels: sel }, t.labels) === false) {
    v.add(invalidValue(`${path}.template.metadata.labels`, goStringMap(t.labels), MISMATCH));
  }
  validatePodTemplate(v, t.obj, `${path}.template`);
  alwaysRestart(v, t, path);
  if (t.hasActiveDeadline) v.add(forbidden(`${path}.template.spec.activeDeadlineSeconds`, 'activeDeadlineSeconds in ReplicationController is not Supported'));
}
