// Core: evaluating one compiled ValidatingAdmissionPolicy for one binding and one param (apiserver pkg/admission/
// plugin/policy/validating validator.go Validate, pkg/admission/plugin/cel activation.go Evaluate, condition.go):
// matchConditions, then every validation with its messageExpression, then auditAnnotations, with `variables`
// evaluated lazily by name and at most once. Each expression may take PER_CALL_STEPS and one evaluation
// RuntimeCELCostBudget; the request's own budget (shared by every policy, binding and param it meets) bounds the
// whole so that many bindings times many params cannot multiply it. Pure: the authorizer answers from what the
// front door has resolved, and a check it has not yet is reported so that the front door resolves it and
// evaluates again.

import { CostLimitExceeded, PER_CALL_STEPS, stepsTaken, withStepLimit } from '../../crd/cel/library';
import { runtimeErrorText } from '../../crd/cel/evaluate';
import { RegexBudget, RegexBudgetExceeded } from '../../regex/budget';
import { useRegexBudget } from '../../crd/cel/regex';
import { checkKey, JSONPATCH, requestAuthorizer, type AuthzCheck, type AuthzLookup } from './environment';
import type { CompiledExpression, CompiledPolicy } from './compile';

/** apiserver/pkg/apis/cel config.go RuntimeCELCostBudget: one policy evaluation (binding × param). */
export const RUNTIME_COST_BUDGET = 10_000_000;
/** RuntimeCELCostBudgetMatchConditions. */
export const MATCH_CONDITIONS_BUDGET = 2_500_000;
/** MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_BYTES = 5 * 1024;
export const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** What the expressions see of the request (kube's VersionedAttributes and AdmissionRequest), as JSON values. */
export interface PolicyInput {
  object: unknown;
  oldObject: unknown;
  /** kube's AdmissionRequest (CreateAdmissionRequest): kind, resource, name, namespace, operation, userInfo, … */
  request: Record<string, unknown>;
  /** The request's namespace as CreateNamespaceObject trims it, or null (cluster-scoped; a Namespace itself). */
  namespaceObject: unknown;
  authorize: AuthzLookup;
}

/**
 * Steps the whole request may still take over every policy (the front door's bound; kube has none), and how it
 * lets others run between expressions: one expression runs to its end (at most PER_CALL_STEPS), but a request's
 * many are interleaved with other requests on the same thread (`pause`: the front door's yield).
 */
export class RequestBudget {
  constructor(
    public remaining: number,
    readonly pause: () => Promise<void> = async () => {},
    readonly regex = new RegexBudget(),
  ) {}
}

export interface PolicyDecision {
  action: 'admit' | 'deny';
  evaluation: 'admit' | 'deny' | 'error';
  message: string;
  reason?: string;
  index: number;
}

export interface AuditAnnotationResult {
  key: string;
  action: 'publish' | 'exclude' | 'error';
  value?: string;
  error?: string;
}

export interface ValidateResult {
  decisions: PolicyDecision[];
  auditAnnotations: AuditAnnotationResult[];
  /** Authorizer checks the expressions asked for that were not answered yet (the result is then provisional). */
  pending: AuthzCheck[];
}

