// Script: turns Kubernetes' upstream generated.proto files (k8s.io/api, k8s.io/apimachinery) into the compact
// schema data module core/protobuf/schema.generated.ts that core/protobuf/decode.ts reads.
//
// Usage: npm run gen (every generated file), or npx tsx scripts/protobuf-schema.ts [dir] [out.ts] [--check]
//   The directory (default vendor/kubernetes-proto, Kubernetes 1.36; provenance in its NOTICE.md) is searched
//   recursively for *.proto. Packages come from each file's `package` line, not its path.
//   --check: exit 1 if the committed module differs from what the source produces (run by the unit tests).
//
// What .proto text cannot say, and so is written down here (from the same packages' types.go):
// - which scalar fields are Go pointers (KEEP_ZERO): gogo-protobuf writes every non-pointer field even when it
//   is zero, so a zero on the wire usually means "unset" and is dropped like encoding/json's omitempty would;
//   for pointers a zero was set on purpose (replicas: 0, allowPrivilegeEscalation: false) and must survive.
// - which embedded structs are `json:",inline"` (INLINE): go-to-protobuf gives them a field of their own.
// - JSON names that differ from the proto field name (JSON_NAMES): a few legacy protobuf tags kept Go's casing.

import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_PROTO_DIR = join(ROOT, 'vendor', 'kubernetes-proto');
export const PROTOBUF_SCHEMA_FILE = join(ROOT, 'core', 'protobuf', 'schema.generated.ts');

/** Proto package → the short alias used in the generated module, and the apiVersion its top-level kinds use. */
const PACKAGES: Record<string, { alias: string; apiVersion?: string }> = {
  'k8s.io.api.core.v1': { alias: 'core/v1', apiVersion: 'v1' },
  'k8s.io.api.apps.v1': { alias: 'apps/v1', apiVersion: 'apps/v1' },
  'k8s.io.api.batch.v1': { alias: 'batch/v1', apiVersion: 'batch/v1' },
  'k8s.io.api.rbac.v1': { alias: 'rbac/v1', apiVersion: 'rbac.authorization.k8s.io/v1' },
  'k8s.io.api.authentication.v1': { alias: 'authentication/v1', apiVersion: 'authentication.k8s.io/v1' },
  'k8s.io.api.authorization.v1': { alias: 'authorization/v1', apiVersion: 'authorization.k8s.io/v1' },
  'k8s.io.api.coordination.v1': { alias: 'coordination/v1', apiVersion: 'coordination.k8s.io/v1' },
  'k8s.io.api.discovery.v1': { alias: 'discovery/v1', apiVersion: 'discovery.k8s.io/v1' },
  'k8s.io.api.autoscaling.v1': { alias: 'autoscaling/v1', apiVersion: 'autoscaling/v1' },
  'k8s.io.api.policy.v1': { alias: 'policy/v1', apiVersion: 'policy/v1' },
  'k8s.io.api.networking.v1': { alias: 'networking/v1', apiVersion: 'networking.k8s.io/v1' },
  'k8s.io.api.scheduling.v1': { alias: 'scheduling/v1', apiVersion: 'scheduling.k8s.io/v1' },
  'k8s.io.api.autoscaling.v2': { alias: 'autoscaling/v2', apiVersion: 'autoscaling/v2' },
  'k8s.io.api.admissionregistration.v1': { alias: 'admissionregistration/v1', apiVersion: 'admissionregistration.k8s.io/v1' },
  'k8s.io.api.certificates.v1': { alias: 'certificates/v1', apiVersion: 'certificates.k8s.io/v1' },
  'k8s.io.api.flowcontrol.v1': { alias: 'flowcontrol/v1', apiVersion: 'flowcontrol.apiserver.k8s.io/v1' },
  'k8s.io.api.node.v1': { alias: 'node/v1', apiVersion: 'node.k8s.io/v1' },
  'k8s.io.api.storage.v1': { alias: 'storage/v1', apiVersion: 'storage.k8s.io/v1' },
  'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1': { alias: 'apiregistration/v1', apiVersion: 'apiregistration.k8s.io/v1' },
  'k8s.io.apimachinery.pkg.apis.meta.v1': { alias: 'meta/v1', apiVersion: 'meta.k8s.io/v1' },
  'k8s.io.apimachinery.pkg.runtime': { alias: 'runtime' },
  'k8s.io.apimachinery.pkg.util.intstr': { alias: 'intstr' },
  'k8s.io.apimachinery.pkg.api.resource': { alias: 'resource' },
};

