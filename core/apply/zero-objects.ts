// Core (server-side apply): the "live" object a create is compared with — kube's empty object of the
// kind (Creater.New) as the unstructured converter writes it: struct fields that are not pointers are
// always there ({}), and slices or pointers without omitempty are null. It decides whether a create's
// Update entry owns a parent itself: kubectl-create of a Deployment owns `f:spec` only through its
// children (spec exists in the empty Deployment), but `f:strategy.f:rollingUpdate` with "." (a pointer).
// Only the shape of spec-like fields matters: metadata is never owned, status is reset on the main
// resource, and a scalar's zero value only turns "added" into "modified".
//
// Source: the Go structs of k8s.io/api v0.32 (apps, batch, core, coordination, discovery, rbac).

const TEMPLATE = () => ({ metadata: { creationTimestamp: null }, spec: { containers: null } });
const ROLE_REF = () => ({ apiGroup: '', kind: '', name: '' });

const SHAPES: Record<string, () => Record<string, unknown>> = {
  'apps/v1/Deployment': () => ({ spec: { selector: null, template: TEMPLATE(), strategy: {} }, status: {} }),
  'apps/v1/ReplicaSet': () => ({ spec: { selector: null, template: TEMPLATE() }, status: { replicas: 0 } }),
  'apps/v1/StatefulSet': () => ({ spec: { selector: null, template: TEMPLATE(), updateStrategy: {} }, status: { replicas: 0 } }),
  'apps/v1/DaemonSet': () => ({ spec: { selector: null, template: TEMPLATE(), updateStrategy: {} }, status: {} }),
  'batch/v1/Job': () => ({ spec: { template: TEMPLATE() }, status: {} }),
  'v1/Pod': () => ({ spec: { containers: null }, status: {} }),
  'v1/Service': () => ({ spec: {}, status: { loadBalancer: {} } }),
  'v1/Namespace': () => ({ spec: {}, status: {} }),
  'v1/Node': () => ({ spec: {}, status: { daemonEndpoints: { kubeletEndpoint: { Port: 0 } }, nodeInfo: {} } }),
  'v1/Event': () => ({ involvedObject: {}, source: {}, firstTimestamp: null, lastTimestamp: null, eventTime: null }),
  'v1/PodTemplate': () => ({ template: TEMPLATE() }),
  'v1/ReplicationController': () => ({ spec: {}, status: { replicas: 0 } }),
  'coordination.k8s.io/v1/Lease': () => ({ spec: {} }),
  'discovery.k8s.io/v1/EndpointSlice': () => ({ addressType: '', endpoints: null }),
  'rbac.authorization.k8s.io/v1/Role': () => ({ rules: null }),
  'rbac.authorization.k8s.io/v1/ClusterRole': () => ({ rules: null }),
  'rbac.authorization.k8s.io/v1/RoleBinding': () => ({ roleRef: ROLE_REF() }),
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': () => ({ roleRef: ROLE_REF() }),
  'apiextensions.k8s.io/v1/CustomResourceDefinition': () => ({
    spec: { group: '', names: { plural: '', kind: '' }, scope: '', versions: null },
    status: { acceptedNames: { plural: '', kind: '' }, storedVersions: null },
  }),
};

/** A fresh empty object of the kind, as kube's field manager sees it before a create. */
export function zeroObject(apiVersion: string, kind: string): Record<string, unknown> & { metadata: Record<string, unknown> } {
  const shape = SHAPES[`${apiVersion}/${kind}`]?.() ?? {};
  return { apiVersion, kind, metadata: { creationTimestamp: null }, ...shape };
}
