// Core: the tables of the types kube 1.32 serves beyond the workloads and the small core types — storage, policy,
// networking, autoscaling, scheduling, admission, flow control, certificates, APIService, ComponentStatus,
// PodTemplate — ported from pkg/printers/internalversion/printers.go (1.32) and, for APIService, kube-aggregator's
// own table convertor (pkg/registry/apiservice/etcd/etcd.go). LimitRange has no printer in kube: it gets the
// default Name / Created At table. Column descriptions are the fields' API documentation, as kube takes them from
// SwaggerDoc(), read from the same documentation the OpenAPI documents publish.

import descriptions from '../schema/descriptions.generated.json';
import { formatLabelSelector } from '../selectors/label-selector';
import { AGE, col, formatLabels, humanDuration, NAME, num, since, wide, type TableSpec, type View } from './columns';

const DOCS = descriptions as Record<string, string>;

/** A field's documentation: `definition` is the OpenAPI name without the io.k8s.api. prefix. */
function doc(definition: string, field: string): string {
  return DOCS[`io.k8s.api.${definition}.${field}`] ?? DOCS[`io.k8s.${definition}.${field}`] ?? '';
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const list = (v: unknown): View[] => (Array.isArray(v) ? v : []);
/** intstr.IntOrString.String(). */
const intOrString = (v: unknown): string => (typeof v === 'number' ? String(v) : str(v));
/** printBoolPtr: "True"/"False", "<unset>" for nil. */
const boolPtr = (v: unknown): string => (v === true ? 'True' : v === false ? 'False' : '<unset>');

/** printers.go layoutContainerCells. */
function containerCells(podSpec: View): { names: string; images: string } {
  const cs = list(podSpec?.containers);
  return { names: cs.map((c) => c?.name ?? '').join(','), images: cs.map((c) => c?.image ?? '').join(',') };
}

const CONTAINERS_DOC = 'Names of each container in the template.';
const IMAGES_DOC = 'Images referenced by each container in the template.';

// ---- core/v1 ----

export const PODTEMPLATE_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Containers', 'string', CONTAINERS_DOC, (o) => containerCells(o.template?.spec).names),
    col('Images', 'string', IMAGES_DOC, (o) => containerCells(o.template?.spec).images),
    col('Pod Labels', 'string', 'The labels for the pod template.', (o) => formatLabels(o.template?.metadata?.labels)),
  ],
};

/** helper.GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, each once. */
function accessModes(modes: unknown): string {
  const set = new Set(list(modes));
  return [['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP']]
    .filter(([m]) => set.has(m)).map(([, s]) => s).join(',');
}

/** GetPersistentVolume(Claim)Class: the beta annotation wins over spec.storageClassName. */
function storageClassOf(o: View): string {
  const beta = o.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'];
  if (beta !== undefined) return str(beta);
  return str(o.spec?.storageClassName);
}

const terminatingOr = (o: View, phase: unknown) => (o.metadata?.deletionTimestamp ? 'Terminating' : str(phase));
/** resource.Quantity.String() of a stored (canonical) quantity; the zero Quantity prints "0". */
const quantity = (v: unknown): string => (v === undefined || v === null || v === '' ? '0' : str(v));

export const PERSISTENTVOLUME_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Capacity', 'string', doc('core.v1.PersistentVolumeSpec', 'capacity'), (o) => quantity(o.spec?.capacity?.storage)),
    col('Access Modes', 'string', doc('core.v1.PersistentVolumeSpec', 'accessModes'), (o) => accessModes(o.spec?.accessModes)),
    col('Reclaim Policy', 'string', doc('core.v1.PersistentVolumeSpec', 'persistentVolumeReclaimPolicy'), (o) => str(o.spec?.persistentVolumeReclaimPolicy)),
    col('Status', 'string', doc('core.v1.PersistentVolumeStatus', 'phase'), (o) => terminatingOr(o, o.status?.phase)),
    col('Claim', 'string', doc('core.v1.PersistentVolumeSpec', 'claimRef'),
      (o) => (o.spec?.claimRef ? `${str(o.spec.claimRef.namespace)}/${str(o.spec.claimRef.name)}` : '')),
    col('StorageClass', 'string', 'StorageClass of the pv', storageClassOf),
    col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv', (o) => str(o.spec?.volumeAttributesClassName ?? '<unset>')),
    col('Reason', 'string', doc('core.v1.PersistentVolumeStatus', 'reason'), (o) => str(o.status?.reason)),
    AGE,
    wide('VolumeMode', 'string', doc('core.v1.PersistentVolumeSpec', 'volumeMode'), (o) => str(o.spec?.volumeMode ?? '<unset>')),
  ],
};

