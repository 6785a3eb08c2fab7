// Core: MutatingAdmissionPolicy (admissionregistration.k8s.io/v1alpha1, kube 1.32; apiserver pkg/admission/plugin/
// policy/mutating compilation.go, dispatcher.go, patch/smd.go, patch/json_patch.go) on the validating policy's
// engine: the same compile (./compile.ts), matching (./plan.ts), params and evaluation with its budgets
// (./evaluate.ts), with `mutations` instead of `validations`. A mutation is an ApplyConfiguration — a CEL object
// merged into the object as server-side apply merges (core/apply/merge.ts, by the kind's schema, atomic lists and
// maps refused) — or a JSONPatch — CEL JSONPatch values applied as RFC 6902 (core/patch/json-patch.ts). Each
// mutation sees the object as the previous one left it. cel-js has no message construction, so `Object{f: v}`,
// `Object.spec.x{…}` and `JSONPatch{op: …}` are rewritten to map literals before compiling (one linear pass).

import { applyJsonPatch } from '../../patch/json-patch';
import { mergeValues } from '../../apply/merge';
import { atomOf, fieldNode, isMap } from '../../apply/schema-view';
import type { SchemaNode } from '../../schema/node';
import type { KubeObject } from '../../object-meta';
import { forbidden, StatusError, type Status } from '../../status';
import { compileExpression, compilePolicy, type CompiledExpression, type CompiledPolicy } from './compile';
import type { AuthzCheck } from './environment';
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

/**
 * `Object{spec: Object.spec{replicas: 3}}` → `{"spec": {"replicas": 3}}`, `JSONPatch{op: "add", …}` → `{"op": "add",
 * …}`: message construction of the types kube declares (`Object…`, `JSONPatch`) as map literals with quoted field
 * names; string literals and everything else untouched. Linear in the expression.
 */
export function rewriteConstruction(expr: string): string {
  let out = '';
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
      out += expr.slice(i, j);
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
        out += JSON.stringify(chain);
        i = j;
        expectField = false;
        continue;
      }
      const head = chain.split('.', 1)[0]!;
      if (CONSTRUCTED_TYPES.has(head) && expr[k] === '{' && (head === 'Object' || chain === 'JSONPatch')) {
        out += '{';
        stack.push('m');
        expectField = true;
        i = k + 1;
        continue;
      }
      out += chain;
      i = j;
      expectField = false;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') stack.push(c);
    else if (c === ')' || c === ']' || c === '}') stack.pop();
    else if (c === ',' && stack[stack.length - 1] === 'm') {
      out += c;
      i++;
      expectField = true;
      continue;
    }
    if (!/\s/.test(c)) expectField = false;
    out += c;
    i++;
  }
  return out;
}

