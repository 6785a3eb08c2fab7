// Canonical layer admission: the defaulting of the groups besides core, apps, batch Jobs, discovery and rbac —
// kubernetes pkg/apis/{autoscaling/v2, batch/v1 (CronJob), networking/v1, policy/v1, scheduling/v1, storage/v1,
// admissionregistration/v1, flowcontrol/v1}/defaults.go and kube-aggregator's apiregistration/v1 — each function
// named after the kind it defaults, for core/admission/defaults.ts to dispatch.

import { podTemplate, objectMetaZero } from './pod';
import { fill, fillString, isObject, objects, type Obj } from './fill';
import { DEFAULT_CPU_UTILIZATION } from '../../autoscaling/hpa-v1';

const spec = (obj: Obj): Obj => {
  if (!isObject(obj.spec)) obj.spec = {};
  return obj.spec;
};

// ---- autoscaling/v2 ----

// The behavior kube fills in around what a client set (GenerateHPAScaleUpRules / GenerateHPAScaleDownRules):
// scale-down's stabilization window stays unset, for the controller's --horizontal-pod-autoscaler-downscale-stabilization.
const SCALE_UP = { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] };
const SCALE_DOWN = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

/** SetDefaults_HorizontalPodAutoscaler: one replica at least, a CPU target of 80% without metrics, behavior completed. */
export function horizontalPodAutoscaler(obj: Obj): void {
  const s = spec(obj);
  fill(s, { minReplicas: 1 });
  if (!Array.isArray(s.metrics) || s.metrics.length === 0) {
    s.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  }
  if (isObject(s.behavior)) {
    for (const [key, defaults] of [['scaleUp', SCALE_UP], ['scaleDown', SCALE_DOWN]] as const) {
      const rules: Obj = isObject(s.behavior[key]) ? s.behavior[key] : {};
      fill(rules, defaults);
      s.behavior[key] = rules;
    }
  }
}

// ---- batch/v1 ----

/** SetDefaults_CronJob; the job template's metadata is a struct (always written), its pod template defaulted. */
export function cronJob(obj: Obj): void {
  const s = spec(obj);
  fillString(s, { concurrencyPolicy: 'Allow' });
  fill(s, { suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
  if (!isObject(s.jobTemplate)) s.jobTemplate = {};
  objectMetaZero(s.jobTemplate);
  if (!isObject(s.jobTemplate.spec)) s.jobTemplate.spec = {};
  podTemplate(s.jobTemplate.spec.template);
}

// ---- networking/v1 ----

/** SetDefaults_NetworkPolicy (Ingress, plus Egress when there are egress rules) and _NetworkPolicyPort (TCP). */
export function networkPolicy(obj: Obj): void {
  const s = spec(obj);
  if (!Array.isArray(s.policyTypes) || s.policyTypes.length === 0) {
    s.policyTypes = Array.isArray(s.egress) && s.egress.length ? ['Ingress', 'Egress'] : ['Ingress'];
  }
  fill(s, { podSelector: {} });
  for (const rule of [...objects(s.ingress), ...objects(s.egress)]) for (const p of objects(rule.ports)) fill(p, { protocol: 'TCP' });
}

/** SetDefaults_IngressClass: parameters are cluster-scoped unless they say otherwise. */
export function ingressClass(obj: Obj): void {
  const s = spec(obj);
  if (isObject(s.parameters)) fill(s.parameters, { scope: 'Cluster' });
}

// ---- scheduling/v1 ----

export function priorityClass(obj: Obj): void {
  fill(obj, { preemptionPolicy: 'PreemptLowerPriority' });
}

// ---- storage/v1 ----

export function storageClass(obj: Obj): void {
  fill(obj, { reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
}

/** SetDefaults_CSIDriver with 1.32's gates (CSIVolumeFSGroupPolicy, CSIInlineVolume GA; SELinuxMountReadWriteOncePod beta). */
export function csiDriver(obj: Obj): void {
  const s = spec(obj);
  fill(s, { attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType' });
  if (!Array.isArray(s.volumeLifecycleModes) || s.volumeLifecycleModes.length === 0) s.volumeLifecycleModes = ['Persistent'];
  fill(s, { requiresRepublish: false, seLinuxMount: false });
}

// ---- admissionregistration/v1 ----

function rules(list: unknown): void {
  for (const r of objects(list)) fill(r, { scope: '*' });
}

function webhook(w: Obj, mutating: boolean): void {
  fill(w, { failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10 });
  if (mutating) fill(w, { reinvocationPolicy: 'Never' });
  rules(w.rules);
  if (isObject(w.clientConfig) && isObject(w.clientConfig.service)) fill(w.clientConfig.service, { port: 443 });
}

export const mutatingWebhookConfiguration = (obj: Obj): void => objects(obj.webhooks).forEach((w) => webhook(w, true));
export const validatingWebhookConfiguration = (obj: Obj): void => objects(obj.webhooks).forEach((w) => webhook(w, false));

/** SetDefaults_MatchResources: Equivalent matching, match-everything selectors, "*" scope on every rule. */
function matchResources(m: unknown): void {
  if (!isObject(m)) return;
  fill(m, { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
  rules(m.resourceRules);
  rules(m.excludeResourceRules);
}

export function validatingAdmissionPolicy(obj: Obj): void {
  const s = spec(obj);
  fill(s, { failurePolicy: 'Fail' });
  matchResources(s.matchConstraints);
}

export function validatingAdmissionPolicyBinding(obj: Obj): void {
  const s = spec(obj);
  matchResources(s.matchResources);
  if (isObject(s.paramRef)) fill(s.paramRef, { parameterNotFoundAction: 'Deny' });
}

// ---- flowcontrol/v1 ----

export function flowSchema(obj: Obj): void {
  const s = spec(obj);
  if (!s.matchingPrecedence) s.matchingPrecedence = 1000;
}

export function priorityLevelConfiguration(obj: Obj): void {
  const s = spec(obj);
  if (isObject(s.exempt)) fill(s.exempt, { nominalConcurrencyShares: 0, lendablePercent: 0 });
  if (isObject(s.limited)) {
    fill(s.limited, { nominalConcurrencyShares: 30, lendablePercent: 0 });
    if (!isObject(s.limited.limitResponse)) s.limited.limitResponse = {};
    const q = s.limited.limitResponse.queuing;
    if (isObject(q)) {
      if (!q.handSize) q.handSize = 8;
      if (!q.queues) q.queues = 64;
      if (!q.queueLengthLimit) q.queueLengthLimit = 50;
    }
  }
}

// ---- apiregistration/v1 ----

export function apiService(obj: Obj): void {
  const s = spec(obj);
  if (isObject(s.service)) fill(s.service, { port: 443 });
}

// ---- core/v1 PodTemplate ----

export function podTemplateObject(obj: Obj): void {
  if (!isObject(obj.template)) obj.template = {};
  podTemplate(obj.template);
}
