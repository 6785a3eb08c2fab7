// Core (server-side apply): how the merge sees a schema node — structured-merge-diff's atoms (scalar,
// list, map) with their element relationships, read off the one schema form (core/schema/node.ts) the
// way kube-openapi's schemaconv builds SMD schemas:
// - arrays: x-kubernetes-list-type (atomic | set | map + list-map-keys); without it, patchStrategy
//   "merge" makes a keyed list (patchMergeKey) or a set; otherwise atomic;
// - objects: properties make a struct, additionalProperties a map; x-kubernetes-map-type atomic makes
//   either one leaf; preserve-unknown-fields (or neither) lets unknown keys through as "deduced";
// - untyped nodes (RawExtension, JSON) are "deduced" from the value: maps granular, lists atomic.

import type { SchemaNode } from '../schema/node';
import { fieldElement, goJson, keyElement, valueElement, type PathElement } from './path-element';

export const DEDUCED: SchemaNode = {};

export type ScalarType = 'string' | 'numeric' | 'boolean' | 'untyped';

export type Atom =
  | { t: 'scalar'; scalar: ScalarType }
  | { t: 'list'; elem: SchemaNode; rel: 'atomic' | 'set' | 'map'; keys: readonly string[]; keyPrefix: string | undefined }
  | { t: 'map'; fields: Record<string, SchemaNode> | undefined; elem: SchemaNode | undefined; atomic: boolean; pes: Map<string, PathElement> | undefined };

// Atoms of one kind share one shape (the walkers' property reads stay monomorphic).
function list(elem: SchemaNode, rel: 'atomic' | 'set' | 'map', keys: readonly string[]): Atom {
  // A single key's item text is `k:{"<key>":<value>}`: its constant part made once (itemElement).
  return { t: 'list', elem, rel, keys, keyPrefix: keys.length === 1 ? `k:{${goJson(keys[0])}:` : undefined };
}

function map(fields: Record<string, SchemaNode> | undefined, elem: SchemaNode | undefined, atomic: boolean): Atom {
  return { t: 'map', fields, elem, atomic, pes: undefined };
}

const DEDUCED_LIST: Atom = list(DEDUCED, 'atomic', []);
const DEDUCED_MAP: Atom = map(undefined, DEDUCED, false);
const UNTYPED: Atom = { t: 'scalar', scalar: 'untyped' };

const atoms = new WeakMap<SchemaNode, Atom>();

/** The atom of `node` for `value` (only deduced nodes depend on the value). */
export function atomOf(node: SchemaNode, value: unknown): Atom {
  if (isDeduced(node)) return Array.isArray(value) ? DEDUCED_LIST : isMap(value) ? DEDUCED_MAP : UNTYPED;
  let a = atoms.get(node);
  if (!a) {
    a = build(node);
    atoms.set(node, a);
  }
  return a;
}

function isDeduced(n: SchemaNode): boolean {
  if (n.special === 'raw') return true;
  return n.type === undefined && !n.special && !n.properties && !n.additionalProperties && !n.items;
}

function build(n: SchemaNode): Atom {
  if (n.special === 'int-or-string' || n.special === 'quantity') return UNTYPED;
  if (n.special === 'time' || n.special === 'micro-time') return { t: 'scalar', scalar: 'string' };
  if (n.type === 'array' || n.items) return listAtom(n);
  if (n.type === 'object' || n.properties || n.additionalProperties) {
    const elem = n.additionalProperties ?? (n.preserveUnknownFields || !n.properties ? DEDUCED : undefined);
    return map(n.properties, elem, n.mapType === 'atomic');
  }
  if (n.type === 'string') return { t: 'scalar', scalar: 'string' };
  if (n.type === 'integer' || n.type === 'number') return { t: 'scalar', scalar: 'numeric' };
  if (n.type === 'boolean') return { t: 'scalar', scalar: 'boolean' };
  return UNTYPED;
}

