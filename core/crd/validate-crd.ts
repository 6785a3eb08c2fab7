// Core: a CustomResourceDefinition's defaults and validation with kube's messages (apiextensions
// pkg/apis/apiextensions/v1/defaults.go; pkg/apis/apiextensions/validation/validation.go), for create and
// update. Per-version schema, subresources and columns that are the same in every version are reported
// at spec.validation / spec.subresources / spec.additionalPrinterColumns, as kube's internal type hoists them.

import { forbidden, invalidValue, notSupported, required, validateName, type FieldCause } from '../validation/names';
import { isTrue, type Crd, type CrdVersion } from './crd-object';
import { compileSchemaRules } from './cel/compile';
import { PatternCheck, validateSchema } from './structural';

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const MAX_SELECTABLE_FIELDS = 8;

/** Fills what kube's v1 defaulting fills: singular, listKind, conversion strategy, served/storage flags. */
export function defaultCrd(crd: Crd): void {
  const spec = (crd.spec ??= {});
  const names = (spec.names ??= {});
  if (!names.singular && names.kind) names.singular = names.kind.toLowerCase();
  if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  spec.conversion ??= { strategy: 'None' };
  spec.conversion.strategy ??= 'None';
}

export function validateCrd(crd: Crd, old?: Crd): FieldCause[] {
  const errs: FieldCause[] = [];
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const group = spec.group ?? '';
  const name = crd.metadata.name ?? '';
  if (name !== `${names.plural ?? ''}.${group}`) errs.push(invalidValue('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  if (!group) errs.push(required('spec.group'));
  else {
    for (const m of validateName('dns1123Subdomain', group)) errs.push(invalidValue('spec.group', group, m));
    if (!group.includes('.')) errs.push(invalidValue('spec.group', group, 'should be a domain with at least one dot'));
    if (isProtectedGroup(group) && !crd.metadata.annotations?.['api-approved.kubernetes.io']) {
      errs.push(required('metadata.annotations[api-approved.kubernetes.io]',
        'protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111'));
    }
  }
  if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') {
    errs.push(spec.scope ? notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']) : required('spec.scope'));
  }
  errs.push(...validateNames(names));
  errs.push(...validateVersions(spec.versions ?? []));
  const strategy = spec.conversion?.strategy;
  if (strategy === 'Webhook') {
    errs.push(forbidden('spec.conversion.strategy', 'Webhook conversion is not supported by this server; use "None" (versions then differ only in apiVersion)'));
  } else if (strategy !== 'None') {
    errs.push(notSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']));
  }
  if (spec.preserveUnknownFields === true && !old?.spec?.preserveUnknownFields) {
    errs.push(invalidValue('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }
  if (old) errs.push(...validateUpdate(crd, old));
  const stored = crd.status?.storedVersions ?? [];
  const versionNames = new Set((spec.versions ?? []).map((v) => v.name));
  stored.forEach((v, i) => {
    if (!versionNames.has(v)) errs.push(invalidValue(`status.storedVersions[${i}]`, v, 'must appear in spec.versions'));
  });
  return errs;
}

function isProtectedGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
}

function validateNames(n: NonNullable<Crd['spec']['names']>): FieldCause[] {
  const errs: FieldCause[] = [];
  const label = (field: string, value: string | undefined, mixedCase = false) => {
    if (!value) {
      errs.push(required(field));
      return;
    }
    for (const m of validateName('dns1035Label', mixedCase ? value.toLowerCase() : value)) {
      errs.push(invalidValue(field, value, mixedCase ? `may have mixed case, but should otherwise match: ${m}` : m));
    }
  };
  label('spec.names.plural', n.plural);
  label('spec.names.singular', n.singular);
  label('spec.names.kind', n.kind, true);
  label('spec.names.listKind', n.listKind, true);
  if (n.kind && n.kind === n.listKind) errs.push(invalidValue('spec.names.listKind', n.listKind, 'kind and listKind may not be the same'));
  (n.shortNames ?? []).forEach((s, i) => {
    for (const m of validateName('dns1035Label', s)) errs.push(invalidValue(`spec.names.shortNames[${i}]`, s, m));
  });
  (n.categories ?? []).forEach((s, i) => {
    for (const m of validateName('dns1035Label', s)) errs.push(invalidValue(`spec.names.categories[${i}]`, s, m));
  });
  return errs;
}

function same(versions: CrdVersion[], pick: (v: CrdVersion) => unknown): boolean {
  const first = JSON.stringify(pick(versions[0]) ?? null);
  return versions.every((v) => JSON.stringify(pick(v) ?? null) === first);
}

function validateVersions(versions: CrdVersion[]): FieldCause[] {
  const errs: FieldCause[] = [];
  const storage = versions.filter((v) => v.storage === true).length;
  if (storage !== 1) errs.push(invalidValue('spec.versions', versions, 'must have exactly one version marked as storage version'));
  const seen = new Set<string>();
  for (const v of versions) {
    if (v.name && seen.has(v.name)) {
      errs.push(invalidValue('spec.versions', versions, 'must contain unique version names'));
      break;
    }
    if (v.name) seen.add(v.name);
  }
  if (!versions.length) return errs;
  const hoistSchema = same(versions, (v) => v.schema);
  const hoistSub = same(versions, (v) => v.subresources);
  const hoistColumns = same(versions, (v) => v.additionalPrinterColumns);
  const patterns = new PatternCheck();
  versions.forEach((v, i) => {
    const vp = `spec.versions[${i}]`;
    if (!v.name) errs.push(required(`${vp}.name`));
    else for (const m of validateName('dns1035Label', v.name)) errs.push(invalidValue(`${vp}.name`, v.name, m));
    if (typeof v.served !== 'boolean') errs.push(required(`${vp}.served`));
    if (typeof v.storage !== 'boolean') errs.push(required(`${vp}.storage`));
    if (v.deprecationWarning !== undefined) {
      if (!v.deprecated) errs.push(invalidValue(`${vp}.deprecationWarning`, v.deprecationWarning, 'can only be set for deprecated versions'));
      else if (v.deprecationWarning.length > 256) errs.push(invalidValue(`${vp}.deprecationWarning`, v.deprecationWarning, 'must be <= 256 characters long'));
    }
    const schema = v.schema?.openAPIV3Schema;
    if (!schema) errs.push(required(`${vp}.schema.openAPIV3Schema`, 'schemas are required'));
    else if (!hoistSchema || i === 0) {
      const schemaPath = hoistSchema ? 'spec.validation.openAPIV3Schema' : `${vp}.schema.openAPIV3Schema`;
      errs.push(...validateSchema(schema, schemaPath, !!v.subresources?.status, patterns));
      errs.push(...compileSchemaRules(schema, schemaPath).errors);
    }
    const scale = v.subresources?.scale;
    if (scale && (!hoistSub || i === 0)) {
      const sp = hoistSub ? 'spec.subresources.scale' : `${vp}.subresources.scale`;
      if (!scale.specReplicasPath) errs.push(required(`${sp}.specReplicasPath`));
      else if (!isSimplePath(scale.specReplicasPath, '.spec.')) errs.push(invalidValue(`${sp}.specReplicasPath`, scale.specReplicasPath, 'should be a json path under .spec'));
      if (!scale.statusReplicasPath) errs.push(required(`${sp}.statusReplicasPath`));
      else if (!isSimplePath(scale.statusReplicasPath, '.status.')) errs.push(invalidValue(`${sp}.statusReplicasPath`, scale.statusReplicasPath, 'should be a json path under .status'));
      const lp = scale.labelSelectorPath;
      if (lp && !isSimplePath(lp, '.spec.') && !isSimplePath(lp, '.status.')) {
        errs.push(invalidValue(`${sp}.labelSelectorPath`, lp, 'should be a json path under either .spec or .status'));
      }
    }
    if (!hoistColumns || i === 0) {
      const cp = hoistColumns ? 'spec.additionalPrinterColumns' : `${vp}.additionalPrinterColumns`;
      (v.additionalPrinterColumns ?? []).forEach((c, j) => {
        const p = `${cp}[${j}]`;
        if (!c.name) errs.push(required(`${p}.name`));
        if (!c.type) errs.push(required(`${p}.type`, `must be one of ${COLUMN_TYPES.join(',')}`));
        else if (!COLUMN_TYPES.includes(c.type)) errs.push(notSupported(`${p}.type`, c.type, COLUMN_TYPES));
        if (c.format && !COLUMN_FORMATS.includes(c.format)) errs.push(notSupported(`${p}.format`, c.format, COLUMN_FORMATS));
        if (!c.jsonPath) errs.push(required(`${p}.JSONPath`));
        else if (!c.jsonPath.startsWith('.')) errs.push(invalidValue(`${p}.JSONPath`, c.jsonPath, 'must be a simple json path starting with .'));
      });
    }
    const fields = v.selectableFields ?? [];
    if (fields.length > MAX_SELECTABLE_FIELDS) errs.push({ reason: 'FieldValueInvalid', message: `Too many: ${fields.length}: must have at most ${MAX_SELECTABLE_FIELDS} items`, field: `${vp}.selectableFields` });
    fields.forEach((f, j) => {
      const p = `${vp}.selectableFields[${j}].jsonPath`;
      if (!f.jsonPath) errs.push(required(p));
      else if (!isSimplePath(f.jsonPath, '.')) errs.push(invalidValue(p, f.jsonPath, 'must be a simple json path starting with .'));
    });
  });
  return errs;
}

// A path of plain field names, e.g. `.spec.replicas`: what scale and selectableFields accept.
function isSimplePath(path: string, prefix: string): boolean {
  return path.startsWith(prefix) && /^(\.[A-Za-z0-9_-]+)+$/.test(path);
}

function validateUpdate(crd: Crd, old: Crd): FieldCause[] {
  const errs: FieldCause[] = [];
  const immutable = (field: string, a: unknown, b: unknown) => {
    if (a !== b) errs.push(invalidValue(field, a, 'field is immutable'));
  };
  immutable('spec.group', crd.spec?.group, old.spec?.group);
  immutable('spec.names.plural', crd.spec?.names?.plural, old.spec?.names?.plural);
  if (isTrue(old, 'Established')) {
    immutable('spec.scope', crd.spec?.scope, old.spec?.scope);
    immutable('spec.names.kind', crd.spec?.names?.kind, old.spec?.names?.kind);
  }
  return errs;
}