/** Top-level kinds a client may POST/PUT as protobuf; everything reachable from them is kept, the rest dropped. */
const ROOTS: Record<string, string[]> = {
  'core/v1': [
    'Namespace', 'ConfigMap', 'Secret', 'ServiceAccount', 'Service', 'Pod', 'Endpoints', 'Event', 'Node',
    'ResourceQuota', 'LimitRange', 'PersistentVolumeClaim', 'PersistentVolume', 'PodTemplate', 'ReplicationController',
    'Binding', 'ComponentStatus',
  ],
  'apps/v1': ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'ControllerRevision'],
  'batch/v1': ['Job', 'CronJob'],
  'rbac/v1': ['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'],
  'authentication/v1': ['TokenRequest', 'TokenReview', 'SelfSubjectReview'],
  'authorization/v1': [
    'SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview', 'LocalSubjectAccessReview',
  ],
  'coordination/v1': ['Lease'],
  'discovery/v1': ['EndpointSlice'],
  'autoscaling/v1': ['Scale', 'HorizontalPodAutoscaler'],
  'policy/v1': ['PodDisruptionBudget', 'Eviction'],
  'autoscaling/v2': ['HorizontalPodAutoscaler'],
  'networking/v1': ['Ingress', 'IngressClass', 'NetworkPolicy'],
  'scheduling/v1': ['PriorityClass'],
  'admissionregistration/v1': [
    'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding',
  ],
  'certificates/v1': ['CertificateSigningRequest'],
  'flowcontrol/v1': ['FlowSchema', 'PriorityLevelConfiguration'],
  'node/v1': ['RuntimeClass'],
  'storage/v1': ['StorageClass', 'VolumeAttachment', 'CSIDriver', 'CSINode', 'CSIStorageCapacity'],
  'apiregistration/v1': ['APIService'],
  // DeleteOptions is registered in every group version (metav1.AddToGroupVersion); decode.ts accepts any.
  'meta/v1': ['DeleteOptions'],
};

/**
 * Scalar fields whose zero value must be kept when present on the wire: Go pointer fields (types.go `*int32`,
 * `*bool`, ...), plus a few non-pointer fields without omitempty whose proto comment nevertheless says +optional.
 * Pointer strings are listed only where "" differs from unset. Keyed `alias.Message`, fields space-separated.
 */