export const PERSISTENTVOLUMECLAIM_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Status', 'string', doc('core.v1.PersistentVolumeClaimStatus', 'phase'), (o) => terminatingOr(o, o.status?.phase)),
    col('Volume', 'string', doc('core.v1.PersistentVolumeClaimSpec', 'volumeName'), (o) => str(o.spec?.volumeName)),
    col('Capacity', 'string', doc('core.v1.PersistentVolumeClaimStatus', 'capacity'),
      (o) => (o.spec?.volumeName ? quantity(o.status?.capacity?.storage) : '')),
    col('Access Modes', 'string', doc('core.v1.PersistentVolumeClaimStatus', 'accessModes'),
      (o) => (o.spec?.volumeName ? accessModes(o.status?.accessModes) : '')),
    col('StorageClass', 'string', 'StorageClass of the pvc', storageClassOf),
    col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc', (o) => str(o.spec?.volumeAttributesClassName ?? '<unset>')),
    AGE,
    wide('VolumeMode', 'string', doc('core.v1.PersistentVolumeClaimSpec', 'volumeMode'), (o) => str(o.spec?.volumeMode ?? '<unset>')),
  ],
};

/** printResourceQuota: `name: used/hard` per resource, sorted; limits.* in the Limit column. */
function quotaColumn(o: View, limits: boolean): string {
  const hard = o.status?.hard && typeof o.status.hard === 'object' ? o.status.hard : {};
  const used = o.status?.used && typeof o.status.used === 'object' ? o.status.used : {};
  return Object.keys(hard).sort()
    .filter((r) => (r.split('.').length > 1 && r.split('.')[0] === 'limits') === limits)
    .map((r) => `${r}: ${quantity(used[r])}/${quantity(hard[r])}`).join(', ');
}

export const RESOURCEQUOTA_TABLE: TableSpec = {
  columns: [
    // printers.go resourceQuotaColumnDefinitions: Age before the two usage columns.
    NAME,
    AGE,
    col('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.', (o) => quotaColumn(o, false)),
    col('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.', (o) => quotaColumn(o, true)),
  ],
};

/** printComponentStatus: the Healthy condition's status, message and error. */
function healthy(o: View): View | undefined {
  return list(o.conditions).find((c) => c?.type === 'Healthy');
}

export const COMPONENTSTATUS_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Status', 'string', 'Status of the component conditions', (o) => {
      const c = healthy(o);
      return c ? (c.status === 'True' ? 'Healthy' : 'Unhealthy') : 'Unknown';
    }),
    col('Message', 'string', 'Message of the component conditions', (o) => str(healthy(o)?.message)),
    col('Error', 'string', 'Error of the component conditions', (o) => str(healthy(o)?.error)),
  ],
};

// ---- autoscaling ----