/** A JSON value as CEL sees it: integers as int. */
export function toCelValue(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toCelValue);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) Object.defineProperty(out, k, { value: toCelValue(x), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

export class OutOfBudget extends Error {
  constructor() {
    super(OUT_OF_BUDGET);
  }
}

export interface Outcome {
  value?: unknown;
  error?: string;
}

/** One policy × binding × param evaluation. */
export class Evaluation {
  remaining = RUNTIME_COST_BUDGET;
  readonly pending = new Map<string, AuthzCheck>();
  private readonly ctx: Record<string, unknown>;

  /** A mutating policy's next mutation sees the object as the previous one left it. */
  setObject(object: unknown): void {
    this.ctx.object = toCelValue(object ?? null);
  }

  constructor(policy: CompiledPolicy, input: PolicyInput, params: unknown, private readonly budget: RequestBudget) {
    const authorize: AuthzLookup = (check) => {
      const answer = input.authorize(check);
      if (!answer) this.pending.set(checkKey(check), check);
      return answer;
    };
    const variables: Record<string, unknown> = {};
    const authorizer = requestAuthorizer(authorize, input.request);
    this.ctx = {
      object: toCelValue(input.object ?? null),
      oldObject: toCelValue(input.oldObject ?? null),
      request: toCelValue(input.request),
      params: toCelValue(params ?? null),
      namespaceObject: toCelValue(input.namespaceObject ?? null),
      variables,
      authorizer,
      jsonpatch: JSONPATCH,
    };
    // composition.go: a variable is evaluated when an expression first reads it, once; its cost is that
    // expression's (here: counted by the running evaluation's step counter).
    for (const v of policy.variables) {
      if (!v.name || Object.hasOwn(variables, v.name)) continue;
      let done: { value?: unknown; error?: unknown } | undefined;
      Object.defineProperty(variables, v.name, {
        enumerable: true,
        get: () => {
          if (!done) {
            if (!v.compiled.program) done = { error: new Error(`composited variable "${v.name}" fails to compile: ${v.compiled.error}`) };
            else {
              try {
                done = { value: v.compiled.program(this.ctx) };
              } catch (e) {
                if (e instanceof CostLimitExceeded || e instanceof RegexBudgetExceeded) throw e;
                done = { error: e };
              }
            }
          }
          if (done.error !== undefined) throw done.error;
          return done.value;
        },
      });
    }
  }

  /** activation.go Evaluate: the result, or kube's error text; OutOfBudget when the evaluation's budget is spent. */
  run(c: CompiledExpression, budget: { remaining: number } = this): Outcome {
    if (!c.program) return { error: `compilation error: ${c.error}` };
    const limit = Math.min(PER_CALL_STEPS, budget.remaining, this.budget.remaining);
    if (limit <= 0) throw new OutOfBudget();
    const outer = useRegexBudget(this.budget.regex);
    try {
      const { value, steps } = withStepLimit(limit, () => c.program!(this.ctx));
      budget.remaining -= steps;
      this.budget.remaining -= steps;
      return { value };
    } catch (e) {
      const spent = Math.min(stepsTaken(), limit);
      budget.remaining -= spent;
      this.budget.remaining -= spent;
      const cause = (e as { cause?: unknown })?.cause;
      const cost = e instanceof CostLimitExceeded || cause instanceof CostLimitExceeded;
      if (e instanceof RegexBudgetExceeded || cause instanceof RegexBudgetExceeded) throw new OutOfBudget();
      // The per-call limit is cel-go's interrupt (the expression's error); the budgets' are the evaluation's.
      if (cost && limit < PER_CALL_STEPS) throw new OutOfBudget();
      return { error: `expression '${c.expression}' resulted in error: ${cost ? 'operation cancelled: actual cost limit exceeded' : runtimeErrorText(e)}` };
    } finally {
      useRegexBudget(outer);
    }
  }
}

const failAction = (f: string) => (f === 'Ignore' ? 'admit' : 'deny');

/**
 * matchConditions (matchconditions/matcher.go): any false skips the policy; otherwise errors take the failure
 * policy (Ignore: skipped too; else the aggregate error). Throws OutOfBudget.
 */
export async function matchConditionsGate(policy: CompiledPolicy, ev: Evaluation, budget: RequestBudget): Promise<'match' | 'skip' | { error: string }> {
  if (!policy.matchConditions.length) return 'match';
  const mc = { remaining: MATCH_CONDITIONS_BUDGET };
  const errors: string[] = [];
  for (const m of policy.matchConditions) {
    await budget.pause();
    const out = ev.run(m.compiled, mc);
    if (out.error !== undefined) errors.push(out.error);
    else if (out.value === false) return 'skip';
  }
  // A mix of true and errors resorts to the failure policy (Ignore: the policy does not apply).
  if (!errors.length) return 'match';
  if (policy.failurePolicy === 'Ignore') return 'skip';
  return { error: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` };
}

/**
 * validator.go Validate for one binding and param: matchConditions (none false, no error) gate the validations;
 * any evaluation error becomes the failure policy's decision.
 */
export async function validatePolicy(policy: CompiledPolicy, input: PolicyInput, params: unknown, budget: RequestBudget): Promise<ValidateResult> {
  const ev = new Evaluation(policy, input, params, budget);
  const result: ValidateResult = { decisions: [], auditAnnotations: [], pending: [] };
  const fail = (message: string): ValidateResult => ({ decisions: [{ action: failAction(policy.failurePolicy), evaluation: 'error', message, index: 0 }], auditAnnotations: [], pending: [...ev.pending.values()] });
  try {
    const gate = await matchConditionsGate(policy, ev, budget);
    if (gate === 'skip') return { ...result, pending: [...ev.pending.values()] };
    if (gate !== 'match') return fail(gate.error);
    const outcomes: Outcome[] = [];
    for (const v of policy.validations) {
      await budget.pause();
      outcomes.push(ev.run(v.compiled));
    }
    for (const [index, v] of policy.validations.entries()) {
      const out = outcomes[index];
      if (out.error !== undefined) {
        result.decisions.push({ action: failAction(policy.failurePolicy), evaluation: 'error', message: out.error, index });
      } else if (out.value !== true) {
        result.decisions.push({ action: 'deny', evaluation: 'deny', message: denyMessage(ev, v), reason: v.reason ?? 'Invalid', index });
      } else result.decisions.push({ action: 'admit', evaluation: 'admit', message: '', index });
    }
    for (const a of policy.auditAnnotations) {
      await budget.pause();
      const out = ev.run(a.compiled);
      if (out.error !== undefined) result.auditAnnotations.push({ key: a.key, action: policy.failurePolicy === 'Ignore' ? 'exclude' : 'error', error: out.error });
      else if (typeof out.value === 'string') {
        const value = out.value.trim();
        result.auditAnnotations.push(value ? { key: a.key, action: 'publish', value } : { key: a.key, action: 'exclude' });
      } else if (out.value === null || out.value === undefined) result.auditAnnotations.push({ key: a.key, action: 'exclude' });
      else {
        result.auditAnnotations.push({
          key: a.key, action: 'error',
          error: `valueExpression '${a.compiled.expression}' resulted in unsupported return type: ${celTypeOf(out.value)}. Return type must be either string or null.`,
        });
      }
    }
  } catch (e) {
    if (e instanceof OutOfBudget) return fail(OUT_OF_BUDGET);
    throw e;
  }
  result.pending = [...ev.pending.values()];
  return result;
}

/** The denial's message: messageExpression's result (trimmed, one line, at most 5 KiB), else message, else the expression. */
function denyMessage(ev: Evaluation, v: CompiledPolicy['validations'][number]): string {
  if (v.messageExpression?.program) {
    let out: Outcome;
    try {
      out = ev.run(v.messageExpression);
    } catch (e) {
      if (!(e instanceof OutOfBudget)) throw e;
      out = {};
    }
    if (typeof out.value === 'string') {
      const m = out.value.trim();
      if (m && new TextEncoder().encode(m).length <= MAX_MESSAGE_BYTES && !m.includes('\n')) return m;
    }
  }
  if (v.message?.trim()) return v.message.trim();
  return `failed expression: ${v.compiled.expression.trim()}`;
}

function celTypeOf(v: unknown): string {
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'list';
  return 'map';
}
