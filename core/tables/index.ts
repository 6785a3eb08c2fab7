// Core: the `kubectl get` columns of each built-in type, as data: a port of kubernetes
// pkg/printers/internalversion/printers.go (AddHandlers and the print* functions, 1.32).

import { DEFAULT_TABLE, type TableSpec } from './columns';
import { POD_TABLE } from './pods';
import { NODE_TABLE, SERVICE_TABLE } from './services-and-nodes';
import {
  CONFIGMAP_TABLE, ENDPOINTSLICE_TABLE, ENDPOINTS_TABLE, EVENT_TABLE, LEASE_TABLE, NAMESPACE_TABLE, SECRET_TABLE,
  SERVICEACCOUNT_TABLE,
} from './small-types';
import { DAEMONSET_TABLE, DEPLOYMENT_TABLE, JOB_TABLE, REPLICASET_TABLE, REPLICATIONCONTROLLER_TABLE, STATEFULSET_TABLE } from './workloads';

export type { CellValue, KubeObj, RowCondition } from './columns';

// Keyed by registry groupResource(): `core/pods`, `apps/deployments`.
const TABLES: Record<string, TableSpec> = {
  'core/pods': POD_TABLE,
  'core/services': SERVICE_TABLE,
  'core/endpoints': ENDPOINTS_TABLE,
  'core/configmaps': CONFIGMAP_TABLE,
  'core/secrets': SECRET_TABLE,
  'core/serviceaccounts': SERVICEACCOUNT_TABLE,
  'core/nodes': NODE_TABLE,
  'core/namespaces': NAMESPACE_TABLE,
  'core/events': EVENT_TABLE,
  'apps/deployments': DEPLOYMENT_TABLE,
  'apps/replicasets': REPLICASET_TABLE,
  'core/replicationcontrollers': REPLICATIONCONTROLLER_TABLE,
  'apps/statefulsets': STATEFULSET_TABLE,
  'apps/daemonsets': DAEMONSET_TABLE,
  'batch/jobs': JOB_TABLE,
  'discovery.k8s.io/endpointslices': ENDPOINTSLICE_TABLE,
  'coordination.k8s.io/leases': LEASE_TABLE,
};

/** The columns for a type (by registry groupResource), or the apiserver's default Name / Created At table. */
export function tableSpecFor(groupResource: string): TableSpec {
  return TABLES[groupResource] ?? DEFAULT_TABLE;
}
