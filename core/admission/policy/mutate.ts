// Core: MutatingAdmissionPolicy (admissionregistration.k8s.io/v1alpha1, kube 1.32; apiserver pkg/admission/plugin/
// policy/mutating compilation.go, dispatcher.go, patch/smd.go, patch/json_patch.go) on the validating policy's
// engine: the same compile (./compile.ts), matching (./plan.ts), params and evaluation with its budgets
// (./evaluate.ts), with `mutations` instead of `validations`. A mutation is an ApplyConfiguration — a CEL object
// merged into the object as server-side apply merges (core/apply/merge.ts, by the kind's schema, atomic lists and
// maps refused) — or a JSONPatch — CEL JSONPatch values applied as RFC 6902 (core/patch/json-patch.ts). Each
// mutation sees the object as the previous one left it. cel-js has no message construction, so `Object{f: v}`,
// `Object.spec.x{…}` and `JSONPatch{op: …}` are rewritten to map literals that keep their type name beside them
// (one linear pass), for kube's checks: the return type at compile time, type names against field paths and the
// ApplyConfiguration against the kind's schema when evaluated (patch/smd.go, mutation/dynamic/objects.go).

import { applyJsonPatch } from '../../patch/json-patch';
import { PatchError } from '../../patch/patch-error';
import { formatErrors, validateValue } from '../../apply/validate';
import { mergeValues } from '../../apply/merge';
import { atomOf, fieldNode, isMap } from '../../apply/schema-view';
import type { SchemaNode } from '../../schema/node';
import { sameJson, type KubeObject } from '../../object-meta';
import { defaulted } from '../mutating-stage';
import { PluginReinvocation, ReinvocationContext } from '../reinvocation';
import { forbidden, internalError, StatusError, type Status } from '../../status';
import { celIssue } from '../../crd/cel/compile';
import { compileExpression, compilePolicy, type CompiledExpression, type CompiledPolicy, type ExpressionSource } from './compile';
import { constructedTypeName, OBJECT_INIT, type AuthzCheck } from './environment';
import { Evaluation, matchConditionsGate, OUT_OF_BUDGET, OutOfBudget, type PolicyInput, type RequestBudget } from './evaluate';
import type { MatchedPolicy } from './dispatch';
import type { MutatingAdmissionPolicy, ValidatingAdmissionPolicy } from './types';

export interface CompiledMutation {
  patchType: string;
  compiled: CompiledExpression;
}

export interface CompiledMutatingPolicy extends CompiledPolicy {
  mutations: CompiledMutation[];
  reinvocationPolicy: 'Never' | 'IfNeeded';
}

const CONSTRUCTED_TYPES = new Set(['Object', 'JSONPatch']);
const isIdentStart = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isIdentPart = (c: string) => isIdentStart(c) || (c >= '0' && c <= '9');

/** A rewritten expression, where each of its offsets came from in the policy's text, and names it may not use. */
export interface Rewritten {
  text: string;
  source: ExpressionSource;
  /** The policy's text calls the construction function itself (kube: an undeclared reference). */
  reserved?: number;
}

/**
 * `Object{spec: Object.spec{replicas: 3}}` → `__k8s_object("Object", {"spec": __k8s_object("Object.spec",
 * {"replicas": 3})})`, `JSONPatch{op: "add", …}` likewise: message construction of the types kube declares
 * (`Object…`, `JSONPatch`) as a call that keeps the type name beside a map of quoted field names; string literals
 * and everything else untouched. Linear in the expression.
 */
