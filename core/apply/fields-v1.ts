// Core (server-side apply): the FieldsV1 form of a field set — the JSON trie kube stores in
// managedFields[].fieldsV1 (structured-merge-diff fieldpath/serialize.go). Keys are serialized path
// elements in kube's order; `{}` is a leaf; a node both owned and a parent holds `".":{}` first.

import { FieldSet } from './field-set';
import { parseElement } from './path-element';

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
  const set = new FieldSet();
  if (value === undefined || value === null) return set;
  read(value, set);
  return set;
}

// Returns whether the node itself is owned (a leaf, or one listing ".").
function read(value: unknown, into: FieldSet): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new FieldsV1Error('expected an object');
  let self = false;
  let any = false;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (key === '.') {
      self = true;
      continue;
    }
    let pe;
    try {
      pe = parseElement(key);
    } catch (e) {
      throw new FieldsV1Error(`parsing key as path element: ${(e as Error).message}`);
    }
    if (!pe) continue;
    any = true;
    const children = new FieldSet();
    const member = read(child, children);
    into.nodes.set(pe.text, { pe, member, children: children.empty() ? undefined : children });
  }
  return self || !any;
}
