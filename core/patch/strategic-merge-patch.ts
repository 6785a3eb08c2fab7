// Core: server-side strategic merge patch, a port of apimachinery strategicpatch.StrategicMergeMapPatch
// (MergeParallelList and IgnoreUnmatchedNulls on, as apiserver calls it) driven by patch-strategies.ts.
// Handles what kubectl 1.32 sends: $patch (replace/delete), $retainKeys, $setElementOrder/<list>,
// $deleteFromPrimitiveList/<list>, null deletion, and lists merged by patchMergeKey.
//
// Deliberate differences from Go, where Go would store something kube's typed decode then drops,
// or fail where kubectl never goes:
// - values copied in whole lose directive keys ($retainKeys, $setElementOrder/..., ...) too;
// - ordering a list that is empty on both sides is a no-op, not Go's 500 "no elements in any of
//   the given slices";
// - a $setElementOrder on a list the table does not know as "merge" infers the merge key from its
//   {key: value} entries (kubectl sends one only for merge lists);
// - $deleteFromPrimitiveList lists apply after the other keys, a fixed order where Go's map
//   iteration is random.

import { goString, goTypeName, goValue, unmarshalTypeError } from './go-format';
import { deepClone, hasOwn, isMap, jsonKind, put, type JsonKind, type JsonMap } from './json-value';
import { badPatch, internalPatchError, SMP, unprocessablePatch } from './patch-error';
import { fieldMeta, rootType, type PatchMeta, type TypeRef } from './patch-strategies';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ORDER = '$setElementOrder';
const DELETE_FROM_PRIMITIVES = '$deleteFromPrimitiveList';

/** Applies a strategic merge `patch` to `doc`, an object of `kind`; never mutates its arguments. */
export function applyStrategicMergePatch(doc: unknown, patch: unknown, kind: string): unknown {
  // `null` decodes into a nil map: nothing to merge (handlers/patch.go strategicPatchObject).
  if (patch === null || patch === undefined) return deepClone(doc);
  if (!isMap(patch)) throw badPatch(unmarshalTypeError(patch, 'map[string]interface {}'));
  if (doc !== null && doc !== undefined && !isMap(doc)) throw badPatch(SMP.badJSONDoc);
  const original: JsonMap = isMap(doc) ? deepClone(doc) : {};
  return mergeMap(original, deepClone(patch), rootType(kind));
}

// --- maps -------------------------------------------------------------------------------------

function mergeMap(original: JsonMap, patch: JsonMap, t: TypeRef): JsonMap {
  if (hasOwn(patch, DIRECTIVE)) return mapDirective(patch);
  applyRetainKeys(original, patch);
  mergeOrderedLists(original, patch, t);
  const deletionLists: [string, unknown][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(DELETE_FROM_PRIMITIVES)) deletionLists.push([key, value]);
    else mergeField(original, key, value, t, false);
  }
  for (const [key, value] of deletionLists) {
    mergeField(original, directiveTarget(key, DELETE_FROM_PRIMITIVES), value, t, true);
  }
  return original;
}

// handleDirectiveInMergeMap: "replace" takes the patch as the whole map, "delete" empties it.
function mapDirective(patch: JsonMap): JsonMap {
  const directive = patch[DIRECTIVE];
  if (directive === 'replace') {
    delete patch[DIRECTIVE];
    return cleanValue(patch) as JsonMap;
  }
  if (directive === 'delete') return {};
  throw internalPatchError(`unknown patch type: ${goString(directive)} in map: ${goValue(patch)}`);
}

function mergeField(original: JsonMap, key: string, value: unknown, t: TypeRef, isDeleteList: boolean): void {
  if (value === null) {
    delete original[key];
    return;
  }
  const current = hasOwn(original, key) ? original[key] : undefined;
  if (current === undefined || jsonKind(current) !== jsonKind(value)) {
    // Nothing to merge with: a deletion list has nothing to delete, anything else is taken as is.
    if (!isDeleteList) putCleaned(original, key, value);
    return;
  }
  const { meta, type } = fieldMeta(t, key);
  if (isMap(current)) put(original, key, mergeMap(current, value as JsonMap, type));
  else if (Array.isArray(current)) put(original, key, mergeListField(current, value as unknown[], meta, type, isDeleteList).merged);
  else put(original, key, value);
}