export function rewrite(expr: string): Rewritten {
  let out = '';
  // [rewritten offset, original offset, copied]: a copied run maps one to one, inserted text to where it stands for.
  const marks: [number, number, boolean][] = [];
  const emit = (text: string, from: number, copied: boolean) => {
    marks.push([out.length, from, copied]);
    out += text;
  };
  let reserved: number | undefined;
  // The open brackets: '(' '[' '{' (a map), 'm' (a message: its field names get quoted).
  const stack: string[] = [];
  let expectField = false;
  let i = 0;
  const n = expr.length;
  while (i < n) {
    const c = expr[i]!;
    if (c === '"' || c === "'") {
      const triple = expr.startsWith(c.repeat(3), i);
      const close = triple ? c.repeat(3) : c;
      const raw = i > 0 && (expr[i - 1] === 'r' || expr[i - 1] === 'R');
      let j = i + close.length;
      while (j < n && !expr.startsWith(close, j)) j += !raw && expr[j] === '\\' ? 2 : 1;
      j = Math.min(n, j + close.length);
      emit(expr.slice(i, j), i, true);
      i = j;
      expectField = false;
      continue;
    }
    if (isIdentStart(c) && (i === 0 || (!isIdentPart(expr[i - 1]!) && expr[i - 1] !== '.'))) {
      let j = i;
      while (j < n && (isIdentPart(expr[j]!) || (expr[j] === '.' && j + 1 < n && isIdentStart(expr[j + 1]!)))) j++;
      const chain = expr.slice(i, j);
      let k = j;
      while (k < n && /\s/.test(expr[k]!)) k++;
      if (expectField && !chain.includes('.') && expr[k] === ':') {
        emit(JSON.stringify(chain), i, false);
        i = j;
        expectField = false;
        continue;
      }
      const head = chain.split('.', 1)[0]!;
      if (head === OBJECT_INIT) reserved ??= i;
      if (CONSTRUCTED_TYPES.has(head) && expr[k] === '{' && (head === 'Object' || chain === 'JSONPatch')) {
        emit(`${OBJECT_INIT}(${JSON.stringify(chain)}, {`, i, false);
        stack.push('m');
        expectField = true;
        i = k + 1;
        continue;
      }
      emit(chain, i, true);
      i = j;
      expectField = false;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') stack.push(c);
    else if (c === ')' || c === ']' || c === '}') {
      if (stack.pop() === 'm' && c === '}') {
        emit('})', i, false);
        i++;
        expectField = false;
        continue;
      }
    } else if (c === ',' && stack[stack.length - 1] === 'm') {
      emit(c, i, true);
      i++;
      expectField = true;
      continue;
    }
    if (!/\s/.test(c)) expectField = false;
    emit(c, i, true);
    i++;
  }
  const at = (offset: number): number => {
    let lo = 0;
    let hi = marks.length - 1;
    if (hi < 0) return 0;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (marks[mid]![0] <= offset) lo = mid;
      else hi = mid - 1;
    }
    const [rw, orig, copied] = marks[lo]!;
    return copied ? orig + (offset - rw) : orig;
  };
  return { text: out, source: { text: expr, at }, reserved };
}

/** The rewritten text alone. */
export function rewriteConstruction(expr: string): string {
  return rewrite(expr).text;
}

// The AST as cel-js's parser leaves it: an operator name and its arguments.
interface AstNode {
  op: string;
  args: unknown;
}
const isNode = (v: unknown): v is AstNode => !!v && typeof v === 'object' && typeof (v as AstNode).op === 'string';

/** The type a construction (or a conditional of two alike) has, as kube's checker names it; undefined otherwise. */
function constructedType(node: unknown): string | undefined {
  if (!isNode(node)) return undefined;
  if (node.op === 'call' && Array.isArray(node.args) && node.args[0] === OBJECT_INIT) {
    const name = (node.args[1] as unknown[])?.[0];
    return isNode(name) && name.op === 'value' && typeof name.args === 'string' ? name.args : undefined;
  }
  if (node.op === '?:' && Array.isArray(node.args)) {
    const a = constructedType(node.args[1]);
    return a !== undefined && a === constructedType(node.args[2]) ? a : undefined;
  }
  return undefined;
}

/** cel-go's name of a cel-js type: `map<string, int>` → `map(string, int)`. */
const celGoType = (t: string) => t.replaceAll('<', '(').replaceAll('>', ')');

/**
 * compile.go's return-type check for a mutation (patch.ApplyConfigurationCondition and JSONPatchCondition
 * ReturnTypes): an ApplyConfiguration must be an `Object`, a JSONPatch a `list(JSONPatch)`. cel-js types the
 * rewritten constructions as maps, so the construction's own name decides where one stands at the top; a value of
 * type dyn (a variable, a field of `object`) is left to the evaluation.
 */