/** printers.go formatHPAMetrics: at most two targets, `current/target` each. */
function hpaTargets(o: View): string {
  const specs = list(o.spec?.metrics);
  if (!specs.length) return '<none>';
  const statuses = list(o.status?.currentMetrics);
  const out: string[] = [];
  const max = 2;
  specs.forEach((m, i) => {
    if (out.length >= max) return;
    const st = statuses[i];
    const unknown = '<unknown>';
    switch (m?.type) {
      case 'External': {
        if (m.external?.target?.averageValue !== undefined) {
          const cur = st?.external?.current?.averageValue ?? unknown;
          out.push(`${cur}/${m.external.target.averageValue} (avg)`);
        } else {
          const cur = st?.external ? quantity(st.external.current?.value) : unknown;
          out.push(`${cur}/${quantity(m.external?.target?.value)}`);
        }
        break;
      }
      case 'Pods':
        out.push(`${st?.pods ? quantity(st.pods.current?.averageValue) : unknown}/${quantity(m.pods?.target?.averageValue)}`);
        break;
      case 'Object': {
        if (m.object?.target?.averageValue !== undefined) {
          const cur = st?.object?.current?.averageValue ?? unknown;
          out.push(`${cur}/${m.object.target.averageValue} (avg)`);
        } else {
          const cur = st?.object ? quantity(st.object.current?.value) : unknown;
          out.push(`${cur}/${quantity(m.object?.target?.value)}`);
        }
        break;
      }
      case 'Resource':
      case 'ContainerResource': {
        const r = m.type === 'Resource' ? m.resource : m.containerResource;
        const s = m.type === 'Resource' ? st?.resource : st?.containerResource;
        if (r?.target?.averageValue !== undefined) {
          out.push(`${str(r.name)}: ${s ? quantity(s.current?.averageValue) : unknown}/${r.target.averageValue}`);
        } else {
          const cur = s?.current?.averageUtilization !== undefined ? `${s.current.averageUtilization}%` : unknown;
          const target = r?.target?.averageUtilization !== undefined ? `${r.target.averageUtilization}%` : '<auto>';
          out.push(`${str(r?.name)}: ${cur}/${target}`);
        }
        break;
      }
      default:
        out.push('<unknown type>');
    }
  });
  return specs.length > max ? `${out.join(', ')} + ${specs.length - max} more...` : out.join(', ');
}

const HPA_SPEC = 'autoscaling.v2.HorizontalPodAutoscalerSpec';
export const HORIZONTALPODAUTOSCALER_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Reference', 'string', doc(HPA_SPEC, 'scaleTargetRef'), (o) => `${str(o.spec?.scaleTargetRef?.kind)}/${str(o.spec?.scaleTargetRef?.name)}`),
    col('Targets', 'string', doc(HPA_SPEC, 'metrics'), hpaTargets),
    col('MinPods', 'string', doc(HPA_SPEC, 'minReplicas'), (o) => (o.spec?.minReplicas === undefined ? '<unset>' : String(o.spec.minReplicas))),
    col('MaxPods', 'string', doc(HPA_SPEC, 'maxReplicas'), (o) => num(o.spec?.maxReplicas)),
    col('Replicas', 'string', doc('autoscaling.v2.HorizontalPodAutoscalerStatus', 'currentReplicas'), (o) => num(o.status?.currentReplicas)),
    AGE,
  ],
};

// ---- batch ----

export const CRONJOB_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Schedule', 'string', doc('batch.v1.CronJobSpec', 'schedule'), (o) => str(o.spec?.schedule)),
    col('Timezone', 'string', doc('batch.v1.CronJobSpec', 'timeZone'), (o) => (o.spec?.timeZone === undefined || o.spec?.timeZone === null ? '<none>' : str(o.spec.timeZone))),
    col('Suspend', 'boolean', doc('batch.v1.CronJobSpec', 'suspend'), (o) => boolPtr(o.spec?.suspend)),
    col('Active', 'integer', doc('batch.v1.CronJobStatus', 'active'), (o) => list(o.status?.active).length),
    col('Last Schedule', 'string', doc('batch.v1.CronJobStatus', 'lastScheduleTime'),
      (o, now) => (o.status?.lastScheduleTime ? since(o.status.lastScheduleTime, now) : '<none>')),
    AGE,
    wide('Containers', 'string', CONTAINERS_DOC, (o) => containerCells(o.spec?.jobTemplate?.spec?.template?.spec).names),
    wide('Images', 'string', IMAGES_DOC, (o) => containerCells(o.spec?.jobTemplate?.spec?.template?.spec).images),
    wide('Selector', 'string', doc('batch.v1.JobSpec', 'selector'), (o) => formatLabelSelector(o.spec?.jobTemplate?.spec?.selector)),
  ],
};

