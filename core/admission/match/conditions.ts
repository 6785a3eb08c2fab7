// Core: matchConditions, CEL expressions over `object`, `oldObject` and `request` that further narrow which
// requests a webhook (or policy) sees (apiserver/pkg/admission/plugin/webhook/matchconditions/matcher.go). Any
// condition false: no match. Otherwise an error (a condition that does not compile, fails or runs out of cost)
// follows failurePolicy: Fail refuses the request, Ignore skips the hook. Evaluated in the CRD rules' CEL
// environment (core/crd/cel/library.ts) with its step counter as the cost bound: kube's per-expression limit and a
// budget for all the conditions of one request (apiserver/pkg/apis/cel config.go
// RuntimeCELCostBudgetMatchConditions). Compiled in the admission policies' environment, so `authorizer` is there
// as kube declares it for webhooks (HasAuthorizer): the caller puts one in the activation (policy/environment.ts
// requestAuthorizer), answering from checks it resolved; without one, a condition using it errors.

import { CostLimitExceeded, PER_CALL_STEPS, withStepLimit } from '../../crd/cel/library';
import { policyEnvironment } from '../policy/environment';
import { toCel } from '../../crd/cel/evaluate';
import { ByteLru } from '../../byte-lru';

export interface MatchCondition {
  name?: string;
  expression?: string;
}

/** RuntimeCELCostBudgetMatchConditions. */
export const MATCH_CONDITIONS_BUDGET = 10_000_000;

export type ConditionResult = { matches: true } | { matches: false; failedCondition?: string } | { matches: 'error'; error: string };

type Program = ((ctx: Record<string, unknown>) => unknown) & { check?: () => { valid: boolean; type?: string; error?: unknown } };

// Compiled programs by expression text: configurations are few and read from a cache, so expressions repeat;
// bounded in bytes because their text is user data.
const programs = new ByteLru<Program | { error: string }>(2 * 1024 * 1024);

export function compileExpression(expression: string): Program | { error: string } {
  let p = programs.get(expression);
  if (!p) {
    try {
      const parsed = policyEnvironment().parse(expression) as unknown as Program;
      const checked = parsed.check?.();
      if (checked && !checked.valid) p = { error: `compilation failed: ${messageOf(checked.error)}` };
      else if (checked && checked.type !== 'bool' && checked.type !== 'dyn') p = { error: 'compilation failed: cel expression must evaluate to a bool' };
      else p = parsed;
    } catch (e) {
      p = { error: `compilation failed: ${messageOf(e)}` };
    }
    programs.set(expression, p);
  }
  return p;
}

const messageOf = (e: unknown) => String((e as Error)?.message ?? e).split('\n')[0];

/** The CEL activation of an admission request: the JSON values as CEL sees them (integers as int). */
export function celActivation(vars: { object: unknown; oldObject: unknown; request: unknown; params?: unknown; namespaceObject?: unknown; authorizer?: unknown }): Record<string, unknown> {
  return {
    ...(vars.authorizer ? { authorizer: vars.authorizer } : {}),
    object: toCel(undefined, vars.object ?? null, false),
    oldObject: toCel(undefined, vars.oldObject ?? null, false),
    request: toCel(undefined, vars.request, false),
    params: toCel(undefined, vars.params ?? null, false),
    namespaceObject: toCel(undefined, vars.namespaceObject ?? null, false),
  };
}

/**
 * Evaluates the conditions in order; stops at the first false. `failurePolicy` defaults to Fail, as kube's
 * NewMatcher. The result's error text is what kube puts after `failed to evaluate match conditions`-style refusals.
 */
export function evaluateMatchConditions(conditions: readonly MatchCondition[], activation: Record<string, unknown>, failurePolicy = 'Fail'): ConditionResult {
  if (!conditions.length) return { matches: true };
  const errors: string[] = [];
  let budget = MATCH_CONDITIONS_BUDGET;
  for (const c of conditions) {
    const expression = typeof c.expression === 'string' ? c.expression : '';
    const program = compileExpression(expression);
    if (!(typeof program === 'function')) {
      errors.push(`expression '${expression}' resulted in error: ${program.error}`);
      continue;
    }
    if (budget <= 0) {
      errors.push('validation failed due to running out of cost budget, no further validation rules will be run');
      break;
    }
    try {
      const { value, steps } = withStepLimit(Math.min(PER_CALL_STEPS, budget), () => program(activation));
      budget -= steps;
      if (value === false) return { matches: false, failedCondition: c.name };
      if (value !== true) errors.push(`expression '${expression}' resulted in error: no such overload`);
    } catch (e) {
      if (e instanceof CostLimitExceeded) errors.push(`expression '${expression}' resulted in error: operation cancelled: actual cost limit exceeded`);
      else errors.push(`expression '${expression}' resulted in error: ${messageOf(e)}`);
    }
  }
  if (errors.length) {
    if (failurePolicy === 'Ignore') return { matches: false };
    // utilerrors.NewAggregate: one error's own text, several as `[a, b]`.
    return { matches: 'error', error: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` };
  }
  return { matches: true };
}
