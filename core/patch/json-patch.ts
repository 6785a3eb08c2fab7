// Core: RFC 6902 JSON Patch, with the exact semantics of gopkg.in/evanphx/json-patch.v4 (v4.12)
// that kube-apiserver 1.32 uses, including where it is more lenient than the RFC:
// - "replace" of a missing object member adds it (v4 partialDoc.get never fails);
// - "replace" and "test" accept the whole-document path "", "add"/"remove"/"move"/"copy" do not;
// - negative array indices count from the end (SupportNegativeIndices defaults to true);
// - "copy" from a missing object member copies null; "test" of a missing member against null passes;
// - a path whose first segment is not empty ("a/b") is walked as "/b".
// Every failure while applying is a 422 (see patch-error.ts); a body that is not an array of op
// objects is the 400 that strict decoding gives.

import { unmarshalFieldError, unmarshalTypeError } from './go-format';
import { deepClone, deepEqual, hasOwn, isMap, jsonKind, put, type JsonMap } from './json-value';
import { MAX_JSON_DEPTH } from '../encoding/json-depth';
import {
  MAX_JSON_PATCH_OPERATIONS,
  tooManyOperations,
  undecodablePatch,
  unprocessablePatch,
} from './patch-error';

/** apiserver JSONPatchMaxCopyBytes (server/config.go), the evanphx AccumulatedCopySizeLimit. */
export const JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024;

/**
 * Work one JSON patch may do beyond reading its own body, in units of one array element shifted by
 * an insert or removal, or one value (or key) compared by a "test". Each operation is linear in the
 * document, so 10000 of them (maxJSONPatchOperations) could cost 10000 documents: inserting at the
 * front of a 1M-element array, or testing `{}` against a map of 100k keys, thousands of times,
 * keeps the single-threaded store busy for many seconds. Go has the same cost but many threads; we
 * cap it. 2^25 units take tens of milliseconds to a few hundred; ordinary patches use a few
 * thousand (10000 inserts at the front of a 2,500-element list still fit). Past the cap the patch
 * fails like any patch that cannot be applied: the generic 422, as the copy limit does.
 */
export const JSON_PATCH_MAX_WORK = 2 ** 25;

interface Operation {
  op?: string;
  path?: string;
  from?: string;
  hasValue: boolean;
  value: unknown;
}

/** Applies `patch` (a decoded JSON value) to `doc`; returns a new document, never mutates `doc`. */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  const ops = decodeOperations(patch);
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) throw tooManyOperations(ops.length);
  const root: Root = { doc: deepClone(doc), work: new Work() };
  const copied = { bytes: 0 };
  for (const op of ops) {
    const problem = applyOperation(root, op, copied);
    if (problem) throw unprocessablePatch(problem);
  }
  return root.doc;
}

// Mirrors the strict decode into []handlers.jsonPatchOp{Op, Path, From string; Value any}; `null`
// decodes to no operations at all.
function decodeOperations(patch: unknown): Operation[] {
  if (patch === null || patch === undefined) return [];
  if (!Array.isArray(patch)) throw undecodablePatch(unmarshalTypeError(patch, '[]handlers.jsonPatchOp'));
  return patch.map((raw) => {
    if (raw === null) return { hasValue: false, value: null };
    if (!isMap(raw)) throw undecodablePatch(unmarshalTypeError(raw, 'handlers.jsonPatchOp'));
    return {
      op: stringField(raw, 'op'),
      path: stringField(raw, 'path'),
      from: stringField(raw, 'from'),
      hasValue: hasOwn(raw, 'value'),
      value: deepClone(raw.value ?? null), // the result must not share objects with the patch
    };
  });
}

function stringField(raw: JsonMap, field: string): string | undefined {
  const v = raw[field];
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'string') throw undecodablePatch(unmarshalFieldError(v, 'jsonPatchOp', field, 'string'));
  return v;
}

type Root = { doc: unknown; work: Work };

class Work {
  private spent = 0;
  readonly charge = (units: number): void => {
    this.spent += units;
    if (this.spent > JSON_PATCH_MAX_WORK) {
      throw unprocessablePatch(`the patch needs more than ${JSON_PATCH_MAX_WORK} units of work (array shifts and comparisons)`);
    }
  };
}

// Returns the evanphx error text, or undefined when the operation applied.
function applyOperation(root: Root, op: Operation, copied: { bytes: number }): string | undefined {
  switch (op.op) {
    case 'add':
      return add(root, op);
    case 'remove':
      return remove(root, op);
    case 'replace':
      return replace(root, op);
    case 'move':
      return move(root, op);
    case 'test':
      return test(root, op);
    case 'copy':
      return copy(root, op, copied);
    default:
      return `Unexpected kind: ${op.op ?? 'unknown'}`;
  }
}