const KEEP_ZERO: Record<string, string> = {
  'meta/v1.ObjectMeta': 'deletionGracePeriodSeconds',
  'meta/v1.OwnerReference': 'controller blockOwnerDeletion',
  'meta/v1.ListMeta': 'remainingItemCount',
  'meta/v1.DeleteOptions': 'gracePeriodSeconds orphanDependents ignoreStoreReadErrorWithClusterBreakingPotential',
  'apps/v1.DaemonSetSpec': 'revisionHistoryLimit',
  'apps/v1.DaemonSetStatus': 'collisionCount',
  'apps/v1.DeploymentSpec': 'replicas revisionHistoryLimit progressDeadlineSeconds',
  'apps/v1.DeploymentStatus': 'collisionCount terminatingReplicas',
  'apps/v1.ReplicaSetSpec': 'replicas',
  'apps/v1.ReplicaSetStatus': 'terminatingReplicas',
  'apps/v1.RollingUpdateStatefulSetStrategy': 'partition',
  'apps/v1.StatefulSetSpec': 'replicas revisionHistoryLimit serviceName', // serviceName: no omitempty in 1.32
  'apps/v1.StatefulSetStatus': 'collisionCount',
  'batch/v1.CronJobSpec': 'startingDeadlineSeconds suspend successfulJobsHistoryLimit failedJobsHistoryLimit',
  'batch/v1.JobSpec':
    'parallelism completions activeDeadlineSeconds backoffLimit backoffLimitPerIndex maxFailedIndexes ' +
    'manualSelector ttlSecondsAfterFinished suspend',
  'batch/v1.JobStatus': 'terminating ready',
  'batch/v1.SuccessPolicyRule': 'succeededCount',
  'authentication/v1.TokenRequestSpec': 'expirationSeconds',
  'coordination/v1.LeaseSpec': 'holderIdentity leaseDurationSeconds leaseTransitions',
  'discovery/v1.EndpointConditions': 'ready serving terminating',
  'networking/v1.NetworkPolicyPort': 'endPort',
  'autoscaling/v1.HorizontalPodAutoscalerSpec': 'minReplicas targetCPUUtilizationPercentage',
  'autoscaling/v1.HorizontalPodAutoscalerStatus': 'observedGeneration currentCPUUtilizationPercentage',
  'autoscaling/v2.HorizontalPodAutoscalerSpec': 'minReplicas',
  'autoscaling/v2.HorizontalPodAutoscalerStatus': 'observedGeneration',
  'autoscaling/v2.MetricTarget': 'averageUtilization',
  'autoscaling/v2.MetricValueStatus': 'averageUtilization',
  'autoscaling/v2.HPAScalingRules': 'stabilizationWindowSeconds selectPolicy',
  'admissionregistration/v1.MutatingWebhook': 'failurePolicy matchPolicy sideEffects timeoutSeconds reinvocationPolicy',
  'admissionregistration/v1.ValidatingWebhook': 'failurePolicy matchPolicy sideEffects timeoutSeconds',
  'admissionregistration/v1.ServiceReference': 'port',
  'admissionregistration/v1.Rule': 'scope',
  'admissionregistration/v1.ValidatingAdmissionPolicySpec': 'failurePolicy',
  'admissionregistration/v1.MatchResources': 'matchPolicy',
  'admissionregistration/v1.ParamRef': 'parameterNotFoundAction',
  'admissionregistration/v1.Validation': 'reason',
  'certificates/v1.CertificateSigningRequestSpec': 'expirationSeconds',
  'flowcontrol/v1.LimitedPriorityLevelConfiguration': 'nominalConcurrencyShares lendablePercent borrowingLimitPercent',
  'flowcontrol/v1.ExemptPriorityLevelConfiguration': 'nominalConcurrencyShares lendablePercent',
  'storage/v1.StorageClass': 'allowVolumeExpansion reclaimPolicy volumeBindingMode',
  'storage/v1.CSIDriverSpec': 'attachRequired podInfoOnMount storageCapacity requiresRepublish seLinuxMount fsGroupPolicy',
  'storage/v1.VolumeNodeResources': 'count',
  'storage/v1.VolumeAttachmentSource': 'persistentVolumeName',
  'storage/v1.VolumeAttachmentStatus': 'attached',
  'storage/v1.TokenRequest': 'expirationSeconds',
  'apiregistration/v1.APIServiceSpec': 'groupPriorityMinimum versionPriority',
  'apiregistration/v1.ServiceReference': 'port',
  'scheduling/v1.PriorityClass': 'value preemptionPolicy',
  'core/v1.PersistentVolumeSpec': 'volumeMode storageClassName',
  // Not a pointer in Go, but a server reading `spec.replicas` of a Scale should see an explicit 0.
  'autoscaling/v1.ScaleSpec': 'replicas',
  'core/v1.AzureDiskVolumeSource': 'readOnly',
  'core/v1.CSIVolumeSource': 'readOnly',
  'core/v1.ClientIPConfig': 'timeoutSeconds',
  'core/v1.ClusterTrustBundleProjection': 'optional',
  'core/v1.ConfigMap': 'immutable',
  'core/v1.Secret': 'immutable',
  'core/v1.ConfigMapEnvSource': 'optional',
  'core/v1.ConfigMapKeySelector': 'optional',
  'core/v1.ConfigMapProjection': 'optional',
  'core/v1.ConfigMapVolumeSource': 'defaultMode optional',
  'core/v1.SecretEnvSource': 'optional',
  'core/v1.SecretKeySelector': 'optional',
  'core/v1.SecretProjection': 'optional',
  'core/v1.SecretVolumeSource': 'defaultMode optional',
  'core/v1.FileKeySelector': 'optional',
  'core/v1.ContainerStatus': 'started',
  'core/v1.DownwardAPIVolumeFile': 'mode',
  'core/v1.DownwardAPIVolumeSource': 'defaultMode',
  'core/v1.KeyToPath': 'mode',
  'core/v1.ProjectedVolumeSource': 'defaultMode',
  'core/v1.FCVolumeSource': 'lun',
  'core/v1.PersistentVolumeClaimSpec': 'storageClassName volumeAttributesClassName',
  'core/v1.PodCertificateProjection': 'maxExpirationSeconds',
  'core/v1.PodSecurityContext': 'runAsUser runAsGroup runAsNonRoot fsGroup',
  'core/v1.PodSpec':
    'terminationGracePeriodSeconds activeDeadlineSeconds automountServiceAccountToken shareProcessNamespace ' +
    'priority enableServiceLinks setHostnameAsFQDN hostUsers',
  'core/v1.Probe': 'terminationGracePeriodSeconds',
  'core/v1.ReplicationControllerSpec': 'replicas',
  'core/v1.SecurityContext':
    'privileged runAsUser runAsGroup runAsNonRoot readOnlyRootFilesystem allowPrivilegeEscalation',
  'core/v1.ServiceAccount': 'automountServiceAccountToken',
  'core/v1.ServiceAccountTokenProjection': 'expirationSeconds',
  'core/v1.ServiceSpec': 'allocateLoadBalancerNodePorts',
  'core/v1.TopologySpreadConstraint': 'minDomains',
  'core/v1.Toleration': 'tolerationSeconds',
  'core/v1.WindowsSecurityContextOptions': 'hostProcess',
  'core/v1.NodeFeatures': 'supplementalGroupsPolicy',
  'core/v1.NodeRuntimeHandlerFeatures': 'recursiveReadOnlyMounts userNamespaces',
  'core/v1.NodeSwapStatus': 'capacity',
  // Fields without omitempty in 1.32's types.go that 1.36's protos mark +optional: edgeplane serves 1.32, so
  // they keep their zero values as a 1.32 server writes them (kubectl 1.32 bodies in test/core/protobuf).
  'authentication/v1.TokenRequestStatus': 'token',
  'rbac/v1.RoleRef': 'apiGroup',
  'policy/v1.PodDisruptionBudgetStatus': 'disruptionsAllowed currentHealthy desiredHealthy expectedPods',
};

