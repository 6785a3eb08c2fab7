// Core (server-side apply): checks an applied configuration against the schema before it is merged,
// with structured-merge-diff's messages (typed/validate.go): undeclared fields, scalars of the wrong
// type, list items without their keys, duplicate keys. kube answers these with a 500 naming the
// object ("failed to create typed patch object (...)"), so SSA rejects unknown fields a POST would prune.

import type { SchemaNode } from '../schema/node';
import { goValue } from '../patch/go-format';
import { pathString, type PathElement } from './path-element';
import { atomOf, fieldNode, isMap, itemElement, ListItemError, keyPathElement } from './schema-view';

/** The errors, each `<path>: <message>`, in document order. */
export function validateValue(node: SchemaNode, value: unknown, allowDuplicates = false): string[] {
  const errors: string[] = [];
  walk(node, value, [], errors, allowDuplicates);
  return errors;
}

/** SMD ValidationErrors.Error(): one error alone, several as an indented list. */
export function formatErrors(errors: string[]): string {
  return errors.length === 1 ? errors[0] : ['errors:', ...errors.map((e) => `  ${e}`)].join('\n');
}

function push(errors: string[], path: PathElement[], message: string): void {
  const p = pathString(path);
  errors.push(p ? `${p}: ${message}` : message);
}

function goTypeOf(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  if (isMap(v)) return 'map[string]interface {}';
  return '<nil>';
}

function walk(node: SchemaNode, v: unknown, path: PathElement[], errors: string[], dups: boolean): void {
  const a = atomOf(node, v);
  if (a.t === 'scalar') {
    if (v === null) return;
    if (a.scalar === 'numeric' && typeof v !== 'number') push(errors, path, `expected numeric (int or float), got ${goTypeOf(v)}`);
    else if (a.scalar === 'string' && typeof v !== 'string') push(errors, path, `expected string, got &value.valueUnstructured{Value:${JSON.stringify(v)}}`);
    else if (a.scalar === 'boolean' && typeof v !== 'boolean') push(errors, path, `expected boolean, got &{${goValue(v)}}`);
    else if (a.scalar === 'untyped' && (Array.isArray(v) || isMap(v))) push(errors, path, `expected any scalar, got &{${goValue(v)}}`);
    return;
  }
  if (a.t === 'list') {
    if (v === null) return;
    if (!Array.isArray(v)) {
      push(errors, path, `expected list, got &{${goValue(v)}}`);
      return;
    }
    if (a.rel === 'atomic') {
      for (const item of v) walk(a.elem, item, path, errors, dups);
      return;
    }
    const seen = new Set<string>();
    v.forEach((item, i) => {
      let pe: PathElement;
      try {
        pe = itemElement(a, item);
      } catch (e) {
        if (e instanceof ListItemError) {
          push(errors, path, `element ${i}: ${e.message}`);
          return;
        }
        throw e;
      }
      if (seen.has(pe.text) && !dups) push(errors, path, `duplicate entries for key ${pathString([pe])}`);
      seen.add(pe.text);
      path.push(pe);
      walk(a.elem, item, path, errors, dups);
      path.pop();
    });
    return;
  }
  if (v === null) return;
  if (!isMap(v)) {
    push(errors, path, `expected map, got &{${goValue(v)}}`);
    return;
  }
  for (const key of Object.keys(v)) {
    const child = fieldNode(a, key);
    path.push(keyPathElement(a, key));
    if (!child) push(errors, path, 'field not declared in schema');
    else walk(child, v[key], path, errors, dups);
    path.pop();
  }
}
