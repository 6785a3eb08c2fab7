// Core: compiling a CRD version's x-kubernetes-validations rules into a validator tree that mirrors the
// schema (apiextensions pkg/apiserver/schema/cel/validation.go NewValidator, compilation.go Compile), and
// the errors a CRD write gets for rules that do not compile (pkg/apis/apiextensions/validation
// validation.go, with the rule printed as Go's %#v of apiextensions.ValidationRule). Done once per CRD
// revision (core/crd/crd-types.ts caches the types that hold the tree).

import { walkCel, type CelNode } from './walk';
import { goQuote, invalidValue, notSupported, required, type FieldCause } from '../../validation/names';
import type { JSONSchemaProps } from '../crd-object';
import { celEnvironment, UNSUPPORTED_KUBE_FUNCTIONS } from './library';
import { constantPatternErrors } from './regex';

export interface ValidationRule {
  rule?: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

type Program = ((ctx: Record<string, unknown>) => unknown) & { ast: unknown };

export interface CompiledRule {
  source: ValidationRule;
  program?: Program;
  messageProgram?: Program;
  usesOldSelf: boolean;
  /** fieldPath relative to the rule's node, as printed (`spec.x`, `[key]`), or ''. */
  fieldPath: string;
  /** Functions of kube's CEL libraries this server lacks: the rule is not evaluated. */
  unsupported: string[];
}

/** One schema node with rules at it or below. */
export interface RuleNode {
  /** Where this node is in the CRD (`...openAPIV3Schema.properties[spec]`). */
  path: string;
  /** The schema type, as kube prints it in errors (`"object"`, `"string"`, `""` for untyped). */
  type: string;
  rules: CompiledRule[];
  properties?: Map<string, RuleNode>;
  additionalProperties?: RuleNode;
  items?: RuleNode;
  /** The value keeps apiVersion, kind and metadata.name/generateName (the root, embedded resources). */
  resourceRoot: boolean;
  /** Schema of this node, for value conversion (integer vs number). */
  schema: JSONSchemaProps;
  listType?: string;
  listMapKeys?: string[];
  mapType?: string;
}

export const REASONS = ['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate'];
const MAX_DEPTH = 64;

function isObj(v: unknown): v is JSONSchemaProps {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Compiles every rule of a version's schema: the tree (undefined without rules) and the CRD errors. */
export function compileSchemaRules(schema: JSONSchemaProps, path: string): { tree?: RuleNode; errors: FieldCause[] } {
  const errors: FieldCause[] = [];
  const tree = node(schema, path, errors, true, true, 0);
  return { tree, errors };
}

function node(s: JSONSchemaProps, path: string, errors: FieldCause[], resourceRoot: boolean, correlatable: boolean, depth: number): RuleNode | undefined {
  if (!isObj(s) || depth > MAX_DEPTH) return undefined;
  const out: RuleNode = { path, type: typeof s.type === 'string' ? s.type : '', rules: [], resourceRoot, schema: s };
  if (s['x-kubernetes-list-type']) out.listType = String(s['x-kubernetes-list-type']);
  if (Array.isArray(s['x-kubernetes-list-map-keys'])) out.listMapKeys = s['x-kubernetes-list-map-keys'] as string[];
  if (s['x-kubernetes-map-type']) out.mapType = String(s['x-kubernetes-map-type']);
  const rules = s['x-kubernetes-validations'];
  if (Array.isArray(rules)) {
    rules.forEach((r, i) => {
      const compiled = compileRule((isObj(r) ? r : {}) as ValidationRule, `${path}.x-kubernetes-validations[${i}]`, s, correlatable, path, errors);
      if (compiled) out.rules.push(compiled);
    });
  }
  let any = out.rules.length > 0;
  if (isObj(s.properties)) {
    for (const [name, child] of Object.entries(s.properties)) {
      const c = node(child as JSONSchemaProps, `${path}.properties[${name}]`, errors, isObj(child) && child['x-kubernetes-embedded-resource'] === true, correlatable, depth + 1);
      if (c) (out.properties ??= new Map()).set(name, c), (any = true);
    }
  }
  if (isObj(s.additionalProperties)) {
    const ap = s.additionalProperties;
    const c = node(ap, `${path}.additionalProperties`, errors, ap['x-kubernetes-embedded-resource'] === true, correlatable && s['x-kubernetes-map-type'] !== 'atomic', depth + 1);
    if (c) (out.additionalProperties = c), (any = true);
  }
  if (isObj(s.items)) {
    const it = s.items;
    // Only list-type=map items correlate with an old item (by key): others have no oldSelf.
    const c = node(it, `${path}.items`, errors, it['x-kubernetes-embedded-resource'] === true, correlatable && s['x-kubernetes-list-type'] === 'map', depth + 1);
    if (c) (out.items = c), (any = true);
  }
  return any ? out : undefined;
}

/** Go's %#v of an apiextensions.ValidationRule, as kube prints it in CRD errors. */
export function ruleGoValue(r: ValidationRule): string {
  const str = (v: unknown) => goQuote(typeof v === 'string' ? v : '');
  // Pointers print as addresses in Go; any set pointer is shown as one stand-in address.
  const reason = r.reason !== undefined ? '(*apiextensions.FieldValueErrorReason)(0xc000a1b2c0)' : '(*apiextensions.FieldValueErrorReason)(nil)';
  const optional = r.optionalOldSelf !== undefined ? '(*bool)(0xc000a1b2c8)' : '(*bool)(nil)';
  return `apiextensions.ValidationRule{Rule:${str(r.rule)}, Message:${str(r.message)}, MessageExpression:${str(r.messageExpression)}, Reason:${reason}, FieldPath:${str(r.fieldPath)}, OptionalOldSelf:${optional}}`;
}

/** field.Invalid with a Go struct value: its %#v text as is. */
function invalidRule(field: string, goValue: string, detail: string): FieldCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${goValue}: ${detail}`, field };
}

// Identifiers that name a function namespace, not a variable (`strings.quote(x)` parses as a call on `strings`).
const NAMESPACES = new Set(['strings', 'sets', 'optional', 'format', 'ip', 'math', 'base64', 'cel']);

/**
 * Walks a parsed expression, every node however deep (under unary operators, in macros, ternaries,
 * indexes, list and map literals): the identifiers used and the functions called, namespaced ones as
 * `sets.contains`.
 */
export function scan(ast: unknown): { ids: Set<string>; functions: Set<string> } {
  const ids = new Set<string>();
  const functions = new Set<string>();
  walkCel(ast, ({ op, args }) => {
    if (typeof op !== 'string' || op === 'value') return undefined;
    if (op === 'id') {
      if (typeof args === 'string') ids.add(args);
      return undefined;
    }
    if ((op === 'call' || op === 'rcall') && Array.isArray(args) && typeof args[0] === 'string') {
      const recv = op === 'rcall' ? (args[1] as CelNode | undefined) : undefined;
      const ns = recv?.op === 'id' && typeof recv.args === 'string' && NAMESPACES.has(recv.args) ? recv.args : undefined;
      functions.add(ns ? `${ns}.${args[0]}` : args[0]);
      return args.slice(ns ? 2 : 1);
    }
    return args;
  });
  return { ids, functions };
}

/** cel-go's issue format: `ERROR: <input>:L:C: message` and the source line with a caret. */
/** cel-go's Issues.String(): every issue, in source order, one per paragraph. */
export function celIssues(source: string, errs: unknown[]): string {
  return errs.map((e) => celIssue(source, e)).join('\n');
}

export function celIssue(source: string, err: unknown): string {
  const e = err as { message?: string; range?: { start: number } };
  const summary = String(e.message ?? err).split('\n')[0];
  const at = e.range?.start ?? 0;
  const before = source.slice(0, at);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const col = at - lineStart;
  const text = source.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${col + 1}: ${summary}\n | ${text}\n | ${'.'.repeat(col)}^`;
}

function compileRule(r: ValidationRule, path: string, schema: JSONSchemaProps, correlatable: boolean, schemaPath: string, errors: FieldCause[]): CompiledRule | undefined {
  const env = celEnvironment();
  const before = errors.length;
  const value = ruleGoValue(r);
  const out: CompiledRule = { source: r, usesOldSelf: false, fieldPath: '', unsupported: [] };
  if (typeof r.rule !== 'string' || !r.rule.trim()) {
    errors.push(required(`${path}.rule`));
    return undefined;
  }
  let parsed: Program | undefined;
  try {
    parsed = celEnvironment(r.optionalOldSelf === true).parse(r.rule) as unknown as Program;
  } catch (e) {
    errors.push(invalidRule(`${path}.rule`, value, `compilation failed: ${celIssue(r.rule, e)}`));
  }
  if (parsed) {
    const { ids, functions } = scan(parsed.ast);
    out.usesOldSelf = ids.has('oldSelf');
    out.unsupported = [...functions].filter((f) => UNSUPPORTED_KUBE_FUNCTIONS.has(f)).sort();
    if (!out.unsupported.length) {
      const checked = (parsed as unknown as { check(): { valid: boolean; type?: string; error?: unknown } }).check();
      // Constant regular expressions: kube's AST validators (compile issues), then program creation.
      const patterns = checked.valid ? constantPatternErrors(parsed.ast) : { issues: [] };
      if (!checked.valid) errors.push(invalidRule(`${path}.rule`, value, `compilation failed: ${celIssue(r.rule, checked.error)}`));
      else if (patterns.issues.length) errors.push(invalidRule(`${path}.rule`, value, `compilation failed: ${celIssues(r.rule, patterns.issues)}`));
      else if (checked.type !== 'bool' && checked.type !== 'dyn') errors.push(invalidRule(`${path}.rule`, value, 'compilation failed: cel expression must evaluate to a bool'));
      else if (patterns.program) errors.push(invalidRule(`${path}.rule`, value, `program instantiation failed: ${patterns.program}`));
      else out.program = parsed;
    }
  }
  if (out.usesOldSelf && !correlatable) {
    errors.push(invalidRule(`${path}.rule`, value, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${schemaPath}`));
  }
  if (r.optionalOldSelf === true && parsed && !out.usesOldSelf) {
    errors.push(invalidValue(`${path}.optionalOldSelf`, true, 'may not be set if oldSelf is not used in rule'));
  }
  if (r.message !== undefined && /[\n]/.test(r.message)) errors.push(invalidValue(`${path}.message`, r.message, 'message must not contain line breaks'));
  if (r.message !== undefined && !r.message.trim()) errors.push(required(`${path}.message`, 'message must be non-empty if specified'));
  if (r.messageExpression !== undefined) {
    if (!r.messageExpression.trim()) errors.push(required(`${path}.messageExpression`, 'messageExpression must be non-empty if specified'));
    else {
      try {
        const m = env.parse(r.messageExpression) as unknown as Program;
        const { functions } = scan(m.ast);
        const missing = [...functions].filter((f) => UNSUPPORTED_KUBE_FUNCTIONS.has(f));
        if (missing.length) out.unsupported.push(...missing);
        else {
          const checked = (m as unknown as { check(): { valid: boolean; type?: string; error?: unknown } }).check();
          const patterns = checked.valid ? constantPatternErrors(m.ast) : { issues: [] };
          if (!checked.valid) {
            errors.push(invalidRule(`${path}.messageExpression`, value, `messageExpression compilation failed: ${celIssue(r.messageExpression, checked.error)}`));
          } else if (patterns.issues.length) {
            errors.push(invalidRule(`${path}.messageExpression`, value, `messageExpression compilation failed: ${celIssues(r.messageExpression, patterns.issues)}`));
          } else if (checked.type !== 'string' && checked.type !== 'dyn') {
            errors.push(invalidRule(`${path}.messageExpression`, value, 'must evaluate to a string'));
          } else if (patterns.program) {
            errors.push(invalidRule(`${path}.messageExpression`, value, `messageExpression instantiation failed: ${patterns.program}`));
          } else out.messageProgram = m;
        }
      } catch (e) {
        errors.push(invalidRule(`${path}.messageExpression`, value, `messageExpression compilation failed: ${celIssue(r.messageExpression, e)}`));
      }
    }
  }
  if (r.reason !== undefined && !REASONS.includes(r.reason)) errors.push(notSupported(`${path}.reason`, r.reason, REASONS));
  if (r.fieldPath !== undefined) {
    const resolved = resolveFieldPath(r.fieldPath, schema);
    if (typeof resolved === 'string') out.fieldPath = resolved;
    else errors.push(invalidValue(`${path}.fieldPath`, r.fieldPath, `fieldPath must be a valid path: ${resolved.error}`));
  }
  return errors.length === before ? out : undefined;
}

/**
 * A rule's fieldPath (`.spec.x`, `['a.b']`, `.m['key']`) checked against the schema, printed as a field
 * path relative to the rule's node (cel/validation.go ValidFieldPath).
 */
export function resolveFieldPath(p: string, schema: JSONSchemaProps): string | { error: string } {
  let s: JSONSchemaProps | undefined = schema;
  let out = '';
  let i = 0;
  const step = (name: string): string | undefined => {
    if (!s) return 'does not refer to a valid field';
    if (isObj(s.properties)) {
      const next = s.properties[name];
      if (!isObj(next)) return 'does not refer to a valid field';
      out += out ? `.${name}` : name;
      s = next;
    } else if (isObj(s.additionalProperties)) {
      out += `[${name}]`;
      s = s.additionalProperties;
    } else return 'does not refer to a valid field';
    return undefined;
  };
  while (i < p.length) {
    if (p[i] === '.') {
      const m = /^[^.[\]]+/.exec(p.slice(i + 1));
      if (!m) return { error: 'unexpected end of JSON path' };
      const err = step(m[0]);
      if (err) return { error: err };
      i += 1 + m[0].length;
    } else if (p[i] === '[') {
      const m = /^\[\s*'((?:[^'\\]|\\.)*)'\s*\]/.exec(p.slice(i));
      if (!m) return { error: 'expected single quoted string' };
      const err = step(m[1].replace(/\\(.)/g, '$1'));
      if (err) return { error: err };
      i += m[0].length;
    } else return { error: `expected [ or . but got: ${p.slice(i)}` };
  }
  return out;
}

/** Rules of a tree that are not evaluated, with the functions they need. */
export function unsupportedRules(tree: RuleNode): { path: string; rule: string; functions: string[] }[] {
  const out: { path: string; rule: string; functions: string[] }[] = [];
  const stack: RuleNode[] = [tree];
  while (stack.length) {
    const n = stack.pop()!;
    n.rules.forEach((r) => {
      if (r.unsupported.length) out.push({ path: `${n.path}.x-kubernetes-validations`, rule: r.source.rule ?? '', functions: r.unsupported });
    });
    if (n.items) stack.push(n.items);
    if (n.additionalProperties) stack.push(n.additionalProperties);
    for (const c of n.properties?.values() ?? []) stack.push(c);
  }
  return out;
}