/** Embedded Go structs tagged `json:",inline"`: their fields appear directly in the parent's JSON. */
const INLINE: Record<string, string> = {
  'core/v1.Volume': 'volumeSource',
  'core/v1.Probe': 'handler',
  'core/v1.EphemeralContainer': 'ephemeralContainerCommon',
  'core/v1.ConfigMapEnvSource': 'localObjectReference',
  'core/v1.ConfigMapKeySelector': 'localObjectReference',
  'core/v1.ConfigMapProjection': 'localObjectReference',
  'core/v1.ConfigMapVolumeSource': 'localObjectReference',
  'core/v1.SecretEnvSource': 'localObjectReference',
  'core/v1.SecretKeySelector': 'localObjectReference',
  'core/v1.SecretProjection': 'localObjectReference',
  'networking/v1.IngressRule': 'ingressRuleValue',
  'core/v1.PersistentVolumeSpec': 'persistentVolumeSource',
  'admissionregistration/v1.RuleWithOperations': 'rule',
  'admissionregistration/v1.NamedRuleWithOperations': 'ruleWithOperations',
};

/** Proto field name → JSON name, where a legacy protobuf tag kept Go's initialism casing. */
const JSON_NAMES: Record<string, Record<string, string>> = {
  'authentication/v1.BoundObjectReference': { uID: 'uid' },
  'networking/v1.IngressClassParametersReference': { aPIGroup: 'apiGroup' },
};

const SCALARS = new Set([
  'string', 'bytes', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64',
  'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'double', 'float',
]);

interface Field {
  num: number;
  name: string;
  /** Scalar keyword, `map<K,V>`, or a fully qualified message name (resolved after parsing). */
  type: string;
  repeated: boolean;
  optionalMarker: boolean;
}

interface Message {
  pkg: string;
  name: string;
  fields: Field[];
  /** `+protobuf.nullable=true`: a Go slice type wrapped in a message; its JSON is the bare array. */
  listWrapper: boolean;
}

function protoFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...protoFiles(path));
    else if (entry.endsWith('.proto')) out.push(path);
  }
  return out;
}

/** `[label] type name = number`, where type may be `map<K, V>`. */
const FIELD = /^(optional|repeated|required)?\s*(map\s*<\s*([\w.]+)\s*,\s*([\w.]+)\s*>|[\w.]+)\s+(\w+)\s*=\s*(\d+)/;

