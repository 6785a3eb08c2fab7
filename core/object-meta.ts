// Canonical layer: validates an incoming object against its type and sets server-owned metadata
// (uid, creationTimestamp, generation, namespace), as apiserver's BeforeCreate/BeforeUpdate do.

import { apiVersionOf, type ResourceType } from './registry';
import { badRequest, invalid, StatusError, type StatusCause } from './status';
import { validateName, validateLabels, validateAnnotations, invalidValue, required } from './validation/names';
import { noNewFinalizers } from './validation/meta';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: unknown[];
  managedFields?: unknown[];
  selfLink?: string;
  [field: string]: unknown;
}

/** What the server needs from its environment to fill metadata: injected so this stays pure. */
export interface MetaContext {
  type: ResourceType;
  now: number;
  newUid: () => string;
}

/** Kubernetes timestamps are RFC 3339 with second precision. */
export function timestamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Checks the decoded body is an object of this type; fills apiVersion/kind when absent, as the decoder defaults them. */
export function asTypedObject(type: ResourceType, body: unknown): KubeObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new StatusError(badRequest(`Object '${type.kind}' is not a valid JSON object`));
  }
  const obj = body as KubeObject;
  const expectedVersion = apiVersionOf(type);
  if (obj.apiVersion !== undefined && obj.apiVersion !== expectedVersion) {
    throw new StatusError(
      badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${expectedVersion})`),
    );
  }
  if (obj.kind !== undefined && obj.kind !== type.kind) {
    throw new StatusError(badRequest(`the kind in the data (${obj.kind}) does not match the expected kind (${type.kind})`));
  }
  // Field order as Kubernetes serializes it: apiVersion, kind, metadata, then the rest. A metadata of the
  // wrong type is left for the decoder (core/validation/known-fields.ts) to reject in Go's words.
  const { apiVersion: _v, kind: _k, metadata, ...rest } = obj;
  const meta = metadata === undefined || metadata === null ? {} : isPlainObject(metadata) ? { ...metadata } : metadata;
  return { apiVersion: expectedVersion, kind: type.kind, metadata: meta, ...rest };
}

function isPlainObject(v: unknown): v is ObjectMeta {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The namespace in the body must agree with the path (or be empty, and then the path's is used). */
export function reconcileNamespace(type: ResourceType, obj: KubeObject, pathNamespace: string): void {
  const bodyNs = obj.metadata.namespace ?? '';
  if (!type.namespaced) {
    if (bodyNs) obj.metadata.namespace = undefined;
    delete obj.metadata.namespace;
    return;
  }
  if (bodyNs && pathNamespace && bodyNs !== pathNamespace) {
    throw new StatusError(
      badRequest('the namespace of the provided object does not match the namespace sent on the request'),
    );
  }
  obj.metadata.namespace = bodyNs || pathNamespace;
}

/**
 * Metadata rules, then `typed`: the causes of the type's own validation (its strategy's, core/strategies/), in
 * kube's order; one 422 Invalid for all of them. `old`: the stored object an update replaces.
 */
export function validateObject(type: ResourceType, obj: KubeObject, typed: StatusCause[], old?: KubeObject): void {
  const m = obj.metadata;
  // ValidateObjectMetaAccessorUpdate's first rule, so first here too.
  const causes: StatusCause[] = old?.metadata.deletionTimestamp ? noNewFinalizers(m.finalizers, old.metadata.finalizers) : [];
  if (!m.name) {
    if (!m.generateName) causes.push(required('metadata.name', 'name or generateName is required'));
  } else {
    for (const msg of validateName(type.nameRule, m.name)) causes.push(invalidValue('metadata.name', m.name, msg));
  }
  if (type.namespaced && !m.namespace) causes.push(required('metadata.namespace', ''));
  causes.push(...validateLabels(m.labels ?? {}, 'metadata.labels'));
  causes.push(...validateAnnotations(m.annotations ?? {}, 'metadata.annotations'));
  if (m.finalizers !== undefined && !Array.isArray(m.finalizers)) {
    causes.push(invalidValue('metadata.finalizers', m.finalizers, 'must be a list'));
  }
  causes.push(...typed);
  if (causes.length) throw new StatusError(invalid(type.group, type.kind, m.name ?? m.generateName ?? '', causes));
}

/** New object from a create request: server-set fields win over anything the client sent. */
export function fillCreateMeta(ctx: MetaContext, obj: KubeObject): KubeObject {
  const m = obj.metadata;
  m.uid = ctx.newUid();
  m.creationTimestamp = timestamp(ctx.now);
  delete m.resourceVersion;
  delete m.deletionTimestamp;
  delete m.deletionGracePeriodSeconds;
  delete m.selfLink;
  if (ctx.type.tracksGeneration) m.generation = 1;
  else delete m.generation;
  // A status subresource means status is owned by controllers: create drops it (apiserver PrepareForCreate).
  if (ctx.type.subresources.includes('status')) delete obj.status;
  // A JSON copy (the value is small, plain JSON): structuredClone cost ~0.5–1.6% of a pod create in workerd
  // (bench/profile.ts writes-64).
  if (ctx.type.initialStatus) obj.status = JSON.parse(JSON.stringify(ctx.type.initialStatus));
  return obj;
}

/**
 * The object a main-resource update stores: immutable metadata kept from `current`, status kept when the
 * type has a status subresource, generation bumped when spec changed (apiserver BeforeUpdate + PrepareForUpdate).
 */
export function mergeUpdateMeta(type: ResourceType, current: KubeObject, next: KubeObject): KubeObject {
  const m = next.metadata;
  const c = current.metadata;
  m.uid = c.uid;
  m.creationTimestamp = c.creationTimestamp;
  m.namespace = c.namespace;
  if (c.deletionTimestamp) {
    m.deletionTimestamp = c.deletionTimestamp;
    m.deletionGracePeriodSeconds = c.deletionGracePeriodSeconds;
  } else {
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
  }
  delete m.selfLink;
  if (type.subresources.includes('status')) {
    if (current.status === undefined) delete next.status;
    else next.status = current.status;
  }
  if (type.tracksGeneration) {
    m.generation = (c.generation ?? 1) + (sameJson(current.spec, next.spec) ? 0 : 1);
  } else if (c.generation !== undefined) {
    m.generation = c.generation;
  } else {
    delete m.generation;
  }
  return next;
}

/** The object a status update stores: the current object with only `.status` taken from the request. */
export function mergeStatusUpdate(current: KubeObject, next: KubeObject): KubeObject {
  const merged: KubeObject = structuredClone(current);
  if (next.status === undefined) delete merged.status;
  else merged.status = next.status;
  return merged;
}

/**
 * Whether `a` and `b` serialize to the same JSON up to key order (a no-op write must not create a
 * revision). One walk over both values, building no strings: what JSON.stringify omits (undefined,
 * functions) is absent, non-finite numbers are null, and in arrays the omitted values are null too.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  return jsonEqual(a, b);
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  a = jsonForm(a);
  b = jsonForm(b);
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const arr = Array.isArray(a);
  if (arr !== Array.isArray(b)) return false;
  if (arr) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!jsonEqual(inArray(x[i]), inArray(y[i]))) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let present = 0;
  for (const k of Object.keys(x)) {
    const v = x[k];
    if (omitted(v)) continue;
    present++;
    if (!Object.prototype.hasOwnProperty.call(y, k)) return false;
    const w = y[k];
    if (omitted(w) || !jsonEqual(v, w)) return false;
  }
  let other = 0;
  for (const k of Object.keys(y)) if (!omitted(y[k])) other++;
  return present === other;
}

// What JSON.stringify writes for a value before looking inside it: toJSON() (Dates), null for NaN/±Infinity.
function jsonForm(v: unknown): unknown {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'object' && v !== null && typeof (v as { toJSON?: unknown }).toJSON === 'function') return (v as { toJSON(): unknown }).toJSON();
  return v;
}

function omitted(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

function inArray(v: unknown): unknown {
  return omitted(v) ? null : v;
}