function listAtom(n: SchemaNode): Atom {
  const elem = n.items ?? DEDUCED;
  if (n.listType === 'atomic') return list(elem, 'atomic', []);
  if (n.listType === 'set') return list(elem, 'set', []);
  if (n.listType === 'map') return list(elem, 'map', n.listMapKeys ?? []);
  if (n.patchStrategy?.split(',')[0] === 'merge') {
    return n.patchMergeKey ? list(elem, 'map', [n.patchMergeKey]) : list(elem, 'set', []);
  }
  return list(elem, 'atomic', []);
}

/** The schema of map key `key`: its struct field, else the element type (undefined: not declared). */
export function fieldNode(a: Extract<Atom, { t: 'map' }>, key: string): SchemaNode | undefined {
  const f = a.fields?.[key];
  return f ?? a.elem;
}

/**
 * The path element of map key `key`. A declared struct field's element is made once per schema node and
 * shared (paths are built for every field of every write); other keys (labels, additionalProperties)
 * get a fresh one, so what is kept stays bounded by the schema.
 */
export function keyPathElement(a: Extract<Atom, { t: 'map' }>, key: string): PathElement {
  if (a.fields === undefined || a.fields[key] === undefined) return fieldElement(key);
  const pes = (a.pes ??= new Map());
  let pe = pes.get(key);
  if (!pe) {
    pe = fieldElement(key);
    pes.set(key, pe);
  }
  return pe;
}

export function isStructField(a: Atom, key: string): boolean {
  return a.t === 'map' && a.fields?.[key] !== undefined;
}

// Key fields whose Go type has a +default (the served OpenAPI carries them; the swagger we compile from
// does not): kube fills a missing key from it (SMD getAssociativeKeyDefault).
const KEY_DEFAULTS: Record<string, Record<string, unknown>> = {
  'io.k8s.api.core.v1.ContainerPort': { protocol: 'TCP' },
  'io.k8s.api.core.v1.ServicePort': { protocol: 'TCP' },
  'io.k8s.api.core.v1.EndpointPort': { protocol: 'TCP' },
  'io.k8s.api.discovery.v1.EndpointPort': { protocol: 'TCP' },
};

export class ListItemError extends Error {}

/** The path element of a list item (SMD listItemToPathElement); throws ListItemError with SMD's text. */
export function itemElement(a: Extract<Atom, { t: 'list' }>, item: unknown): PathElement {
  if (a.keys.length > 0) {
    if (item === null) throw new ListItemError('associative list with keys may not have a null element');
    if (!isMap(item)) throw new ListItemError('associative list with keys may not have non-map elements');
    if (a.keys.length === 1) {
      // The common case (containers by name): keyElement's text, its constant part made with the atom.
      const k = a.keys[0];
      const v = Object.prototype.hasOwnProperty.call(item, k) ? item[k] : keyDefault(a, k);
      return { kind: 1, text: `${a.keyPrefix}${goJson(v)}}`, key: [[k, v]] };
    }
    const fields: [string, unknown][] = [];
    for (const k of a.keys) {
      if (Object.prototype.hasOwnProperty.call(item, k)) fields.push([k, item[k]]);
      else fields.push([k, keyDefault(a, k)]);
    }
    return keyElement(fields);
  }
  if (isMap(item)) throw new ListItemError("associative list without keys has an element that's a map type");
  if (Array.isArray(item)) throw new ListItemError('not supported: associative list with lists as elements');
  if (item === null) throw new ListItemError("associative list without keys has an element that's an explicit null");
  return valueElement(item);
}

function keyDefault(a: Extract<Atom, { t: 'list' }>, k: string): unknown {
  const def = a.elem.properties?.[k]?.default ?? KEY_DEFAULTS[a.elem.definition ?? '']?.[k];
  if (def === undefined) {
    throw new ListItemError(`associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`);
  }
  return def;
}

export function mapElement(key: string): PathElement {
  return fieldElement(key);
}

export function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** value.Equals: deep equality, numbers by value, maps regardless of key order. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valuesEqual(a[i], b[i])) return false;
    return true;
  }
  if (isMap(a)) {
    if (!isMap(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k) || !valuesEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}
