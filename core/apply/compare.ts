// Core (server-side apply): what changed between two values of one schema, as structured-merge-diff
// typed/compare.go reports it — the paths added, modified and removed. A newly added or removed parent
// is itself in the set (so an Update entry owns a container it created, "."), atomic values compare
// whole, keyed list items are matched by key. Linear in the two values.

import type { SchemaNode } from '../schema/node';
import { FieldSet } from './field-set';
import type { PathElement } from './path-element';
import { atomOf, fieldNode, isMap, itemElement, ListItemError, valuesEqual, type Atom, keyPathElement } from './schema-view';

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export function isSame(c: Comparison): boolean {
  return c.added.empty() && c.modified.empty() && c.removed.empty();
}

/** `lhs` → `rhs`; `undefined` is "absent" (Go's nil value), unlike JSON null. */
export function compare(node: SchemaNode, lhs: unknown, rhs: unknown): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  new Walker(c).compare(node, lhs, rhs, []);
  return c;
}

/** The comparison with `filter` applied to each of its sets (SMD Comparison.FilterFields). */
export function filterComparison(c: Comparison, filter: ((s: FieldSet) => FieldSet) | undefined): Comparison {
  if (!filter) return c;
  return { added: filter(c.added), modified: filter(c.modified), removed: filter(c.removed) };
}

class Walker {
  constructor(private readonly c: Comparison) {}

  compare(node: SchemaNode, l: unknown, r: unknown, path: PathElement[]): void {
    const al = l === undefined ? undefined : atomOf(node, l);
    const ar = r === undefined ? undefined : atomOf(node, r);
    // Absent on both sides (a key holding undefined in memory is absent): nothing to compare.
    if (al === undefined && ar === undefined) return;
    let leaf: boolean;
    if (ar === undefined) leaf = this.handle(al!, node, l, r, path);
    else if (al === undefined || al.t === ar.t) leaf = this.handle(ar, node, l, r, path);
    else {
      // The value changed kind (deduced fields): old children go, new ones come, the node is modified.
      if (al.t !== 'scalar') this.handle(al, node, l, undefined, path);
      if (ar.t !== 'scalar') this.handle(ar, node, undefined, r, path);
      this.c.modified.insert(path);
      return;
    }
    if (!leaf) {
      if (l === undefined) this.c.added.insert(path);
      else if (r === undefined) this.c.removed.insert(path);
    }
  }

  // Returns true when the node was compared as a leaf.
  private handle(a: Atom, node: SchemaNode, l: unknown, r: unknown, path: PathElement[]): boolean {
    if (a.t === 'scalar') return this.leaf(l, r, path);
    if (a.t === 'list') {
      const ll = Array.isArray(l) ? l : undefined;
      const rl = Array.isArray(r) ? r : undefined;
      if (a.rel === 'atomic' || (!ll?.length && !rl?.length)) return this.leaf(l, r, path);
      this.listItems(a, ll ?? [], rl ?? [], path);
      return false;
    }
    const lm = isMap(l) ? l : undefined;
    const rm = isMap(r) ? r : undefined;
    if (a.atomic || (isEmpty(lm) && isEmpty(rm))) return this.leaf(l, r, path);
    if (lm) {
      for (const key of Object.keys(lm)) {
        const child = fieldNode(a, key);
        if (!child) continue;
        path.push(keyPathElement(a, key));
        this.compare(child, lm[key], rm ? own(rm, key) : undefined, path);
        path.pop();
      }
    }
    if (rm) {
      for (const key of Object.keys(rm)) {
        if (lm && Object.prototype.hasOwnProperty.call(lm, key)) continue;
        const child = fieldNode(a, key);
        if (!child) continue;
        path.push(keyPathElement(a, key));
        this.compare(child, undefined, rm[key], path);
        path.pop();
      }
    }
    return false;
  }

  private leaf(l: unknown, r: unknown, path: PathElement[]): boolean {
    if (l === undefined) this.c.added.insert(path);
    else if (r === undefined) this.c.removed.insert(path);
    else if (!valuesEqual(l, r)) this.c.modified.insert(path);
    return true;
  }

  private listItems(a: Extract<Atom, { t: 'list' }>, l: unknown[], r: unknown[], path: PathElement[]): void {
    const lv = new Map<string, { pe: PathElement; items: unknown[] }>();
    const rv = new Map<string, { pe: PathElement; items: unknown[] }>();
    const all: PathElement[] = [];
    const rOrder: PathElement[] = [];
    indexItems(a, l, lv, all);
    indexItems(a, r, rv, rOrder);
    for (const pe of rOrder) if (!lv.has(pe.text)) all.push(pe);
    for (const pe of all) {
      const li = lv.get(pe.text)?.items ?? [];
      const ri = rv.get(pe.text)?.items ?? [];
      path.push(pe);
      if (li.length <= 1 && ri.length <= 1) {
        this.compare(a.elem, li[0], ri[0], path);
      } else if (li.length >= 2 && ri.length >= 2) {
        if (li.length !== ri.length || li.some((x, i) => !valuesEqual(x, ri[i]))) this.c.modified.insert(path);
      } else if (li.length >= 2) {
        if (ri.length) this.compare(a.elem, undefined, ri[0], path);
        this.c.removed.insert(path);
      } else {
        if (li.length) this.compare(a.elem, li[0], undefined, path);
        this.c.added.insert(path);
      }
      path.pop();
    }
  }
}

function indexItems(a: Extract<Atom, { t: 'list' }>, items: unknown[], into: Map<string, { pe: PathElement; items: unknown[] }>, order: PathElement[]): void {
  for (const item of items) {
    let pe: PathElement;
    try {
      pe = itemElement(a, item);
    } catch (e) {
      if (e instanceof ListItemError) continue;
      throw e;
    }
    const found = into.get(pe.text);
    if (found) found.items.push(item);
    else {
      into.set(pe.text, { pe, items: [item] });
      order.push(pe);
    }
  }
}

function isEmpty(m: Record<string, unknown> | undefined): boolean {
  if (!m) return true;
  for (const _ in m) return false;
  return true;
}

function own(m: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(m, key) ? m[key] : undefined;
}
