// Core (server-side apply): kube's field manager (apimachinery managedfields/internal/fieldmanager.go and
// the managers it chains), over the owner sets of ./updater.ts:
// - recordUpdate (create, update, patch, /status, /scale): the writer — `fieldManager`, else the
//   User-Agent's prefix — takes what it changed. managedFields sent in the body replace the stored
//   ones (how kubectl and Flux migrate owners); `[]` or `[{}]` clears them; an existing object nobody
//   tracks stays untracked (skipnonapplied.go); more than 10 Update entries fold into "ancient-changes".
// - applyConfig (apply): on an object with no managedFields, its fields first go to "before-first-apply";
//   then the merge; "kubectl" is forgiven conflicts on fields still as its last-applied-configuration
//   annotation left them, and keeps that annotation current (lastappliedmanager.go, lastappliedupdater.go).
// apiVersion, kind and server-set metadata are never owned (stripmeta.go).

import type { SchemaNode } from '../schema/node';
import { badRequest, internalError, StatusError } from '../status';
import { timestamp, type KubeObject } from '../object-meta';
import { FieldSet } from './field-set';
import { fieldElement, type PathElement } from './path-element';
import { compare } from './compare';
import { toFieldSet } from './to-field-set';
import { validateValue, formatErrors } from './validate';
import { conflictStatus } from './conflicts';
import {
  decodeManagedFields, emptyManaged, encodeManagedFields, isResetManagedFields, managerIdentifier, ManagedFieldsError,
  type Managed,
} from './managed-fields';
import { apply, Conflicts, update, type ManagedFields, type Updater } from './updater';
import { zeroObject } from './zero-objects';

export type Subresource = '' | 'status' | 'scale';

export interface FieldManagerContext {
  node: SchemaNode;
  group: string;
  version: string;
  kind: string;
  subresource: Subresource;
  /** The type has a /status subresource: then status is not owned through the main resource. */
  hasStatus: boolean;
  now: number;
  /** Where a Scale's spec.replicas lives in the object (custom types: specReplicasPath); default spec.replicas. */
  scaleReplicasPath?: readonly string[];
  /**
   * Other apiVersions whose field sets read the same under this schema (a CRD's versions: conversion
   * None changes only apiVersion). Sets recorded at any other version are dropped.
   */
  convertible?: (apiVersion: string) => boolean;
}

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
const BEFORE_FIRST_APPLY = 'before-first-apply';
const ANCIENT_CHANGES = 'ancient-changes';
const MAX_UPDATE_MANAGERS = 10;
const CURRENT_OPERATION = 'current-operation';
const TOTAL_ANNOTATION_BYTES = 256 * 1024;

