// Core (server-side apply): one step of a field path, as structured-merge-diff's fieldpath.PathElement —
// a field name (`f:`), the key of an associative-list item (`k:`), the value of a set item (`v:`) or an
// index (`i:`, never emitted by kube 1.32). Each element carries its serialized text (the FieldsV1 key),
// which is canonical, so two elements are equal exactly when their texts are: sets key their tries by it.

import { goQuote } from '../validation/names';

export type PathElement =
  | { readonly kind: 0; readonly text: string; readonly name: string }
  | { readonly kind: 1; readonly text: string; readonly key: readonly (readonly [string, unknown])[] }
  | { readonly kind: 2; readonly text: string; readonly value: unknown }
  | { readonly kind: 3; readonly text: string; readonly index: number };

export function fieldElement(name: string): PathElement {
  return { kind: 0, text: `f:${name}`, name };
}

/** A keyed item: the key fields sorted by name, as value.FieldList.Sort does. */
export function keyElement(fields: [string, unknown][]): PathElement {
  if (fields.length === 1) return { kind: 1, text: `k:{${goJson(fields[0][0])}:${goJson(fields[0][1])}}`, key: [fields[0]] };
  const key = fields.slice().sort((a, b) => compareStrings(a[0], b[0]));
  return { kind: 1, text: `k:{${key.map(([n, v]) => `${goJson(n)}:${goJson(v)}`).join(',')}}`, key };
}

export function valueElement(value: unknown): PathElement {
  return { kind: 2, text: `v:${goJson(value)}`, value };
}

export function indexElement(index: number): PathElement {
  return { kind: 3, text: `i:${index}`, index };
}

// Parsed FieldsV1 keys: the same few keys (`f:spec`, `k:{"name":"nginx"}`) recur in every object's
// managedFields, and a key item costs a JSON.parse and a re-serialization. Elements are immutable, so
// they are shared; the cache is dropped whole when its (estimated) bytes pass the budget.
const PARSED_BUDGET_BYTES = 1024 * 1024;
const PARSED_ENTRY_BYTES = 96; // the element object, its Map entry and (keys) the parsed key array
const parsed = new Map<string, PathElement>();
let parsedBytes = 0;

/** Parses a FieldsV1 key; undefined for an unknown element type (kube skips those), throws if malformed. */
export function parseElement(text: string): PathElement | undefined {
  const hit = parsed.get(text);
  if (hit) return hit;
  const pe = parseUncached(text);
  if (!pe) return undefined;
  const bytes = PARSED_ENTRY_BYTES + 2 * (text.length + pe.text.length);
  if (parsedBytes + bytes > PARSED_BUDGET_BYTES) {
    parsed.clear();
    parsedBytes = 0;
  }
  if (bytes <= PARSED_BUDGET_BYTES) {
    parsed.set(text, pe);
    parsedBytes += bytes;
  }
  return pe;
}

function parseUncached(text: string): PathElement | undefined {
  if (text.length < 2 || text[1] !== ':') throw new Error(`missing colon: ${text}`);
  const body = text.slice(2);
  switch (text[0]) {
    case 'f':
      return fieldElement(body);
    case 'v':
      return valueElement(JSON.parse(body));
    case 'k': {
      const obj = JSON.parse(body) as Record<string, unknown>;
      if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new Error(`invalid key: ${body}`);
      return keyElement(Object.entries(obj));
    }
    case 'i': {
      const i = Number(body);
      if (!Number.isInteger(i)) throw new Error(`invalid index: ${body}`);
      return indexElement(i);
    }
    default:
      return undefined;
  }
}

/** fieldpath PathElement.Compare: fields < keys < values < indices, then by content. */
export function compareElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return a.kind - b.kind;
  switch (a.kind) {
    case 0:
      return compareStrings(a.name, (b as typeof a).name);
    case 1: {
      const bk = (b as typeof a).key;
      for (let i = 0; ; i++) {
        if (i >= a.key.length && i >= bk.length) return 0;
        if (i >= a.key.length) return -1;
        if (i >= bk.length) return 1;
        const c = compareStrings(a.key[i][0], bk[i][0]) || compareValues(a.key[i][1], bk[i][1]);
        if (c) return c;
      }
    }
    case 2:
      return compareValues(a.value, (b as typeof a).value);
    default:
      return a.index - (b as typeof a).index;
  }
}

/** The element as SMD prints it in paths: `.name`, `[name="nginx"]`, `[="x"]`, `[0]`. */
export function elementString(e: PathElement): string {
  switch (e.kind) {
    case 0:
      return `.${e.name}`;
    case 1:
      return `[${e.key.map(([n, v]) => `${n}=${valueString(v)}`).join(',')}]`;
    case 2:
      return `[=${valueString(e.value)}]`;
    default:
      return `[${e.index}]`;
  }
}

export function pathString(path: readonly PathElement[]): string {
  return path.map(elementString).join('');
}

// Go's strings.Compare orders by UTF-8 bytes, which is code point order. UTF-16 code units order the
// same way except that surrogates (U+D800–DFFF, half of a pair above U+FFFF) sort below U+E000–FFFF:
// at the first differing unit, lift surrogates above that range (earlier units are equal, so two
// differing low surrogates follow the same high one and keep their order).
function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

// value.Compare: float/int numerically, then int < string < bool < list < map < null by type.
function typeRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 2;
  if (typeof v === 'boolean') return 3;
  if (Array.isArray(v)) return 4;
  if (v !== null && typeof v === 'object') return 5;
  return 6;
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 2:
      return compareStrings(a as string, b as string);
    case 3:
      return a === b ? 0 : a ? 1 : -1;
    case 4: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compareValues(x[i], y[i]);
        if (c) return c;
      }
      return x.length - y.length;
    }
    case 5: {
      const x = a as Record<string, unknown>;
      const y = b as Record<string, unknown>;
      const kx = Object.keys(x).sort(compareStrings);
      const ky = Object.keys(y).sort(compareStrings);
      for (let i = 0; i < Math.min(kx.length, ky.length); i++) {
        const c = compareStrings(kx[i], ky[i]) || compareValues(x[kx[i]], y[ky[i]]);
        if (c) return c;
      }
      return kx.length - ky.length;
    }
    default:
      return 0;
  }
}

/** value.ToString: strings %q, numbers and booleans bare, null as "null". */
export function valueString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(',')}]`;
  if (typeof v === 'object') return Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}=${valueString(x)}`).join('');
  return String(v);
}

const HTML_CHARS = /[<>&\u2028\u2029]/;
const HTML_CHARS_G = /[<>&\u2028\u2029]/g;
const HTML_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

// A string JSON writes as itself in quotes: no quote, backslash, control character, HTML character,
// line/paragraph separator or lone surrogate to escape.
const PLAIN_STRING = /^[^"\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]*$/;

/** JSON as json-iterator's standard-library mode writes it: keys in order given, HTML characters escaped. */
export function goJson(v: unknown): string {
  if (typeof v === 'string' && PLAIN_STRING.test(v)) return `"${v}"`;
  const s = JSON.stringify(v);
  return HTML_CHARS.test(s) ? s.replace(HTML_CHARS_G, (c) => HTML_ESCAPES[c]) : s;
}
