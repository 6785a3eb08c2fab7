// Core: the PodSecurity admission plugin as kube 1.32's (k8s.io/pod-security-admission/admission): the namespace's
// pod-security.kubernetes.io/{enforce,audit,warn}[-version] labels name a level (privileged, baseline,
// restricted; unset: privileged) read as kube's PolicyToEvaluate (../pod-security/policy.ts: a level that does not
// parse is restricted for enforce, privileged for audit and warn; a version, latest; the audit annotation
// pod-security.kubernetes.io/error says so). Pods are checked on create and on updates that change what the
// standards look at (images, seccomp annotations, containers added); `enforce` refuses with 403
// `violates PodSecurity "<level>:<version>": …`, `warn` answers a Warning `would violate PodSecurity …` when the
// request is allowed. Workload resources (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob,
// ReplicationController, PodTemplate) get the warning for their pod template, never a refusal. The checks are
// 1.32's whatever version a label pins. `audit` adds the audit annotation pod-security.kubernetes.io/audit-violations;
// every evaluated pod is annotated with enforce-policy; exempt namespaces, users and runtimeClassNames
// (AdmissionConfiguration's exemptions, here settings) are not evaluated and get pod-security.kubernetes.io/exempt:
// namespace | user | runtimeClass. Namespaces themselves: ValidateNamespace below.

import { admissionForbidden, missingInput, type AdmissionAttributes, type AdmissionEnv, type AdmissionInputs, type AdmissionPlugin } from '../attributes';
import { evaluatePod, forbiddenDetail } from '../pod-security/checks';
import {
  aggregateMessage, compareLevels, exemptNamespaceWarning, fullyPrivileged, LABEL_PREFIX as PREFIX, policyToEvaluate, sameLevelVersion,
  showLevelVersion as show, type LevelVersion,
} from '../pod-security/policy';
import { invalid, StatusError } from '../../status';
import type { FieldCause } from '../../validation/names';

type Obj = Record<string, any>;

// The workload kinds whose pod template is checked (PodSpecExtractor's DefaultPodSpecResources).
const TEMPLATE_PATHS: Record<string, string[]> = {
  'apps/Deployment': ['spec', 'template'], 'apps/ReplicaSet': ['spec', 'template'], 'apps/StatefulSet': ['spec', 'template'],
  'apps/DaemonSet': ['spec', 'template'], 'batch/Job': ['spec', 'template'], 'batch/CronJob': ['spec', 'jobTemplate', 'spec', 'template'],
  '/ReplicationController': ['spec', 'template'], '/PodTemplate': ['template'],
};

const isNamespace = (a: AdmissionAttributes) => a.type.group === '' && a.type.kind === 'Namespace';

export const podSecurityPlugin: AdmissionPlugin = {
  name: 'PodSecurity',
  handles: (a) => {
    if (a.type.group === '' && a.type.kind === 'Pod') return a.subresource === '' || a.subresource === 'ephemeralcontainers';
    // ValidateNamespace short-circuits on subresources (status, finalize).
    if (isNamespace(a)) return a.subresource === '';
    return a.subresource === '' && !a.type.custom && `${a.type.group}/${a.type.kind}` in TEMPLATE_PATHS;
  },
  validate(a, inputs, env) {
    if (isNamespace(a)) return validateNamespace(a, inputs, env);
    const annotate = (key: string, value: string) => {
      if (env.auditAnnotations) env.auditAnnotations[PREFIX + key] = value;
    };
    // Exempt namespaces, then users, are never evaluated (the front door tells which applies: settings).
    if (inputs.podSecurityExempt) return annotate('exempt', inputs.podSecurityExempt);
    const isPod = a.type.group === '' && a.type.kind === 'Pod';
    // A pod update that changes nothing the standards read is always allowed (kube reads the namespace first).
    if (isPod && a.operation === 'UPDATE' && a.oldObject && !significantPodUpdate(a.object as Obj, a.oldObject as Obj)) return;
    const ns = inputs.namespace;
    if (!ns) throw missingInput('PodSecurity', 'the namespace');
    const { policy, errors } = policyToEvaluate(ns.metadata?.labels);
    const { enforce, audit, warn } = policy;
    const exemptRuntimeClasses = inputs.podSecurityExemptRuntimeClasses ?? [];
    // EvaluatePod: labels that do not parse are noted on the audit event (the policy read from them still applies).
    const noteErrors = () => {
      if (errors.length) annotate('error', `Failed to parse policy: ${aggregateMessage(errors)}`);
    };
    if (isPod) {
      if (!errors.length && fullyPrivileged(policy)) return annotate('enforce-policy', 'privileged:latest');
      const pod = a.object as Obj;
      if (exemptRuntimeClass(pod.spec, exemptRuntimeClasses)) return annotate('exempt', 'runtimeClass');
      noteErrors();
      annotate('enforce-policy', show(enforce));
      const results = new Map<string, string>(); // level+version → forbidden detail ('' when allowed), as kube reuses results
      const check = (lv: LevelVersion) => {
        const key = show(lv);
        if (!results.has(key)) {
          const failed = evaluatePod(lv.level, pod.metadata ?? {}, pod.spec ?? {});
          results.set(key, failed.length ? forbiddenDetail(failed) : '');
        }
        return results.get(key)!;
      };
      const denied = check(enforce);
      const audited = check(audit);
      if (audited) annotate('audit-violations', `would violate PodSecurity "${show(audit)}": ${audited}`);
      if (denied) throw admissionForbidden(a, `violates PodSecurity "${show(enforce)}": ${denied}`);
      const warned = check(warn);
      if (warned) env.warnings?.push(`would violate PodSecurity "${show(warn)}": ${warned}`);
      return;
    }
    if (!errors.length && warn.level === 'privileged' && audit.level === 'privileged') return;
    const template = templateOf(a);
    if (!template) return;
    if (a.operation === 'UPDATE' && a.oldObject) {
      const old = templateOf({ ...a, object: a.oldObject });
      if (old && JSON.stringify(old) === JSON.stringify(template)) return;
    }
    if (exemptRuntimeClass(template.spec, exemptRuntimeClasses)) return annotate('exempt', 'runtimeClass');
    noteErrors();
    const audited = evaluatePod(audit.level, template.metadata ?? {}, template.spec ?? {});
    if (audited.length) annotate('audit-violations', `would violate PodSecurity "${show(audit)}": ${forbiddenDetail(audited)}`);
    warnAbout(template, warn, env.warnings);
  },
};

