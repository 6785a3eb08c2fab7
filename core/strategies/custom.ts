// Core: the strategy of the types CustomResourceDefinitions define (apiextensions-apiserver pkg/registry/
// customresource/strategy.go, validator.go): decoding is pruning and structural defaulting by the CRD's schema
// instead of Go-struct decoding, validation is the schema's and its CEL rules' (with the scale paths' integers),
// and accepted patch types are those of customresource_handler.go. None of a built-in kind's defaults or rules
// apply, even to a custom kind that shares a built-in's name.

import type { KubeObject } from '../object-meta';
import type { ResourceType } from '../registry';
import { badRequest, invalid, StatusError, type StatusCause } from '../status';
import type { RuleNode } from '../crd/cel/compile';
import { evaluateRules } from '../crd/cel/evaluate';
import { defaultCustomObject, hasBlockingError, pruneCustomObject, validateCustomObject, validateCustomObjectStatus } from '../crd/custom-object';
import { validateMetadataExtras } from '../validation/typed';
import { RegexBudget } from '../regex/budget';
import { DEFAULT_STRATEGY } from './default';
import type { StrategyEnv, WriteStrategy } from './strategy';

// apiextensions customresource_handler.go: a CR accepts json-patch, merge-patch and apply-patch only.
const CUSTOM_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

/** The strategy of a CRD-defined type (one entry per served version; the store uses its storage version's). */
export function customStrategy(type: ResourceType): WriteStrategy {
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
    // The ObjectMeta rules (ownerReferences, finalizers) here; the schema's and CEL rules' once the object is complete.
    validate: (obj) => validateMetadataExtras(obj),
    validateUpdate: () => [],
    default: () => undefined,
    prepareForUpdate: DEFAULT_STRATEGY.prepareForUpdate,
    shouldDeleteDuringUpdate: DEFAULT_STRATEGY.shouldDeleteDuringUpdate,
    beforeStore(obj, old, subresource, env) {
      // One regular-expression budget for the write: schema patterns and CEL rules together.
      const regexBudget = new RegexBudget();
      // A /status write validates status alone, with paths inside it (apiextensions' status strategy).
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
function celErrors(tree: RuleNode, crdName: string, obj: KubeObject, old: KubeObject | undefined, schemaErrors: StatusCause[], env: StrategyEnv, regexBudget: RegexBudget): StatusCause[] {
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

