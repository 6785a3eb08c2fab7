// Core (server-side apply): metadata.managedFields as kube stores it, to and from the owner sets
// (apimachinery pkg/util/managedfields/internal/managedfields.go): entries keyed by their manager
// identifier, FieldsV1 sets, sorted Apply before Update, then by time, manager, apiVersion, subresource.

import { FieldSet } from './field-set';
import { readFieldsV1, toFieldsV1, type FieldsV1 } from './fields-v1';
import { goJson } from './path-element';
import type { ManagedFields } from './updater';

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: FieldsV1;
  subresource?: string;
}

export interface Managed {
  fields: ManagedFields;
  times: Map<string, string | undefined>;
}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

export class ManagedFieldsError extends Error {}

// The fieldsV1 a set was read from, when writing the set gives back exactly that value: an entry the
// write left alone is written as it was read, without walking and sorting it again. Sets are never
// mutated once built (./updater.ts makes new ones), so the value stays right for the set it is keyed by.
const written = new WeakMap<FieldSet, FieldsV1>();

/** BuildManagerIdentifier: the entry without time and fields (and without apiVersion for Apply), as JSON. */
export function managerIdentifier(e: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  const parts: string[] = [];
  if (e.manager) parts.push(`"manager":${goJson(e.manager)}`);
  if (e.operation) parts.push(`"operation":${goJson(e.operation)}`);
  if (e.apiVersion && e.operation !== 'Apply') parts.push(`"apiVersion":${goJson(e.apiVersion)}`);
  if (e.subresource) parts.push(`"subresource":${goJson(e.subresource)}`);
  return `{${parts.join(',')}}`;
}

// Identifiers repeat (a few managers write most objects): each is parsed once while it is among the last
// IDENTIFIERS_KEPT seen (bench/profile.ts writes-64: JSON.parse here was 0.8% of the isolate). Bounded in count
// and, by IDENTIFIER_BYTES_KEPT, in size; the entries are frozen, as every caller only reads them.
const IDENTIFIERS_KEPT = 256;
const IDENTIFIER_BYTES_KEPT = 512;
const identifiers = new Map<string, Readonly<ManagedFieldsEntry>>();

export function parseIdentifier(id: string): Readonly<ManagedFieldsEntry> {
  const known = identifiers.get(id);
  if (known) return known;
  const parsed = Object.freeze(JSON.parse(id) as ManagedFieldsEntry);
  if (id.length <= IDENTIFIER_BYTES_KEPT) {
    if (identifiers.size >= IDENTIFIERS_KEPT) identifiers.clear();
    identifiers.set(id, parsed);
  }
  return parsed;
}

/** DecodeManagedFields; throws ManagedFieldsError with kube's words for an entry it cannot read. */
export function decodeManagedFields(entries: unknown): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new ManagedFieldsError('managedFields must be a list');
  entries.forEach((raw, i) => {
    const e = (raw ?? {}) as ManagedFieldsEntry;
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (!e.apiVersion) throw new ManagedFieldsError('apiVersion must not be empty');
    if (!e.fieldsType) throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    const id = managerIdentifier(e);
    let set: FieldSet;
    try {
      const read = readFieldsV1(e.fieldsV1 ?? {});
      set = read.set;
      if (read.canonical) written.set(set, e.fieldsV1!);
    } catch (err) {
      throw new ManagedFieldsError(`error decoding versioned set: error decoding set: ${(err as Error).message}`);
    }
    managed.fields.set(id, { set, apiVersion: e.apiVersion, applied: e.operation === 'Apply' });
    managed.times.set(id, e.time);
  });
  return managed;
}

/** `[]` or `[{}]`: a request asking to clear managedFields (isResetManagedFields). */
export function isResetManagedFields(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && isEmptyEntry(entries[0]);
}

function isEmptyEntry(e: unknown): boolean {
  if (e === null || typeof e !== 'object') return false;
  return Object.values(e as Record<string, unknown>).every((v) => v === undefined || v === null || v === '');
}

/** The entries kube writes, or undefined when nobody owns anything (the field is then omitted). */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const out: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) {
    const ident = parseIdentifier(id);
    const e: ManagedFieldsEntry = {};
    if (ident.manager) e.manager = ident.manager;
    e.operation = vs.applied ? 'Apply' : ident.operation;
    e.apiVersion = vs.apiVersion;
    const time = managed.times.get(id);
    if (time) e.time = time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = written.get(vs.set) ?? toFieldsV1(vs.set);
    if (ident.subresource) e.subresource = ident.subresource;
    out.push(e);
  }
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  const cmp = (a = '', b = '') => (a < b ? -1 : a > b ? 1 : 0);
  return out.sort((p, q) => cmp(p.operation, q.operation) || seconds(p.time) - seconds(q.time)
    || cmp(p.manager, q.manager) || cmp(p.apiVersion, q.apiVersion) || cmp(p.subresource, q.subresource));
}