const f = fieldElement;
const STRIP = FieldSet.of(
  [f('apiVersion')], [f('kind')], [f('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']
    .map((n) => [f('metadata'), f(n)]),
);

function apiVersionOf(ctx: FieldManagerContext): string {
  return ctx.group ? `${ctx.group}/${ctx.version}` : ctx.version;
}

/** The reset fields of the endpoint (kube's GetResetFields): what a write there never owns. */
function resetFilter(ctx: FieldManagerContext): ((s: FieldSet) => FieldSet) | undefined {
  const only = (path: PathElement[]) => (s: FieldSet) => {
    const out = new FieldSet();
    for (const p of s.paths()) if (path.every((pe, i) => p[i]?.text === pe.text)) out.insert(p);
    return out;
  };
  if (ctx.subresource === 'status') return only([f('status')]);
  if (ctx.subresource === 'scale') return only((ctx.scaleReplicasPath ?? ['spec', 'replicas']).map((n) => f(n)));
  if (ctx.hasStatus) {
    const status = FieldSet.of([f('status')]);
    return (s) => (s.nodes.has('f:status') ? s.recursiveDifference(status) : s);
  }
  return undefined;
}

function updaterFor(ctx: FieldManagerContext): Updater {
  return { node: ctx.node, version: apiVersionOf(ctx), filter: resetFilter(ctx), convertible: ctx.convertible };
}

// The object as the merge compares it: managedFields are bookkeeping, not content.
function content(obj: KubeObject): KubeObject {
  if (obj.metadata?.managedFields === undefined) return obj;
  const { managedFields: _m, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

function stripMeta(fields: ManagedFields, id: string): void {
  const vs = fields.get(id);
  if (!vs) return;
  const set = withoutServerFields(vs.set);
  if (set.empty()) fields.delete(id);
  else fields.set(id, { ...vs, set });
}

const META_STRIP = new Set(STRIP.withPrefix(f('metadata')).nodes.keys());

// set − STRIP, copying only the levels it changes (the rest is shared: sets are not mutated once built).
function withoutServerFields(set: FieldSet): FieldSet {
  const out = new FieldSet();
  for (const [k, n] of set.nodes) {
    if (k === 'f:apiVersion' || k === 'f:kind') continue;
    if (k !== 'f:metadata') {
      out.nodes.set(k, n);
      continue;
    }
    const children = new FieldSet();
    for (const [mk, mn] of n.children?.nodes ?? []) if (!META_STRIP.has(mk) || mn.children) children.nodes.set(mk, META_STRIP.has(mk) ? { pe: mn.pe, member: false, children: mn.children } : mn);
    if (!children.empty()) out.nodes.set(k, { pe: n.pe, member: false, children });
  }
  return out;
}

function decodeOrEmpty(entries: unknown): Managed {
  try {
    return decodeManagedFields(entries);
  } catch (e) {
    if (e instanceof ManagedFieldsError) return emptyManaged();
    throw e;
  }
}

// BuildManagerInfo + managedFieldsUpdater + stripMeta + structured merge, for an Update.
function updateManaged(ctx: FieldManagerContext, managed: Managed, live: KubeObject, next: KubeObject, manager: string): void {
  const id = managerIdentifier({ manager: manager || 'unknown', operation: 'Update', apiVersion: apiVersionOf(ctx), subresource: ctx.subresource });
  const fields = update(updaterFor(ctx), content(live), content(next), managed.fields, CURRENT_OPERATION);
  stripMeta(fields, CURRENT_OPERATION);
  const vs = fields.get(CURRENT_OPERATION);
  if (vs) {
    fields.delete(CURRENT_OPERATION);
    const previous = fields.get(id);
    fields.set(id, previous ? { ...vs, set: vs.set.union(previous.set) } : vs);
    managed.times.set(id, timestamp(ctx.now));
  }
  managed.fields = fields;
  capManagers(managed);
}

// capmanagers.go: the oldest Update entries beyond ten fold into "ancient-changes", per apiVersion.
function capManagers(managed: Managed): void {
  const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  const seconds = (id: string) => {
    const t = managed.times.get(id);
    return t ? Math.floor(Date.parse(t) / 1000) : 0;
  };
  updaters.sort((a, b) => seconds(a) - seconds(b) || (a < b ? -1 : a > b ? 1 : 0));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const id = updaters[i];
    const vs = managed.fields.get(id)!;
    const time = managed.times.get(id);
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      managed.fields.set(bucket, managed.fields.get(first)!);
      managed.fields.delete(first);
    }
    managed.fields.set(bucket, { ...vs, set: vs.set.union(managed.fields.get(bucket)!.set) });
    managed.fields.delete(id);
    managed.times.set(bucket, time);
    length--;
  }
}

/**
 * Records a non-apply write in `next.metadata.managedFields`. `live` is the stored object, undefined for
 * a create. Never fails: kube's UpdateNoErrors drops managedFields rather than fail a write.
 */
export function recordUpdate(ctx: FieldManagerContext, live: KubeObject | undefined, next: KubeObject, manager: string): void {
  const requested = next.metadata.managedFields;
  let managed: Managed;
  if (ctx.subresource) managed = decodeOrEmpty(live?.metadata.managedFields);
  else if (isResetManagedFields(requested)) managed = emptyManaged();
  else {
    managed = decodeOrEmpty(requested);
    if (managed.fields.size === 0) managed = decodeOrEmpty(live?.metadata.managedFields);
  }
  delete next.metadata.managedFields;
  if (managed.fields.size === 0 && live?.metadata.uid) return;
  try {
    updateManaged(ctx, managed, live ?? emptyObject(ctx), next, manager);
  } catch {
    return; // "[SHOULD NOT HAPPEN] failed to update managedFields": the write goes on without them
  }
  const encoded = encodeManagedFields(managed);
  if (encoded) next.metadata.managedFields = encoded;
}

function emptyObject(ctx: FieldManagerContext): KubeObject {
  return zeroObject(apiVersionOf(ctx), ctx.kind) as KubeObject;
}

export interface AppliedObject {
  /** The object to store: merged, or the live object when the apply changes nothing. */
  object: KubeObject;
  changed: boolean;
}

function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const slash = av.indexOf('/');
  const gv = slash < 0 ? `/${av}` : av;
  return `${gv}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/**
 * Applies `config` by `manager` onto `live` (for a create, an empty object of the kind). Throws
 * StatusError: 400 for a wrong kind or managedFields in the config, 409 for conflicts, 500 (as kube) for
 * a config the schema does not type.
 */
export function applyConfig(ctx: FieldManagerContext, live: KubeObject, config: KubeObject, manager: string, force: boolean): AppliedObject {
  const expected = gvkString(apiVersionOf(ctx), ctx.kind);
  const got = gvkString(config.apiVersion, config.kind);
  if (got !== expected) throw new StatusError(badRequest(`invalid object type: ${got}`));
  let result: AppliedObject;
  try {
    result = applyOnce(ctx, live, config, manager, force);
  } catch (e) {
    if (!(e instanceof Conflicts)) throw e;
    const remaining = manager === 'kubectl' ? unforgiven(ctx, live, e) : e.conflicts;
    if (remaining.length) throw new StatusError(conflictStatus(remaining));
    result = applyOnce(ctx, live, config, manager, true);
  }
  const annotations = result.object.metadata.annotations;
  if (manager === 'kubectl' && annotations?.[LAST_APPLIED_ANNOTATION]) {
    if (!result.changed) result = { object: structuredClone(result.object), changed: true };
    setLastApplied(result.object, config);
  }
  return result;
}

function applyOnce(ctx: FieldManagerContext, live: KubeObject, config: KubeObject, manager: string, force: boolean): AppliedObject {
  let managed: Managed;
  try {
    managed = decodeManagedFields(live.metadata.managedFields);
  } catch (e) {
    throw new StatusError(internalError(`failed to decode managed fields: ${(e as Error).message}`));
  }
  let liveContent = content(live);
  if (managed.fields.size === 0) {
    // skipnonapplied.go: what the object holds so far belongs to "before-first-apply".
    updateManaged(ctx, managed, emptyObject(ctx), liveContent, BEFORE_FIRST_APPLY);
  }
  const id = managerIdentifier({ manager, operation: 'Apply', subresource: ctx.subresource });
  const meta = config.metadata as Record<string, unknown> | undefined;
  if (meta && meta.managedFields !== undefined && meta.managedFields !== null) {
    throw new StatusError(badRequest('metadata.managedFields must be nil'));
  }
  const errors = validateValue(ctx.node, config);
  if (errors.length) {
    const m = (config.metadata ?? {}) as { name?: string; namespace?: string };
    const what = `${m.namespace ?? ''}/${m.name ?? ''}; ${gvkString(config.apiVersion, config.kind)}`;
    throw new StatusError(plainInternal(`failed to create typed patch object (${what}): ${formatErrors(errors)}`));
  }
  const result = apply(updaterFor(ctx), liveContent, config, managed.fields, id, force);
  managed.fields = result.managers;
  stripMeta(managed.fields, id);
  let object: KubeObject;
  if (result.object !== undefined) {
    managed.times.set(id, timestamp(ctx.now));
    object = result.object as KubeObject;
    object.metadata ??= {};
  } else {
    object = structuredClone(liveContent);
  }
  const encoded = encodeManagedFields(managed);
  if (encoded) object.metadata.managedFields = encoded;
  else delete object.metadata.managedFields;
  return { object, changed: result.object !== undefined };
}

// A plain Go error surfaces as a 500 whose reason is empty (apiserver's errors.NewInternalError wraps
// only when asked); kube prints the error text as the message.
function plainInternal(message: string) {
  const s = internalError(message);
  s.message = message;
  delete s.reason;
  s.details = { causes: [{ message }] };
  return s;
}

// lastappliedmanager.go: conflicts on fields the annotation holds with their live value are forgiven.
function unforgiven(ctx: FieldManagerContext, live: KubeObject, e: Conflicts) {
  const allowed = allowedFromLastApplied(ctx, live);
  if (!allowed) return e.conflicts;
  return e.conflicts.filter((c) => !allowed.has(c.path));
}

function allowedFromLastApplied(ctx: FieldManagerContext, live: KubeObject): FieldSet | undefined {
  const text = live.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  if (!text) return undefined;
  let last: KubeObject;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!last || typeof last !== 'object' || last.apiVersion !== apiVersionOf(ctx)) return undefined;
  if (validateValue(ctx.node, last).length) return undefined;
  const cmp = compare(ctx.node, last, content(live));
  return toFieldSet(ctx.node, last).difference(cmp.modified).difference(cmp.added).difference(cmp.removed);
}

// lastappliedupdater.go: the annotation becomes the applied config (without itself), as Go's JSON
// encoder writes it: keys sorted, HTML escaped, newline-terminated. Dropped if annotations grow too big.
function setLastApplied(obj: KubeObject, config: KubeObject): void {
  const copy = structuredClone(config);
  const ann = copy.metadata?.annotations as Record<string, string> | undefined;
  if (ann) delete ann[LAST_APPLIED_ANNOTATION];
  const value = `${goSortedJson(copy)}\n`;
  const annotations: Record<string, string> = { ...(obj.metadata.annotations ?? {}), [LAST_APPLIED_ANNOTATION]: value };
  let bytes = 0;
  const enc = new TextEncoder();
  for (const [k, v] of Object.entries(annotations)) bytes += enc.encode(k).length + enc.encode(v).length;
  if (bytes > TOTAL_ANNOTATION_BYTES) delete annotations[LAST_APPLIED_ANNOTATION];
  obj.metadata.annotations = annotations;
}

function goSortedJson(v: unknown): string {
  const text = JSON.stringify(v, (_k, val) => {
    if (val && typeof val === 'object' && !Array.isArray(val)) {
      return Object.fromEntries(Object.keys(val).sort().map((k) => [k, (val as Record<string, unknown>)[k]]));
    }
    return val;
  });
  return text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
