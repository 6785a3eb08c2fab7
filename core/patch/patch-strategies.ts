// Core: strategic-merge-patch metadata as data: the `patchStrategy` / `patchMergeKey` struct tags of
// the built-in types (k8s.io/api, apimachinery ObjectMeta), looked up by kind and field path.
//
// Types are described structurally, like Go's reflection walk in strategicpatch: a kind names a root
// type, a field names the type of its value (for lists, the element type), so every Pod template
// (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, ReplicationController, PodTemplate)
// resolves to the one PodSpec table. Only fields that lead to a tag are listed; anything else is
// "no tag": lists are replaced (atomic) and objects are merged key by key. No built-in struct field
// carries patchStrategy:"replace", so objects always merge.

export interface PatchMeta {
  /** How a list is patched: 'merge' by mergeKey (or by value for primitives), 'replace' wholesale. */
  strategy: 'merge' | 'replace';
  /** patchMergeKey; absent for merge lists of primitives (e.g. metadata.finalizers). */
  mergeKey?: string;
  /** The tag also lists retainKeys: clients send $retainKeys for each element / the object. */
  retainKeys?: boolean;
}

interface FieldRule {
  /** Type of the field's value, or of each element for a list. */
  type?: string;
  strategy?: 'merge';
  mergeKey?: string;
  retainKeys?: boolean;
}

type TypeRules = Readonly<Record<string, FieldRule>>;

const merge = (mergeKey?: string, type?: string): FieldRule => ({ strategy: 'merge', mergeKey, type });
const byType = merge('type');

// Struct types, named as in Go, holding only the fields that matter for patching.
const TYPES: Readonly<Record<string, TypeRules>> = {
  ObjectMeta: {
    ownerReferences: merge('uid'),
    finalizers: merge(),
  },
  PodTemplateSpec: { metadata: { type: 'ObjectMeta' }, spec: { type: 'PodSpec' } },
  PodSpec: {
    volumes: { ...merge('name'), retainKeys: true },
    initContainers: merge('name', 'Container'),
    containers: merge('name', 'Container'),
    ephemeralContainers: merge('name', 'Container'),
    imagePullSecrets: merge('name'),
    hostAliases: merge('ip'),
    topologySpreadConstraints: merge('topologyKey'),
    schedulingGates: merge('name'),
    resourceClaims: { ...merge('name'), retainKeys: true },
  },
  // Container and EphemeralContainerCommon carry the same tags.
  Container: {
    ports: merge('containerPort'),
    env: merge('name'),
    volumeMounts: merge('mountPath'),
    volumeDevices: merge('devicePath'),
  },
  PodStatus: {
    conditions: byType,
    podIPs: merge('ip'),
    hostIPs: merge('ip'),
    resourceClaimStatuses: { ...merge('name'), retainKeys: true },
  },
  ConditionsStatus: { conditions: byType },
  ServiceSpec: { ports: merge('port') },
  NodeSpec: { podCIDRs: merge() },
  NodeStatus: { conditions: byType, addresses: merge('type') },
  TemplateSpec: { template: { type: 'PodTemplateSpec' } },
  DeploymentSpec: { template: { type: 'PodTemplateSpec' }, strategy: { retainKeys: true } },
  CronJobSpec: { jobTemplate: { type: 'JobTemplateSpec' } },
  JobTemplateSpec: { metadata: { type: 'ObjectMeta' }, spec: { type: 'TemplateSpec' } },
  CSINodeSpec: { drivers: merge('name') },
};

// Root type of each kind: metadata is always ObjectMeta, then spec/status or top-level fields.
const meta = { metadata: { type: 'ObjectMeta' } } as const;
const withSpec = (spec?: string, status?: string): TypeRules => ({
  ...meta,
  ...(spec ? { spec: { type: spec } } : {}),
  ...(status ? { status: { type: status } } : {}),
});

const KINDS: Readonly<Record<string, TypeRules>> = {
  Pod: withSpec('PodSpec', 'PodStatus'),
  PodTemplate: { ...meta, template: { type: 'PodTemplateSpec' } },
  Service: withSpec('ServiceSpec', 'ConditionsStatus'),
  ServiceAccount: { ...meta, secrets: merge('name') },
  Node: withSpec('NodeSpec', 'NodeStatus'),
  Namespace: withSpec(undefined, 'ConditionsStatus'),
  PersistentVolumeClaim: withSpec(undefined, 'ConditionsStatus'),
  ReplicationController: withSpec('TemplateSpec', 'ConditionsStatus'),
  ComponentStatus: { ...meta, conditions: byType },
  Deployment: withSpec('DeploymentSpec', 'ConditionsStatus'),
  ReplicaSet: withSpec('TemplateSpec', 'ConditionsStatus'),
  StatefulSet: withSpec('TemplateSpec', 'ConditionsStatus'),
  DaemonSet: withSpec('TemplateSpec', 'ConditionsStatus'),
  Job: withSpec('TemplateSpec', 'ConditionsStatus'),
  CronJob: withSpec('CronJobSpec'),
  HorizontalPodAutoscaler: withSpec(undefined, 'ConditionsStatus'),
  PodDisruptionBudget: withSpec(undefined, 'ConditionsStatus'),
  APIService: withSpec(undefined, 'ConditionsStatus'),
  FlowSchema: withSpec(undefined, 'ConditionsStatus'),
  PriorityLevelConfiguration: withSpec(undefined, 'ConditionsStatus'),
  ValidatingWebhookConfiguration: { ...meta, webhooks: merge('name') },
  MutatingWebhookConfiguration: { ...meta, webhooks: merge('name') },
  CSINode: withSpec('CSINodeSpec'),
};

/** Every object has ObjectMeta, so kinds not listed still merge ownerReferences and finalizers. */
const UNKNOWN_KIND: TypeRules = meta;

/** A position in the type tree: the rules of the struct we are inside, or undefined when unknown. */
export type TypeRef = TypeRules | undefined;

const NO_TAG: PatchMeta = { strategy: 'replace' };

export function rootType(kind: string): TypeRef {
  return KINDS[kind] ?? UNKNOWN_KIND;
}

/** Patch metadata of `field` inside `t`, and the type to use below it (elements, for lists). */
export function fieldMeta(t: TypeRef, field: string): { meta: PatchMeta; type: TypeRef } {
  const rule = t && Object.prototype.hasOwnProperty.call(t, field) ? t[field] : undefined;
  if (!rule) return { meta: NO_TAG, type: undefined };
  const meta: PatchMeta = { strategy: rule.strategy ?? 'replace' };
  if (rule.mergeKey) meta.mergeKey = rule.mergeKey;
  if (rule.retainKeys) meta.retainKeys = true;
  return { meta, type: rule.type ? TYPES[rule.type] : undefined };
}

/**
 * Patch metadata for a field path such as "spec.template.spec.containers[].ports" (list element
 * steps may be written "[]", "[0]" or left out). Unknown kinds and paths answer { strategy: 'replace' }.
 */
export function patchMetaFor(kind: string, path: string | readonly string[]): PatchMeta {
  const segments = (typeof path === 'string' ? path.split('.') : [...path])
    .map((s) => s.replace(/\[[^\]]*\]$/, ''))
    .filter((s) => s !== '');
  let t = rootType(kind);
  let found: PatchMeta = NO_TAG;
  for (const segment of segments) {
    const step = fieldMeta(t, segment);
    found = step.meta;
    t = step.type;
  }
  return found;
}
