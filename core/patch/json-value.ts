// Core: small helpers over parsed JSON values shared by the three patch appliers (clone, compare,
// classify, and own-property access that a "__proto__" key in a request body cannot subvert).

export type JsonMap = Record<string, unknown>;

/** What Go's json decoder would make of a value: the "kind" every patch algorithm switches on. */
export type JsonKind = 'map' | 'list' | 'string' | 'number' | 'bool' | 'null';

export function jsonKind(v: unknown): JsonKind {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'list';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'map';
  }
}

export function isMap(v: unknown): v is JsonMap {
  return jsonKind(v) === 'map';
}

export function hasOwn(obj: JsonMap, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** Assigns an own property; plain assignment of "__proto__" would swap the prototype instead. */
export function put(obj: JsonMap, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/** Deep copy, so appliers can work in place without touching the caller's document or patch. */
export function deepClone<T>(v: T): T {
  if (Array.isArray(v)) return v.map((e) => deepClone(e)) as T;
  if (isMap(v)) {
    const out: JsonMap = {};
    for (const [k, e] of Object.entries(v)) put(out, k, deepClone(e));
    return out as T;
  }
  return v;
}

/**
 * Structural equality of JSON values (key order ignored, list order significant). `charge`, when
 * given, is told the work done: one unit per value visited plus the keys listed.
 */
export function deepEqual(a: unknown, b: unknown, charge?: (units: number) => void): boolean {
  charge?.(1);
  const kind = jsonKind(a);
  if (kind !== jsonKind(b)) return false;
  if (kind === 'list') {
    const x = a as unknown[];
    const y = b as unknown[];
    return x.length === y.length && x.every((e, i) => deepEqual(e, y[i], charge));
  }
  if (kind === 'map') {
    const x = a as JsonMap;
    const y = b as JsonMap;
    const keys = Object.keys(x);
    const other = Object.keys(y);
    charge?.(keys.length + other.length);
    return keys.length === other.length && keys.every((k) => hasOwn(y, k) && deepEqual(x[k], y[k], charge));
  }
  return a === b || (kind === 'null' && b == null);
}
