// Core: what the generic write path (core/writes.ts) does differently for CustomResourceDefinitions and
// for the custom objects they define: decoding (pruning and defaulting instead of Go-struct decoding),
// validation, status, scale, accepted patch types, and the CRD's delete-time finalizer.

import type { KubeObject } from '../object-meta';
import { RESOURCE_TYPES, type ResourceType } from '../registry';
import { badRequest, invalid, StatusError } from '../status';
import { CLEANUP_FINALIZER, CRD_GROUP, type Crd } from './crd-object';
import { computeCrdStatus, setCondition } from './crd-status';
import { defaultCustomObject, pruneCustomObject, validateCustomObject } from './custom-object';
import { countCelRules } from './custom-types';
import { defaultCrd, validateCrd } from './validate-crd';

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
    prepare(obj, old, _subresource, env) {
      const errors = validateCustomObject(info.schema, obj, old);
      if (info.scale && !errors.length) errors.push(...scalePathErrors(obj, info.scale.specReplicasPath, info.scale.statusReplicasPath));
      if (errors.length) throw new StatusError(invalid(type.group, type.kind, obj.metadata.name ?? '', errors));
      if (info.celRules) env.warnings?.push(`${info.crdName}: ${info.celRules} x-kubernetes-validations rule(s) were not checked: this server does not evaluate CEL`);
    },
  };
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
    const rules = (crd.spec.versions ?? []).reduce((n, v) => n + countCelRules(v.schema?.openAPIV3Schema), 0);
    if (rules) env.warnings?.push(`x-kubernetes-validations: ${rules} rule(s) are stored and published but not enforced: this server does not evaluate CEL`);
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
