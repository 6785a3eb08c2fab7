// Core: a custom object against its CRD's structural schema, as apiextensions-apiserver handles it:
// pruning of undeclared fields (schema/pruning/algorithm.go), dropping of nulls (defaulting/prunenulls.go),
// defaulting (defaulting/algorithm.go) and OpenAPI validation with kube-openapi's messages
// (validation/validation.go kubeOpenAPIResultToFieldErrors), with ratcheting on update
// (validation/ratcheting.go: errors on values unchanged at a correlatable path are dropped). One pass
// each over the object, linear in its size.

import { definitionNode } from '../schema/compile';
import { decodeTyped } from '../schema/decode';
import type { Junctors, SchemaNode } from '../schema/node';
import type { StatusCause } from '../status';
import { goQuote, invalidValue, required, tooLong } from '../validation/names';
import { RegexBudget, RegexBudgetExceeded } from '../regex/budget';
import { compileGoRegexp, goMatch } from '../regex/go-regexp';
import { formatMatches, knownFormat } from './formats';

export interface PruneResult {
  /** Paths of removed fields, as `unknown field "spec.x"` strict errors. */
  unknown: string[];
}

type Path = (string | number)[];

function pathText(path: Path): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/**
 * Prunes `obj` in place: unknown fields anywhere (unless preserved), nulls in non-nullable fields
 * without a default, unknown metadata fields. Returns what was removed, for fieldValidation.
 */