/** Line-oriented parse of go-to-protobuf output: one field per line, comments attach to the next declaration. */
function parseProto(text: string, messages: Map<string, Message>): void {
  const lines = text.replace(/\/\*[\s\S]*?\*\//g, '').split('\n');
  let pkg = '';
  let current: Message | undefined;
  let pendingComments: string[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith('//')) {
      pendingComments.push(line);
      continue;
    }
    const comment = line.includes('//') ? line.slice(line.indexOf('//')) : '';
    const code = (comment ? line.slice(0, line.indexOf('//')) : line).trim();
    const notes = [...pendingComments, comment].join('\n');
    if (code === '') {
      if (line === '') pendingComments = [];
      continue;
    }
    pendingComments = [];
    let m: RegExpMatchArray | null;
    if ((m = code.match(/^package\s+([\w.]+)\s*;/))) {
      pkg = m[1]!;
    } else if ((m = code.match(/^message\s+(\w+)\s*\{\s*(\})?$/))) {
      if (current) throw new Error(`nested message ${m[1]} in ${current.name}: not supported`);
      const msg: Message = { pkg, name: m[1]!, fields: [], listWrapper: /\+protobuf\.nullable=true/.test(notes) };
      messages.set(`${pkg}.${msg.name}`, msg);
      if (!m[2]) current = msg;
    } else if (code === '}') {
      current = undefined;
    } else if (current && (m = code.match(FIELD))) {
      const isMap = m[3] !== undefined;
      current.fields.push({
        num: Number(m[6]),
        name: m[5]!,
        type: isMap ? `map<${m[3]},${m[4]}>` : m[2]!,
        repeated: m[1] === 'repeated',
        optionalMarker: /\+optional/.test(notes),
      });
    } else if (!/^(syntax|import|option)\b/.test(code)) {
      throw new Error(`unparsed line in package ${pkg}: ${line}`);
    }
  }
}

/** Proto name resolution as protoc does it for these files: absolute (.a.b.C), package-qualified, or local. */
function resolve(type: string, pkg: string, messages: Map<string, Message>): string {
  if (SCALARS.has(type)) return type;
  const bare = type.replace(/^\./, '');
  if (messages.has(bare)) return bare;
  if (messages.has(`${pkg}.${bare}`)) return `${pkg}.${bare}`;
  throw new Error(`unresolved type ${type} in package ${pkg}`);
}

function aliasOf(pkg: string): string {
  const p = PACKAGES[pkg];
  if (!p) throw new Error(`package ${pkg} has no alias in PACKAGES`);
  return p.alias;
}

function shortName(full: string, fromPkg: string): string {
  if (SCALARS.has(full)) return full;
  const dot = full.lastIndexOf('.');
  const pkg = full.slice(0, dot);
  return pkg === fromPkg ? full.slice(dot + 1) : `${aliasOf(pkg)}.${full.slice(dot + 1)}`;
}

