// Core: evaluating a custom object against its compiled x-kubernetes-validations (apiextensions
// pkg/apiserver/schema/cel/validation.go Validator.Validate): each rule with `self` bound to the value at
// its schema node, `oldSelf` to the correlated old value on updates (transition rules are skipped when
// there is none, unless optionalOldSelf), messageExpression, reason and fieldPath, errors on unchanged
// values reported as warnings (ratcheting), and a step budget per rule and per write.

import type { StatusCause } from '../../status';
import { goQuote } from '../../validation/names';
import type { JSONSchemaProps } from '../crd-object';
import type { CompiledRule, RuleNode } from './compile';
import { RegexBudget, RegexBudgetExceeded } from '../../regex/budget';
import { celEnvironment, CostLimitExceeded, isDuration, PER_CALL_STEPS, PER_WRITE_STEPS, stepsTaken, withStepLimit } from './library';
import { useRegexBudget } from './regex';

// apiserver/pkg/apis/cel/config.go MaxEvaluatedMessageExpressionSizeBytes.
const MAX_MESSAGE_BYTES = 5 * 1024;

export interface RuleOutcome {
  errors: StatusCause[];
  /** Errors on unchanged values (ratcheted) and rules not evaluated, as Warning texts. */
  warnings: string[];
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON value as CEL sees it under `schema`: integers are int (BigInt) unless the schema says number. */
export function toCel(schema: JSONSchemaProps | undefined, v: unknown, resourceRoot: boolean): unknown {
  if (v === null || v === undefined) return v;
  if (typeof v === 'string' && typeof schema?.format === 'string') return formatted(schema.format, v);
  if (typeof v === 'number') {
    if (schema?.type === 'number') return v;
    return Number.isInteger(v) ? BigInt(v) : v;
  }
  if (Array.isArray(v)) {
    const items = isObj(schema?.items) ? (schema.items as JSONSchemaProps) : undefined;
    return v.map((x) => toCel(items, x, items?.['x-kubernetes-embedded-resource'] === true));
  }
  if (isObj(v)) {
    const out: Record<string, unknown> = {};
    const props = isObj(schema?.properties) ? (schema.properties as Record<string, JSONSchemaProps>) : undefined;
    const ap = isObj(schema?.additionalProperties) ? (schema.additionalProperties as JSONSchemaProps) : undefined;
    for (const [k, x] of Object.entries(v)) {
      let value: unknown;
      if (resourceRoot && k === 'metadata' && isObj(x)) {
        // Rules see only metadata.name and metadata.generateName (cel/model WithTypeAndObjectMeta).
        const meta: Record<string, unknown> = {};
        if (typeof x.name === 'string') meta.name = x.name;
        if (typeof x.generateName === 'string') meta.generateName = x.generateName;
        value = meta;
      } else {
        const child = props?.[k] ?? ap;
        value = toCel(child, x, isObj(child) && child['x-kubernetes-embedded-resource'] === true);
      }
      Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return v;
}

let timestampOf: ((ctx: Record<string, unknown>) => unknown) | undefined;
let durationOf: ((ctx: Record<string, unknown>) => unknown) | undefined;

// cel/model SchemaDeclType: strings of format date-time and date are timestamps, duration durations
// (a string that does not parse stays a string; the schema check has reported it).
function formatted(format: string, v: string): unknown {
  try {
    if (format === 'date-time') return (timestampOf ??= celEnvironment().parse('timestamp(self)'))({ self: v });
    if (format === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(v)) return (timestampOf ??= celEnvironment().parse('timestamp(self)'))({ self: `${v}T00:00:00Z` });
    if (format === 'duration') return (durationOf ??= celEnvironment().parse('duration(self)'))({ self: v });
  } catch {
    return v;
  }
  return v;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date || isDuration(a)) return (b instanceof Date || isDuration(b)) && String(a) === String(b);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

function mapKey(item: unknown, keys: readonly string[]): string {
  return JSON.stringify(keys.map((k) => (isObj(item) ? String(item[k] ?? '') : '')));
}

function ruleText(r: CompiledRule): string {
  return r.source.message?.trim() ? r.source.message.trim() : (r.source.rule ?? '').trim();
}

// cel-go's texts for the conversions cel-js words its own way (common/types string.go, double.go
// ConvertToType: a string that does not parse; a double out of int range).
const CONVERSION_ERRORS: Record<string, string> = {
  'int() type error: cannot convert to int': "type conversion error from 'string' to 'int'",
  'uint() type error: cannot convert to uint': "type conversion error from 'string' to 'uint'",
  'double() type error: cannot convert to double': "type conversion error from 'string' to 'double'",
  'int() type error: integer overflow': 'integer overflow',
  'uint() type error: unsigned integer overflow': 'unsigned integer overflow',
};

/** cel-go's wording for the runtime errors cel-js reports differently. */
export function runtimeErrorText(e: unknown): string {
  const msg = String((e as Error)?.message ?? e).split('\n')[0];
  if (/^No such key: /.test(msg)) return msg.replace(/^No such key/, 'no such key');
  return CONVERSION_ERRORS[msg] ?? msg;
}

let wrapSome: ((ctx: Record<string, unknown>) => unknown) | undefined;

class Run {
  errors: StatusCause[] = [];
  warnings: string[] = [];
  remaining = PER_WRITE_STEPS;
  stopped = false;
  private optionalNone: unknown;
  private env = celEnvironment();

  constructor(private crdName: string, private readonly budget: RegexBudget) {}

  node(n: RuleNode, v: unknown, old: unknown, path: string, parentUnchanged: boolean, correlated: boolean): void {
    if (this.stopped || v === null || v === undefined) return;
    const unchanged = correlated ? old !== undefined && deepEqual(v, old) : parentUnchanged;
    if (n.rules.length) this.rules(n, v, old, path, unchanged);
    if (this.stopped) return;
    if (Array.isArray(v) && n.items) {
      const isMap = n.listType === 'map' && Array.isArray(old);
      const byKey = isMap ? new Map((old as unknown[]).map((o) => [mapKey(o, n.listMapKeys ?? []), o])) : undefined;
      v.forEach((item, i) => {
        const oldItem = byKey ? byKey.get(mapKey(item, n.listMapKeys ?? [])) : undefined;
        this.node(n.items!, item, oldItem, `${path}[${i}]`, unchanged, !!byKey);
      });
    } else if (isObj(v)) {
      const o = isObj(old) ? old : undefined;
      const correlatable = n.mapType !== 'atomic';
      for (const [k, x] of Object.entries(v)) {
        const child = n.properties?.get(k) ?? n.additionalProperties;
        if (!child) continue;
        const named = n.properties?.has(k);
        const childPath = named ? (path ? `${path}.${k}` : k) : `${path}[${k}]`;
        this.node(child, x, correlatable ? o?.[k] : undefined, childPath, unchanged, correlatable);
      }
    }
  }

  private field(path: string): string {
    return path || '<nil>';
  }

  private fail(path: string, type: string, message: string): void {
    this.errors.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${goQuote(type)}: ${message}`, field: this.field(path) });
    this.stopped = true;
  }

  /** Evaluates `program` within the budget; throws CostLimitExceeded past it. */
  private eval(program: (ctx: Record<string, unknown>) => unknown, ctx: Record<string, unknown>): { value?: unknown; error?: unknown; cost: boolean; perCall: boolean } {
    const limit = Math.min(PER_CALL_STEPS, this.remaining);
    const outer = useRegexBudget(this.budget);
    try {
      const { value, steps } = withStepLimit(limit, () => program(ctx));
      this.remaining -= steps;
      return { value, cost: false, perCall: false };
    } catch (e) {
      this.remaining -= Math.min(stepsTaken(), limit);
      const cause = (e as { cause?: unknown })?.cause;
      // The write's regular-expression work (core/regex/budget.ts) runs out like its CEL cost budget.
      if (e instanceof RegexBudgetExceeded || cause instanceof RegexBudgetExceeded) return { error: e, cost: true, perCall: false };
      const cost = e instanceof CostLimitExceeded || cause instanceof CostLimitExceeded;
      return { error: e, cost, perCall: cost && limit === PER_CALL_STEPS };
    } finally {
      useRegexBudget(outer);
    }
  }

  private rules(n: RuleNode, v: unknown, old: unknown, path: string, unchanged: boolean): void {
    if (this.remaining <= 0) {
      this.fail(path, n.type, 'validation failed due to running out of cost budget, no further validation rules will be run');
      return;
    }
    const self = v;
    for (const r of n.rules) {
      if (r.unsupported.length) {
        this.warnings.push(`${this.crdName}: x-kubernetes-validations rule ${goQuote(r.source.rule ?? '')} at ${this.field(path)} was not checked: this server does not support ${r.unsupported.join(', ')}`);
        continue;
      }
      if (!r.program) continue;
      const optional = r.source.optionalOldSelf === true;
      if (r.usesOldSelf && old === undefined && !optional) continue;
      let oldSelf: unknown = old;
      if (optional) oldSelf = old === undefined ? this.none() : this.some(old);
      const result = this.eval(r.program, { self, oldSelf });
      if (result.cost) {
        if (result.perCall) this.fail(path, n.type, `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(r)}`);
        else this.fail(path, n.type, 'validation failed due to running out of cost budget, no further validation rules will be run');
        return;
      }
      if (result.error !== undefined) {
        const text = runtimeErrorText(result.error);
        if (/no matching overload|no such overload/.test(text)) {
          this.errors.push(this.invalid(path, n.type, `'no such overload': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(r)}`));
        } else this.errors.push(this.invalid(path, n.type, `${text} evaluating rule: ${ruleText(r)}`));
        continue;
      }
      if (result.value === true) continue;
      const fieldPath = r.fieldPath ? (r.fieldPath.startsWith('[') ? `${path}${r.fieldPath}` : path ? `${path}.${r.fieldPath}` : r.fieldPath) : path;
      let detail: string | undefined;
      if (r.messageProgram) {
        // The message sees the same activation, without optional wrapping (kube passes `activation`).
        const m = this.eval(r.messageProgram, { self, oldSelf: old });
        if (m.cost) {
          const msg = m.perCall
            ? `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${goQuote(r.source.messageExpression ?? '')}`
            : 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run';
          this.add(this.invalid(fieldPath, n.type, msg), r, unchanged);
          this.stopped = true;
          return;
        }
        if (typeof m.value === 'string') {
          const t = m.value.trim();
          if (t && !t.includes('\n') && new TextEncoder().encode(t).length <= MAX_MESSAGE_BYTES) detail = t;
        }
      }
      detail ??= r.source.message?.trim() ? r.source.message.trim() : `failed rule: ${(r.source.rule ?? '').trim()}`;
      this.add(this.forReason(fieldPath, n.type, detail, r.source.reason), r, unchanged);
    }
  }

  private add(cause: StatusCause, r: CompiledRule, unchanged: boolean): void {
    // Ratcheting: a rule without oldSelf failing on an unchanged value warns instead of refusing.
    if (!r.usesOldSelf && unchanged) this.warnings.push(`${cause.field}: ${cause.message}`);
    else this.errors.push(cause);
  }

  private invalid(path: string, type: string, detail: string): StatusCause {
    return { reason: 'FieldValueInvalid', message: `Invalid value: ${goQuote(type)}: ${detail}`, field: this.field(path) };
  }

  // cel/validation.go fieldErrorForReason.
  private forReason(path: string, type: string, detail: string, reason?: string): StatusCause {
    const field = this.field(path);
    switch (reason) {
      case 'FieldValueForbidden':
        return { reason, message: `Forbidden: ${detail}`, field };
      case 'FieldValueRequired':
        return { reason, message: `Required value: ${detail}`, field };
      case 'FieldValueDuplicate':
        return { reason, message: `Duplicate value: ${goQuote(type)}`, field };
      default:
        return this.invalid(path, type, detail);
    }
  }

  private none(): unknown {
    return (this.optionalNone ??= this.env.evaluate('optional.none()', {}));
  }

  private some(v: unknown): unknown {
    return (wrapSome ??= this.env.parse('optional.of(self)'))({ self: v });
  }
}

/**
 * Evaluates every rule of `tree` on `obj` (and `old` on update); regular expressions spend `budget`
 * (shared with the write's schema patterns).
 */
export function evaluateRules(tree: RuleNode, crdName: string, obj: unknown, old?: unknown, budget = new RegexBudget()): RuleOutcome {
  const run = new Run(crdName, budget);
  const self = toCel(tree.schema, obj, true);
  const oldSelf = old === undefined ? undefined : toCel(tree.schema, old, true);
  run.node(tree, self, oldSelf, '', false, true);
  return { errors: run.errors, warnings: run.warnings };
}
