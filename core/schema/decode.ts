// Core: the schema walker, in its decoding role — what kube-apiserver's JSON decoder does to a request body
// when it unmarshals it into the Go struct of the kind (apimachinery runtime/serializer/json, which uses
// sigs.k8s.io/json, a fork of encoding/json), in one linear pass over the parsed value:
//
// - a value of the wrong JSON type is a type error, worded as encoding/json's UnmarshalTypeError:
//   `json: cannot unmarshal number into Go struct field EnvVar.spec.template.spec.containers.env.value of
//   type string` — the struct is the innermost Go struct holding the field, the path is the json field
//   names from the top (no indices, no map keys), the type is the Go type being decoded into. Like Go, the
//   first such error is kept and decoding goes on; errors of the types with their own UnmarshalJSON
//   (quantities, times) stop it at once and win;
// - unknown fields (and, with the duplicate check in duplicates.ts, duplicate ones) are "strict errors",
//   with sigs.k8s.io/json's path (`unknown field "spec.containers[0].imagee"`), collected unless the
//   decoder is non-strict (fieldValidation=Ignore); they are removed from the value either way, as
//   decoding into the struct drops them, unless the schema preserves unknown fields;
// - JSON null leaves a struct field unset (dropped here) and makes a map value or list element the zero
//   value of its type;
// - nodes without Go types (CRD schemas) only prune: custom resources decode as unstructured JSON, and
//   wrong types are validation's to report;
// - quantities, times, int-or-strings and []byte take the form Go writes back (canonical quantity, UTC
//   RFC 3339, canonical base64).
//
// The walk mutates the value in place (it is a freshly parsed body) and allocates nothing per field
// unless it finds something: paths are stacks of names, turned into strings only for an error.

import { base64Error, canonicalBase64, encodeBytes } from './base64';
import { canonicalTime, TimeParseError } from './go-time';
import type { Leaf, SchemaNode } from './node';
import { canonicalQuantity, QuantityError } from '../quantity';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** The Go error that stops decoding, with the text kube-apiserver puts after "X cannot be handled as a X: ". */
export class GoDecodeError extends Error {}

export interface DecodeResult {
  /** The decoded value: the input, changed in place (pruned, canonical), or a replacement for it. */
  value: unknown;
  /** Strict errors in document order (`unknown field "spec.foo"`), deduplicated, at most 100 (as Go). */
  strictErrors: string[];
  /** Object members in the input (before pruning), for the duplicate-field check. */
  members: number;
}

const MAX_STRICT_ERRORS = 100;
const DROP = Symbol('drop');
type Out = unknown | typeof DROP;

/**
 * Decodes `value` against `root` like kube-apiserver's decoder: throws GoDecodeError for what makes Go's
 * decoding fail, returns the decoded value and the strict errors. `strict` is false for
 * fieldValidation=Ignore (the non-strict decoder), which reports no unknown fields. `converter` words
 * type errors as runtime.DefaultUnstructuredConverter does (FromUnstructuredWithValidation, used for a
 * strategic merge patch's result): the first one stops it, e.g. `unrecognized type: int32`.
 */
export function decodeTyped(root: SchemaNode, value: unknown, strict: boolean, converter = false): DecodeResult {
  const w = new Walker(strict, converter);
  const out = w.value(root, value);
  if (w.saved) throw w.saved;
  return { value: out === DROP ? undefined : out, strictErrors: w.strictErrors, members: w.members };
}

class Walker {
  saved?: GoDecodeError;
  strictErrors: string[] = [];
  members = 0;
  private seen?: Set<string>;
  // The path, pushed and popped around every step and read only to word an error: each key or index,
  // with the struct it is a field of (null for map keys and list indices, which Go's path leaves out).
  private readonly strictPath: (string | number)[] = [];
  private readonly owners: (SchemaNode | null)[] = [];

  constructor(private readonly strict: boolean, private readonly converter: boolean) {}

  value(n: SchemaNode, v: unknown): Out {
    // undefined: a key set to undefined in memory (JSON never carries one) is as good as absent.
    if (v === null || v === undefined) return n.nullable && v === null ? null : DROP; // nullable: CRD schemas only
    if (n.special) return this.special(n, v);
    switch (n.type) {
      case 'object':
        if (n.properties) return this.struct(n, v);
        return this.map(n, v);
      case 'array':
        return this.array(n, v);
      case 'string':
        if (typeof v === 'string') return n.format === 'byte' ? this.bytes(v) : v;
        if (n.format === 'byte' && Array.isArray(v)) return this.byteArray(v);
        return this.typeError(v, n);
      case 'integer':
        return this.integer(n, v);
      case 'number':
        return typeof v === 'number' ? v : this.typeError(v, n);
      case 'boolean':
        return typeof v === 'boolean' ? v : this.typeError(v, n);
      default:
        this.count(v);
        return v; // untyped: any value
    }
  }

