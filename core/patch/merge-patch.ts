// Core: RFC 7386 JSON Merge Patch as kube-apiserver 1.32 applies it (evanphx/json-patch.v4
// MergePatch behind a strict decode of the body into map[string]interface{}):
// - null deletes a member, objects merge recursively, anything else (arrays included) replaces;
// - a value placed where the target has no object has its nulls pruned (also null array items);
// - the patch itself must be an object: `null` is 400 "Invalid JSON Patch" and an array or scalar is
//   the strict-decode 400, where the bare RFC would return the patch as the new document.

import { unmarshalTypeError } from './go-format';
import { deepClone, hasOwn, isMap, put, type JsonMap } from './json-value';
import { badPatch, undecodablePatch } from './patch-error';

/** evanphx ErrBadJSONPatch text, returned as a 400 for a `null` merge patch. */
export const INVALID_JSON_PATCH = 'Invalid JSON Patch';

/** Applies `patch` to `doc`; returns a new document, never mutates either argument. */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  if (patch === null || patch === undefined) throw badPatch(INVALID_JSON_PATCH);
  if (!isMap(patch)) throw undecodablePatch(unmarshalTypeError(patch, 'map[string]interface {}'));
  const p = deepClone(patch);
  // A target that is not an object is replaced by the patch (RFC 7386 section 2, evanphx doMergePatch).
  if (!isMap(doc)) return pruneNulls(p);
  return mergeInto(deepClone(doc), p);
}

function mergeInto(target: JsonMap, patch: JsonMap): JsonMap {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete target[key];
      continue;
    }
    const current = hasOwn(target, key) ? target[key] : null;
    put(target, key, mergeValue(current, value));
  }
  return target;
}

// evanphx merge(): recurse only object into object; a non-object target takes the pruned patch
// value, an object target takes a non-object patch value as is.
function mergeValue(current: unknown, value: unknown): unknown {
  if (!isMap(current)) return pruneNulls(value);
  if (!isMap(value)) return value;
  return mergeInto(current, value);
}

// evanphx pruneNulls: drop null members of objects and null items of arrays, recursively.
function pruneNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== null).map(pruneNulls);
  if (!isMap(value)) return value;
  for (const [k, v] of Object.entries(value)) {
    if (v === null) delete value[k];
    else put(value, k, pruneNulls(v));
  }
  return value;
}