// applyRetainKeysDirective: keys of the original not listed are cleared; the patch may only set
// listed keys (or null keys, or parallel-list directives).
function applyRetainKeys(original: JsonMap, patch: JsonMap): void {
  if (!hasOwn(patch, RETAIN_KEYS)) return;
  const retained = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retained)) throw badPatch(SMP.badRetainKeys);
  const keep = new Set<unknown>(retained);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(DELETE_FROM_PRIMITIVES) || key.startsWith(SET_ORDER)) continue;
    if (!keep.has(key)) throw badPatch(SMP.badRetainKeys);
  }
  for (const key of Object.keys(original)) if (!keep.has(key)) delete original[key];
}

// extractKey: "$setElementOrder/containers" -> "containers"; a malformed key is a 400.
function directiveTarget(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw badPatch(prefix === SET_ORDER ? SMP.badSetElementOrder : SMP.badPrimitiveList);
  }
  return key.slice(slash + 1);
}

// --- $setElementOrder (mergePatchIntoOriginal) --------------------------------------------------

function mergeOrderedLists(original: JsonMap, patch: JsonMap, t: TypeRef): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw internalPatchError(badArgType('[]interface {}', order));
    const field = directiveTarget(key, SET_ORDER);
    const current = hasOwn(original, field) ? listOrFail(original[field]) : undefined;
    const patched = hasOwn(patch, field) ? listOrFail(patch[field]) : undefined;
    const { meta, type } = orderedListMeta(fieldMeta(t, field), order);
    const mergeKey = meta.mergeKey ?? '';
    validateSetOrder(patched ?? [], order, mergeKey);
    let merged: unknown[];
    let live = current ?? [];
    if (current && patched) ({ merged, live } = mergeListField(current, patched, meta, type, false));
    else if (patched) merged = cleanValue(patched) as unknown[];
    else if (current) merged = current;
    else continue;
    const kind = elementKind(live, patched ?? []);
    if (kind !== undefined) {
      const [inOrder, serverOnly] = partition(merged, order, mergeKey, kind);
      merged = normalizeOrder(inOrder, serverOnly, order, live, mergeKey, kind);
    }
    put(original, field, merged);
    delete patch[field];
  }
}

function listOrFail(v: unknown): unknown[] {
  if (!Array.isArray(v)) throw internalPatchError(badArgType('[]interface {}', v));
  return v;
}

// kubectl only sends $setElementOrder for merge lists; its entries are {mergeKey: value} maps (or the
// values themselves for primitives), so a list our table does not know still merges correctly.
function orderedListMeta(known: { meta: PatchMeta; type: TypeRef }, order: unknown[]): { meta: PatchMeta; type: TypeRef } {
  if (known.meta.strategy === 'merge' || order.length === 0) return known;
  if (order.every((e) => !isMap(e) && !Array.isArray(e))) return { meta: { strategy: 'merge' }, type: known.type };
  const keys = new Set(order.map((e) => (isMap(e) && Object.keys(e).length === 1 ? Object.keys(e)[0] : '')));
  const [only] = [...keys];
  if (keys.size === 1 && only) return { meta: { strategy: 'merge', mergeKey: only }, type: known.type };
  return known;
}

// validatePatchWithSetOrderList: the patch list (less deletions) must follow $setElementOrder.
function validateSetOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey ? patchList.filter((e) => !isDeleteDirective(e)) : patchList;
  let p = 0;
  let s = 0;
  while (p < items.length && s < order.length) {
    if (isMap(items[p]) && hasOwn(items[p] as JsonMap, DIRECTIVE)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(items[p], order[s], mergeKey)) p++;
    s++;
  }
  if (p < items.length) {
    throw internalPatchError(
      `the order in patch list:\n${goValue(patchList)}\n doesn't match ${SET_ORDER} list:\n${goValue(order)}`,
    );
  }
}

function isDeleteDirective(e: unknown): boolean {
  if (!isMap(e)) throw internalPatchError(badArgType('map[string]interface {}', e));
  return e[DIRECTIVE] === 'delete';
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return left === right;
  return mergeKeyOf(left, mergeKey) === mergeKeyOf(right, mergeKey);
}

// --- lists (mergeSliceHandler / mergeSlice) ----------------------------------------------------

/** A merged list, plus the live list as Go's original slice header sees it afterwards (see LiveList). */
interface ListMerge {
  merged: unknown[];
  live: unknown[];
}