// ---- certificates ----

/** extractCSRStatus: Denied before Approved before Pending, then Failed and Issued. */
function csrCondition(o: View): string {
  const types = new Set(list(o.status?.conditions).map((c) => c?.type));
  let s = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) s += ',Failed';
  if (o.status?.certificate) s += ',Issued';
  return s;
}

const CSR_SPEC = 'certificates.v1.CertificateSigningRequestSpec';
export const CERTIFICATESIGNINGREQUEST_TABLE: TableSpec = {
  columns: [
    NAME,
    AGE,
    col('SignerName', 'string', doc(CSR_SPEC, 'signerName'), (o) => str(o.spec?.signerName) || '<none>'),
    col('Requestor', 'string', doc(CSR_SPEC, 'request'), (o) => str(o.spec?.username)),
    col('RequestedDuration', 'string', doc(CSR_SPEC, 'expirationSeconds'),
      (o) => (typeof o.spec?.expirationSeconds === 'number' ? humanDuration(o.spec.expirationSeconds * 1000) : '<none>')),
    col('Condition', 'string', doc('certificates.v1.CertificateSigningRequestStatus', 'conditions'), csrCondition),
  ],
};

// ---- networking ----

/** printers.go formatHosts: at most 3 hosts, `*` when no rule names one. */
function ingressHosts(o: View): string {
  const rules = list(o.spec?.rules);
  const hosts: string[] = [];
  let more = false;
  for (const r of rules) {
    if (hosts.length === 3) more = true;
    if (!more && r?.host) hosts.push(str(r.host));
  }
  if (!hosts.length) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - 3} more...` : hosts.join(',');
}

/** ingressLoadBalancerStatusStringer (wide): each ingress point's IP, else hostname, once. */
function ingressAddress(o: View): string {
  const seen = new Set<string>();
  for (const i of list(o.status?.loadBalancer?.ingress)) {
    if (i?.ip) seen.add(str(i.ip));
    else if (i?.hostname) seen.add(str(i.hostname));
  }
  return [...seen].join(',');
}

export const INGRESS_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration',
      (o) => (o.spec?.ingressClassName === undefined || o.spec?.ingressClassName === null ? '<none>' : str(o.spec.ingressClassName))),
    col('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule', ingressHosts),
    col('Address', 'string', 'Address is a list containing ingress points for the load-balancer', ingressAddress),
    col('Ports', 'string', 'Ports of TLS configurations that open', (o) => (list(o.spec?.tls).length ? '80, 443' : '80')),
    AGE,
  ],
};

export const INGRESSCLASS_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Controller', 'string', 'Controller that is responsible for handling this class', (o) => str(o.spec?.controller)),
    col('Parameters', 'string', 'A reference to a resource with additional parameters', (o) => {
      const p = o.spec?.parameters;
      if (!p) return '<none>';
      return `${str(p.kind)}${p.apiGroup !== undefined && p.apiGroup !== null ? `.${str(p.apiGroup)}` : ''}/${str(p.name)}`;
    }),
    AGE,
  ],
};

export const NETWORKPOLICY_TABLE: TableSpec = {
  columns: [NAME, col('Pod-Selector', 'string', doc('networking.v1.NetworkPolicySpec', 'podSelector'), (o) => formatLabelSelector(o.spec?.podSelector ?? {})), AGE],
};

// ---- policy, scheduling, node ----

export const PODDISRUPTIONBUDGET_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Min Available', 'string', 'The minimum number of pods that must be available.', (o) => (o.spec?.minAvailable === undefined ? 'N/A' : intOrString(o.spec.minAvailable))),
    col('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.', (o) => (o.spec?.maxUnavailable === undefined ? 'N/A' : intOrString(o.spec.maxUnavailable))),
    col('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.', (o) => num(o.status?.disruptionsAllowed)),
    AGE,
  ],
};

export const PRIORITYCLASS_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Value', 'integer', doc('scheduling.v1.PriorityClass', 'value'), (o) => num(o.value)),
    col('Global-Default', 'boolean', doc('scheduling.v1.PriorityClass', 'globalDefault'), (o) => o.globalDefault === true),
    AGE,
    col('PreemptionPolicy', 'string', doc('scheduling.v1.PriorityClass', 'preemptionPolicy'), (o) => str(o.preemptionPolicy)),
  ],
};

export const RUNTIMECLASS_TABLE: TableSpec = {
  // kube's Handler column takes its description from ObjectMeta's SwaggerDoc, which has no "handler": empty.
  columns: [NAME, col('Handler', 'string', '', (o) => str(o.handler)), AGE],
};

// ---- storage ----

function isDefaultClass(o: View): boolean {
  const a = o.metadata?.annotations ?? {};
  return a['storageclass.kubernetes.io/is-default-class'] === 'true' || a['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
}

const SC = 'storage.v1.StorageClass';
export const STORAGECLASS_TABLE: TableSpec = {
  columns: [
    col('Name', 'string', NAME.description, (o) => `${str(o.metadata?.name)}${isDefaultClass(o) ? ' (default)' : ''}`, { format: 'name' }),
    col('Provisioner', 'string', doc(SC, 'provisioner'), (o) => str(o.provisioner)),
    col('ReclaimPolicy', 'string', doc(SC, 'reclaimPolicy'), (o) => str(o.reclaimPolicy ?? 'Delete')),
    col('VolumeBindingMode', 'string', doc(SC, 'volumeBindingMode'), (o) => str(o.volumeBindingMode ?? 'Immediate')),
    col('AllowVolumeExpansion', 'string', doc(SC, 'allowVolumeExpansion'), (o) => o.allowVolumeExpansion === true),
    AGE,
  ],
};

export const VOLUMEATTACHMENT_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Attacher', 'string', doc('storage.v1.VolumeAttachmentSpec', 'attacher'), (o) => str(o.spec?.attacher), { format: 'name' }),
    col('PV', 'string', doc('storage.v1.VolumeAttachmentSource', 'persistentVolumeName'), (o) => str(o.spec?.source?.persistentVolumeName)),
    col('Node', 'string', doc('storage.v1.VolumeAttachmentSpec', 'nodeName'), (o) => str(o.spec?.nodeName)),
    col('Attached', 'boolean', doc('storage.v1.VolumeAttachmentStatus', 'attached'), (o) => o.status?.attached === true),
    AGE,
  ],
};

const CSI = 'storage.v1.CSIDriverSpec';
export const CSIDRIVER_TABLE: TableSpec = {
  columns: [
    NAME,
    col('AttachRequired', 'boolean', doc(CSI, 'attachRequired'), (o) => o.spec?.attachRequired !== false),
    col('PodInfoOnMount', 'boolean', doc(CSI, 'podInfoOnMount'), (o) => o.spec?.podInfoOnMount === true),
    col('StorageCapacity', 'boolean', doc(CSI, 'storageCapacity'), (o) => o.spec?.storageCapacity === true),
    col('TokenRequests', 'string', doc(CSI, 'tokenRequests'),
      (o) => (Array.isArray(o.spec?.tokenRequests) ? o.spec.tokenRequests.map((t: View) => str(t?.audience)).join(',') : '<unset>')),
    col('RequiresRepublish', 'boolean', doc(CSI, 'requiresRepublish'), (o) => o.spec?.requiresRepublish === true),
    col('Modes', 'string', doc(CSI, 'volumeLifecycleModes'), (o) => list(o.spec?.volumeLifecycleModes).map(str).join(',') || '<none>'),
    AGE,
  ],
};

export const CSINODE_TABLE: TableSpec = {
  columns: [NAME, col('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node', (o) => list(o.spec?.drivers).length), AGE],
};

export const CSISTORAGECAPACITY_TABLE: TableSpec = {
  columns: [
    NAME,
    col('StorageClassName', 'string', doc('storage.v1.CSIStorageCapacity', 'storageClassName'), (o) => str(o.storageClassName)),
    col('Capacity', 'string', doc('storage.v1.CSIStorageCapacity', 'capacity'), (o) => (o.capacity === undefined || o.capacity === null ? '<unset>' : str(o.capacity))),
  ],
};

// ---- admissionregistration ----

const WEBHOOKS = col('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration', (o) => list(o.webhooks).length);
export const WEBHOOKCONFIGURATION_TABLE: TableSpec = { columns: [NAME, WEBHOOKS, AGE] };

export const VALIDATINGADMISSIONPOLICY_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Validations', 'integer', 'Validations indicates the number of validation rules defined in this configuration', (o) => list(o.spec?.validations).length),
    col('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy',
      (o) => (o.spec?.paramKind ? `${str(o.spec.paramKind.apiVersion)}/${str(o.spec.paramKind.kind)}` : '<unset>')),
    AGE,
  ],
};

/** metav1.LabelSelector's generated String(), which printValidatingAdmissionPolicyBinding prints for a selector. */
function labelSelectorGoString(s: View): string {
  const labels = s?.matchLabels && typeof s.matchLabels === 'object' ? Object.keys(s.matchLabels).sort().map((k) => `${k}: ${str(s.matchLabels[k])},`).join('') : '';
  const exprs = list(s?.matchExpressions).map((e) => `LabelSelectorRequirement{Key:${str(e?.key)},Operator:${str(e?.operator)},Values:[${list(e?.values).map(str).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

export const VALIDATINGADMISSIONPOLICYBINDING_TABLE: TableSpec = {
  columns: [
    NAME,
    col('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to', (o) => str(o.spec?.policyName)),
    col('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param', (o) => {
      const pr = o.spec?.paramRef;
      if (!pr) return '<unset>';
      if (pr.name) return pr.namespace ? `${str(pr.namespace)}/${str(pr.name)}` : `*/${str(pr.name)}`;
      return pr.selector ? labelSelectorGoString(pr.selector) : '<unset>';
    }),
    AGE,
  ],
};

// admissionregistration.k8s.io/v1alpha1 (served when RUNTIME_CONFIG enables it): printMutatingAdmissionPolicy and
// its binding's, which prints as the validating binding.
export const MUTATINGADMISSIONPOLICY_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Mutations', 'integer', 'Mutation indicates the number of mutations rules defined in this configuration', (o) => list(o.spec?.mutations).length),
    VALIDATINGADMISSIONPOLICY_TABLE.columns[2]!,
    AGE,
  ],
};

// ---- flowcontrol ----

export const FLOWSCHEMA_TABLE: TableSpec = {
  columns: [
    NAME,
    col('PriorityLevel', 'string', doc('flowcontrol.v1.PriorityLevelConfigurationReference', 'name'), (o) => str(o.spec?.priorityLevelConfiguration?.name)),
    col('MatchingPrecedence', 'string', doc('flowcontrol.v1.FlowSchemaSpec', 'matchingPrecedence'), (o) => num(o.spec?.matchingPrecedence)),
    col('DistinguisherMethod', 'string', doc('flowcontrol.v1.FlowSchemaSpec', 'distinguisherMethod'),
      (o) => (o.spec?.distinguisherMethod ? str(o.spec.distinguisherMethod.type) : '<none>')),
    AGE,
    col('MissingPL', 'string', 'references a broken or non-existent PriorityLevelConfiguration',
      (o) => str(list(o.status?.conditions).find((c) => c?.type === 'Dangling')?.status ?? '?')),
  ],
};

const limited = (o: View, pick: (l: View) => unknown): string | number => {
  const l = o.spec?.limited;
  if (!l) return '<none>';
  const v = pick(l);
  return v === undefined ? '<none>' : (v as string | number);
};

export const PRIORITYLEVELCONFIGURATION_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Type', 'string', doc('flowcontrol.v1.PriorityLevelConfigurationSpec', 'type'), (o) => str(o.spec?.type)),
    col('NominalConcurrencyShares', 'string', doc('flowcontrol.v1.LimitedPriorityLevelConfiguration', 'nominalConcurrencyShares'),
      (o) => limited(o, (l) => num(l.nominalConcurrencyShares))),
    col('Queues', 'string', doc('flowcontrol.v1.QueuingConfiguration', 'queues'), (o) => limited(o, (l) => (l.limitResponse?.queuing ? num(l.limitResponse.queuing.queues) : undefined))),
    col('HandSize', 'string', doc('flowcontrol.v1.QueuingConfiguration', 'handSize'), (o) => limited(o, (l) => (l.limitResponse?.queuing ? num(l.limitResponse.queuing.handSize) : undefined))),
    col('QueueLengthLimit', 'string', doc('flowcontrol.v1.QueuingConfiguration', 'queueLengthLimit'),
      (o) => limited(o, (l) => (l.limitResponse?.queuing ? num(l.limitResponse.queuing.queueLengthLimit) : undefined))),
    AGE,
  ],
};

