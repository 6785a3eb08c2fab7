// Core (server-side apply): a value without the paths of a set, as structured-merge-diff
// typed/remove.go (RemoveItems) does it: a member path drops the whole field or list item; a parent
// path descends. A map or list left empty becomes null (the typed decode afterwards drops it).

import type { SchemaNode } from '../schema/node';
import type { FieldSet } from './field-set';
import { atomOf, fieldNode, isMap, itemElement, ListItemError, DEDUCED } from './schema-view';
import { setOwn } from './merge';

export function removeItems(node: SchemaNode, value: unknown, toRemove: FieldSet): unknown {
  if (toRemove.empty()) return value;
  const a = atomOf(node, value);
  if (a.t === 'scalar') return value;
  if (a.t === 'list') {
    if (!Array.isArray(value) || value.length === 0 || a.rel === 'atomic') return null;
    const items: unknown[] = [];
    for (const item of value) {
      let pe;
      try {
        pe = itemElement(a, item);
      } catch (e) {
        if (e instanceof ListItemError) {
          items.push(item);
          continue;
        }
        throw e;
      }
      if (toRemove.hasMember(pe)) continue;
      const sub = toRemove.withPrefix(pe);
      items.push(sub.empty() ? item : removeItems(a.elem, item, sub));
    }
    return items.length ? items : null;
  }
  if (!isMap(value) || Object.keys(value).length === 0 || a.atomic) return null;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const pe = { kind: 0 as const, text: `f:${key}`, name: key };
    if (toRemove.hasMember(pe)) continue;
    const sub = toRemove.withPrefix(pe);
    setOwn(out, key, sub.empty() ? value[key] : removeItems(fieldNode(a, key) ?? DEDUCED, value[key], sub));
  }
  return Object.keys(out).length ? out : null;
}