function returnTypeError(patchType: string, program: { ast: unknown }, type: string | undefined): string | undefined {
  const root = program.ast;
  if (patchType === 'JSONPatch') {
    const want = 'list(JSONPatch)';
    const own = constructedType(root);
    if (own !== undefined) return `must evaluate to ${want} but got ${own}`;
    if (isNode(root) && root.op === 'list' && Array.isArray(root.args) && root.args.length) {
      const names = root.args.map(constructedType);
      if (names.every((x) => x === 'JSONPatch')) return undefined;
      if (names[0] !== undefined && names.every((x) => x === names[0])) return `must evaluate to ${want} but got list(${names[0]})`;
    }
    if (!type || type === 'dyn' || type.startsWith('list')) return undefined;
    return `must evaluate to ${want} but got ${celGoType(type)}`;
  }
  const name = constructedType(root);
  if (name !== undefined) return name === 'Object' ? undefined : `must evaluate to Object but got ${name}`;
  if (!type || type === 'dyn') return undefined;
  return `must evaluate to Object but got ${celGoType(type)}`;
}

const JSONPATCH_STRING_FIELDS = new Set(['op', 'path', 'from']);

/**
 * The checker's word on `JSONPatch{…}` (mutation/jsonpatch.go declares op, path and from as strings and value as
 * dyn): `undefined field 'x'`, `expected type of field 'op' is 'string' but provided type is 'int'`, at the
 * field's colon in the policy's text, in source order.
 */
function jsonPatchFieldIssues(root: unknown, rw: Rewritten): { message: string; range: { start: number } }[] {
  const issues: { message: string; range: { start: number } }[] = [];
  const colonAfter = (rewritten: number) => {
    const at = rw.source.at(rewritten);
    const colon = rw.source.text.indexOf(':', at);
    return colon < 0 ? at : colon;
  };
  const visit = (x: unknown): void => {
    if (Array.isArray(x)) {
      for (const y of x) visit(y);
      return;
    }
    if (!isNode(x)) return;
    if (x.op === 'call' && Array.isArray(x.args) && x.args[0] === OBJECT_INIT && constructedType(x) === 'JSONPatch') {
      const fields = (x.args[1] as unknown[])?.[1];
      if (isNode(fields) && fields.op === 'map' && Array.isArray(fields.args)) {
        for (const entry of fields.args as unknown[]) {
          const [key, value] = Array.isArray(entry) ? entry : [];
          if (!isNode(key) || typeof key.args !== 'string') continue;
          const start = colonAfter((key as unknown as { start: number }).start);
          const type = (value as { checkedType?: { name?: string } } | undefined)?.checkedType?.name;
          if (!JSONPATCH_STRING_FIELDS.has(key.args) && key.args !== 'value') issues.push({ message: `undefined field '${key.args}'`, range: { start } });
          else if (JSONPATCH_STRING_FIELDS.has(key.args) && type && type !== 'string' && type !== 'dyn') {
            issues.push({ message: `expected type of field '${key.args}' is 'string' but provided type is '${celGoType(type)}'`, range: { start } });
          }
        }
      }
    }
    visit(x.args);
  };
  visit(root);
  return issues.sort((p, q) => p.range.start - q.range.start);
}

/**
 * A mutation's expression compiled as kube's CompileMutatingEvaluator compiles it: its compile errors (shown
 * against the policy's own text) and the return type its patchType needs.
 */
export function compileMutationExpression(patchType: string, text: string, hasParams: boolean): CompiledExpression {
  const rw = rewrite(text);
  if (rw.reserved !== undefined) {
    return { expression: text, usesAuthorizer: false, error: `compilation failed: ${celIssue(text, { message: `undeclared reference to '${OBJECT_INIT}' (in container '')`, range: { start: rw.reserved } })}` };
  }
  const compiled = compileExpression(rw.text, 'any', hasParams, true, true, rw.source);
  const out = { ...compiled, expression: text };
  const issues = out.program ? jsonPatchFieldIssues(out.program.ast, rw) : [];
  if (issues.length) return { expression: text, usesAuthorizer: out.usesAuthorizer, error: `compilation failed: ${issues.map((i) => celIssue(text, i)).join('\n')}` };
  if (out.program && (patchType === 'ApplyConfiguration' || patchType === 'JSONPatch')) {
    const wrong = returnTypeError(patchType, out.program, out.type);
    if (wrong) return { expression: text, usesAuthorizer: out.usesAuthorizer, error: wrong };
  }
  return out;
}

/** A mutation's expression compiled (kube's compile errors; the text reported is the policy's own). */
function compileMutation(m: { patchType?: string; applyConfiguration?: { expression?: string }; jsonPatch?: { expression?: string } }, hasParams: boolean): CompiledMutation {
  const patchType = typeof m?.patchType === 'string' ? m.patchType : '';
  const text = String((patchType === 'JSONPatch' ? m.jsonPatch?.expression : m.applyConfiguration?.expression) ?? '');
  return { patchType, compiled: compileMutationExpression(patchType, text, hasParams) };
}

