// Core: the resource types a CustomResourceDefinition defines, as registry entries (core/registry.ts):
// one per served version, built from the CRD's accepted names, scope, schema, subresources and columns.
// Only Established CRDs define types (apiextensions customresource_discovery_controller.go lists only
// those; crdHandler serves only accepted names).

import type { ResourceType, Subresource } from '../registry';
import { fromOpenAPIV3, type SchemaNode } from '../schema/node';
import { compileSchemaRules, type RuleNode } from './cel/compile';
import { isTrue, type Crd, type JSONSchemaProps, type PrinterColumn, type ScaleSpec } from './crd-object';

export interface CustomTypeInfo {
  crdName: string;
  /** This entry is the storage version: the one the store keeps objects in. */
  storage: boolean;
  storageVersion: string;
  schema: SchemaNode;
  openAPIV3Schema: JSONSchemaProps;
  statusSubresource: boolean;
  scale?: ScaleSpec;
  columns: PrinterColumn[];
  /** Set while the CRD is being deleted: no creates, fewer verbs in discovery. */
  terminating: boolean;
  /** The Warning a deprecated version's requests carry. */
  deprecationWarning?: string;
  /** This version's x-kubernetes-validations rules, compiled (undefined: the schema has none). */
  celRules?: RuleNode;
}

// apiextensions customresource_discovery_controller.go: the verbs of a custom resource, in its order.
export const CUSTOM_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
export const TERMINATING_VERBS = ['delete', 'deletecollection', 'get', 'list', 'watch'];

// Compiled types by CRD uid and resourceVersion, bounded in (estimated) bytes: a schema's nodes take a
// few times its JSON text; the oldest entries (superseded resourceVersions first, in practice) go first.
const compiled = new Map<string, { types: ResourceType[]; bytes: number }>();
const COMPILED_BUDGET_BYTES = 32 * 1024 * 1024;
const NODE_BYTES_PER_JSON_CHAR = 8;
let compiledBytes = 0;

/** The types of one CRD (none unless Established), compiled once per CRD resourceVersion. */
export function typesFromCrd(crd: Crd): ResourceType[] {
  if (!isTrue(crd, 'Established')) return [];
  const key = `${crd.metadata.uid}/${crd.metadata.resourceVersion}`;
  const done = compiled.get(key);
  if (done) return done.types;
  const types = build(crd);
  const bytes = JSON.stringify(crd.spec.versions ?? []).length * NODE_BYTES_PER_JSON_CHAR;
  while (compiled.size && compiledBytes + bytes > COMPILED_BUDGET_BYTES) {
    const [oldest, entry] = compiled.entries().next().value!;
    compiled.delete(oldest);
    compiledBytes -= entry.bytes;
  }
  if (bytes <= COMPILED_BUDGET_BYTES) {
    compiled.set(key, { types, bytes });
    compiledBytes += bytes;
  }
  return types;
}

function build(crd: Crd): ResourceType[] {
  const names = crd.status?.acceptedNames ?? {};
  const spec = crd.spec;
  const group = spec.group ?? '';
  const versions = spec.versions ?? [];
  const storage = versions.find((v) => v.storage)?.name ?? '';
  const terminating = !!crd.metadata.deletionTimestamp;
  const newest = versions.find((v) => v.served && !v.deprecated)?.name;
  return versions.filter((v) => v.served).map((v): ResourceType => {
    const subresources: Subresource[] = [];
    if (v.subresources?.status) subresources.push('status');
    if (v.subresources?.scale) subresources.push('scale');
    const openAPIV3Schema = v.schema?.openAPIV3Schema ?? { type: 'object' };
    const fieldSelectors: Record<string, string> = {};
    for (const f of v.selectableFields ?? []) {
      if (f.jsonPath) fieldSelectors[f.jsonPath.slice(1)] = f.jsonPath.slice(1);
    }
    const info: CustomTypeInfo = {
      crdName: crd.metadata.name ?? '',
      storage: v.name === storage,
      storageVersion: storage,
      schema: fromOpenAPIV3(openAPIV3Schema),
      openAPIV3Schema,
      statusSubresource: !!v.subresources?.status,
      scale: v.subresources?.scale,
      columns: v.additionalPrinterColumns ?? [],
      terminating,
      celRules: compileSchemaRules(openAPIV3Schema, 'openAPIV3Schema').tree,
    };
    if (v.deprecated) {
      // apiextensions customresource_handler.go defaultDeprecationWarning.
      info.deprecationWarning = v.deprecationWarning ?? (newest
        ? `${group}/${v.name} ${names.kind} is deprecated; use ${group}/${newest} ${names.kind}`
        : `${group}/${v.name} ${names.kind} is deprecated`);
    }
    return {
      group,
      version: v.name ?? '',
      kind: names.kind ?? '',
      resource: names.plural ?? '',
      singular: names.singular ?? (names.kind ?? '').toLowerCase(),
      shortNames: names.shortNames ?? [],
      namespaced: spec.scope === 'Namespaced',
      subresources,
      verbs: CUSTOM_VERBS,
      categories: names.categories ?? [],
      nameRule: 'dns1123Subdomain',
      fieldSelectors,
      tracksGeneration: true,
      returnsDeletedObject: false,
      stored: true,
      custom: info,
    };
  });
}

/** Every CRD's types, for setCustomTypes. */
export function typesFromCrds(crds: Iterable<Crd>): ResourceType[] {
  const out: ResourceType[] = [];
  for (const crd of crds) out.push(...typesFromCrd(crd));
  return out;
}
