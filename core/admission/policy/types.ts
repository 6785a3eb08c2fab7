// Core: the admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
// objects, as the fields this server reads (k8s.io/api admissionregistration/v1 types.go).

import type { KubeObject } from '../../object-meta';

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface NamedRuleWithOperations {
  resourceNames?: string[];
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

export interface MatchResources {
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  resourceRules?: NamedRuleWithOperations[];
  excludeResourceRules?: NamedRuleWithOperations[];
  matchPolicy?: 'Exact' | 'Equivalent';
}

export interface Validation {
  expression?: string;
  message?: string;
  reason?: string;
  messageExpression?: string;
}

export interface NamedExpression {
  name?: string;
  expression?: string;
}

export interface AuditAnnotation {
  key?: string;
  valueExpression?: string;
}

export interface ParamKind {
  apiVersion?: string;
  kind?: string;
}

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  parameterNotFoundAction?: 'Allow' | 'Deny';
}

export interface PolicySpec {
  paramKind?: ParamKind;
  matchConstraints?: MatchResources;
  validations?: Validation[];
  failurePolicy?: 'Fail' | 'Ignore';
  auditAnnotations?: AuditAnnotation[];
  matchConditions?: NamedExpression[];
  variables?: NamedExpression[];
}

export interface BindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  validationActions?: ('Deny' | 'Warn' | 'Audit')[];
}

export type ValidatingAdmissionPolicy = KubeObject & { spec?: PolicySpec; status?: Record<string, unknown> };
export type ValidatingAdmissionPolicyBinding = KubeObject & { spec?: BindingSpec };

export const POLICY_GROUP = 'admissionregistration.k8s.io';

/** admissionregistration.k8s.io/v1alpha1 Mutation: one ApplyConfiguration or JSONPatch expression. */
export interface Mutation {
  patchType?: 'ApplyConfiguration' | 'JSONPatch' | string;
  applyConfiguration?: { expression?: string };
  jsonPatch?: { expression?: string };
}

export interface MutatingPolicySpec {
  paramKind?: ParamKind;
  matchConstraints?: MatchResources;
  variables?: NamedExpression[];
  mutations?: Mutation[];
  failurePolicy?: 'Fail' | 'Ignore';
  matchConditions?: NamedExpression[];
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

export interface MutatingBindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
}

export type MutatingAdmissionPolicy = KubeObject & { spec?: MutatingPolicySpec };
export type MutatingAdmissionPolicyBinding = KubeObject & { spec?: MutatingBindingSpec };