/** The generated module's text from the .proto files under `dir`. */
export function generatedProtobufSchema(dir = DEFAULT_PROTO_DIR): string {
  const messages = new Map<string, Message>();
  for (const file of protoFiles(dir)) parseProto(readFileSync(file, 'utf8'), messages);

  const fullNameOf = new Map<string, string>();
  for (const [full, msg] of messages) fullNameOf.set(`${aliasOf(msg.pkg)}.${msg.name}`, full);
  const pkgOfAlias = new Map(Object.entries(PACKAGES).map(([pkg, p]) => [p.alias, pkg]));

  // Reachability from the roots: only what a top-level kind can contain is emitted.
  const kinds: Record<string, string> = {};
  const queue: string[] = [];
  for (const [alias, names] of Object.entries(ROOTS)) {
    const pkg = pkgOfAlias.get(alias)!;
    for (const name of names) {
      const full = `${pkg}.${name}`;
      if (!messages.has(full)) throw new Error(`root ${alias}.${name} not found in the .proto files`);
      kinds[`${PACKAGES[pkg]!.apiVersion}/${name}`] = `${alias}.${name}`;
      queue.push(full);
    }
  }
  const reachable = new Set<string>();
  while (queue.length) {
    const full = queue.pop()!;
    if (reachable.has(full)) continue;
    reachable.add(full);
    const msg = messages.get(full)!;
    for (const f of msg.fields) {
      const mapMatch = f.type.match(/^map<([\w.]+),([\w.]+)>$/);
      const refs = mapMatch ? [mapMatch[2]!] : [f.type];
      for (const ref of refs) {
        const resolved = resolve(ref, msg.pkg, messages);
        if (!SCALARS.has(resolved)) queue.push(resolved);
      }
    }
  }

  // Overlay tables must name real fields, so a typo or an upstream rename fails loudly instead of silently.
  const checkOverlay = (table: Record<string, string | Record<string, string>>, label: string) => {
    for (const [key, value] of Object.entries(table)) {
      const full = fullNameOf.get(key);
      if (!full) throw new Error(`${label}: unknown message ${key}`);
      const names = typeof value === 'string' ? value.split(/\s+/) : Object.keys(value);
      for (const n of names) {
        if (!messages.get(full)!.fields.some((f) => f.name === n)) throw new Error(`${label}: ${key}.${n} not found`);
      }
    }
  };
  checkOverlay(KEEP_ZERO, 'KEEP_ZERO');
  checkOverlay(INLINE, 'INLINE');
  checkOverlay(JSON_NAMES, 'JSON_NAMES');

  const entries: string[] = [];
  const listWrappers: string[] = [];
  for (const full of [...reachable].sort()) {
    const msg = messages.get(full)!;
    const key = `${aliasOf(msg.pkg)}.${msg.name}`;
    if (msg.listWrapper) listWrappers.push(key);
    const keep = new Set((KEEP_ZERO[key] ?? '').split(/\s+/).filter(Boolean));
    const inline = new Set((INLINE[key] ?? '').split(/\s+/).filter(Boolean));
    const jsonNames = JSON_NAMES[key] ?? {};
    const fields = msg.fields.map((f) => {
      const mapMatch = f.type.match(/^map<([\w.]+),([\w.]+)>$/);
      const type = mapMatch
        ? `map<${mapMatch[1]},${shortName(resolve(mapMatch[2]!, msg.pkg, messages), msg.pkg)}>`
        : shortName(resolve(f.type, msg.pkg, messages), msg.pkg);
      const name = jsonNames[f.name] ?? f.name;
      if (/^[a-z][A-Z]/.test(name)) console.warn(`warning: ${key}.${name} looks Go-cased; check JSON_NAMES`);
      let flags = '';
      if (f.repeated) flags += 'r';
      if (SCALARS.has(type) && !f.repeated && (!f.optionalMarker || keep.has(f.name))) flags += 'z';
      if (inline.has(f.name)) flags += 'i';
      return `${f.num}:${name}:${type}${flags ? `:${flags}` : ''}`;
    });
    entries.push(`  ${JSON.stringify(key)}: ${JSON.stringify(fields.join(' '))},`);
  }

  const kindLines = Object.entries(kinds).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},`);
  const body = `// Core: GENERATED protobuf schemas (do not edit) for the Kubernetes kinds clients send as
// application/vnd.kubernetes.protobuf, read by core/protobuf/decode.ts.
//
// Derived from upstream generated.proto of k8s.io/api (core, apps, batch, rbac, authentication, authorization,
// coordination, discovery, autoscaling, policy, networking, scheduling, admissionregistration, certificates,
// flowcontrol, node, storage /v1; autoscaling/v2), k8s.io/kube-aggregator (apiregistration/v1) and
// k8s.io/apimachinery (meta/v1, runtime, util/intstr, api/resource), plus the types.go facts listed in
// scripts/protobuf-schema.ts.
// Regenerate: npm run gen (source: vendor/kubernetes-proto)
//
// MESSAGES: "alias.Message" → space-separated fields "number:jsonName:type[:flags]", in Go struct order (which
// is JSON order). type: a proto scalar, map<K,V>, or a message (bare = same package, else "alias.Name").
// flags: r = repeated, z = keep zero values (Go pointer or non-omitempty field), i = json:",inline".

/** "apiVersion/Kind" of each top-level kind → its message. */
export const KINDS: Record<string, string> = {
${kindLines.join('\n')}
};

/** Go slice types wrapped in a message (+protobuf.nullable=true): JSON is the bare array of field 1. */
export const LIST_WRAPPERS: readonly string[] = ${JSON.stringify(listWrappers)};

export const MESSAGES: Record<string, string> = {
${entries.join('\n')}
};
`;
  return body;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const [dir = DEFAULT_PROTO_DIR, out = PROTOBUF_SCHEMA_FILE] = args.filter((a) => !a.startsWith('--'));
  const body = generatedProtobufSchema(dir);
  if (args.includes('--check')) {
    if (readFileSync(out, 'utf8') !== body) {
      console.error(`${out} is stale: run npm run gen`);
      process.exit(1);
    }
  } else {
    writeFileSync(out, body);
    console.error(`${out}: ${body.length} bytes`);
  }
}
