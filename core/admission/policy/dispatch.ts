// Core: what the matched policies and bindings decide for one request (apiserver pkg/admission/plugin/policy/
// validating dispatcher.go Dispatch): each binding's validationActions applied to its policy's denials — Deny
// refuses with kube's Status (`ValidatingAdmissionPolicy '<p>' with binding '<b>' denied request: <msg>`, the
// validation's reason and its code), Warn adds a Warning, Audit the `validation.policy.admission.k8s.io/
// validation_failure` audit annotation — and the policies' auditAnnotations published as `<policy>/<key>`. A
// binding whose params cannot be read, or a policy that cannot be evaluated, takes its failure policy.

import { forbidden, type Status } from '../../status';
import type { CompiledPolicy } from './compile';
import type { AuthzCheck } from './environment';
import { validatePolicy, type PolicyInput, type RequestBudget } from './evaluate';
import type { ValidatingAdmissionPolicyBinding } from './types';

/** A binding's params as the front door collected them (generic.CollectParams), or the configuration error. */
export type CollectedParams = { params: unknown[] } | { error: string };

export interface MatchedBinding {
  binding: ValidatingAdmissionPolicyBinding;
  params: CollectedParams;
}

export interface MatchedPolicy {
  compiled: CompiledPolicy;
  /** A policy that cannot be used at all (its paramKind unknown): kube's `failed to configure policy: …`. */
  configurationError?: string;
  bindings: MatchedBinding[];
}

export interface DispatchOutcome {
  /** The first denial, as kube's Status. */
  denied?: { policy: string; binding?: string; message: string; reason: string };
  warnings: string[];
  /** Audit annotations to add to the request's audit event. */
  annotations: Record<string, string>;
  pending: AuthzCheck[];
}

export const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';
// dispatcher.go maxValidationFailures, maxAuditAnnotationValueLength.
const MAX_VALIDATION_FAILURES = 50;
const MAX_AUDIT_ANNOTATION_VALUE = 10 * 1024;

interface ValidationFailure {
  message: string;
  policy: string;
  binding: string;
  expressionIndex: number;
  validationActions: string[];
}

export async function dispatch(policies: readonly MatchedPolicy[], input: PolicyInput, budget: RequestBudget): Promise<DispatchOutcome> {
  const out: DispatchOutcome = { warnings: [], annotations: {}, pending: [] };
  const denials: NonNullable<DispatchOutcome['denied']>[] = [];
  const failures: ValidationFailure[] = [];
  const configError = (p: CompiledPolicy, binding: string | undefined, error: string) => {
    if (p.failurePolicy === 'Ignore') return;
    const message = p.failurePolicy === 'Fail' ? `failed to configure ${binding === undefined ? 'policy' : 'binding'}: ${error}` : `unrecognized failure policy: '${p.failurePolicy}'`;
    denials.push({ policy: p.name, binding, message, reason: 'Invalid' });
  };
  for (const m of policies) {
    const p = m.compiled;
    if (m.configurationError) {
      configError(p, undefined, m.configurationError);
      continue;
    }
    const collected = new Map<string, string[]>();
    for (const { binding, params } of m.bindings) {
      const bindingName = binding.metadata.name ?? '';
      if ('error' in params) {
        configError(p, bindingName, params.error);
        continue;
      }
      const actions = binding.spec?.validationActions ?? [];
      for (const param of params.params) {
        const result = await validatePolicy(p, input, param, budget);
        out.pending.push(...result.pending);
        for (const d of result.decisions) {
          if (d.action !== 'deny') continue;
          for (const action of actions) {
            if (action === 'Deny') denials.push({ policy: p.name, binding: bindingName, message: d.message, reason: d.reason ?? 'Invalid' });
            else if (action === 'Warn') out.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${p.name}' with binding '${bindingName}': ${d.message}`);
            else if (action === 'Audit') failures.push({ message: d.message, policy: p.name, binding: bindingName, expressionIndex: d.index, validationActions: [...actions] });
          }
        }
        for (const a of result.auditAnnotations) {
          if (a.action === 'publish') {
            const values = collected.get(a.key) ?? [];
            const value = a.value!.slice(0, MAX_AUDIT_ANNOTATION_VALUE);
            if (!values.includes(value)) values.push(value);
            collected.set(a.key, values);
          } else if (a.action === 'error') denials.push({ policy: p.name, binding: bindingName, message: a.error ?? '', reason: 'Invalid' });
        }
      }
    }
    for (const [key, values] of collected) out.annotations[`${p.name}/${key}`] = values.join(', ');
  }
  if (failures.length) out.annotations[VALIDATION_FAILURE_ANNOTATION] = JSON.stringify(failures.slice(0, MAX_VALIDATION_FAILURES));
  if (denials.length) out.denied = denials[0];
  return out;
}

/** dispatcher.go: admission.NewForbidden with the decision's reason and its code (reasonToCode). */
export function deniedStatus(target: { group: string; resource: string }, name: string, denied: NonNullable<DispatchOutcome['denied']>): Status {
  const message = denied.binding !== undefined
    ? `ValidatingAdmissionPolicy '${denied.policy}' with binding '${denied.binding}' denied request: ${denied.message}`
    : `ValidatingAdmissionPolicy '${denied.policy}' denied request: ${denied.message}`;
  const status = forbidden(target, name, message, [{ message }]);
  const reason = denied.reason || 'Invalid';
  status.reason = reason;
  status.code = reason === 'Forbidden' ? 403 : reason === 'Unauthorized' ? 401 : reason === 'RequestEntityTooLarge' ? 413 : 422;
  return status;
}