// ---- apiregistration (kube-aggregator's own convertor) ----

export const APISERVICE_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Service', 'string', 'The reference to the service that hosts this API endpoint.',
      (o) => (o.spec?.service ? `${str(o.spec.service.namespace)}/${str(o.spec.service.name)}` : 'Local')),
    col('Available', 'string', 'Whether this service is available.', (o) => {
      const c = list(o.status?.conditions).find((x) => x?.type === 'Available');
      if (!c) return 'Unknown';
      if (c.status === 'True' || !c.reason) return str(c.status);
      return `${str(c.status)} (${str(c.reason)})`;
    }),
    AGE,
  ],
};

// ---- rbac.authorization.k8s.io/v1 bindings, apps/v1 ControllerRevisions ----

/** rbac.SubjectsStrings: users, groups and ServiceAccounts (namespace/name) of a binding, each joined with ", ". */
function subjects(o: View): { users: string; groups: string; sas: string } {
  const users: string[] = [], groups: string[] = [], sas: string[] = [];
  for (const s of list(o.subjects)) {
    if (s?.kind === 'ServiceAccount') sas.push(`${str(s.namespace)}/${str(s.name)}`);
    else if (s?.kind === 'User') users.push(str(s.name));
    else if (s?.kind === 'Group') groups.push(str(s.name));
  }
  return { users: users.join(', '), groups: groups.join(', '), sas: sas.join(', ') };
}

