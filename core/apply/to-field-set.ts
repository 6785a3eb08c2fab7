// Core (server-side apply): the fields a value sets, as structured-merge-diff typed/tofieldset.go
// computes them: scalar leaves, atomic lists/maps/structs as leaves, every list item (owned itself),
// every map key that is not a declared struct field, and declared fields whose value is null or {}.
// Non-empty structs are only parents. One pass, linear in the value.

import type { SchemaNode } from '../schema/node';
import { FieldSet } from './field-set';
import type { PathElement } from './path-element';
import { atomOf, fieldNode, isMap, isStructField, itemElement, ListItemError, keyPathElement } from './schema-view';

export function toFieldSet(node: SchemaNode, value: unknown): FieldSet {
  const set = new FieldSet();
  walk(node, value, [], set);
  return set;
}

function walk(node: SchemaNode, v: unknown, path: PathElement[], set: FieldSet): void {
  const a = atomOf(node, v);
  if (a.t === 'scalar') {
    set.insert(path);
    return;
  }
  if (a.t === 'list') {
    if (a.rel === 'atomic') {
      set.insert(path);
      return;
    }
    if (!Array.isArray(v)) return;
    const pes: (PathElement | undefined)[] = v.map((item) => element(a, item));
    const seen = new Map<string, number>();
    for (const pe of pes) if (pe) seen.set(pe.text, (seen.get(pe.text) ?? 0) + 1);
    const dupDone = new Set<string>();
    for (let i = 0; i < v.length; i++) {
      const pe = pes[i];
      if (!pe) continue;
      path.push(pe);
      if (seen.get(pe.text)! > 1) {
        // Duplicated keys are owned as a whole (SMD: the item path, no descent).
        if (!dupDone.has(pe.text)) set.insert(path);
        dupDone.add(pe.text);
      } else {
        walk(a.elem, v[i], path, set);
        set.insert(path);
      }
      path.pop();
    }
    return;
  }
  if (a.atomic) {
    set.insert(path);
    return;
  }
  if (!isMap(v)) return;
  for (const key of Object.keys(v)) {
    const child = fieldNode(a, key);
    if (!child) continue; // undeclared: rejected by validation before any field set is taken
    const val = v[key];
    path.push(keyPathElement(a, key));
    walk(child, val, path, set);
    if (val === null || (isMap(val) && Object.keys(val).length === 0) || !isStructField(a, key)) set.insert(path);
    path.pop();
  }
}

function element(a: Parameters<typeof itemElement>[0], item: unknown): PathElement | undefined {
  try {
    return itemElement(a, item);
  } catch (e) {
    if (e instanceof ListItemError) return undefined;
    throw e;
  }
}
