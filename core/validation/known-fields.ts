// Canonical layer: decoding a written object as kube-apiserver's decoder does (the schema walker,
// core/schema/decode.ts), with fieldValidation and kube's Status for each failure. kubectl sends
// fieldValidation=Strict on every create, replace and apply and validates nothing itself, so wrong types
// and unknown fields, at any depth, are caught here.
//
// Where the wording comes from (apiserver pkg/endpoints/handlers, v1.32):
// - create / update (and /status, /scale) decode the body: a failure is 400 BadRequest
//   `<Kind> in version "<v>" cannot be handled as a <Kind>: <error>` (rest.go transformDecodeError), and
//   strict errors under Strict are that too, as `strict decoding error: unknown field "x", ...`;
// - a patch decodes the patched object: a failure is 422 Invalid on the field "patch", whose value is the
//   patched JSON (json/merge patch) or the patch map (strategic), as patch.go applyPatchToCurrentObject /
//   applyPatchToObject build it; a strategic patch's result goes through the unstructured converter,
//   whose type errors read differently ("unrecognized type: int32");
// - under Warn each strict error is a Warning header (addStrictDecodingWarnings) and the field is dropped;
//   under Ignore (the non-strict decoder) it is only dropped.

import { jsonDepthError } from '../encoding/json-depth';
import { kindNode } from '../schema/compile';
import { decodeTyped, GoDecodeError, type FieldValidation } from '../schema/decode';
import { duplicateFields } from '../schema/duplicates';
import { badRequest, invalidPatchResult, StatusError, type Status } from '../status';
import { goQuote } from './names';
import { goJsonSyntaxError } from '../patch/go-json-scanner';
import { jsonTypeWord } from '../patch/go-format';

export type { FieldValidation };

export interface DecodeTarget {
  group: string;
  version: string;
  kind: string;
}

export interface DecodeOptions {
  fieldValidation?: FieldValidation; // default Warn, as kube-apiserver's
  warnings?: string[]; // receives Warn-level findings, for the Warning header
  /** The request body's text: enables the duplicate-field check (a body only, not a patch result). */
  text?: string;
  /** Set for a patch result: the value kube shows in the 422 (patched JSON, or the strategic patch map). */
  patchValue?: () => string;
  /** A strategic merge patch's result, which kube decodes with the unstructured converter and its wording. */
  converter?: boolean;
}

/**
 * `obj` decoded against its kind's schema, in place: wrong types rejected, unknown fields dropped (or
 * rejected under Strict), quantities and times canonical. Throws StatusError as kube-apiserver answers.
 */
export function decodeObject<T>(target: DecodeTarget, obj: T, opts: DecodeOptions = {}): T {
  const node = kindNode(target.group, target.version, target.kind);
  if (!node) return obj;
  const mode = opts.fieldValidation ?? 'Warn';
  const strict = mode !== 'Ignore';
  let decoded: { value: unknown; strictErrors: string[]; members: number };
  try {
    decoded = decodeTyped(node, obj, strict, opts.converter);
  } catch (e) {
    if (e instanceof GoDecodeError) throw new StatusError(failure(target, e.message, opts));
    throw e;
  }
  const errors = decoded.strictErrors;
  if (strict && opts.text !== undefined) errors.push(...duplicateFields(opts.text, node, decoded.members));
  if (errors.length && mode === 'Strict') throw new StatusError(failure(target, `strict decoding error: ${errors.join(', ')}`, opts));
  if (errors.length && mode === 'Warn') opts.warnings?.push(...errors);
  return decoded.value as T;
}

function failure(target: DecodeTarget, message: string, opts: DecodeOptions): Status {
  if (!opts.patchValue) {
    return badRequest(`${target.kind} in version "${target.version}" cannot be handled as a ${target.kind}: ${message}`);
  }
  return invalidPatchResult(goQuote(opts.patchValue()), message);
}

// meta.SimpleMetaFactory.Interpret's target, as reflect prints the anonymous struct type.
const FIND_KIND = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * A request body parsed as the serializer first reads it (meta.Interpret): JSON syntax, and apiVersion and
 * kind as strings. Failures are 400 `the object provided is unrecognized (must be of type <Kind>):
 * couldn't get version/kind; json parse error: <Go error> (<the body's start>)` (rest.go
 * transformDecodeError with no kind known).
 */
export function parseObjectBody(kind: string, text: string): unknown {
  checkBodyDepth(kind, text);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw unrecognized(kind, goJsonSyntaxError(text) ?? 'unexpected end of JSON input', text);
  }
  if (body === null) return body;
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw unrecognized(kind, `json: cannot unmarshal ${jsonTypeWord(body)} into Go value of type ${FIND_KIND}`, text);
  }
  for (const [field, value] of Object.entries(body as Record<string, unknown>)) {
    if ((field === 'apiVersion' || field === 'kind') && value !== null && typeof value !== 'string') {
      throw unrecognized(kind, `json: cannot unmarshal ${jsonTypeWord(value)} into Go struct field .${field} of type string`, text);
    }
  }
  return body;
}

/** A body nested past MAX_JSON_DEPTH is refused before anything recursive walks it (core/encoding/json-depth.ts). */
export function checkBodyDepth(kind: string, text: string): void {
  const tooDeep = jsonDepthError(text);
  if (tooDeep) throw unrecognized(kind, tooDeep, text);
}

function unrecognized(kind: string, goError: string, text: string): StatusError {
  return new StatusError(badRequest(
    `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${goError} (${summarize(text)})`,
  ));
}

// rest.go summarizeData: up to 30 bytes, as text for an object, else in hex.
function summarize(text: string): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length === 0) return '<empty>';
  const head = bytes.subarray(0, 30);
  const more = bytes.length > 30 ? ' ...' : '';
  if (bytes[0] === 0x7b) return new TextDecoder().decode(head) + more;
  return [...head].map((b) => b.toString(16).padStart(2, '0')).join('') + more;
}

export function parseFieldValidation(v: string | null): FieldValidation | undefined {
  if (v === null || v === '') return 'Warn';
  return v === 'Strict' || v === 'Warn' || v === 'Ignore' ? v : undefined;
}
