// Core: the PodSecurity admission plugin as kube 1.32's (k8s.io/pod-security-admission/admission): the namespace's
// pod-security.kubernetes.io/{enforce,audit,warn}[-version] labels name a level (privileged, baseline,
// restricted; unset: privileged; a value that does not parse: restricted:latest, failing closed as kube does).
// Pods are checked on create and on updates that change what the standards look at (images, seccomp
// annotations, containers added); `enforce` refuses with 403 `violates PodSecurity "<level>:<version>": …`,
// `warn` answers a Warning `would violate PodSecurity …` when the request is allowed. Workload resources
// (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, ReplicationController, PodTemplate) get the
// warning for their pod template, never a refusal. The checks are 1.32's whatever version a label pins. `audit`
// adds the audit annotation pod-security.kubernetes.io/audit-violations; every evaluated pod is annotated with
// enforce-policy; exempt namespaces, users and runtimeClassNames (AdmissionConfiguration's exemptions, here
// settings) are not evaluated and get pod-security.kubernetes.io/exempt: namespace | user | runtimeClass.

import { admissionForbidden, missingInput, type AdmissionAttributes, type AdmissionPlugin } from '../attributes';
import { evaluatePod, forbiddenDetail, type Level } from '../pod-security/checks';

type Obj = Record<string, any>;
const PREFIX = 'pod-security.kubernetes.io/';
const LEVELS = new Set(['privileged', 'baseline', 'restricted']);

// The workload kinds whose pod template is checked (PodSpecExtractor's DefaultPodSpecResources).
const TEMPLATE_PATHS: Record<string, string[]> = {
  'apps/Deployment': ['spec', 'template'], 'apps/ReplicaSet': ['spec', 'template'], 'apps/StatefulSet': ['spec', 'template'],
  'apps/DaemonSet': ['spec', 'template'], 'batch/Job': ['spec', 'template'], 'batch/CronJob': ['spec', 'jobTemplate', 'spec', 'template'],
  '/ReplicationController': ['spec', 'template'], '/PodTemplate': ['template'],
};

export interface LevelVersion {
  level: Level;
  version: string; // "latest" or "v1.N"
}

const show = (lv: LevelVersion) => `${lv.level}:${lv.version}`;

/** PolicyToEvaluate for one mode: the label's level and version; anything unparsable is restricted:latest. */
export function modePolicy(labels: Record<string, unknown>, mode: 'enforce' | 'audit' | 'warn'): LevelVersion {
  const level = labels[PREFIX + mode];
  const version = labels[`${PREFIX}${mode}-version`];
  if (level !== undefined && (typeof level !== 'string' || !LEVELS.has(level))) return { level: 'restricted', version: 'latest' };
  let v = 'latest';
  if (version !== undefined) {
    if (typeof version !== 'string' || !(version === 'latest' || /^v1\.(0|[1-9][0-9]{0,3})$/.test(version))) return { level: 'restricted', version: 'latest' };
    v = version;
  }
  return { level: (level as Level | undefined) ?? 'privileged', version: v };
}

export const podSecurityPlugin: AdmissionPlugin = {
  name: 'PodSecurity',
  handles: (a) => {
    if (a.type.group === '' && a.type.kind === 'Pod') return a.subresource === '' || a.subresource === 'ephemeralcontainers';
    return a.subresource === '' && !a.type.custom && `${a.type.group}/${a.type.kind}` in TEMPLATE_PATHS;
  },
  validate(a, inputs, env) {
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
    const labels = (ns.metadata?.labels ?? {}) as Record<string, unknown>;
    const enforce = modePolicy(labels, 'enforce');
    const audit = modePolicy(labels, 'audit');
    const warn = modePolicy(labels, 'warn');
    const exemptRuntimeClasses = inputs.podSecurityExemptRuntimeClasses ?? [];
    if (isPod) {
      if (enforce.level === 'privileged' && audit.level === 'privileged' && warn.level === 'privileged') {
        return annotate('enforce-policy', 'privileged:latest');
      }
      const pod = a.object as Obj;
      if (exemptRuntimeClass(pod.spec, exemptRuntimeClasses)) return annotate('exempt', 'runtimeClass');
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
    if (warn.level === 'privileged' && audit.level === 'privileged') return;
    const template = templateOf(a);
    if (!template) return;
    if (a.operation === 'UPDATE' && a.oldObject) {
      const old = templateOf({ ...a, object: a.oldObject });
      if (old && JSON.stringify(old) === JSON.stringify(template)) return;
    }
    if (exemptRuntimeClass(template.spec, exemptRuntimeClasses)) return annotate('exempt', 'runtimeClass');
    const audited = evaluatePod(audit.level, template.metadata ?? {}, template.spec ?? {});
    if (audited.length) annotate('audit-violations', `would violate PodSecurity "${show(audit)}": ${forbiddenDetail(audited)}`);
    warnAbout(template, warn, env.warnings);
  },
};

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
