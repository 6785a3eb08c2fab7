// Core: the one entry point for per-type validation (kube-apiserver's strategy Validate/ValidateUpdate),
// run after the metadata checks in object-meta.ts validateObject. Pure, never throws on a body of the
// wrong shape, and linear in the object's size.
import type { KubeObject } from '../object-meta';
import type { StatusCause } from '../status';
import { validateConfigMap, validateSecret } from './config';
import { validateEndpoints, validateEndpointSlice, validateEvent, validateLease, validateNamespace, validateNode, validateServiceAccount } from './other';
import { validateMetaExtras } from './meta';
import { validatePod } from './pod';
import { validateClusterRole, validateClusterRoleBinding, validateRole, validateRoleBinding } from './rbac';
import { validateService } from './service';
import { validatePriorityClass } from './scheduling';
import { validateAPIService } from './apiservice';
import { Causes, type Obj } from './shape';
import { validateJobStatusUpdate } from './job';
import { validateAdmissionPolicy, validateAdmissionPolicyBinding, validateMutatingAdmissionPolicy, validateMutatingAdmissionPolicyBinding } from '../admission/policy/validate';
import { validateDaemonSet, validateDeployment, validateJob, validateReplicaSet, validateReplicationController, validateStatefulSet } from './workloads';

type Validator = (v: Causes, obj: Obj, old?: Obj) => void;

const BY_KIND = new Map<string, Validator>([
  ['Pod', validatePod],
  ['Deployment', validateDeployment],
  ['ReplicaSet', validateReplicaSet],
  ['ReplicationController', validateReplicationController],
  ['StatefulSet', validateStatefulSet],
  ['DaemonSet', validateDaemonSet],
  ['Job', validateJob],
  ['Service', validateService],
  ['ConfigMap', validateConfigMap],
  ['Secret', validateSecret],
  ['ServiceAccount', validateServiceAccount],
  ['Namespace', validateNamespace],
  ['Node', validateNode],
  ['Event', validateEvent],
  ['Endpoints', validateEndpoints],
  ['EndpointSlice', validateEndpointSlice],
  ['Lease', validateLease],
  ['Role', validateRole],
  ['ClusterRole', validateClusterRole],
  ['RoleBinding', validateRoleBinding],
  ['ClusterRoleBinding', validateClusterRoleBinding],
  ['PriorityClass', validatePriorityClass],
  ['APIService', validateAPIService],
  ['ValidatingAdmissionPolicy', validateAdmissionPolicy],
  ['ValidatingAdmissionPolicyBinding', validateAdmissionPolicyBinding],
  ['MutatingAdmissionPolicy', validateMutatingAdmissionPolicy],
  ['MutatingAdmissionPolicyBinding', validateMutatingAdmissionPolicyBinding],
]);

/**
 * The causes kube-apiserver's ObjectMeta (ownerReferences, finalizers) and type-specific validation give for `obj` (an update when `old` is given),
 * in kube's order, after (and without) the ObjectMeta causes. Empty for a valid object or an unknown kind.
 */
export function validateTyped(kind: string, obj: KubeObject, old?: KubeObject): StatusCause[] {
  const v = new Causes();
  validateMetaExtras(v, obj.metadata);
  BY_KIND.get(kind)?.(v, obj as Obj, old as Obj | undefined);
  return v.all;
}

/** The ObjectMeta causes alone (ownerReferences, finalizers): what a custom type gets besides its schema's. */
export function validateMetadataExtras(obj: KubeObject): StatusCause[] {
  const v = new Causes();
  validateMetaExtras(v, obj.metadata);
  return v.all;
}

/** Status validation of a built-in type, by group/kind (a custom resource may share a kind's name). */
const STATUS_BY_GROUP_KIND = new Map<string, (v: Causes, obj: Obj, old: Obj) => void>([
  ['batch/Job', validateJobStatusUpdate],
]);

/**
 * The causes a status update gets (kube-apiserver's status strategy ValidateUpdate, after the metadata), in
 * kube's order; empty for a valid status or a type whose status edgeplane does not validate.
 */
export function validateTypedStatus(group: string, kind: string, obj: KubeObject, old: KubeObject): StatusCause[] {
  const validate = STATUS_BY_GROUP_KIND.get(`${group}/${kind}`);
  if (!validate) return [];
  const v = new Causes();
  validate(v, obj as Obj, old as Obj);
  return v.all;
}
