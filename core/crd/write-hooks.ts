// Core: what the generic write path (core/writes.ts) does differently for CustomResourceDefinitions and
// for the custom objects they define: decoding (pruning and defaulting instead of Go-struct decoding),
// validation, status, scale, accepted patch types, and the CRD's delete-time finalizer.

import type { KubeObject } from '../object-meta';
import { RESOURCE_TYPES, type ResourceType } from '../registry';
import { badRequest, invalid, StatusError, type StatusCause } from '../status';
import { CLEANUP_FINALIZER, CRD_GROUP, type Crd } from './crd-object';
import { computeCrdStatus, setCondition } from './crd-status';
import { compileSchemaRules, unsupportedRules, type RuleNode } from './cel/compile';
import { evaluateRules } from './cel/evaluate';
import { defaultCustomObject, hasBlockingError, pruneCustomObject, validateCustomObject, validateCustomObjectStatus } from './custom-object';
import { defaultCrd, validateCrd } from './validate-crd';
import { RegexBudget } from '../regex/budget';

export interface HookEnv {
  now: number;
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  warnings?: string[];
  /** Every object of the store (the other CRDs, for name conflicts). */
  objects: () => Iterable<KubeObject>;
}

export interface TypeHooks {
  /** Replaces Go-struct decoding of a written object (custom objects: pruning and defaulting). */
  decode?(obj: KubeObject, env: HookEnv): KubeObject;
  /** Called before validation and storage, on create (old undefined) and update; throws to refuse. */
  prepare(obj: KubeObject, old: KubeObject | undefined, subresource: string, env: HookEnv): void;
  /** The object a DELETE acts on (e.g. with a finalizer added), or undefined for the stored one. */
  beforeDelete?(current: KubeObject, env: HookEnv): KubeObject | undefined;
  /** Patch content types accepted; undefined: every kind. */
  patchTypes?: string[];
}

export function typeHooks(type: ResourceType): TypeHooks | undefined {
  if (type.custom) return customHooks(type);
  if (type.group === CRD_GROUP && type.kind === 'CustomResourceDefinition') return CRD_HOOKS;
  return undefined;
}

// apiextensions customresource_handler.go: a CR accepts json-patch, merge-patch and apply-patch only.
const CUSTOM_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

function customHooks(type: ResourceType): TypeHooks {
  const info = type.custom!;
  return {
    patchTypes: CUSTOM_PATCH_TYPES,
    decode(obj, env) {
      const { unknown } = pruneCustomObject(info.schema, obj as Record<string, unknown>);
      const mode = env.fieldValidation ?? 'Warn';
      if (unknown.length && mode === 'Strict') throw new StatusError(badRequest(`strict decoding error: ${unknown.join(', ')}`));
      if (unknown.length && mode === 'Warn') env.warnings?.push(...unknown);
      defaultCustomObject(info.schema, obj);
      obj.metadata ??= {};
      return obj;
    },
    prepare(obj, old, subresource, env) {
      // One regular-expression budget for the write: schema patterns and CEL rules together.
      const regexBudget = new RegexBudget();
      const errors = subresource === 'status' && info.statusSubresource && old
        ? validateCustomObjectStatus(info.schema, obj as Record<string, unknown>, old as Record<string, unknown>, regexBudget)
        : validateCustomObject(info.schema, obj, old, regexBudget);
      if (info.celRules) errors.push(...celErrors(info.celRules, info.crdName, obj, old, errors, env, regexBudget));
      if (info.scale && !errors.length) errors.push(...scalePathErrors(obj, info.scale.specReplicasPath, info.scale.statusReplicasPath));
      if (errors.length) throw new StatusError(invalid(type.group, type.kind, obj.metadata.name ?? '', errors));
    },
  };
}

// apiextensions customresource strategy.go: rules run unless the schema found a blocking error.
function celErrors(tree: RuleNode, crdName: string, obj: KubeObject, old: KubeObject | undefined, schemaErrors: StatusCause[], env: HookEnv, regexBudget: RegexBudget): StatusCause[] {
  if (hasBlockingError(schemaErrors)) {
    return [{
      reason: 'FieldValueInvalid', field: '<nil>',
      message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    }];
  }
  const { errors, warnings } = evaluateRules(tree, crdName, obj, old, regexBudget);
  env.warnings?.push(...warnings);
  return errors;
}

// apiextensions validator.go ValidateScaleSpec/Status: the replicas at the scale paths must be integers.
function scalePathErrors(obj: KubeObject, specPath?: string, statusPath?: string) {
  const out = [];
  for (const p of [specPath, statusPath]) {
    if (!p) continue;
    let cur: unknown = obj;
    for (const part of p.slice(1).split('.')) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[part] : undefined;
    if (cur === undefined) continue;
    if (typeof cur !== 'number' || !Number.isInteger(cur)) {
      out.push({ reason: 'FieldValueInvalid', field: p.slice(1), message: `Invalid value: ${JSON.stringify(cur)}: should be an integer` });
    } else if (cur < 0) {
      out.push({ reason: 'FieldValueInvalid', field: p.slice(1), message: `Invalid value: ${cur}: should be a non-negative integer` });
    }
  }
  return out;
}

// Rules calling kube CEL functions this server lacks are stored but not evaluated: the CRD write says which.
function unsupportedRuleWarnings(crd: Crd): string[] {
  const out: string[] = [];
  (crd.spec.versions ?? []).forEach((v, i) => {
    const schema = v.schema?.openAPIV3Schema;
    if (!schema) return;
    const { tree } = compileSchemaRules(schema, `spec.versions[${i}].schema.openAPIV3Schema`);
    for (const { path, rule, functions } of tree ? unsupportedRules(tree) : []) {
      out.push(`${path}: rule ${JSON.stringify(rule)} is not enforced: this server does not support ${functions.join(', ')}`);
    }
  });
  return out;
}

// A CRD itself decodes as any built-in (its Go types are in the generated definitions).
const CRD_HOOKS: TypeHooks = {
  prepare(obj, old, subresource, env) {
    const crd = obj as Crd;
    crd.spec ??= {};
    if (subresource === 'status') return; // a status write keeps the spec; kube's controllers own status
    defaultCrd(crd);
    if (!old) delete crd.status;
    const causes = validateCrd(crd, old as Crd | undefined);
    if (causes.length) throw new StatusError(invalid(CRD_GROUP, 'CustomResourceDefinition', crd.metadata.name ?? '', causes));
    if (crd.metadata.deletionTimestamp) return; // a terminating CRD keeps its names
    const others: Crd[] = [];
    for (const o of env.objects()) others.push(o as Crd);
    computeCrdStatus(crd, old as Crd | undefined, others, RESOURCE_TYPES, env.now);
    for (const w of unsupportedRuleWarnings(crd)) env.warnings?.push(w);
  },
  beforeDelete(current, env) {
    const crd = structuredClone(current) as Crd;
    const finalizers = crd.metadata.finalizers ?? [];
    if (!finalizers.includes(CLEANUP_FINALIZER)) crd.metadata.finalizers = [...finalizers, CLEANUP_FINALIZER];
    setCondition(crd, {
      type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    }, env.now);
    return crd;
  },
};
