// Core: the strategy of a built-in type with nothing of its own (ConfigMaps, Deployments, Roles, …) and the base
// the other built-ins extend: Go-struct decoding, kube's defaults, the type's validation and immutable fields by
// kind (core/validation/typed.ts, core/admission/), and the main resource / status split of an update.

import { mergeStatusUpdate, mergeUpdateMeta } from '../object-meta';
import { applyDefaults } from '../admission/defaults';
import { immutableViolations } from '../admission/immutable';
import { decodeObject } from '../validation/known-fields';
import { validateTyped, validateTypedStatus } from '../validation/typed';
import type { WriteStrategy } from './strategy';

export const DEFAULT_STRATEGY: WriteStrategy = {
  decode(obj, env, source) {
    // A body of null decodes, as in Go, to the empty object.
    const out = decodeObject(env.type, obj, { fieldValidation: env.fieldValidation, warnings: env.warnings, ...source }) ?? ({} as typeof obj);
    out.metadata ??= {};
    return out;
  },
  validate: (obj, old, env) => validateTyped(env.type.kind, obj, old),
  validateStatusUpdate: (obj, old, env) => validateTypedStatus(env.type.group, env.type.kind, obj, old),
  validateUpdate: (obj, old, env) => immutableViolations(env.type.kind, old, obj),
  default: (obj) => applyDefaults(obj),
  // The main resource keeps status (when the type has a /status) and server-set metadata; /status keeps all but status.
  prepareForUpdate: (next, current, subresource, env) => (subresource === 'status' ? mergeStatusUpdate(current, next) : mergeUpdateMeta(env.type, current, next)),
  // The last finalizer removed from an object being deleted completes its deletion.
  shouldDeleteDuringUpdate: (obj) => !!obj.metadata.deletionTimestamp && !obj.metadata.finalizers?.length,
};
