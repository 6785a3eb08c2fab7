// Script: turns the Kubernetes API's OpenAPI (Swagger 2.0) document into the schema data the Worker reads:
//   core/schema/definitions.generated.json  — the definitions reachable from the kinds edgeplane serves (every kind
//     kube 1.32 serves, test/data/kube-1.32-discovery.json), without descriptions;
//   core/schema/descriptions.generated.json — their descriptions, only for the published OpenAPI documents
//     (`kubectl explain`), so the walker's data stays small.
//
// Both keep swagger's own shape and key names (type, format, required, properties, items, additionalProperties,
// x-kubernetes-*), with `$ref: "#/definitions/X"` shortened to `$ref: "X"`. One walker (core/schema/) reads them
// for decoding, pruning, defaulting, validation, the OpenAPI documents and, later, server-side apply.
//
// Source: vendor/kubernetes-openapi/kubernetes-1.36-swagger.json (Apache-2.0; provenance in the NOTICE.md beside
// it). The 1.36 schemas are a superset of 1.32's for the served types: fields added since are optional.
//
// Usage: npm run gen (every generated file), or npx tsx scripts/openapi-schemas.ts [swagger.json] [--check]
//   --check: exit 1 if the committed files differ from what the source produces (run by the unit tests).

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_SOURCE = join(ROOT, 'vendor', 'kubernetes-openapi', 'kubernetes-1.36-swagger.json');
export const DEFINITIONS_FILE = join(ROOT, 'core', 'schema', 'definitions.generated.json');
export const DESCRIPTIONS_FILE = join(ROOT, 'core', 'schema', 'descriptions.generated.json');