export function compileMutatingPolicy(policy: MutatingAdmissionPolicy): CompiledMutatingPolicy {
  const spec = policy.spec ?? {};
  const base = compilePolicy({ ...policy, spec: { ...spec, validations: [], auditAnnotations: [] } } as ValidatingAdmissionPolicy);
  const mutations = (spec.mutations ?? []).map((m) => compileMutation(m, base.hasParams));
  return {
    ...base,
    mutations,
    reinvocationPolicy: spec.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
    usesAuthorizer: base.usesAuthorizer || mutations.some((m) => m.compiled.usesAuthorizer),
  };
}

/** The most nodes a mutation's value may have once its shared parts are written out (variables may share one). */
export const MAX_VALUE_NODES = 1 << 20;

/** A mutation's value with more nodes than MAX_VALUE_NODES: the evaluation's cost limit. */
export class ValueTooLarge extends Error {}

const entriesOf = (v: object): [string, unknown][] => (v instanceof Map ? [...v].map(([k, x]) => [String(k), x]) : Object.entries(v));

/** A CEL value as JSON: ints as numbers, maps as objects; throws ValueTooLarge past `left.n` nodes. */
export function fromCel(v: unknown, left = { n: MAX_VALUE_NODES }): unknown {
  if (--left.n < 0) throw new ValueTooLarge();
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map((x) => fromCel(x, left));
  if (v instanceof Uint8Array) return btoa(String.fromCharCode(...v));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of entriesOf(v)) Object.defineProperty(out, k, { value: fromCel(x, left), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

/**
 * dynamic/objects.go CheckTypeNamesMatchFieldPathNames: every constructed value below the root is named after its
 * field path from the root's type (`Object.spec{selector: Object.spec.selector{…}}`); lists and maps keep their
 * field's path for their members. The mismatches, in kube's words.
 */
export function typeNameMismatches(root: unknown, left = { n: MAX_VALUE_NODES }): string[] {
  const out: string[] = [];
  const rootName = constructedTypeName(root);
  if (rootName === undefined) return out;
  const path = [rootName];
  const walk = (v: unknown): void => {
    if (--left.n < 0) throw new ValueTooLarge();
    if (v === null || typeof v !== 'object' || v instanceof Uint8Array) return;
    const name = constructedTypeName(v);
    if (name === undefined) {
      for (const x of Array.isArray(v) ? v : entriesOf(v).map(([, x]) => x)) walk(x);
      return;
    }
    const want = path.join('.');
    if (name !== want) out.push(`unexpected type name ${JSON.stringify(name)}, expected ${JSON.stringify(want)}, which matches field name path from root Object type`);
    for (const [k, x] of entriesOf(v)) {
      path.push(k);
      walk(x);
      path.pop();
    }
  };
  for (const [k, x] of entriesOf(root as object)) {
    path.push(k);
    walk(x);
    path.pop();
  }
  return out;
}

/** How kube names a CEL value's type in `unsupported return type …: <type>`. */
function celTypeOf(v: unknown): string {
  if (v === null || v === undefined) return 'null_type';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Uint8Array) return 'bytes';
  return 'map';
}

/**
 * The checks kube makes of a mutation's CEL value before it is a patch (patch/smd.go applyConfigPatcher.Patch,
 * json_patch.go evaluatePatchExpression): the right kind of value, and constructed type names that follow field
 * paths (`type mismatch: …`; errors.Join's lines). Returns the value as JSON; throws an Error with kube's wording.
 */
export function mutationValue(patchType: string, raw: unknown): unknown {
  const left = { n: MAX_VALUE_NODES };
  if (patchType === 'JSONPatch') {
    if (!Array.isArray(raw)) throw new Error('type mismatch: JSONPatchType.expression should evaluate to array');
    for (const op of raw) {
      if (op === null || typeof op !== 'object' || Array.isArray(op)) throw new Error(`type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch, got element of ${celTypeOf(op)}`);
      const mismatches = typeNameMismatches(entriesOf(op).find(([k]) => k === 'value')?.[1], left);
      if (mismatches.length) throw new Error(`type mismatch: ${mismatches.join('\n')}`);
    }
    return fromCel(raw, left);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || raw instanceof Uint8Array) throw new Error(`unsupported return type from ApplyConfiguration expression: ${celTypeOf(raw)}`);
  const mismatches = typeNameMismatches(raw, left);
  if (mismatches.length) throw new Error(`type mismatch: ${mismatches.join('\n')}`);
  return fromCel(raw, left);
}

/** smd.go findAtomics: the paths of atomic lists and maps the apply configuration sets (fieldpath's text). */
function atomics(node: SchemaNode, v: unknown, path: string, out: string[]): void {
  if (out.length >= 32) return;
  const a = atomOf(node, v);
  if (a.t === 'map' && isMap(v)) {
    if (a.atomic) out.push(path);
    for (const [k, x] of Object.entries(v)) {
      const child = a.fields?.[k] !== undefined || a.elem ? fieldNode(a, k) : undefined;
      if (child) atomics(child, x, `${path}.${k}`, out);
    }
  } else if (a.t === 'list' && Array.isArray(v)) {
    if (a.rel === 'atomic') out.push(path);
    v.forEach((x, i) => atomics(a.elem, x, `${path}[${i}]`, out));
  }
}

/**
 * json_patch.go decodes the patched document strictly into the kind's Go type (sigs.k8s.io/json): the fields the
 * type does not declare, each as `spec.a[0].b`, in the order the decoder meets them (evanphx writes the document
 * with its keys sorted). At most 32.
 */
export function unknownFields(node: SchemaNode, v: unknown): string[] {
  const out: string[] = [];
  const walk = (n: SchemaNode, x: unknown, path: string): void => {
    if (out.length >= 32) return;
    const a = atomOf(n, x);
    if (a.t === 'map' && isMap(x)) {
      for (const k of Object.keys(x).sort()) {
        const at = path ? `${path}.${k}` : k;
        const child = a.fields?.[k] !== undefined || a.elem ? fieldNode(a, k) : undefined;
        if (!child) out.push(at);
        else walk(child, x[k], at);
      }
    } else if (a.t === 'list' && Array.isArray(x)) {
      x.forEach((item, i) => walk(a.elem, item, `${path}[${i}]`));
    }
  };
  walk(node, v, '');
  return out;
}

/** evanphx's ErrTestFailed: a failing `test` leaves the object as it was, without an error (json_patch.go). */
const TEST_FAILED = /^testing value .* failed: test failed$/s;

/**
 * One mutation's value (JSON, as mutationValue returns it) applied to the object; throws an Error with kube's
 * wording. An ApplyConfiguration is typed by the kind's schema first (smd.go ApplyStructuredMergeDiff:
 * `failed to convert patch object to typed object: .spec.x: field not declared in schema`, a value of the wrong
 * type), then refused if it sets an atomic list or map, then merged.
 */
export function applyMutation(node: SchemaNode, object: KubeObject, patchType: string, value: unknown): KubeObject {
  if (patchType === 'JSONPatch') {
    if (!Array.isArray(value)) throw new Error('type mismatch: JSONPatchType.expression should evaluate to array');
    try {
      return applyJsonPatch(object, value) as KubeObject;
    } catch (e) {
      const msg = e instanceof PatchError ? e.detail : e instanceof StatusError ? e.status.message ?? '' : String((e as Error).message ?? e);
      if (TEST_FAILED.test(msg)) return object;
      throw new Error(`JSON Patch: ${msg}`);
    }
  }
  if (!isMap(value)) throw new Error(`unsupported return type from ApplyConfiguration expression: ${celTypeOf(value)}`);
  const { apiVersion, kind } = object as { apiVersion?: string; kind?: string };
  const patch = { ...value, apiVersion, kind };
  const invalid = validateValue(node, patch);
  if (invalid.length) throw new Error(`error applying patch: failed to convert patch object to typed object: ${formatErrors(invalid)}`);
  const found: string[] = [];
  atomics(node, value, '', found);
  if (found.length) throw new Error(`error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${found.join(', ')}`);
  let merged: unknown;
  try {
    merged = mergeValues(node, object, patch);
  } catch (e) {
    throw new Error(`error applying patch: failed to merge patch: ${String((e as Error).message ?? e)}`);
  }
  return (merged ?? {}) as KubeObject;
}

export interface MutationOutcome {
  object: KubeObject | null;
  /** matchConditions passed and the invocation was due: its mutations ran (kube goes on to its reinvocation steps). */
  ran: boolean;
  /** A mutation applied (kube's VersionedAttributes.Dirty), changed or not. */
  applied: boolean;
  /** The invocation's errors (matchConditions, evaluation, patch, budget): the policy's failurePolicy decides. */
  errors: string[];
  /** An error kube returns as it is, whatever the failurePolicy (a JSONPatch result its type cannot decode). */
  status?: Status;
  pending: AuthzCheck[];
}

/**
 * One policy × binding × param invocation (mutating/dispatcher.go dispatchInvocations for one invocation):
 * matchConditions, then — when `due` — each mutation in order on the object the previous left, defaulted as kube
 * defaults the patched object; a mutation that fails is recorded and the next one still runs.
 */
export async function mutateOnce(policy: CompiledMutatingPolicy, input: PolicyInput, params: unknown, budget: RequestBudget, node: SchemaNode, due: () => boolean = () => true, typed = true): Promise<MutationOutcome> {
  const ev = new Evaluation(policy, input, params, budget);
  let object = (input.object ?? null) as KubeObject | null;
  const out = (ran: boolean, applied: boolean, errors: string[]): MutationOutcome => ({ object, ran, applied, errors, pending: [...ev.pending.values()] });
  const errors: string[] = [];
  let applied = false;
  let ran = false;
  try {
    const gate = await matchConditionsGate(policy, ev, budget);
    if (gate === 'skip') return out(false, false, []);
    if (gate !== 'match') return out(false, false, [gate.error]);
    if (!due()) return out(false, false, []);
    ran = true;
    for (const m of policy.mutations) {
      if (!object) continue; // nothing to patch (DELETE, CONNECT without options)
      // patch.go: a compile error is the mutation's error as the compiler worded it.
      if (!m.compiled.program) {
        errors.push(m.compiled.error ?? 'compilation failed');
        continue;
      }
      await budget.pause();
      const r = ev.run(m.compiled);
      if (r.error !== undefined) {
        errors.push(r.error);
        continue;
      }
      try {
        const patched = applyMutation(node, object, m.patchType, mutationValue(m.patchType, r.value));
        // Only what the patch brought: the object itself came through the store (a typed object has no unknown field).
        const known = typed && m.patchType === 'JSONPatch' && patched !== object ? new Set(unknownFields(node, object)) : undefined;
        const unknown = known ? unknownFields(node, patched).filter((f) => !known.has(f)) : [];
        if (unknown.length) return { ...out(true, applied, errors), status: internalError(`strict decoding error: ${unknown.map((f) => `unknown field ${JSON.stringify(f)}`).join(', ')}`) };
        object = defaulted(patched);
        applied = true;
      } catch (e) {
        errors.push(e instanceof ValueTooLarge ? `expression '${m.compiled.expression}' resulted in error: operation cancelled: actual cost limit exceeded` : String((e as Error).message ?? e));
        continue;
      }
      ev.setObject(object);
    }
  } catch (e) {
    if (e instanceof OutOfBudget) return out(ran, applied, [...errors, OUT_OF_BUDGET]);
    throw e;
  }
  return out(true, applied, errors);
}

export interface MutatingDispatchOutcome {
  object: KubeObject | null;
  changed: boolean;
  /** The first error under failurePolicy Fail, as the client gets it. */
  refusal?: { message: string; reason: string };
  /** The request's answer as it is (MutationOutcome.status). */
  status?: Status;
  pending: AuthzCheck[];
  auditAnnotations: Record<string, string>;
}

/** kube's plugin name: the key of the policies' part of the request's ReinvocationContext. */
export const MUTATING_POLICY_PLUGIN = 'MutatingAdmissionPolicy';

/**
 * One round of the matched policies (generic policy_dispatcher.go Dispatch, mutating dispatcher.go
 * dispatchInvocations): each binding, each param, the object passed along; in the second round (`ctx.isReinvoke`)
 * only the invocations due again (../reinvocation.ts). An invocation that changed the object makes the IfNeeded
 * ones since the last change due; and, as kube 1.32 does, any mutation applied at all (even one that changed
 * nothing) makes every IfNeeded invocation of the round due and the chain run again. Configuration errors, then
 * evaluation errors, are collected; under failurePolicy Fail (or an unknown one) the first refuses (`policy '<p>'
 * with binding '<b>' denied request: …`). Without `ctx`, the policies alone, reinvoked as that chain would.
 */
export async function dispatchMutating(policies: readonly MatchedPolicy[], input: PolicyInput, budget: RequestBudget, node: SchemaNode, ctx?: ReinvocationContext, typed = true): Promise<MutatingDispatchOutcome> {
  if (ctx) return mutatingRound(policies, input, budget, node, ctx, typed);
  const own = new ReinvocationContext();
  const first = await mutatingRound(policies, input, budget, node, own, typed);
  if (!own.shouldReinvoke || first.refusal || first.status) return first;
  own.isReinvoke = true;
  const second = await mutatingRound(policies, { ...input, object: first.object }, budget, node, own, typed);
  return { ...second, changed: first.changed || second.changed, pending: [...first.pending, ...second.pending] };
}

async function mutatingRound(policies: readonly MatchedPolicy[], input: PolicyInput, budget: RequestBudget, node: SchemaNode, ctx: ReinvocationContext, typed: boolean): Promise<MutatingDispatchOutcome> {
  const out: MutatingDispatchOutcome = { object: (input.object ?? null) as KubeObject | null, changed: false, pending: [], auditAnnotations: {} };
  type PolicyError = { message: string; reason: string; failurePolicy: string };
  const configErrors: PolicyError[] = [];
  const errors: PolicyError[] = [];
  // generic policy_dispatcher.go calls the mutating dispatcher only when some policy × binding × param is to run.
  const invocations = policies.some((m) => !m.configurationError && m.bindings.some((b) => !('error' in b.params) && b.params.params.length > 0));
  const state = invocations ? ctx.begin(MUTATING_POLICY_PLUGIN, out.object) : new PluginReinvocation();
  let dirty = false;
  try {
    for (const m of policies) {
      const p = m.compiled as CompiledMutatingPolicy;
      if (m.configurationError) {
        configErrors.push({ message: `policy ${JSON.stringify(p.name)} denied request: failed to configure policy: ${m.configurationError}`, reason: '', failurePolicy: p.failurePolicy });
        continue;
      }
      for (const { binding, params } of m.bindings) {
        const bindingName = binding.metadata.name ?? '';
        if ('error' in params) {
          configErrors.push({ message: `policy '${p.name}' with binding '${bindingName}' denied request: failed to configure binding: ${params.error}`, reason: '', failurePolicy: p.failurePolicy });
          continue;
        }
        for (const param of params.params) {
          const pm = (param as KubeObject | null)?.metadata;
          const key = JSON.stringify([p.name, bindingName, pm?.namespace ?? '', pm?.name ?? '']);
          const before = out.object;
          const r = await mutateOnce(p, { ...input, object: before }, param, budget, node, () => !ctx.isReinvoke || state.shouldReinvoke(key), typed);
          out.pending.push(...r.pending);
          // dispatcher.go: an API status from a patch (the strict decoding's InternalError) is the request's answer.
          if (r.status) return { ...out, status: r.status };
          for (const e of r.errors) errors.push({ message: `policy '${p.name}' with binding '${bindingName}' denied request: ${e}`, reason: 'Invalid', failurePolicy: p.failurePolicy });
          if (!r.ran) continue;
          dirty ||= r.applied;
          if (!sameJson(before, r.object)) {
            out.object = r.object;
            out.changed = true;
            state.requireReinvokingPreviouslyInvoked();
            ctx.shouldReinvoke = true;
          }
          if (p.reinvocationPolicy === 'IfNeeded') state.addPreviouslyInvoked(key);
        }
      }
    }
    if (dirty && out.object) {
      state.requireReinvokingPreviouslyInvoked();
      ctx.shouldReinvoke = true;
    }
  } finally {
    if (invocations) state.setLastInvocationOutput(out.object);
  }
  const fatal = [...configErrors, ...errors].find((e) => e.failurePolicy !== 'Ignore');
  if (fatal) out.refusal = { message: fatal.message, reason: fatal.reason };
  return out;
}

/** admission.NewForbidden with its message replaced by the policy error's (policy_dispatcher.go). */
export function mutatingRefusalStatus(target: { group: string; resource: string }, name: string, refusal: { message: string; reason: string }): Status {
  const status = forbidden(target, name, refusal.message, [{ message: refusal.message }]);
  status.message = refusal.message;
  if (refusal.reason) status.reason = refusal.reason;
  return status;
}
