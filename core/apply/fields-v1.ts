// Core (server-side apply): the FieldsV1 form of a field set — the JSON trie kube stores in
// managedFields[].fieldsV1 (structured-merge-diff fieldpath/serialize.go). Keys are serialized path
// elements in kube's order; `{}` is a leaf; a node both owned and a parent holds `".":{}` first.

import { FieldSet } from './field-set';
import { compareElements, parseElement, type PathElement } from './path-element';

export type FieldsV1 = { [key: string]: FieldsV1 };

/** The set as the JSON object kube writes (key order is part of the format). */
export function toFieldsV1(set: FieldSet): FieldsV1 {
  return emit(set, false);
}

function emit(set: FieldSet, self: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  if (self) out['.'] = {};
  for (const n of set.sorted()) {
    out[n.pe.text] = n.children && !n.children.empty() ? emit(n.children, n.member) : {};
  }
  return out;
}

export class FieldsV1Error extends Error {}

/** Parses a fieldsV1 value; unknown element types are skipped, as kube does; malformed keys throw. */
export function fromFieldsV1(value: unknown): FieldSet {
  return readFieldsV1(value).set;
}

/**
 * fromFieldsV1, and whether `value` is exactly what toFieldsV1 writes for the set (keys canonical and in
 * kube's order, "." only first and beside children): then the value can be written again as it is.
 */
export function readFieldsV1(value: unknown): { set: FieldSet; canonical: boolean } {
  const set = new FieldSet();
  if (value === undefined || value === null) return { set, canonical: false };
  const state = { canonical: true };
  read(value, set, state, true);
  return { set, canonical: state.canonical };
}

// Returns whether the node itself is owned (a leaf, or one listing ".").
function read(value: unknown, into: FieldSet, state: { canonical: boolean }, top = false): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new FieldsV1Error('expected an object');
  let self = false;
  let any = false;
  let first = true;
  let previous: PathElement | undefined;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const child = (value as Record<string, unknown>)[key];
    if (key === '.') {
      self = true;
      if (!first || top) state.canonical = false;
      first = false;
      continue;
    }
    first = false;
    let pe;
    try {
      pe = parseElement(key);
    } catch (e) {
      throw new FieldsV1Error(`parsing key as path element: ${(e as Error).message}`);
    }
    if (!pe) {
      state.canonical = false;
      continue;
    }
    if (state.canonical && (pe.text !== key || (previous && compareElements(previous, pe) >= 0))) state.canonical = false;
    previous = pe;
    any = true;
    const children = new FieldSet();
    const member = read(child, children, state);
    if (into.nodes.has(pe.text)) state.canonical = false;
    into.nodes.set(pe.text, { pe, member, children: children.empty() ? undefined : children });
  }
  if (self && !any) state.canonical = false; // {".":{}} is written {}
  return self || !any;
}
