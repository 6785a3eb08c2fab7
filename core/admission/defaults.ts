// Canonical layer admission: the defaults kube-apiserver fills in when it decodes an object, on create
// and on update alike (pkg/apis/*/v1/defaults.go), plus the fields its Go structs always serialize and
// the create-time additions of a type's strategy (a Job's generated selector, a pod's QoS class).
// Per group in ./defaults/; this file only dispatches by kind.

import type { KubeObject } from '../object-meta';
import { OPTIONAL_TYPES, RESOURCE_TYPES } from '../registry';
import { pod } from './defaults/pod';
import { daemonSet, deployment, replicaSet, replicationController, statefulSet } from './defaults/apps';
import { job } from './defaults/batch';
import { endpoints, event, lease, limitRange, namespace, node, persistentVolume, persistentVolumeClaim, secret, service } from './defaults/core';
import {
  apiService, cronJob, csiDriver, flowSchema, horizontalPodAutoscaler, ingressClass, mutatingWebhookConfiguration, networkPolicy,
  podTemplateObject, priorityClass, priorityLevelConfiguration, storageClass, validatingAdmissionPolicy, validatingAdmissionPolicyBinding,
  validatingWebhookConfiguration,
} from './defaults/more-groups';
import { binding } from './defaults/rbac';
import { endpointSlice } from './defaults/discovery';
import { mergeStringData } from './secret-data';
import type { Obj } from './defaults/fill';

const BY_KIND: Record<string, (obj: Obj) => void> = {
  Pod: pod,
  Service: service,
  Namespace: namespace,
  Secret: (obj) => {
    mergeStringData(obj as KubeObject);
    secret(obj);
  },
  Endpoints: endpoints,
  Node: node,
  Event: event,
  Deployment: deployment,
  ReplicaSet: replicaSet,
  ReplicationController: replicationController,
  StatefulSet: statefulSet,
  DaemonSet: daemonSet,
  Job: job,
  EndpointSlice: endpointSlice,
  Lease: lease,
  RoleBinding: binding,
  ClusterRoleBinding: binding,
  LimitRange: limitRange,
  PersistentVolume: persistentVolume,
  PersistentVolumeClaim: persistentVolumeClaim,
  PodTemplate: podTemplateObject,
  HorizontalPodAutoscaler: horizontalPodAutoscaler,
  CronJob: cronJob,
  NetworkPolicy: networkPolicy,
  IngressClass: ingressClass,
  PriorityClass: priorityClass,
  StorageClass: storageClass,
  CSIDriver: csiDriver,
  MutatingWebhookConfiguration: mutatingWebhookConfiguration,
  ValidatingWebhookConfiguration: validatingWebhookConfiguration,
  ValidatingAdmissionPolicy: validatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding: validatingAdmissionPolicyBinding,
  // v1alpha1 (served when enabled): the same SetDefaults_MatchResources, failurePolicy Fail and paramRef defaults.
  MutatingAdmissionPolicy: validatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding: validatingAdmissionPolicyBinding,
  FlowSchema: flowSchema,
  PriorityLevelConfiguration: priorityLevelConfiguration,
  APIService: apiService,
};

// The built-in kinds by group: a custom resource that shares a kind's name (Calico's NetworkPolicy, a CRD called
// CronJob) gets none of the built-in kind's defaults.
const BUILT_IN = new Set([...RESOURCE_TYPES, ...OPTIONAL_TYPES].map((t) => `${t.group}/${t.kind}`));

/** Fills in kube's defaults in place. Idempotent: defaulting a defaulted object changes nothing. */
export function applyDefaults(obj: KubeObject): void {
  const kind = obj.kind ?? '';
  const f = BY_KIND[kind];
  if (!f) return;
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : undefined;
  if (apiVersion !== undefined) {
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    if (!BUILT_IN.has(`${group}/${kind}`)) return;
  }
  f(obj);
}