export function pruneCustomObject(root: SchemaNode, obj: Record<string, unknown>): PruneResult {
  const unknown: string[] = [];
  if (isObject(obj.metadata)) {
    const meta = decodeTyped(definitionNode(OBJECT_META)!, obj.metadata, true);
    for (const e of meta.strictErrors) unknown.push(e.replace(/^unknown field "/, 'unknown field "metadata.'));
  }
  pruneNode(root, obj, [], unknown, true);
  return { unknown };
}

function pruneNode(n: SchemaNode, v: unknown, path: Path, unknown: string[], isRoot: boolean): void {
  if (isObject(v)) {
    const props = n.properties;
    const keepMeta = isRoot || n.embeddedResource === true;
    for (const key of Object.keys(v)) {
      if (keepMeta && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) {
        if (!isRoot && key === 'metadata' && isObject(v.metadata)) {
          const meta = decodeTyped(definitionNode(OBJECT_META)!, v.metadata, true);
          for (const e of meta.strictErrors) unknown.push(e.replace(/^unknown field "/, `unknown field "${pathText([...path, 'metadata'])}.`));
        }
        continue;
      }
      const child = props?.[key] ?? n.additionalProperties;
      const value = v[key];
      if (child === undefined) {
        if (n.preserveUnknownFields || (!props && n.type === undefined)) continue;
        if (props || n.type === 'object') {
          unknown.push(`unknown field ${JSON.stringify(pathText([...path, key]))}`);
          delete v[key];
        }
        continue;
      }
      if (value === null && props?.[key] && !child.nullable) {
        if (child.default !== undefined) v[key] = structuredClone(child.default);
        else delete v[key];
        continue;
      }
      path.push(key);
      pruneNode(child, value, path, unknown, false);
      path.pop();
    }
  } else if (Array.isArray(v) && n.items) {
    for (let i = 0; i < v.length; i++) {
      path.push(i);
      pruneNode(n.items, v[i], path, unknown, false);
      path.pop();
    }
  }
}

/**
 * Fills absent properties that have a schema default, top-down (a default is itself defaulted below).
 * Returns whether anything was added.
 */
export function defaultCustomObject(n: SchemaNode, v: unknown): boolean {
  let changed = false;
  if (isObject(v)) {
    if (n.properties) {
      for (const key in n.properties) {
        const child = n.properties[key];
        if (child.default !== undefined && !Object.hasOwn(v, key)) {
          v[key] = structuredClone(child.default);
          changed = true;
        }
      }
    }
    for (const key of Object.keys(v)) {
      const child = n.properties?.[key] ?? n.additionalProperties;
      if (child && defaultCustomObject(child, v[key])) changed = true;
    }
  } else if (Array.isArray(v) && n.items) {
    for (const item of v) if (defaultCustomObject(n.items, item)) changed = true;
  }
  return changed;
}

/**
 * Schema errors of `obj` (already pruned and defaulted), in walk order. With `old` (an update), errors
 * inside values equal to the old value at the same field, map key or list-map key are dropped. Pattern
 * checks spend `budget` (the write's regular-expression work).
 */
export function validateCustomObject(root: SchemaNode, obj: unknown, old?: unknown, budget = new RegexBudget()): StatusCause[] {
  const v = new Validator(budget);
  v.node(root, obj, old, [], true);
  return v.errors;
}

// The validators of kube-openapi's SchemaValidator that apply to a (non-null) value, plus one for the value.
function applicable(n: SchemaNode, v: unknown): number {
  let count = 4; // type, junctors, enum, and the value itself
  if (typeof v === 'string') count += n.format && knownFormat(n.format) ? 2 : 1;
  else if (typeof v === 'number' || Array.isArray(v) || isObject(v)) count += 1;
  return count;
}

/**
 * A /status write: only `status` is validated, against its own schema, as apiextensions does
 * (validator.go ValidateStatusUpdate: a status schema validator rooted at "", errors under field path
 * `status`): messages name paths within status (`addresses[0].value in body …`), causes the full path.
 */
export function validateCustomObjectStatus(root: SchemaNode, obj: Record<string, unknown>, old?: Record<string, unknown>, budget = new RegexBudget()): StatusCause[] {
  const schema = root.properties?.status;
  if (!schema || !Object.hasOwn(obj, 'status')) return [];
  const v = new Validator(budget);
  v.node(schema, obj.status, old?.status, []);
  for (const e of v.errors) e.field = e.field === '<nil>' || !e.field ? 'status' : `status.${e.field}`;
  return v.errors;
}

const TYPE_OF = (x: unknown): string => {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'array';
  if (typeof x === 'number') return Number.isInteger(x) ? 'integer' : 'number';
  return typeof x;
};

class Validator {
  errors: StatusCause[] = [];
  /**
   * kube-openapi's Result.MatchCount: one per validator that applied at each value, plus one per value. A
   * failing anyOf/oneOf reports the branch that got furthest (the highest count, the first on a tie).
   */
  matches = 0;

  constructor(private readonly budget: RegexBudget) {}

  /** Validates one value; returns whether it equals `old` (undefined old: never equal). */
  node(n: SchemaNode, v: unknown, old: unknown, path: Path, isRoot = false): boolean {
    const start = this.errors.length;
    const equal = this.check(n, v, old, path, isRoot);
    // Ratcheting: an unchanged value keeps whatever was wrong with it.
    if (equal) this.errors.length = start;
    return equal;
  }

  private check(n: SchemaNode, v: unknown, old: unknown, path: Path, isRoot: boolean): boolean {
    const field = pathText(path);
    const where = field || 'body';
    if (v === null) {
      if (!n.nullable && n.type !== undefined) this.typeError(field, where, v, n.type);
      return old === null;
    }
    // kube-openapi SchemaValidator: type, junctors, string, format, number, slice, enum, object.
    this.matches += applicable(n, v);
    let typed = true;
    if (n.special === 'int-or-string') {
      if (typeof v !== 'string' && !(typeof v === 'number' && Number.isInteger(v))) {
        this.typeError(field, where, v, 'integer,string');
        typed = false;
      }
    } else if (n.type && !typeMatches(n.type, v)) {
      this.typeError(field, where, v, n.type);
      typed = false;
    }
    if (n.junctors) this.junctors(n.junctors, v, path, field, isRoot);
    if (!typed) return false;
    let equal = old !== undefined;
    if (isObject(v)) {
      const o = isObject(old) ? old : undefined;
      if (!o) equal = false;
      for (const r of n.required ?? []) {
        if (!(r in v)) this.errors.push(required(field ? `${field}.${r}` : r));
      }
      if (n.maxProperties !== undefined && Object.keys(v).length > n.maxProperties) {
        this.errors.push({ reason: 'FieldValueTooMany', message: `Too many: ${Object.keys(v).length}: must have at most ${n.maxProperties} items`, field });
      }
      if (n.minProperties !== undefined && Object.keys(v).length < n.minProperties) {
        this.errors.push(invalidValue(field, Object.keys(v).length, `${where} in body should have at least ${n.minProperties} properties`));
      }
      if (n.embeddedResource) {
        if (!v.apiVersion) this.errors.push(required(`${field}.apiVersion`, 'must not be empty'));
        if (!v.kind) this.errors.push(required(`${field}.kind`, 'must not be empty'));
      }
      let count = 0;
      for (const key of Object.keys(v)) {
        count++;
        if (isRoot && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) {
          if (o && JSON.stringify(o[key]) !== JSON.stringify(v[key])) equal = false;
          continue;
        }
        const child = n.properties?.[key] ?? n.additionalProperties;
        path.push(key);
        const same = child ? this.node(child, v[key], o?.[key], path) : o !== undefined && key in o && sameValue(o[key], v[key]);
        path.pop();
        if (!same) equal = false;
      }
      if (o && Object.keys(o).length !== count) equal = false;
    } else if (Array.isArray(v)) {
      const o = Array.isArray(old) ? old : undefined;
      if (!o || o.length !== v.length) equal = false;
      if (n.maxItems !== undefined && v.length > n.maxItems) {
        this.errors.push({ reason: 'FieldValueTooMany', message: `Too many: ${v.length}: must have at most ${n.maxItems} items`, field });
      }
      if (n.minItems !== undefined && v.length < n.minItems) {
        this.errors.push(invalidValue(field, v.length, `${where} in body should have at least ${n.minItems} items`));
      }
      const oldByKey = n.listType === 'map' && o ? indexByKeys(o, n.listMapKeys ?? []) : undefined;
      const seen = n.listType === 'set' || n.listType === 'map' ? new Set<string>() : undefined;
      v.forEach((item, i) => {
        path.push(i);
        if (seen) {
          const key = n.listType === 'map' ? mapKey(item, n.listMapKeys ?? []) : JSON.stringify(item);
          if (seen.has(key)) this.errors.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${duplicateText(item, n)}`, field: pathText(path) });
          seen.add(key);
        }
        // Correlatable items: list-type=map items by key; other lists are not ratcheted item by item.
        const oldItem = oldByKey ? oldByKey.get(mapKey(item, n.listMapKeys ?? [])) : undefined;
        const same = n.items ? this.node(n.items, item, oldItem, path) : false;
        path.pop();
        // A list equal to the old one as a whole is unchanged, whether or not its items correlate.
        if (!o || !(same || sameValue(o[i], item))) equal = false;
      });
    } else {
      if (!sameValue(old, v)) equal = false;
      this.scalar(n, v, field, where);
    }
    if (n.enum && !n.enum.some((e) => sameValue(e, v))) {
      this.errors.push({
        reason: 'FieldValueNotSupported', field,
        message: `Unsupported value: ${quoteValue(v)}: supported values: ${n.enum.map(quoteValue).join(', ')}`,
      });
    }
    return equal;
  }

  /**
   * kube-openapi schemaPropsValidator: each branch validates this same value (at this same path); the
   * errors of the branch that got furthest explain a failed anyOf/oneOf, every branch's errors a failed
   * allOf. The junctor's own error has no field (apiextensions kubeOpenAPIResultToFieldErrors).
   */
  private junctors(j: Junctors, v: unknown, path: Path, field: string, isRoot: boolean): void {
    const run = (b: SchemaNode) => {
      const sub = new Validator(this.budget);
      sub.check(b, v, undefined, path, isRoot);
      return sub;
    };
    const composite = (message: string) => this.errors.push({ reason: 'FieldValueInvalid', field: '<nil>', message: `Invalid value: "": ${goQuote(field)} ${message}` });
    const merge = (r: Validator) => {
      this.errors.push(...r.errors);
      this.matches += r.matches;
    };
    if (j.anyOf) {
      let best: Validator | undefined;
      let success: Validator | undefined;
      for (const b of j.anyOf) {
        const r = run(b);
        if (!r.errors.length) {
          success = r;
          best = undefined;
          break;
        }
        if (!best || r.matches > best.matches) best = r;
      }
      if (!success) composite('must validate at least one schema (anyOf)');
      if (best) merge(best);
      else if (success) merge(success);
    }
    if (j.oneOf) {
      let best: Validator | undefined;
      let success: Validator | undefined;
      let valid = 0;
      for (const b of j.oneOf) {
        const r = run(b);
        if (!r.errors.length) {
          valid++;
          best = undefined;
          success ??= r;
          continue;
        }
        if (valid === 0 && (!best || r.matches > best.matches)) best = r;
      }
      if (valid !== 1) {
        composite(`must validate one and only one schema (oneOf). ${valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`}`);
        if (best) merge(best);
      } else if (success) merge(success);
    }
    if (j.allOf) {
      let valid = 0;
      for (const b of j.allOf) {
        const r = run(b);
        if (!r.errors.length) valid++;
        merge(r);
      }
      if (valid !== j.allOf.length) composite(`must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}`);
    }
    if (j.not && !run(j.not).errors.length) composite('must not validate the schema (not)');
  }

  private scalar(n: SchemaNode, v: unknown, field: string, where: string): void {
    if (typeof v === 'number') {
      if (n.maximum !== undefined) {
        if (n.exclusiveMaximum ? v >= n.maximum : v > n.maximum) {
          this.errors.push(invalidValue(field, v, `${where} in body should be less than ${n.exclusiveMaximum ? '' : 'or equal to '}${n.maximum}`));
        }
      }
      if (n.minimum !== undefined) {
        if (n.exclusiveMinimum ? v <= n.minimum : v < n.minimum) {
          this.errors.push(invalidValue(field, v, `${where} in body should be greater than ${n.exclusiveMinimum ? '' : 'or equal to '}${n.minimum}`));
        }
      }
    } else if (typeof v === 'string') {
      const chars = [...v].length;
      if (n.maxLength !== undefined && chars > n.maxLength) this.errors.push(tooLong(field, n.maxLength));
      if (n.minLength !== undefined && chars < n.minLength) {
        this.errors.push(invalidValue(field, v, `${where} in body should be at least ${n.minLength} chars long`));
      }
      if (n.pattern !== undefined) this.pattern(n.pattern, v, field, where);
      if (n.format && n.special !== 'int-or-string' && !this.format(n.format, v)) {
        this.errors.push(invalidValue(field, v, `${where} in body must be of type ${n.format}: ${goQuote(v)}`));
      }
    }
  }

  private format(format: string, v: string): boolean {
    try {
      return formatMatches(format, v, this.budget);
    } catch (e) {
      if (!(e instanceof RegexBudgetExceeded)) throw e;
      return false; // out of regular-expression budget: refused unchecked, as a pattern is
    }
  }

  private pattern(pattern: string, v: string, field: string, where: string): void {
    try {
      if (!patternMatches(pattern, v, this.budget)) this.errors.push(invalidValue(field, v, `${where} in body should match '${pattern}'`));
    } catch (e) {
      if (!(e instanceof RegexBudgetExceeded)) throw e;
      // Not kube's (it has no such bound): the value is refused unchecked rather than the server stalled.
      this.errors.push(invalidValue(field, v, `${where} in body could not be checked against '${pattern}': this request exceeded its regular expression work budget`));
    }
  }

  private typeError(field: string, where: string, v: unknown, type: string): void {
    // kube-openapi names the JSON type of what was sent; integral numbers decode as int64: "integer".
    const name = TYPE_OF(v);
    this.errors.push({ reason: 'FieldValueTypeInvalid', field, message: `Invalid value: "${name}": ${where} in body must be of type ${type}: "${name}"` });
  }
}

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return true;
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function quoteValue(v: unknown): string {
  return typeof v === 'string' ? goQuote(v) : JSON.stringify(v);
}

function mapKey(item: unknown, keys: readonly string[]): string {
  return JSON.stringify(keys.map((k) => (isObject(item) ? item[k] : undefined) ?? null));
}

function indexByKeys(items: unknown[], keys: readonly string[]): Map<string, unknown> {
  return new Map(items.map((i) => [mapKey(i, keys), i]));
}

function duplicateText(item: unknown, n: SchemaNode): string {
  if (n.listType === 'map' && isObject(item)) {
    const keys = (n.listMapKeys ?? []).map((k) => `${goQuote(k)}:${quoteValue(item[k])}`).join(', ');
    return `map[string]interface {}{${keys}}`;
  }
  return quoteValue(item);
}

// kube-openapi validate.Pattern: Go's regexp (RE2), compiled once per pattern (core/regex bounds the
// cache and charges the work to the write). A pattern that does not compile was refused at CRD write;
// one stored before that check cannot be enforced and is skipped.
function patternMatches(pattern: string, v: string, budget: RegexBudget): boolean {
  const re = compileGoRegexp(pattern);
  return 'error' in re ? true : goMatch(re, v, budget);
}

/** Errors after which kube skips CEL rules (validation.go hasBlockingErr). */
export function hasBlockingError(errors: StatusCause[]): boolean {
  return errors.some((e) => ['FieldValueRequired', 'FieldValueNotSupported', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid'].includes(e.reason ?? ''));
}

