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
import {
  APISERVICE_TABLE, CERTIFICATESIGNINGREQUEST_TABLE, COMPONENTSTATUS_TABLE, CRONJOB_TABLE, CSIDRIVER_TABLE, CSINODE_TABLE,
  CSISTORAGECAPACITY_TABLE, FLOWSCHEMA_TABLE, MUTATINGADMISSIONPOLICY_TABLE, HORIZONTALPODAUTOSCALER_TABLE, INGRESSCLASS_TABLE, INGRESS_TABLE, NETWORKPOLICY_TABLE,
  PERSISTENTVOLUMECLAIM_TABLE, PERSISTENTVOLUME_TABLE, PODDISRUPTIONBUDGET_TABLE, PODTEMPLATE_TABLE, PRIORITYCLASS_TABLE,
  PRIORITYLEVELCONFIGURATION_TABLE, RESOURCEQUOTA_TABLE, RUNTIMECLASS_TABLE, STORAGECLASS_TABLE, VALIDATINGADMISSIONPOLICYBINDING_TABLE,
  VALIDATINGADMISSIONPOLICY_TABLE, VOLUMEATTACHMENT_TABLE, WEBHOOKCONFIGURATION_TABLE, ROLEBINDING_TABLE, CLUSTERROLEBINDING_TABLE,
  CONTROLLERREVISION_TABLE,
} from './cluster-types';

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
  'core/podtemplates': PODTEMPLATE_TABLE,
  'core/persistentvolumes': PERSISTENTVOLUME_TABLE,
  'core/persistentvolumeclaims': PERSISTENTVOLUMECLAIM_TABLE,
  'core/resourcequotas': RESOURCEQUOTA_TABLE,
  'core/componentstatuses': COMPONENTSTATUS_TABLE,
  'autoscaling/horizontalpodautoscalers': HORIZONTALPODAUTOSCALER_TABLE,
  'batch/cronjobs': CRONJOB_TABLE,
  'certificates.k8s.io/certificatesigningrequests': CERTIFICATESIGNINGREQUEST_TABLE,
  'networking.k8s.io/ingresses': INGRESS_TABLE,
  'networking.k8s.io/ingressclasses': INGRESSCLASS_TABLE,
  'networking.k8s.io/networkpolicies': NETWORKPOLICY_TABLE,
  'policy/poddisruptionbudgets': PODDISRUPTIONBUDGET_TABLE,
  'scheduling.k8s.io/priorityclasses': PRIORITYCLASS_TABLE,
  'node.k8s.io/runtimeclasses': RUNTIMECLASS_TABLE,
  'storage.k8s.io/storageclasses': STORAGECLASS_TABLE,
  'storage.k8s.io/volumeattachments': VOLUMEATTACHMENT_TABLE,
  'storage.k8s.io/csidrivers': CSIDRIVER_TABLE,
  'storage.k8s.io/csinodes': CSINODE_TABLE,
  'storage.k8s.io/csistoragecapacities': CSISTORAGECAPACITY_TABLE,
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': WEBHOOKCONFIGURATION_TABLE,
  'admissionregistration.k8s.io/validatingwebhookconfigurations': WEBHOOKCONFIGURATION_TABLE,
  'admissionregistration.k8s.io/validatingadmissionpolicies': VALIDATINGADMISSIONPOLICY_TABLE,
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': VALIDATINGADMISSIONPOLICYBINDING_TABLE,
  'admissionregistration.k8s.io/mutatingadmissionpolicies': MUTATINGADMISSIONPOLICY_TABLE,
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings': VALIDATINGADMISSIONPOLICYBINDING_TABLE,
  'flowcontrol.apiserver.k8s.io/flowschemas': FLOWSCHEMA_TABLE,
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': PRIORITYLEVELCONFIGURATION_TABLE,
  'apiregistration.k8s.io/apiservices': APISERVICE_TABLE,
  'rbac.authorization.k8s.io/rolebindings': ROLEBINDING_TABLE,
  'rbac.authorization.k8s.io/clusterrolebindings': CLUSTERROLEBINDING_TABLE,
  'apps/controllerrevisions': CONTROLLERREVISION_TABLE,
};

/** The columns for a type (by registry groupResource), or the apiserver's default Name / Created At table. */
export function tableSpecFor(groupResource: string): TableSpec {
  return TABLES[groupResource] ?? DEFAULT_TABLE;
}
