// Core: the errors a PATCH body can cause, with the HTTP code, reason and message kube-apiserver 1.32
// answers with. The mapping lives here so the appliers only say *what* went wrong.
//
// Where each code comes from (apiserver pkg/endpoints/handlers/patch.go, v1.32):
// - 400 BadRequest: the body does not decode. With fieldValidation Warn (the server default,
//   handlers/rest.go fieldValidation()) or Strict, json-patch and merge-patch bodies are first
//   strict-decoded and fail as "error decoding patch: <Go json error>" (applyJSPatch); a strategic
//   body fails with the bare Go json error (strategicPatchObject). A merge patch of `null` is
//   evanphx ErrBadJSONPatch "Invalid JSON Patch" (applyJSPatch). Strategic directive format errors
//   (ErrBadJSONDoc, ErrBadPatchFormatForPrimitiveList/RetainKeys/SetElementOrderList,
//   ErrUnsupportedStrategicMergePatchFormat) are 400 too (interpretStrategicMergePatchError).
// - 413 RequestEntityTooLarge: a JSON patch with more than 10000 operations (maxJSONPatchOperations).
// - 422 Invalid: *any* failure while applying a JSON patch (missing path, failed test, bad index,
//   unknown op) becomes errors.NewGenericServerResponse(422, "", GroupResource{}, "", err, 0, false),
//   whose message is the fixed "the server rejected our request due to an error in our request";
//   the evanphx text is dropped (apimachinery api/errors NewGenericServerResponse keeps causes only
//   when isUnexpectedResponse), details is {}. Not 500, and not a NewInvalid with field causes.
//   Strategic ErrNoListOfLists maps to the same generic 422 (ErrPatchContentNotMatchRetainKeys
//   would too, but applying only ever reports a $retainKeys mismatch as the 400 above).
// - 500: every other strategic-merge error (unknown $patch value, missing merge key, a
//   $setElementOrder that disagrees with the list, mixed element types) is a plain Go error, which
//   responsewriters.ErrorToAPIStatus turns into code 500, reason "" (StatusReasonUnknown) and the
//   error text as message.

import { badRequest, genericInvalid, requestEntityTooLarge, StatusError, unknownError, type Status } from '../status';

export type PatchErrorCode = 400 | 413 | 422 | 500;
export type PatchErrorReason = 'BadRequest' | 'RequestEntityTooLarge' | 'Invalid' | '';

/** apimachinery NewGenericServerResponse's message for 422. */
export const GENERIC_422_MESSAGE = 'the server rejected our request due to an error in our request';

/** The 400 a strict-decoded json-patch or merge-patch body gives (handlers/patch.go applyJSPatch). */
export const DECODE_PREFIX = 'error decoding patch: ';

/** handlers/patch.go maxJSONPatchOperations. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/**
 * A PATCH that kube-apiserver would refuse. It is a StatusError (so the usual Status plumbing
 * renders it) that also keeps the code, reason and the underlying library text.
 */
export class PatchError extends StatusError {
  /**
   * @param message what the client sees in Status.message
   * @param detail the underlying library error (evanphx/json-patch, strategicpatch); for 422 it is
   *   not shown to the client, as kube-apiserver drops it too, but it is worth logging.
   */
  constructor(
    readonly code: PatchErrorCode,
    readonly reason: PatchErrorReason,
    message: string,
    readonly detail: string = message,
  ) {
    super(patchStatus(code, message));
    this.name = 'PatchError';
  }

  /** The Status body kube-apiserver writes for this error. */
  toStatus(): Status {
    return this.status;
  }
}

// The Status of each code (core/status.ts): 400 and 413 as apimachinery's constructors word them, the generic 422
// (NewGenericServerResponse: empty details), and a plain error's 500 (no reason).
function patchStatus(code: PatchErrorCode, message: string): Status {
  switch (code) {
    case 400:
      return badRequest(message);
    case 413:
      return requestEntityTooLarge(message);
    case 422:
      return genericInvalid(message);
    default:
      return unknownError(500, message);
  }
}

/** errors.NewBadRequest: malformed body or malformed strategic directive. */
export function badPatch(message: string): PatchError {
  return new PatchError(400, 'BadRequest', message);
}

/** A json-patch / merge-patch body that fails strict decoding. */
export function undecodablePatch(goError: string): PatchError {
  return badPatch(DECODE_PREFIX + goError);
}

/** The generic 422 kube-apiserver gives for any patch that is well formed but cannot be applied. */
export function unprocessablePatch(detail: string): PatchError {
  return new PatchError(422, 'Invalid', GENERIC_422_MESSAGE, detail);
}

/** A plain Go error reaching the response writer: 500 with the error text and no reason. */
export function internalPatchError(message: string): PatchError {
  return new PatchError(500, '', message);
}

export function tooManyOperations(count: number): PatchError {
  return new PatchError(413, 'RequestEntityTooLarge', `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${count}`);
}

/** mergepatch/errors.go sentinel texts, named as in Go so the mapping above can be checked. */
export const SMP = {
  badJSONDoc: 'invalid JSON document',
  noListOfLists: 'lists of lists are not supported',
  badPrimitiveList: 'invalid patch format of primitive list',
  badRetainKeys: 'invalid patch format of retainKeys',
  badSetElementOrder: 'invalid patch format of setElementOrder list',
  contentNotMatchRetainKeys: "patch content doesn't match retainKeys list",
} as const;