  private struct(n: SchemaNode, v: unknown): Out {
    if (!isObject(v)) return this.typeError(v, n);
    const props = n.properties!;
    const preserve = n.preserveUnknownFields === true;
    for (const key in v) {
      this.members++;
      const child = props[key];
      const field = v[key];
      if (child === undefined) {
        this.count(field);
        if (preserve || (n.embeddedResource && EMBEDDED_FIELDS.has(key))) continue;
        if (this.strict) this.strictError('unknown field', key);
        delete v[key];
        continue;
      }
      if (fits(child.leaf, field)) continue;
      this.strictPath.push(key);
      this.owners.push(n);
      const out = this.value(child, field);
      this.owners.pop();
      this.strictPath.pop();
      if (out === DROP) delete v[key];
      else if (out !== field) setOwn(v, key, out);
    }
    return v;
  }

  private map(n: SchemaNode, v: unknown): Out {
    if (!isObject(v)) return n.type === 'object' ? this.typeError(v, n) : v;
    const elem = n.additionalProperties;
    // A CRD object with neither properties nor additionalProperties keeps nothing unless it preserves
    // unknown fields (structural pruning); a built-in one is a map[string]interface {}.
    const prune = !elem && n.goType === undefined && !n.preserveUnknownFields;
    for (const key in v) {
      this.members++;
      const field = v[key];
      if (!elem) {
        this.count(field);
        if (prune && !(n.embeddedResource && EMBEDDED_FIELDS.has(key))) {
          if (this.strict) this.strictError('unknown field', key);
          delete v[key];
        }
        continue;
      }
      if (fits(elem.leaf, field)) continue;
      this.strictPath.push(key);
      this.owners.push(null);
      const out = field === null ? zeroValue(elem) : this.value(elem, field);
      this.owners.pop();
      this.strictPath.pop();
      if (out === DROP) delete v[key];
      else if (out !== field) setOwn(v, key, out);
    }
    return v;
  }

  private array(n: SchemaNode, v: unknown): Out {
    if (!Array.isArray(v)) return this.typeError(v, n);
    const elem = n.items;
    if (!elem) {
      this.count(v);
      return v;
    }
    const leaf = elem.leaf;
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      if (fits(leaf, item)) continue;
      this.strictPath.push(i);
      this.owners.push(null);
      const out = item === null ? zeroValue(elem) : this.value(elem, item);
      this.owners.pop();
      this.strictPath.pop();
      if (out !== item) v[i] = out === DROP ? zeroValue(elem) : out;
    }
    return v;
  }

  private integer(n: SchemaNode, v: unknown): Out {
    if (typeof v !== 'number') return this.typeError(v, n);
    // The unstructured converter converts any integral number (reflect Convert, no overflow check).
    if (this.converter && Number.isInteger(v)) return v;
    const limit = n.format === 'int32' ? 2 ** 31 : 2 ** 63;
    if (!Number.isInteger(v) || v >= limit || v < -limit) return this.typeError(v, n, `number ${goNumberText(v)}`);
    return v;
  }

  private bytes(s: string): Out {
    const err = base64Error(s);
    if (err !== undefined) {
      if (this.converter) throw new GoDecodeError(`error decoding from json: ${err}`);
      this.save(err); // base64.CorruptInputError: saved like a type error, no field context
      return DROP;
    }
    return canonicalBase64(s);
  }

  private byteArray(v: unknown[]): Out {
    for (const b of v) {
      if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > 255) {
        return this.typeError(b, UINT8, typeof b === 'number' ? `number ${goNumberText(b)}` : undefined);
      }
    }
    return encodeBytes(v as number[]);
  }

  private special(n: SchemaNode, v: unknown): Out {
    switch (n.special) {
      case 'quantity': {
        // Quantity.UnmarshalJSON parses the raw JSON text (quotes stripped); anything else fails to parse.
        const text = typeof v === 'string' ? v.trim() : typeof v === 'number' ? goNumberText(v) : '{';
        try {
          return canonicalQuantity(text);
        } catch (e) {
          if (e instanceof QuantityError) throw new GoDecodeError(e.message);
          throw e;
        }
      }
      case 'int-or-string':
        // IntOrString.UnmarshalJSON: a string, else json.Unmarshal into its int32, whose error the outer
        // decoder dresses with the field it was decoding.
        if (typeof v === 'string') return v;
        if (typeof v === 'number' && Number.isInteger(v) && v < 2 ** 31 && v >= -(2 ** 31)) return v;
        if (n.goType === undefined) return this.typeError(v, n); // x-kubernetes-int-or-string: validation's
        throw this.fieldError(v, 'int32', typeof v === 'number' ? `number ${goNumberText(v)}` : undefined);
      case 'time':
      case 'micro-time':
        if (typeof v !== 'string') throw this.fieldError(v, 'string');
        try {
          return canonicalTime(v, n.special === 'micro-time') ?? DROP;
        } catch (e) {
          if (e instanceof TimeParseError) throw new GoDecodeError(e.message);
          throw e;
        }
      default:
        this.count(v);
        return v; // raw JSON, kept as sent
    }
  }

  /**
   * Records encoding/json's UnmarshalTypeError (the first one wins; the value is left unset), or, from
   * the unstructured converter, stops with its error.
   */
  private typeError(v: unknown, n: SchemaNode, what?: string): Out {
    if (n.goType === undefined) {
      // A node with no Go type (a CRD's schema): custom resources decode as unstructured JSON, so a wrong
      // type is left in place for validation to report.
      this.count(v);
      return v;
    }
    if (this.converter) throw new GoDecodeError(converterError(v, n));
    if (!this.saved) this.saved = this.fieldError(v, n.goType ?? 'interface {}', what);
    this.count(v);
    return DROP;
  }

  // encoding/json's errorContext: the struct holding the innermost field, and the fields from the top.
  // A type's own UnmarshalJSON called by the unstructured converter has no context.
  private fieldError(v: unknown, goType: string, what = jsonWord(v)): GoDecodeError {
    if (this.converter) return new GoDecodeError(`json: cannot unmarshal ${what} into Go value of type ${goType}`);
    const fields: string[] = [];
    let struct = '';
    this.owners.forEach((owner, i) => {
      if (!owner) return;
      fields.push(this.strictPath[i] as string);
      struct = owner.goStruct ?? '';
    });
    if (fields.length === 0) return new GoDecodeError(`json: cannot unmarshal ${what} into Go value of type ${goType}`);
    return new GoDecodeError(`json: cannot unmarshal ${what} into Go struct field ${struct}.${fields.join('.')} of type ${goType}`);
  }

  private save(message: string): void {
    if (!this.saved) this.saved = new GoDecodeError(message);
  }

  // sigs.k8s.io/json newFieldError: the strict path (fields joined by ".", indices as [i]) + "." + key.
  private strictError(kind: string, key: string): void {
    if (this.strictErrors.length >= MAX_STRICT_ERRORS) return;
    const parent = strictPathText(this.strictPath);
    const text = `${kind} ${JSON.stringify(parent ? `${parent}.${key}` : key)}`;
    this.seen ??= new Set();
    if (this.seen.has(text)) return;
    this.seen.add(text);
    this.strictErrors.push(text);
  }

  /** Counts the members of a subtree the walk does not descend into. */
  private count(v: unknown): void {
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const e of v) this.count(e);
      return;
    }
    for (const key in v as Record<string, unknown>) {
      this.members++;
      this.count((v as Record<string, unknown>)[key]);
    }
  }
}

