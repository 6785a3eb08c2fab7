// Every layer: the one place that builds Kubernetes `Status` errors. Messages match apimachinery's
// pkg/api/errors/errors.go word for word, because clients (kubectl, client-go) match on them.

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string; resourceVersion?: string };
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A Status thrown inside the worker or a Durable Object; never thrown across RPC (see Result). */
export class StatusError extends Error {
  constructor(readonly status: Status) {
    super(status.message);
  }
}

/** What crosses the Durable Object RPC boundary: a value or a Status, never a thrown custom error. */
export type Result<T> = { ok: true; value: T } | { ok: false; status: Status };

/** The resource a Status is about: `kind` is the plural resource name, as apimachinery does. */
export interface StatusTarget {
  group: string;
  resource: string;
}

function failure(code: number, reason: string, message: string, details?: StatusDetails): Status {
  // Field order as apimachinery serializes it: ..., reason, details, code.
  const s = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason } as Status;
  if (details) s.details = details;
  s.code = code;
  return s;
}

function qualified(t: StatusTarget): string {
  return t.group ? `${t.resource}.${t.group}` : t.resource;
}

// StatusDetails' fields are `omitempty` in apimachinery: an empty name (a list, a collection) is left out.
function detailsFor(t: StatusTarget, name: string): StatusDetails {
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (t.group) d.group = t.group;
  d.kind = t.resource;
  return d;
}

export function success(t: StatusTarget, name: string, uid?: string): Status {
  const details = detailsFor(t, name);
  if (uid) details.uid = uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details } as Status;
}

export function notFound(t: StatusTarget, name: string): Status {
  return failure(404, 'NotFound', `${qualified(t)} "${name}" not found`, detailsFor(t, name));
}

export function alreadyExists(t: StatusTarget, name: string): Status {
  return failure(409, 'AlreadyExists', `${qualified(t)} "${name}" already exists`, detailsFor(t, name));
}

export function generateNameConflict(t: StatusTarget, name: string): Status {
  const details = { ...detailsFor(t, name), retryAfterSeconds: 1 };
  return failure(
    409,
    'AlreadyExists',
    `${qualified(t)} "${name}" already exists, the server was not able to generate a unique name for the object`,
    details,
  );
}

export const OPTIMISTIC_LOCK_MESSAGE =
  'the object has been modified; please apply your changes to the latest version and try again';

export function conflict(t: StatusTarget, name: string, cause: string): Status {
  return failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(t)} "${name}": ${cause}`, detailsFor(t, name));
}

/** Invalid: 422 with causes; `kind` here is the Kind (e.g. Pod), as NewInvalid uses GroupKind. */
export function invalid(group: string, kind: string, name: string, causes: StatusCause[]): Status {
  // The message lists each distinct error once, as ErrorList.ToAggregate does; details keep every cause.
  const messages = [...new Set(causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message)))];
  const joined = messages.join(', ');
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  const details: StatusDetails = { name };
  if (group) details.group = group;
  details.kind = kind;
  details.causes = causes;
  const list = messages.length > 1 ? `[${joined}]` : joined;
  return failure(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${list}`, details);
}

export function badRequest(message: string): Status {
  return failure(400, 'BadRequest', message);
}

/**
 * 422 for a patch whose result does not decode: NewInvalid(schema.GroupKind{}, "", field.Invalid("patch", …)),
 * so every StatusDetails field but the causes is empty (and omitted) and the message starts ` "" is invalid`.
 */
export function invalidPatchResult(patchValue: string, message: string): Status {
  const cause = `Invalid value: ${patchValue}: ${message}`;
  return failure(422, 'Invalid', ` "" is invalid: patch: ${cause}`, { causes: [{ reason: 'FieldValueInvalid', message: cause, field: 'patch' }] });
}

/** 422 as NewGenericServerResponse(422, …) words it for a request it cannot apply: a fixed message, empty details. */
export function genericInvalid(message: string): Status {
  return failure(422, 'Invalid', message, {});
}