function mergeListField(
  current: unknown[],
  patch: unknown[],
  meta: PatchMeta,
  type: TypeRef,
  isDeleteList: boolean,
): ListMerge {
  // Deletion lists apply whatever the field's strategy; atomic lists are replaced by the patch.
  if (meta.strategy === 'merge' || isDeleteList) return mergeList(current, patch, type, meta.mergeKey ?? '', isDeleteList);
  return { merged: cleanValue(patch) as unknown[], live: current };
}

function mergeList(original: unknown[], patch: unknown[], elemType: TypeRef, mergeKey: string, isDeleteList: boolean): ListMerge {
  if (original.length === 0 && patch.length === 0) return { merged: original, live: original };
  const kind = elementKind(original, patch) as JsonKind;
  if (kind !== 'map') {
    if (isDeleteList) {
      const doomed = new Set(patch);
      return { merged: original.filter((v) => !doomed.has(v)), live: original };
    }
    const merged = [...new Set([...original, ...patch])];
    const [inPatch, serverOnly] = partition(merged, patch, '', kind);
    return { merged: normalizeOrder(inPatch, serverOnly, patch, original, '', kind), live: original };
  }
  if (!mergeKey) throw internalPatchError('cannot merge lists without merge key for type struct');
  return mergeMapList(original, patch, mergeKey, elemType);
}

/**
 * Go edits the live list's backing array in place: deleteMatchingEntries shifts later elements
 * left, and appends of new elements then reuse the freed tail. The caller still holds the original
 * slice header (same array, old length) and $setElementOrder ordering reads positions through it,
 * so kube's resulting order depends on those writes; this class replays them.
 *
 * It replays them in linear time (Go's own loops are quadratic, and one store serves every request
 * of a type): deletions are applied in one pass, recording what each shift would have left in the
 * freed tail, and lookups by merge key go through an index of live positions.
 */
class LiveList {
  private readonly backing: unknown[];
  length: number;
  /** Merge-key value → live positions holding it, ascending; built on first lookup. */
  private index?: Map<unknown, number[]>;

  constructor(
    items: unknown[],
    private readonly mergeKey: string,
  ) {
    this.backing = [...items];
    this.length = items.length;
  }

  items(): unknown[] {
    return this.backing.slice(0, this.length);
  }

  /** What a slice header of length n over the same array sees. */
  view(n: number): unknown[] {
    return this.backing.slice(0, n);
  }

  at(i: number): unknown {
    return this.backing[i];
  }

  /**
   * Go's loop over the patch's {$patch: delete} entries, each removing every element whose merge
   * key equals its value, first match first. One removal at position i shifts the rest left and
   * leaves the slot at the old end holding the old last element, so that slot ends up with the
   * last live element as it was just before the removal that freed it.
   */
  removeMatching(values: unknown[]): void {
    const n = this.length;
    const byValue = this.positionsByValue(n);
    const removed = new Uint8Array(n);
    const freed: unknown[] = [];
    let last = n - 1; // highest position not yet removed
    for (const value of values) {
      const positions = byValue.get(value);
      if (!positions) continue;
      byValue.delete(value); // later directives with the same value find nothing left
      for (const at of positions) {
        freed.push(this.backing[last]);
        removed[at] = 1;
        while (last >= 0 && removed[last]) last--;
      }
    }
    if (freed.length === 0) return;
    let kept = 0;
    for (let i = 0; i < n; i++) if (!removed[i]) this.backing[kept++] = this.backing[i];
    // The k-th removal freed slot n-1-k.
    freed.forEach((e, k) => {
      this.backing[n - 1 - k] = e;
    });
    this.length = kept;
    this.index = undefined;
  }

  /** The first live position whose element has the merge key `value`, or -1. */
  indexOf(value: unknown): number {
    this.index ??= this.positionsByValue(this.length);
    return this.index.get(value)?.[0] ?? -1;
  }

  /**
   * Replaces the element at position `i`, which indexOf(`value`) found, and keeps the index right
   * (the merge may already have changed the element in place, so its old key is passed in).
   */
  set(i: number, v: unknown, value: unknown): void {
    this.backing[i] = v;
    const after = this.keyOf(v);
    if (!this.index || (after.has && after.value === value)) return;
    // Merging in a null merge key deletes it: the element no longer answers to its old value.
    this.index.get(value)?.shift();
    if (after.has) insertSorted(this.index, after.value, i);
  }

  push(v: unknown): void {
    const at = this.length++;
    this.backing[at] = v;
    const key = this.keyOf(v);
    if (this.index && key.has) insertSorted(this.index, key.value, at);
  }

  private keyOf(e: unknown): { has: boolean; value?: unknown } {
    return isMap(e) && hasOwn(e, this.mergeKey) ? { has: true, value: e[this.mergeKey] } : { has: false };
  }