const UINT8 = { type: 'integer', goType: 'uint8' } as SchemaNode;

// x-kubernetes-embedded-resource: the fields every embedded object keeps.
const EMBEDDED_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

// The fast path: a scalar that needs nothing done (checked with typeof, no path kept); anything else
// takes the full step, which also words the error.
function fits(leaf: Leaf | undefined, v: unknown): boolean {
  switch (leaf) {
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'int32':
      return typeof v === 'number' && (v | 0) === v;
    case 'int64':
      return typeof v === 'number' && Number.isSafeInteger(v);
    case 'number':
      return typeof v === 'number';
    default:
      return false;
  }
}

// apimachinery runtime/converter.go fromUnstructured's errors, for a JSON value decoded as int64 (an
// integer), float64, string, bool, map or slice (PreserveInts) into the node's Go type.
function converterError(v: unknown, n: SchemaNode): string {
  const st = typeof v === 'number' ? (Number.isInteger(v) ? 'int64' : 'float64')
    : typeof v === 'boolean' ? 'bool' : typeof v === 'string' ? 'string' : Array.isArray(v) ? 'slice' : 'map';
  if (n.type === 'object') return n.properties ? `cannot restore struct from: ${st}` : `cannot restore map from ${st}`;
  if (n.type === 'array' || (n.type === 'string' && n.format === 'byte')) return `cannot restore slice from ${st}`;
  const kind = n.type === 'string' ? 'string' : n.type === 'boolean' ? 'bool' : n.type === 'number' ? 'float64' : n.format === 'int32' ? 'int32' : 'int64';
  // Go converts an integer to a string type (reflect ConvertibleTo) but refuses it here; a fraction
  // converts to an integer type only when integral.
  if ((st === 'int64' && kind === 'string') || (st === 'float64' && kind !== 'string' && kind !== 'bool')) {
    return `cannot convert ${st} to ${n.goType ?? kind}`;
  }
  return `unrecognized type: ${kind}`;
}

/** A strict-error path as sigs.k8s.io/json writes it: `spec.containers[0].ports[1]`. */
export function strictPathText(path: readonly (string | number)[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${p}` : p;
  }
  return out;
}

// The zero value Go stores for a null map value or list element.
function zeroValue(n: SchemaNode): unknown {
  switch (n.special) {
    case 'quantity':
      return '0';
    case 'int-or-string':
      return 0;
    case 'time':
    case 'micro-time':
    case 'raw':
      return null;
  }
  switch (n.type) {
    case 'string':
      return n.format === 'byte' ? null : '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'object':
      return n.properties ? {} : null;
    default:
      return null;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// The JSON-side word of UnmarshalTypeError ("number" without its text when the target is not numeric).
function jsonWord(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

// A number as its JSON text, which Go quotes in "number 1.5": integers plainly, others as JS prints them.
function goNumberText(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 1e21 ? BigInt(n).toString() : String(n);
}

function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}