/** Definitions kept, with everything they reference. */
const ROOTS = [
  // served kinds and their lists
  ...['Namespace', 'Pod', 'Service', 'Endpoints', 'ConfigMap', 'Secret', 'ServiceAccount', 'Node', 'Event',
    'ReplicationController', 'PodTemplate', 'LimitRange', 'PersistentVolumeClaim', 'PersistentVolume', 'ResourceQuota',
    'ComponentStatus'].flatMap((k) => [`io.k8s.api.core.v1.${k}`, `io.k8s.api.core.v1.${k}List`]),
  'io.k8s.api.core.v1.Binding',
  ...['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'ControllerRevision'].flatMap((k) => [`io.k8s.api.apps.v1.${k}`, `io.k8s.api.apps.v1.${k}List`]),
  ...['Job', 'CronJob'].flatMap((k) => [`io.k8s.api.batch.v1.${k}`, `io.k8s.api.batch.v1.${k}List`]),
  'io.k8s.api.discovery.v1.EndpointSlice', 'io.k8s.api.discovery.v1.EndpointSliceList',
  'io.k8s.api.coordination.v1.Lease', 'io.k8s.api.coordination.v1.LeaseList',
  'io.k8s.api.events.v1.Event', 'io.k8s.api.events.v1.EventList',
  ...['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'].flatMap((k) => [`io.k8s.api.rbac.v1.${k}`, `io.k8s.api.rbac.v1.${k}List`]),
  'io.k8s.api.authentication.v1.SelfSubjectReview', 'io.k8s.api.authentication.v1.TokenRequest', 'io.k8s.api.authentication.v1.TokenReview',
  'io.k8s.api.authorization.v1.SelfSubjectAccessReview', 'io.k8s.api.authorization.v1.SelfSubjectRulesReview',
  'io.k8s.api.authorization.v1.SubjectAccessReview', 'io.k8s.api.authorization.v1.LocalSubjectAccessReview',
  'io.k8s.api.autoscaling.v1.Scale',
  'io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler', 'io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerList',
  'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler', 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerList',
  'io.k8s.api.certificates.v1.CertificateSigningRequest', 'io.k8s.api.certificates.v1.CertificateSigningRequestList',
  ...['Ingress', 'IngressClass', 'NetworkPolicy'].flatMap((k) => [`io.k8s.api.networking.v1.${k}`, `io.k8s.api.networking.v1.${k}List`]),
  'io.k8s.api.node.v1.RuntimeClass', 'io.k8s.api.node.v1.RuntimeClassList',
  'io.k8s.api.policy.v1.PodDisruptionBudget', 'io.k8s.api.policy.v1.PodDisruptionBudgetList', 'io.k8s.api.policy.v1.Eviction',
  'io.k8s.api.scheduling.v1.PriorityClass', 'io.k8s.api.scheduling.v1.PriorityClassList',
  ...['StorageClass', 'VolumeAttachment', 'CSIDriver', 'CSINode', 'CSIStorageCapacity'].flatMap((k) => [`io.k8s.api.storage.v1.${k}`, `io.k8s.api.storage.v1.${k}List`]),
  ...['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']
    .flatMap((k) => [`io.k8s.api.admissionregistration.v1.${k}`, `io.k8s.api.admissionregistration.v1.${k}List`]),
  // Served when RUNTIME_CONFIG enables admissionregistration.k8s.io/v1alpha1 (core/registry.ts OPTIONAL_TYPES); the
  // 1.36 document's v1alpha1 definitions are 1.32's (kube 1.32 api/openapi-spec/v3/apis__admissionregistration.
  // k8s.io__v1alpha1_openapi.json), Apache-2.0 as the rest.
  ...['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding']
    .flatMap((k) => [`io.k8s.api.admissionregistration.v1alpha1.${k}`, `io.k8s.api.admissionregistration.v1alpha1.${k}List`]),
  ...['FlowSchema', 'PriorityLevelConfiguration'].flatMap((k) => [`io.k8s.api.flowcontrol.v1.${k}`, `io.k8s.api.flowcontrol.v1.${k}List`]),
  'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService', 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceList',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionList',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Status', 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent', 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
  'io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList',
];

type Schema = Record<string, unknown>;

const REF_PREFIX = '#/definitions/';

/** The schema without descriptions, `$ref`s shortened; `describe` receives each description with its path. */
function compact(s: Schema, path: string, describe: (path: string, text: string) => void, refs: Set<string>): Schema {
  const out: Schema = {};
  for (const key of Object.keys(s).sort()) {
    const v = s[key];
    if (key === 'description') {
      describe(path, v as string);
    } else if (key === '$ref') {
      const name = (v as string).slice(REF_PREFIX.length);
      refs.add(name);
      out.$ref = name;
    } else if (key === 'properties') {
      const props: Schema = {};
      for (const [name, p] of Object.entries(v as Record<string, Schema>)) props[name] = compact(p, `${path}.${name}`, describe, refs);
      out.properties = props;
    } else if (key === 'items' || key === 'additionalProperties') {
      out[key] = typeof v === 'object' ? compact(v as Schema, path, describe, refs) : v;
    } else {
      out[key] = v;
    }
  }
  return out;
}

export function generate(swagger: { definitions: Record<string, Schema> }): { definitions: Record<string, Schema>; descriptions: Record<string, string> } {
  const definitions: Record<string, Schema> = {};
  const descriptions: Record<string, string> = {};
  const queue = [...ROOTS];
  while (queue.length) {
    const name = queue.shift()!;
    if (definitions[name]) continue;
    const source = swagger.definitions[name];
    if (!source) throw new Error(`definition ${name} not found in the source document`);
    const refs = new Set<string>();
    definitions[name] = compact(source, name, (path, text) => { descriptions[path] = text; }, refs);
    for (const r of refs) if (!definitions[r]) queue.push(r);
  }
  const sorted = <T>(o: Record<string, T>) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]!]));
  return { definitions: sorted(definitions), descriptions: sorted(descriptions) };
}

function render(value: unknown): string {
  return `${JSON.stringify(value, null, 0)}\n`;
}

/** The two files' contents as they should be committed. */
export function generatedFiles(source = DEFAULT_SOURCE): { definitions: string; descriptions: string } {
  const out = generate(JSON.parse(readFileSync(source, 'utf8')));
  // One definition per line: small diffs when the source changes, reviewable in a pager.
  const lines = Object.entries(out.definitions).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  return { definitions: `{\n${lines.join(',\n')}\n}\n`, descriptions: render(out.descriptions) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  const source = args.find((a) => !a.startsWith('--')) ?? DEFAULT_SOURCE;
  const files = generatedFiles(source);
  if (check) {
    const same = readFileSync(DEFINITIONS_FILE, 'utf8') === files.definitions && readFileSync(DESCRIPTIONS_FILE, 'utf8') === files.descriptions;
    if (!same) {
      console.error('core/schema/*.generated.json differ from the source; run: npx tsx scripts/openapi-schemas.ts');
      process.exit(1);
    }
  } else {
    writeFileSync(DEFINITIONS_FILE, files.definitions);
    writeFileSync(DESCRIPTIONS_FILE, files.descriptions);
    console.log(`wrote ${DEFINITIONS_FILE} and ${DESCRIPTIONS_FILE}`);
  }
}