/**
 * ValidateNamespace: labels that do not parse refuse a create, and an update that changes them (422 Invalid on
 * metadata.labels[<key>]); an update that makes `enforce` stricter, or changes its version, has the namespace's
 * pods evaluated at the new level by the front door after the write (worker/pod-security-namespace.ts), unless
 * the new level is privileged or the namespace is exempt (then the exempt warning, for a policy it ignores).
 */
function validateNamespace(a: AdmissionAttributes, inputs: AdmissionInputs, env: AdmissionEnv): void {
  const ns = a.object as Obj;
  const labels = ns.metadata?.labels;
  const { policy, errors } = policyToEvaluate(labels);
  const name = String(ns.metadata?.name ?? '');
  const exempt = inputs.podSecurityExempt === 'namespace';
  const warnIfExempt = () => {
    const warning = exempt ? exemptNamespaceWarning(name, policy, labels) : undefined;
    if (warning) env.warnings?.push(warning);
  };
  if (a.operation === 'CREATE') {
    if (errors.length) throw invalidLabels(name, errors);
    return warnIfExempt();
  }
  const old = policyToEvaluate((a.oldObject as Obj | undefined)?.metadata?.labels);
  if (errors.length && (!old.errors.length || JSON.stringify(errors) !== JSON.stringify(old.errors))) throw invalidLabels(name, errors);
  const now = policy.enforce;
  const before = old.policy.enforce;
  if (sameLevelVersion(now, before) || now.level === 'privileged') return;
  if (now.version === before.version && compareLevels(now.level, before.level) < 1) return;
  if (exempt) return warnIfExempt();
  if (env.followUp) env.followUp.podSecurityPods = { namespace: name, level: now.level, version: now.version };
}

/** invalidResponse: apierrors.NewInvalid(Namespace, the namespace's name, the label errors). */
function invalidLabels(name: string, errors: FieldCause[]): StatusError {
  return new StatusError(invalid('', 'Namespace', name, errors));
}

function exemptRuntimeClass(spec: Obj | undefined, exempt: readonly string[]): boolean {
  const rc = spec?.runtimeClassName;
  return typeof rc === 'string' && rc !== '' && exempt.includes(rc);
}

function warnAbout(pod: Obj, warn: LevelVersion, warnings: string[] | undefined): void {
  const failed = evaluatePod(warn.level, pod.metadata ?? {}, pod.spec ?? {});
  if (failed.length) warnings?.push(`would violate PodSecurity "${show(warn)}": ${forbiddenDetail(failed)}`);
}

function templateOf(a: AdmissionAttributes): Obj | undefined {
  let v: any = a.object;
  for (const k of TEMPLATE_PATHS[`${a.type.group}/${a.type.kind}`] ?? []) v = v?.[k];
  return v && typeof v === 'object' ? v as Obj : undefined;
}

/** isSignificantPodUpdate: images, seccomp annotations, or containers added or removed. */
function significantPodUpdate(pod: Obj, old: Obj): boolean {
  const ann = pod.metadata?.annotations ?? {};
  const oldAnn = old.metadata?.annotations ?? {};
  if (ann['seccomp.security.alpha.kubernetes.io/pod'] !== oldAnn['seccomp.security.alpha.kubernetes.io/pod']) return true;
  const containerChanged = (c: Obj, o: Obj) => c?.image !== o?.image
    || ann[`container.seccomp.security.alpha.kubernetes.io/${c?.name}`] !== oldAnn[`container.seccomp.security.alpha.kubernetes.io/${c?.name}`];
  for (const field of ['containers', 'initContainers']) {
    const now = Array.isArray(pod.spec?.[field]) ? pod.spec[field] : [];
    const before = Array.isArray(old.spec?.[field]) ? old.spec[field] : [];
    if (now.length !== before.length) return true;
    for (let i = 0; i < now.length; i++) if (containerChanged(now[i], before[i])) return true;
  }
  const oldEphemeral = new Map<string, Obj>();
  for (const c of Array.isArray(old.spec?.ephemeralContainers) ? old.spec.ephemeralContainers : []) oldEphemeral.set(c?.name, c);
  for (const c of Array.isArray(pod.spec?.ephemeralContainers) ? pod.spec.ephemeralContainers : []) {
    const o = oldEphemeral.get(c?.name);
    if (!o || containerChanged(c, o)) return true;
  }
  return false;
}