function add(root: Root, op: Operation): string | undefined {
  if (op.path === undefined) return 'add operation failed to decode path: missing value';
  const target = findContainer(root, op.path);
  if (!target) return `add operation does not apply: doc is missing path: "${op.path}": missing value`;
  const tooDeep = nestingProblem(root, op.path, op.value);
  if (tooDeep) return tooDeep;
  const err = target.add(op.value);
  return err && `error in add for path: '${op.path}': ${err}`;
}

function remove(root: Root, op: Operation): string | undefined {
  if (op.path === undefined) return 'remove operation failed to decode path: missing value';
  const target = findContainer(root, op.path);
  if (!target) return `remove operation does not apply: doc is missing path: "${op.path}": missing value`;
  const err = target.remove();
  return err && `error in remove for path: '${op.path}': ${err}`;
}

function replace(root: Root, op: Operation): string | undefined {
  if (op.path === undefined) return 'replace operation failed to decode path: operation missing path field: missing value';
  if (op.path === '') {
    const kind = jsonKind(op.value);
    if (kind !== 'map' && kind !== 'list') return 'replace operation value must be object or array: %!w(<nil>)';
    root.doc = op.value;
    return undefined;
  }
  const target = findContainer(root, op.path);
  if (!target) return `replace operation does not apply: doc is missing path: ${op.path}: missing value`;
  if (target.get().error) return `replace operation does not apply: doc is missing key: ${op.path}: missing value`;
  const tooDeep = nestingProblem(root, op.path, op.value);
  if (tooDeep) return tooDeep;
  target.set(op.value);
  return undefined;
}

function move(root: Root, op: Operation): string | undefined {
  if (op.from === undefined) return 'move operation failed to decode from: operation, missing from field: missing value';
  const source = findContainer(root, op.from);
  if (!source) return `move operation does not apply: doc is missing from path: ${op.from}: missing value`;
  const got = source.get();
  if (got.error) return `error in move for path: '${source.key}': ${got.error}`;
  const removed = source.remove();
  if (removed) return `error in move for path: '${source.key}': ${removed}`;
  if (op.path === undefined) return 'move operation failed to decode path: operation missing path field: missing value';
  const dest = findContainer(root, op.path);
  if (!dest) return `move operation does not apply: doc is missing destination path: ${op.path}: missing value`;
  const tooDeep = nestingProblem(root, op.path, got.value);
  if (tooDeep) return tooDeep;
  const err = dest.add(got.value ?? null);
  return err && `error in move for path: '${op.path}': ${err}`;
}

function test(root: Root, op: Operation): string | undefined {
  if (op.path === undefined) return 'test operation failed to decode path: operation missing path field: missing value';
  const failed = `testing value ${op.path} failed: test failed`;
  if (op.path === '') return deepEqual(root.doc, op.value, root.work.charge) ? undefined : failed;
  const target = findContainer(root, op.path);
  if (!target) return `test operation does not apply: is missing path: ${op.path}: missing value`;
  const got = target.get();
  if (got.error) return `error in test for path: '${op.path}': ${got.error}`;
  // evanphx treats an absent member and a JSON null alike, and an absent "value" like null.
  if (got.value === undefined || got.value === null) return op.value === null ? undefined : failed;
  if (!op.hasValue) return failed;
  return deepEqual(got.value, op.value, root.work.charge) ? undefined : failed;
}

function copy(root: Root, op: Operation, copied: { bytes: number }): string | undefined {
  if (op.from === undefined) return 'copy operation failed to decode from: operation, missing from field: missing value';
  const source = findContainer(root, op.from);
  if (!source) return `copy operation does not apply: doc is missing from path: ${op.from}: missing value`;
  const got = source.get();
  if (got.error) return `error in copy for from: '${op.from}': ${got.error}`;
  if (op.path === undefined) return 'copy operation failed to decode path: missing value';
  const dest = findContainer(root, op.path);
  if (!dest) return `copy operation does not apply: doc is missing destination path: ${op.path}: missing value`;
  const tooDeep = nestingProblem(root, op.path, got.value);
  if (tooDeep) return tooDeep;
  const value = deepClone(got.value ?? null);
  copied.bytes += JSON.stringify(value).length;
  if (copied.bytes > JSON_PATCH_MAX_COPY_BYTES) {
    return `Unable to complete the copy, the accumulated size increase of copy is ${copied.bytes}, exceeding the limit ${JSON_PATCH_MAX_COPY_BYTES}`;
  }
  const err = dest.add(value);
  return err && `error while adding value during copy: ${err}`;
}