/** 409 of a server-side apply that would take fields other managers own (fieldmanager NewConflictError). */
export function fieldManagerConflict(message: string, causes: StatusCause[]): Status {
  return failure(409, 'Conflict', message, { causes });
}

export function unauthorized(message = 'Unauthorized'): Status {
  return failure(401, 'Unauthorized', message);
}

export function forbidden(t: StatusTarget, name: string, reason: string, causes?: StatusCause[]): Status {
  const what = name ? `${qualified(t)} "${name}"` : qualified(t);
  const details = detailsFor(t, name);
  if (causes) details.causes = causes;
  return failure(403, 'Forbidden', `${what} is forbidden: ${reason}`, details);
}

/** A non-resource path the user may not use (e.g. /metrics). */
export function forbiddenPath(reason: string): Status {
  return failure(403, 'Forbidden', `forbidden: ${reason}`, {});
}

/** A path that names no resource this server serves. */
export function unknownResource(): Status {
  return failure(404, 'NotFound', 'the server could not find the requested resource', {});
}

/**
 * A verb the resource (or this path to it) does not support. kube-apiserver answers from its router
 * (server/handler.go serviceErrorHandler → NewGenericServerResponse), carrying go-restful's text as a cause.
 */
export function methodNotAllowed(): Status {
  return failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {
    causes: [{ reason: 'UnexpectedServerResponse', message: '405: Method Not Allowed' }],
  });
}

export function notAcceptable(message: string): Status {
  return failure(406, 'NotAcceptable', message);
}

export function resourceExpired(message: string, continueToken?: string): Status {
  const s = failure(410, 'Expired', message);
  if (continueToken) s.metadata.continue = continueToken;
  return s;
}

export function requestEntityTooLarge(message: string): Status {
  return failure(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
}

export function unsupportedMediaType(contentType: string, accepted: string[]): Status {
  return failure(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

export function tooManyRequests(message: string, retryAfterSeconds: number): Status {
  return failure(429, 'TooManyRequests', message, { retryAfterSeconds });
}


export function internalError(message: string): Status {
  return failure(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}

/**
 * An error that is not an API status (a failed dial to a kubelet, a plain Go error reaching the response writer):
 * responsewriters ErrorToAPIStatus makes it a
 * Status with reason StatusReasonUnknown, which is "" and so left out, and the error's own text.
 */
export function unknownError(code: number, message: string): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code } as Status;
}

/**
 * Any error as the Status a client gets: a StatusError's own; anything else is a bug, 500 InternalError with the
 * error's message (never its "Error: " prefix), as apiserver's InternalError wraps err.Error().
 */
export function statusOf(e: unknown): Status {
  if (e instanceof StatusError) return e.status;
  return internalError(e instanceof Error ? e.message : String(e));
}

/** 503, as apimachinery's NewServiceUnavailable: the server cannot serve yet (e.g. a required secret is unset). */
export function serviceUnavailable(message: string): Status {
  return failure(503, 'ServiceUnavailable', message);
}

/**
 * The Success Status a POST answers 201 with when its REST storage returns a Status rather than an object (the
 * pods/binding and pods/eviction subresources; apiserver handlers/create.go).
 */
export function createdStatus(): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}

/** 504 for a resourceVersion the store has not reached; apiserver storage/errors.go NewTooLargeResourceVersionError. */
export function tooLargeResourceVersion(requested: number, current: number, retryAfterSeconds: number): Status {
  return failure(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds,
  });
}

export function statusResponse(s: Status, headers: Record<string, string> = {}): Response {
  const h: Record<string, string> = { 'content-type': 'application/json', ...headers };
  if (s.details?.retryAfterSeconds) h['retry-after'] = String(s.details.retryAfterSeconds);
  return new Response(JSON.stringify(s), { status: s.code ?? 200, headers: h });
}