/** A mutation's expression compiled (kube's compile errors; the text reported is the policy's own). */
function compileMutation(m: { patchType?: string; applyConfiguration?: { expression?: string }; jsonPatch?: { expression?: string } }, hasParams: boolean): CompiledMutation {
  const patchType = typeof m?.patchType === 'string' ? m.patchType : '';
  const text = String((patchType === 'JSONPatch' ? m.jsonPatch?.expression : m.applyConfiguration?.expression) ?? '');
  const compiled = compileExpression(rewriteConstruction(text), 'any', hasParams, true, true);
  return { patchType, compiled: { ...compiled, expression: text } };
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

/** A CEL value as JSON: ints as numbers, maps as objects. */
export function fromCel(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(fromCel);
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v) out[String(k)] = fromCel(x);
    return out;
  }
  if (v instanceof Uint8Array) return btoa(String.fromCharCode(...v));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) Object.defineProperty(out, k, { value: fromCel(x), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
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

/** One mutation's value applied to the object; throws an Error with kube's wording. */
export function applyMutation(node: SchemaNode, object: KubeObject, patchType: string, value: unknown): KubeObject {
  if (patchType === 'JSONPatch') {
    if (!Array.isArray(value)) throw new Error(`unsupported return type from JSONPatch expression: ${typeof value}`);
    try {
      return applyJsonPatch(object, value) as KubeObject;
    } catch (e) {
      const msg = e instanceof StatusError ? e.status.message ?? '' : String((e as Error).message ?? e);
      throw new Error(`JSON Patch: ${msg}`);
    }
  }
  if (!isMap(value)) throw new Error('unsupported return type from ApplyConfiguration expression');
  const found: string[] = [];
  atomics(node, value, '', found);
  if (found.length) throw new Error(`invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${found.join(', ')}`);
  const { apiVersion, kind } = object as { apiVersion?: string; kind?: string };
  const patch = { ...value, apiVersion, kind };
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
  /** The invocation's error (evaluation, patch, budget): the policy's failurePolicy decides. */
  error?: string;
  pending: AuthzCheck[];
}

/** One policy × binding × param invocation (dispatcher.go dispatchOne for each mutation, in order). */
export async function mutateOnce(policy: CompiledMutatingPolicy, input: PolicyInput, params: unknown, budget: RequestBudget, node: SchemaNode): Promise<MutationOutcome> {
  const ev = new Evaluation(policy, input, params, budget);
  const pending = () => [...ev.pending.values()];
  let object = (input.object ?? null) as KubeObject | null;
  try {
    const gate = await matchConditionsGate(policy, ev, budget);
    if (gate === 'skip') return { object, pending: pending() };
    if (gate !== 'match') return { object, error: gate.error, pending: pending() };
    for (const m of policy.mutations) {
      if (!object) break; // nothing to patch (DELETE, CONNECT without options)
      await budget.pause();
      const out = ev.run(m.compiled);
      if (out.error !== undefined) return { object, error: out.error, pending: pending() };
      try {
        object = applyMutation(node, object, m.patchType, fromCel(out.value));
      } catch (e) {
        return { object, error: String((e as Error).message ?? e), pending: pending() };
      }
      ev.setObject(object);
    }
  } catch (e) {
    if (e instanceof OutOfBudget) return { object, error: OUT_OF_BUDGET, pending: pending() };
    throw e;
  }
  return { object, pending: pending() };
}

export interface MutatingDispatchOutcome {
  object: KubeObject | null;
  changed: boolean;
  /** The first error under failurePolicy Fail, as the client gets it. */
  refusal?: { message: string; reason: string };
  pending: AuthzCheck[];
  auditAnnotations: Record<string, string>;
}

const sameJson = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);

/**
 * The matched policies in order, each binding, each param (generic policy_dispatcher.go, mutating dispatcher.go):
 * the object passed along; configuration and evaluation errors collected and, under failurePolicy Fail (or an
 * unknown one), the first refuses (`policy '<p>' with binding '<b>' denied request: …`). One reinvocation round:
 * when a later invocation changed the object, the earlier `IfNeeded` ones run again on it.
 */
export async function dispatchMutating(policies: readonly MatchedPolicy[], input: PolicyInput, budget: RequestBudget, node: SchemaNode): Promise<MutatingDispatchOutcome> {
  const out: MutatingDispatchOutcome = { object: (input.object ?? null) as KubeObject | null, changed: false, pending: [], auditAnnotations: {} };
  const errors: { message: string; reason: string; failurePolicy: string }[] = [];
  let previouslyInvoked: string[] = [];
  const reinvoke = new Set<string>();
  for (let round = 0; round < 2; round++) {
    if (round === 1 && !reinvoke.size) break;
    for (const m of policies) {
      const p = m.compiled as CompiledMutatingPolicy;
      if (m.configurationError) {
        if (round === 0) errors.push({ message: `policy ${JSON.stringify(p.name)} denied request: failed to configure policy: ${m.configurationError}`, reason: '', failurePolicy: p.failurePolicy });
        continue;
      }
      for (const { binding, params } of m.bindings) {
        const bindingName = binding.metadata.name ?? '';
        if ('error' in params) {
          if (round === 0) errors.push({ message: `policy '${p.name}' with binding '${bindingName}' denied request: failed to configure binding: ${params.error}`, reason: '', failurePolicy: p.failurePolicy });
          continue;
        }
        for (const param of params.params) {
          const pm = (param as KubeObject | null)?.metadata;
          const key = JSON.stringify([p.name, bindingName, pm?.namespace ?? '', pm?.name ?? '']);
          if (round === 1 && !reinvoke.has(key)) continue;
          const before = out.object;
          const r = await mutateOnce(p, { ...input, object: before }, param, budget, node);
          out.pending.push(...r.pending);
          if (r.error !== undefined) {
            errors.push({ message: `policy '${p.name}' with binding '${bindingName}' denied request: ${r.error}`, reason: 'Invalid', failurePolicy: p.failurePolicy });
            continue;
          }
          const changed = !sameJson(before, r.object);
          if (changed) {
            out.object = r.object;
            out.changed = true;
            if (round === 0) for (const k of previouslyInvoked) reinvoke.add(k);
            previouslyInvoked = [];
          }
          if (round === 0 && p.reinvocationPolicy === 'IfNeeded') previouslyInvoked.push(key);
        }
      }
    }
  }
  const fatal = errors.find((e) => e.failurePolicy !== 'Ignore');
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