/**
 * The document must stay within the JSON depth limit at every step (core/encoding/json-depth.ts), or the
 * recursive steps after the patch (and deepClone in "copy") would overflow the stack: a "move" or
 * "copy" of a subtree into its own deepest point doubles the depth each time. The value's depth is
 * work (it is walked), so it is charged.
 */
function nestingProblem(root: Root, path: string, value: unknown): string | undefined {
  let containers = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 0x2f) containers++;
  const depth = containers + depthOf(value, MAX_JSON_DEPTH - containers, root.work.charge);
  if (depth <= MAX_JSON_DEPTH) return undefined;
  return `the value at ${path} would nest the object deeper than ${MAX_JSON_DEPTH} levels`;
}

// Nesting depth of objects and arrays in `value`, without recursion; stops once past `limit`.
function depthOf(value: unknown, limit: number, charge: (units: number) => void): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, above] = stack.pop()!;
    charge(1);
    if (v === null || typeof v !== 'object') continue;
    const depth = above + 1;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth]);
  }
  return deepest;
}

/** The parent of the location a pointer names, plus operations on that location. */
interface Target {
  key: string;
  get(): { value?: unknown; error?: string };
  set(value: unknown): void;
  add(value: unknown): string | undefined;
  remove(): string | undefined;
}

// evanphx findObject: split on "/", ignore the first segment, walk all but the last through
// objects and arrays; a missing, null or scalar step means "doc is missing path".
function findContainer(root: Root, pointer: string): Target | undefined {
  const segments = pointer.split('/');
  if (segments.length < 2) return undefined;
  let node = root.doc;
  for (const raw of segments.slice(1, -1)) {
    const next = childOf(node, unescape(raw));
    if (next === undefined || next === null) return undefined;
    node = next;
  }
  const key = unescape(segments[segments.length - 1]);
  if (Array.isArray(node)) return arrayTarget(node, key, root.work.charge);
  if (isMap(node)) return objectTarget(node, key);
  return undefined;
}

function childOf(node: unknown, key: string): unknown {
  if (Array.isArray(node)) {
    const idx = arrayIndex(key, node.length);
    return typeof idx === 'number' && idx < node.length ? node[idx] : undefined;
  }
  return isMap(node) && hasOwn(node, key) ? node[key] : undefined;
}

// RFC 6901: "~1" is "/" and "~0" is "~", decoded in one left-to-right pass.
function unescape(token: string): string {
  return token.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}

function objectTarget(obj: JsonMap, key: string): Target {
  return {
    key,
    get: () => ({ value: hasOwn(obj, key) ? obj[key] : undefined }),
    set: (value) => put(obj, key, value),
    add: (value) => {
      put(obj, key, value);
      return undefined;
    },
    remove: () => {
      if (!hasOwn(obj, key)) return `Unable to remove nonexistent key: ${key}: missing value`;
      delete obj[key];
      return undefined;
    },
  };
}

// Inserting or removing at idx shifts the elements after it: that is the work charged.
function arrayTarget(arr: unknown[], key: string, charge: (units: number) => void): Target {
  const invalid = (idx: number) => `Unable to access invalid index: ${idx}: invalid index referenced`;
  return {
    key,
    get: () => {
      const idx = arrayIndex(key, arr.length);
      if (typeof idx === 'string') return { error: idx };
      return idx < arr.length ? { value: arr[idx] } : { error: invalid(idx) };
    },
    set: (value) => {
      arr[arrayIndex(key, arr.length) as number] = value;
    },
    add: (value) => {
      if (key === '-') {
        arr.push(value);
        return undefined;
      }
      const idx = arrayIndex(key, arr.length + 1);
      if (typeof idx === 'string') return `value was not a proper array index: '${key}': ${idx}`;
      if (idx > arr.length) return invalid(idx);
      charge(arr.length - idx + 1);
      arr.splice(idx, 0, value);
      return undefined;
    },
    remove: () => {
      const idx = arrayIndex(key, arr.length);
      if (typeof idx === 'string') return idx;
      if (idx >= arr.length) return invalid(idx);
      charge(arr.length - idx);
      arr.splice(idx, 1);
      return undefined;
    },
  };
}

// strconv.Atoi plus evanphx's negative-index rule against `size`; returns an error text instead.
function arrayIndex(key: string, size: number): number | string {
  if (!/^[+-]?\d+$/.test(key)) return `strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`;
  const idx = Number(key);
  if (idx >= 0) return idx;
  if (idx < -size) return `Unable to access invalid index: ${idx}: invalid index referenced`;
  return idx + size;
}
