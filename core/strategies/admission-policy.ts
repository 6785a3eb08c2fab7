// Core: the ValidatingAdmissionPolicy strategy: what kube's type-checking controller (apiserver pkg/admission/
// plugin/policy/validating typechecking.go, run by the ValidatingAdmissionPolicy status controller) writes to
// status is set here in the write itself, once per write of the main resource: `status.observedGeneration` and
// `status.typeChecking.expressionWarnings` (core/admission/policy/typecheck.ts says what is checked).

import { expressionWarnings } from '../admission/policy/typecheck';
import type { ValidatingAdmissionPolicy } from '../admission/policy/types';
import { DEFAULT_STRATEGY } from './default';
import type { WriteStrategy } from './strategy';

export const ADMISSION_POLICY_STRATEGY: WriteStrategy = {
  ...DEFAULT_STRATEGY,
  beforeStore(obj, _old, subresource) {
    if (subresource) return;
    const p = obj as ValidatingAdmissionPolicy;
    const warnings = expressionWarnings(p);
    const status: Record<string, unknown> = { ...(p.status ?? {}) };
    status.observedGeneration = p.metadata.generation ?? 1;
    status.typeChecking = warnings.length ? { expressionWarnings: warnings } : {};
    p.status = status;
  },
};
