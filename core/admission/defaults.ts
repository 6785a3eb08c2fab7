// Canonical layer admission: the defaults kube-apiserver fills in when it decodes an object, on create
// and on update alike (pkg/apis/*/v1/defaults.go), plus the fields its Go structs always serialize and
// the create-time additions of a type's strategy (a Job's generated selector, a pod's QoS class).
// Per group in ./defaults/; this file only dispatches by kind.

import type { KubeObject } from '../object-meta';
import { pod } from './defaults/pod';
import { daemonSet, deployment, replicaSet, replicationController, statefulSet } from './defaults/apps';
import { job } from './defaults/batch';
import { endpoints, event, lease, namespace, node, secret, service } from './defaults/core';
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
};

/** Fills in kube's defaults in place. Idempotent: defaulting a defaulted object changes nothing. */
export function applyDefaults(obj: KubeObject): void {
  BY_KIND[obj.kind ?? '']?.(obj);
}