function bindingTable(kind: 'RoleBinding' | 'ClusterRoleBinding', noun: string): TableSpec {
  return {
    columns: [
      NAME,
      col('Role', 'string', doc(`rbac.v1.${kind}`, 'roleRef'), (o) => `${str(o.roleRef?.kind)}/${str(o.roleRef?.name)}`),
      AGE,
      wide('Users', 'string', `Users in the ${noun}`, (o) => subjects(o).users),
      wide('Groups', 'string', `Groups in the ${noun}`, (o) => subjects(o).groups),
      wide('ServiceAccounts', 'string', `ServiceAccounts in the ${noun}`, (o) => subjects(o).sas),
    ],
  };
}

export const ROLEBINDING_TABLE = bindingTable('RoleBinding', 'roleBinding');
export const CLUSTERROLEBINDING_TABLE = bindingTable('ClusterRoleBinding', 'clusterRoleBinding');

/** printControllerRevision: the controller as formatResourceName prints it (`daemonset.apps/fluentd`). */
export const CONTROLLERREVISION_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Controller', 'string', 'Controller of the object', (o) => {
      const ref = list(o.metadata?.ownerReferences).find((r) => r?.controller === true);
      if (!ref) return '<none>';
      const apiVersion = str(ref.apiVersion);
      const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
      return `${(group ? `${str(ref.kind)}.${group}` : str(ref.kind)).toLowerCase()}/${str(ref.name)}`;
    }),
    col('Revision', 'string', doc('apps.v1.ControllerRevision', 'revision'), (o) => num(o.revision)),
    AGE,
  ],
};
