// Core: turns a PATCH request body into a JSON value, failing with the 400 kube-apiserver gives for
// a body that is not JSON. The shape checks (array of ops, object) belong to each applier.

import { goJsonSyntaxError } from './go-json-scanner';
import { jsonDepthError } from '../encoding/json-depth';
import { badPatch, undecodablePatch, type PatchError } from './patch-error';

export type PatchType = 'json' | 'merge' | 'strategic';

/** Content-Type of each patch kind (apimachinery pkg/types/patch.go). */
export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

export function patchTypeOf(contentType: string): PatchType | undefined {
  const base = contentType.split(';')[0].trim().toLowerCase();
  return (Object.keys(PATCH_CONTENT_TYPES) as PatchType[]).find((t) => PATCH_CONTENT_TYPES[t] === base);
}

/**
 * Parses `body`. json-patch and merge-patch bodies are strict-decoded first (default
 * fieldValidation=Warn), so their syntax errors carry "error decoding patch: "; a strategic body's
 * syntax error is the bare Go text (handlers/patch.go strategicPatchObject).
 */
export function decodePatchBody(type: PatchType, body: string): unknown {
  // Too deep for the appliers (they recurse): refused before parsing, see core/encoding/json-depth.ts.
  const tooDeep = jsonDepthError(body);
  if (tooDeep) throw patchDecodeError(type, tooDeep);
  try {
    return JSON.parse(body);
  } catch {
    throw patchDecodeError(type, goJsonSyntaxError(body) ?? 'unexpected end of JSON input');
  }
}

/** The 400 for a patch body that does not decode, given Go's error text. */
export function patchDecodeError(type: PatchType, goError: string): PatchError {
  return type === 'strategic' ? badPatch(goError) : undecodablePatch(goError);
}