  private positionsByValue(n: number): Map<unknown, number[]> {
    const byValue = new Map<unknown, number[]>();
    for (let i = 0; i < n; i++) {
      const key = this.keyOf(this.backing[i]);
      if (!key.has) continue;
      const list = byValue.get(key.value);
      if (list) list.push(i);
      else byValue.set(key.value, [i]);
    }
    return byValue;
  }
}

// Positions mostly arrive in ascending order (appends), so this is a push in practice.
function insertSorted(index: Map<unknown, number[]>, value: unknown, at: number): void {
  const list = index.get(value);
  if (!list) {
    index.set(value, [at]);
    return;
  }
  let i = list.length;
  while (i > 0 && list[i - 1] > at) i--;
  list.splice(i, 0, at);
}

// mergeSlice for lists of maps.
function mergeMapList(original: unknown[], patch: unknown[], mergeKey: string, elemType: TypeRef): ListMerge {
  const live = new LiveList(original, mergeKey);
  const { rest, replace } = applyListDirectives(live, patch, mergeKey);
  if (replace) {
    const base = rest.map(cleanValue);
    const [inPatch, serverOnly] = partition(base, [], mergeKey, 'map');
    return { merged: normalizeOrder(inPatch, serverOnly, [], base, mergeKey, 'map'), live: live.view(original.length) };
  }
  const baseLength = live.length;
  mergeListElements(live, rest, mergeKey, elemType);
  const merged = live.items();
  const [inPatch, serverOnly] = partition(merged, rest, mergeKey, 'map');
  return {
    merged: normalizeOrder(inPatch, serverOnly, rest, merged.slice(0, baseLength), mergeKey, 'map'),
    live: live.view(original.length),
  };
}

// mergeSliceWithSpecialElements: {$patch: delete} removes by merge key, {$patch: replace} makes the
// rest of the patch list the whole list.
function applyListDirectives(live: LiveList, patch: unknown[], mergeKey: string): { rest: unknown[]; replace: boolean } {
  const rest: unknown[] = [];
  const deletes: unknown[] = [];
  let replace = false;
  for (const item of patch as JsonMap[]) {
    if (!hasOwn(item, DIRECTIVE)) {
      rest.push(item);
      continue;
    }
    const directive = item[DIRECTIVE];
    if (directive === 'delete') {
      deletes.push(mergeKeyOf(item, mergeKey));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw internalPatchError('merging lists cannot yet be specified in the patch');
    } else {
      throw internalPatchError(`unknown patch type: ${goString(directive)} in map: ${goValue(item)}`);
    }
  }
  live.removeMatching(deletes);
  return { rest, replace };
}

// mergeSliceWithoutSpecialElements: merge into the element with the same merge key, else append.
function mergeListElements(live: LiveList, rest: unknown[], mergeKey: string, elemType: TypeRef): void {
  for (const item of rest as JsonMap[]) {
    const value = mergeKeyOf(item, mergeKey);
    const at = live.indexOf(value);
    if (at >= 0) live.set(at, mergeMap(live.at(at) as JsonMap, item, elemType), value);
    else live.push(cleanValue(item));
  }
}

// sliceElementType: every element must share one kind, and lists of lists are refused.
function elementKind(...lists: unknown[][]): JsonKind | undefined {
  let kind: JsonKind | undefined;
  for (const list of lists) {
    for (const v of list) {
      const k = jsonKind(v);
      if (kind === undefined) {
        if (k === 'list') throw unprocessablePatch(SMP.noListOfLists);
        kind = k;
      } else if (k !== kind) {
        throw internalPatchError(`list element types are not identical: ${goValue(lists)}`);
      }
    }
  }
  return kind;
}

function mergeKeyOf(item: unknown, mergeKey: string): unknown {
  if (!isMap(item)) throw internalPatchError(badArgType('map[string]interface {}', item));
  if (!hasOwn(item, mergeKey)) throw internalPatchError(noMergeKey(item, mergeKey));
  return item[mergeKey];
}

// --- ordering (partition*, normalizeElementOrder, mergeSortedSlice) ---------------------------

