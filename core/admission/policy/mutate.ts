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
import { sameJson, type KubeObject } from '../../object-meta';
import { defaulted } from '../mutating-stage';
import { PluginReinvocation, ReinvocationContext } from '../reinvocation';
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
  /** matchConditions passed and the invocation was due: its mutations ran (kube goes on to its reinvocation steps). */
  ran: boolean;
  /** A mutation applied (kube's VersionedAttributes.Dirty), changed or not. */
  applied: boolean;
  /** The invocation's errors (matchConditions, evaluation, patch, budget): the policy's failurePolicy decides. */
  errors: string[];
  pending: AuthzCheck[];
}

/**
 * One policy × binding × param invocation (mutating/dispatcher.go dispatchInvocations for one invocation):
 * matchConditions, then — when `due` — each mutation in order on the object the previous left, defaulted as kube
 * defaults the patched object; a mutation that fails is recorded and the next one still runs.
 */
export async function mutateOnce(policy: CompiledMutatingPolicy, input: PolicyInput, params: unknown, budget: RequestBudget, node: SchemaNode, due: () => boolean = () => true): Promise<MutationOutcome> {
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
      await budget.pause();
      const r = ev.run(m.compiled);
      if (r.error !== undefined) {
        errors.push(r.error);
        continue;
      }
      try {
        object = defaulted(applyMutation(node, object, m.patchType, fromCel(r.value)));
        applied = true;
      } catch (e) {
        errors.push(String((e as Error).message ?? e));
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
export async function dispatchMutating(policies: readonly MatchedPolicy[], input: PolicyInput, budget: RequestBudget, node: SchemaNode, ctx?: ReinvocationContext): Promise<MutatingDispatchOutcome> {
  if (ctx) return mutatingRound(policies, input, budget, node, ctx);
  const own = new ReinvocationContext();
  const first = await mutatingRound(policies, input, budget, node, own);
  if (!own.shouldReinvoke || first.refusal) return first;
  own.isReinvoke = true;
  const second = await mutatingRound(policies, { ...input, object: first.object }, budget, node, own);
  return { ...second, changed: first.changed || second.changed, pending: [...first.pending, ...second.pending] };
}

async function mutatingRound(policies: readonly MatchedPolicy[], input: PolicyInput, budget: RequestBudget, node: SchemaNode, ctx: ReinvocationContext): Promise<MutatingDispatchOutcome> {
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
          const r = await mutateOnce(p, { ...input, object: before }, param, budget, node, () => !ctx.isReinvoke || state.shouldReinvoke(key));
          out.pending.push(...r.pending);
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
