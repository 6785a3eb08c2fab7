// Core: renders values and JSON errors the way Go prints them, because kube-apiserver returns the
// text of Go errors (fmt %v of maps, encoding/json syntax and type errors) in its Status messages.

import { jsonKind, type JsonMap } from './json-value';

/** fmt's %v of a decoded JSON value: map[a:1 b:[x y]], keys sorted, strings bare, null as <nil>. */
export function goValue(v: unknown): string {
  switch (jsonKind(v)) {
    case 'null':
      return '<nil>';
    case 'list':
      return `[${(v as unknown[]).map(goValue).join(' ')}]`;
    case 'map': {
      const m = v as JsonMap;
      const keys = Object.keys(m).sort();
      return `map[${keys.map((k) => `${k}:${goValue(m[k])}`).join(' ')}]`;
    }
    case 'number':
      return goNumber(v as number);
    default:
      return String(v);
  }
}

// Integers decode as int64 (apiserver uses UnmarshalCaseSensitivePreserveInts); others print as %g.
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e21)) {
    const [mant, exp] = n.toExponential().split('e');
    const sign = exp.startsWith('-') ? '-' : '+';
    const digits = exp.replace(/^[-+]/, '').padStart(2, '0');
    return `${mant}e${sign}${digits}`;
  }
  return String(n);
}

/** reflect.TypeOf(v).String() for a decoded JSON value, as ErrBadArgType prints it. */
export function goTypeName(v: unknown): string {
  switch (jsonKind(v)) {
    case 'null':
      return '%!s(<nil>)';
    case 'list':
      return '[]interface {}';
    case 'map':
      return 'map[string]interface {}';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    case 'bool':
      return 'bool';
    default:
      return 'string';
  }
}

/** fmt's %s of a value: strings print bare, anything else as %!s(type=value). */
export function goString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '%!s(<nil>)';
  return `%!s(${goTypeName(v)}=${goValue(v)})`;
}

/** The JSON-side name encoding/json's UnmarshalTypeError uses ("object", "array", ...). */
export function jsonTypeWord(v: unknown): string {
  const kind = jsonKind(v);
  if (kind === 'map') return 'object';
  if (kind === 'list') return 'array';
  return kind;
}

/** encoding/json's UnmarshalTypeError text for decoding `v` into a Go value of type `goType`. */
export function unmarshalTypeError(v: unknown, goType: string): string {
  return `json: cannot unmarshal ${jsonTypeWord(v)} into Go value of type ${goType}`;
}

/** The same error when the target is a struct field (Go names it Struct.field). */
export function unmarshalFieldError(v: unknown, struct: string, field: string, goType: string): string {
  return `json: cannot unmarshal ${jsonTypeWord(v)} into Go struct field ${struct}.${field} of type ${goType}`;
}

