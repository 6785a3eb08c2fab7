// Core: compiling a ValidatingAdmissionPolicy's expressions (apiserver pkg/admission/plugin/cel compile.go
// CompileCELExpression, pkg/admission/plugin/policy/validating plugin.go compilePolicy): validations and their
// messageExpressions, variables, matchConditions and auditAnnotations, each with kube's compile error text and
// return-type check. Done once per policy revision (the front door keeps the compiled policy by uid and
// resourceVersion), never per request.

import { celIssue, scan } from '../../crd/cel/compile';
import { constantPatternErrors } from '../../crd/cel/regex';
import { UNSUPPORTED_KUBE_FUNCTIONS } from '../../crd/cel/library';
import { OBJECT_INIT, policyEnvironment } from './environment';
import type { ValidatingAdmissionPolicy } from './types';

export type Program = ((ctx: Record<string, unknown>) => unknown) & { ast: unknown };

export interface CompiledExpression {
  expression: string;
  program?: Program;
  /** kube's compile error detail (`compilation failed: ERROR: <input>:1:3: …`, `must evaluate to bool but got int`). */
  error?: string;
  usesAuthorizer: boolean;
  /** The checker's type of the result (cel-js's name: `map<string, int>`, `dyn`, …). */
  type?: string;
}

/**
 * The text a rewritten expression came from (a mutation's `Object{…}` construction, ./mutate.ts): compile errors
 * are shown against it, at the offset `at` maps a rewritten one to.
 */
export interface ExpressionSource {
  text: string;
  at(offset: number): number;
}

export interface CompiledPolicy {
  name: string;
  failurePolicy: 'Fail' | 'Ignore' | string;
  hasParams: boolean;
  variables: { name: string; compiled: CompiledExpression }[];
  matchConditions: { name: string; compiled: CompiledExpression }[];
  validations: { compiled: CompiledExpression; message?: string; reason?: string; messageExpression?: CompiledExpression }[];
  auditAnnotations: { key: string; compiled: CompiledExpression }[];
  usesAuthorizer: boolean;
}

type ReturnType = 'bool' | 'string' | 'string|null' | 'any';

// cel-go's type names for what cel-js's checker reports.
const CEL_TYPE_NAMES: Record<string, string> = { map: 'map(dyn, dyn)', list: 'list(dyn)', 'map<dyn, dyn>': 'map(dyn, dyn)', 'list<dyn>': 'list(dyn)' };

function typeName(t: string): string {
  return CEL_TYPE_NAMES[t] ?? t.replace(/<(.*)>/, '($1)');
}

/**
 * One expression. `hasParams`: the policy declares a paramKind (kube declares `params` only then);
 * `authorizer`: the expression kind may use the authorizer (not messageExpression nor auditAnnotations);
 * `mutation`: a MutatingAdmissionPolicy's mutation, which may use `jsonpatch`.
 */
export function compileExpression(expression: string, returns: ReturnType, hasParams: boolean, authorizer: boolean, mutation = false, source?: ExpressionSource): CompiledExpression {
  const out: CompiledExpression = { expression, usesAuthorizer: false };
  // Issues located in the text the user wrote.
  const issue = (err: unknown) => {
    if (!source) return celIssue(expression, err);
    const e = err as { message?: string; range?: { start: number } };
    return celIssue(source.text, { message: String(e?.message ?? err), range: { start: source.at(e?.range?.start ?? 0) } });
  };
  const env = policyEnvironment();
  let parsed: Program;
  try {
    parsed = env.parse(expression) as unknown as Program;
  } catch (e) {
    out.error = `compilation failed: ${issue(e)}`;
    return out;
  }
  const { ids, functions } = scan(parsed.ast);
  // kube declares `jsonpatch` (the JSONPatch library) for a MutatingAdmissionPolicy's mutations only.
  const undeclared = [...(hasParams ? [] : ['params']), ...(authorizer ? [] : ['authorizer']), ...(mutation ? [] : ['jsonpatch'])].find((v) => ids.has(v))
    ?? (!mutation && functions.has(OBJECT_INIT) ? OBJECT_INIT : undefined);
  if (undeclared) {
    const at = expression.search(new RegExp(`\\b${undeclared}\\b`));
    out.error = `compilation failed: ${issue({ message: `undeclared reference to '${undeclared}' (in container '')`, range: { start: Math.max(0, at) } })}`;
    return out;
  }
  const unsupported = [...functions].filter((f) => UNSUPPORTED_KUBE_FUNCTIONS.has(f)).sort();
  if (unsupported.length) {
    out.error = `compilation failed: this server does not support ${unsupported.join(', ')}`;
    return out;
  }
  out.usesAuthorizer = ids.has('authorizer');
  const checked = (parsed as unknown as { check(): { valid: boolean; type?: string; error?: unknown } }).check();
  if (!checked.valid) {
    out.error = `compilation failed: ${issue(checked.error)}`;
    return out;
  }
  const patterns = constantPatternErrors(parsed.ast);
  if (patterns.issues.length) {
    out.error = `compilation failed: ${patterns.issues.map(issue).join('\n')}`;
    return out;
  }
  const type = checked.type ?? 'dyn';
  out.type = type;
  const ok = returns === 'any' || type === 'dyn' || type === returns || (returns === 'string|null' && (type === 'string' || type === 'null'));
  if (!ok) {
    out.error = returns === 'string|null' ? `must evaluate to one of [string null_type] but got ${typeName(type)}` : `must evaluate to ${returns} but got ${typeName(type)}`;
    return out;
  }
  if (patterns.program) {
    out.error = `program instantiation failed: ${patterns.program}`;
    return out;
  }
  out.program = parsed;
  return out;
}

const text = (v: unknown) => (typeof v === 'string' ? v : '');

export function compilePolicy(policy: ValidatingAdmissionPolicy): CompiledPolicy {
  const spec = policy.spec ?? {};
  const hasParams = !!spec.paramKind;
  const out: CompiledPolicy = {
    name: policy.metadata.name ?? '',
    failurePolicy: spec.failurePolicy ?? 'Fail',
    hasParams,
    variables: (spec.variables ?? []).map((v) => ({ name: text(v?.name), compiled: compileExpression(text(v?.expression), 'any', hasParams, true) })),
    matchConditions: (spec.matchConditions ?? []).map((m) => ({ name: text(m?.name), compiled: compileExpression(text(m?.expression), 'bool', hasParams, true) })),
    validations: (spec.validations ?? []).map((v) => ({
      compiled: compileExpression(text(v?.expression), 'bool', hasParams, true),
      message: typeof v?.message === 'string' ? v.message : undefined,
      reason: typeof v?.reason === 'string' ? v.reason : undefined,
      messageExpression: v?.messageExpression ? compileExpression(text(v.messageExpression), 'string', hasParams, false) : undefined,
    })),
    auditAnnotations: (spec.auditAnnotations ?? []).map((a) => ({ key: text(a?.key), compiled: compileExpression(text(a?.valueExpression), 'string|null', hasParams, true) })),
    usesAuthorizer: false,
  };
  out.usesAuthorizer = [...out.variables, ...out.matchConditions, ...out.validations].some((x) => x.compiled.usesAuthorizer);
  return out;
}