// Splits `items` into those named in `by` (by merge key, or by value for primitives) and the rest.
function partition(items: unknown[], by: unknown[], mergeKey: string, kind: JsonKind): [unknown[], unknown[]] {
  const named = kind === 'map' ? new Set(by.map((e, n) => mapKeyValue(e, n, mergeKey))) : new Set(by);
  const inBy: unknown[] = [];
  const rest: unknown[] = [];
  for (const item of items) {
    const id = kind === 'map' ? mergeKeyOf(item, mergeKey) : item;
    (named.has(id) ? inBy : rest).push(item);
  }
  return [inBy, rest];
}

// findMapInSliceBasedOnKeyValue names the offending index, not the value.
function mapKeyValue(e: unknown, index: number, mergeKey: string): unknown {
  if (!isMap(e)) throw internalPatchError(`value for key ${index} is not a map`);
  return e[mergeKey];
}

// The patch's items keep the patch order, server-only items keep the live order, then the two are
// interleaved by live position; an item the live list lacks goes before the server-only items that
// follow it, which is why a new element lands first when no $setElementOrder says otherwise.
function normalizeOrder(
  inPatch: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: JsonKind,
): unknown[] {
  const patchSorted = sortByOrder(inPatch, patchOrder, mergeKey, kind);
  const serverSorted = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  const live = positions(serverOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverSorted.length && j < patchSorted.length) {
    const l = live.get(identity(serverSorted[i], mergeKey, kind));
    const r = live.get(identity(patchSorted[j], mergeKey, kind));
    if (l !== undefined && r !== undefined && l < r) out.push(serverSorted[i++]);
    else out.push(patchSorted[j++]);
  }
  return [...out, ...serverSorted.slice(i), ...patchSorted.slice(j)];
}

// normalizeSliceOrder: stable sort by position in `order`; $patch: delete entries go last.
function sortByOrder(items: unknown[], order: unknown[], mergeKey: string, kind: JsonKind): unknown[] {
  let kept = items;
  let deletes: unknown[] = [];
  if (kind === 'map') {
    for (const e of [...items, ...order]) mergeKeyOf(e, mergeKey);
    kept = items.filter((e) => !isDeleteDirective(e));
    deletes = items.filter((e) => isDeleteDirective(e));
  }
  const at = positions(order, mergeKey, kind);
  const rank = (e: unknown) => at.get(identity(e, mergeKey, kind)) ?? Number.MAX_SAFE_INTEGER;
  const sorted = kept.map((e, n) => ({ e, n })).sort((a, b) => rank(a.e) - rank(b.e) || a.n - b.n);
  return [...sorted.map((x) => x.e), ...deletes];
}

function identity(e: unknown, mergeKey: string, kind: JsonKind): unknown {
  return kind === 'map' && isMap(e) ? e[mergeKey] : e;
}

// First index of each identity in `list`, as Go's index() finds it.
function positions(list: unknown[], mergeKey: string, kind: JsonKind): Map<unknown, number> {
  const at = new Map<unknown, number>();
  list.forEach((e, n) => {
    const id = identity(e, mergeKey, kind);
    if (!at.has(id)) at.set(id, n);
  });
  return at;
}

// --- values taken whole ------------------------------------------------------------------------

const DROP = Symbol('drop');

// Go's discardNullValuesFromPatch + removeDirectives for a value with no counterpart in the
// original: null members go, maps carrying $patch go; directive keys go too, as kube's typed decode
// drops them as unknown fields.
function cleanValue(v: unknown): unknown {
  const out = clean(v);
  return out === DROP ? undefined : out;
}

function clean(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(clean).filter((e) => e !== DROP);
  if (!isMap(v)) return v;
  if (hasOwn(v, DIRECTIVE) && v[DIRECTIVE] !== null) return DROP;
  for (const [key, value] of Object.entries(v)) {
    const out = value === null || isDirectiveKey(key) ? DROP : clean(value);
    if (out === DROP) delete v[key];
    else put(v, key, out);
  }
  return v;
}

function isDirectiveKey(key: string): boolean {
  return key === DIRECTIVE || key === RETAIN_KEYS || key.startsWith(SET_ORDER) || key.startsWith(DELETE_FROM_PRIMITIVES);
}

function putCleaned(obj: JsonMap, key: string, value: unknown): void {
  const out = clean(value);
  if (out === DROP) delete obj[key];
  else put(obj, key, out);
}

// --- mergepatch/errors.go texts ----------------------------------------------------------------

function badArgType(expected: string, actual: unknown): string {
  return `expected a ${expected}, but received a ${goTypeName(actual)}`;
}

function noMergeKey(m: JsonMap, mergeKey: string): string {
  return `map: ${goValue(m)} does not contain declared merge key: ${mergeKey}`;
}
