// Core: kube's system PriorityClasses (pkg/apis/scheduling/types.go SystemPriorityClasses), which kube-apiserver
// creates at start and reserves the `system-` prefix for.

export const SYSTEM_PRIORITY_CLASSES = [
  {
    metadata: { name: 'system-node-critical' }, value: 2000001000,
    description: 'Used for system critical pods that must not be moved from their current node.',
  },
  {
    metadata: { name: 'system-cluster-critical' }, value: 2000000000,
    description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
];
