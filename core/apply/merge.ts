// Core (server-side apply): live ⊕ config, as structured-merge-diff typed/merge.go does with its
// "keep the right-hand side" rule: the config wins at every leaf (scalars, atomic lists/maps/structs),
// granular maps and structs merge key by key, keyed lists merge item by item with live-only items kept
// and the order interleaved (shared items in config order). Inputs are not modified; the result shares
// no structure with them except config leaves, which are cloned.

import type { SchemaNode } from '../schema/node';
import type { PathElement } from './path-element';
import { atomOf, fieldNode, isMap, itemElement, ListItemError, type Atom } from './schema-view';
import { elementString } from './path-element';

export class MergeError extends Error {}

/** The merged value; undefined when neither side has anything to keep. */
export function mergeValues(node: SchemaNode, lhs: unknown, rhs: unknown): unknown {
  return merge(node, lhs, rhs);
}

function merge(node: SchemaNode, l: unknown, r: unknown): unknown {
  const al = l === undefined ? undefined : atomOf(node, l);
  const ar = r === undefined ? undefined : atomOf(node, r);
  if (ar === undefined) return handle(al!, l, undefined);
  if (al === undefined || al.t === ar.t) return handle(ar, l, r);
  return handle(ar, undefined, r); // the value changed kind: the config's form wins
}

function keep(l: unknown, r: unknown): unknown {
  const v = r !== undefined ? r : l;
  return typeof v === 'object' && v !== null ? structuredClone(v) : v;
}

function handle(a: Atom, l: unknown, r: unknown): unknown {
  if (a.t === 'scalar') return keep(l, r);
  if (a.t === 'list') {
    const ll = Array.isArray(l) ? l : undefined;
    const rl = Array.isArray(r) ? r : undefined;
    if (a.rel === 'atomic' || (!ll?.length && !rl?.length)) return keep(l, r);
    return listItems(a, ll ?? [], rl ?? []);
  }
  const lm = isMap(l) ? l : undefined;
  const rm = isMap(r) ? r : undefined;
  if (a.atomic || (isEmpty(lm) && isEmpty(rm))) return keep(l, r);
  const out: Record<string, unknown> = {};
  if (lm) {
    for (const key of Object.keys(lm)) {
      const child = fieldNode(a, key);
      const rv = rm && Object.prototype.hasOwnProperty.call(rm, key) ? rm[key] : undefined;
      const v = child ? merge(child, lm[key], rv) : keep(lm[key], rv);
      if (v !== undefined) setOwn(out, key, v);
    }
  }
  if (rm) {
    for (const key of Object.keys(rm)) {
      if (lm && Object.prototype.hasOwnProperty.call(lm, key)) continue;
      const child = fieldNode(a, key);
      const v = child ? merge(child, undefined, rm[key]) : keep(undefined, rm[key]);
      if (v !== undefined) setOwn(out, key, v);
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

// A plain assignment of "__proto__" would replace the prototype instead of adding the member.
export function setOwn(o: Record<string, unknown>, key: string, v: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value: v, enumerable: true, writable: true, configurable: true });
  else o[key] = v;
}

function isEmpty(m: Record<string, unknown> | undefined): boolean {
  if (!m) return true;
  for (const _ in m) return false;
  return true;
}

function pushDefined(out: unknown[], v: unknown): void {
  if (v !== undefined) out.push(v);
}

interface Indexed {
  pes: PathElement[];
  observed: Map<string, unknown>;
}

function index(a: Extract<Atom, { t: 'list' }>, items: unknown[], allowDuplicates: boolean): Indexed {
  const pes: PathElement[] = [];
  const observed = new Map<string, unknown>();
  for (let i = 0; i < items.length; i++) {
    let pe: PathElement;
    try {
      pe = itemElement(a, items[i]);
    } catch (e) {
      if (e instanceof ListItemError) throw new MergeError(`element ${i}: ${e.message}`);
      throw e;
    }
    if (observed.has(pe.text)) {
      if (!allowDuplicates) throw new MergeError(`duplicate entries for key ${elementString(pe)}`);
      observed.set(pe.text, null);
    } else {
      observed.set(pe.text, items[i]);
    }
    pes.push(pe);
  }
  return { pes, observed };
}

// SMD mergingWalker.visitListItems: walk both lists, emitting live-only items where they stand and
// config items in config order, holding back a shared live item until its turn in the config.
function listItems(a: Extract<Atom, { t: 'list' }>, lhs: unknown[], rhs: unknown[]): unknown {
  const R = index(a, rhs, false);
  const L = index(a, lhs, true);
  const out: unknown[] = [];
  const shared = R.pes.filter((pe) => L.observed.has(pe.text));
  let sharedAt = 0;
  let nextShared: PathElement | undefined = shared[sharedAt++];
  const mergedRHS = new Set<string>();
  let lI = 0;
  let rI = 0;
  while (lI < L.pes.length || rI < R.pes.length) {
    if (lI < L.pes.length && rI < R.pes.length) {
      const pe = L.pes[lI];
      if (pe.text === R.pes[rI].text) {
        mergedRHS.add(pe.text);
        pushDefined(out, merge(a.elem, L.observed.get(pe.text), R.observed.get(pe.text)));
        lI++;
        rI++;
        nextShared = shared[sharedAt++];
        continue;
      }
      if (R.observed.has(pe.text) && nextShared && nextShared.text !== pe.text) {
        lI++;
        continue;
      }
    }
    if (lI < L.pes.length) {
      const pe = L.pes[lI];
      if (!R.observed.has(pe.text)) {
        pushDefined(out, merge(a.elem, lhs[lI], undefined));
        lI++;
        continue;
      } else if (mergedRHS.has(pe.text)) {
        lI++;
      }
    }
    if (rI < R.pes.length) {
      const pe = R.pes[rI];
      mergedRHS.add(pe.text);
      const lv = L.observed.has(pe.text) ? L.observed.get(pe.text) : undefined;
      pushDefined(out, merge(a.elem, lv, R.observed.get(pe.text)));
      rI++;
      if (nextShared && nextShared.text === pe.text) nextShared = shared[sharedAt++];
    }
  }
  return out.length > 0 ? out : undefined;
}
