// Core: ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding validation with kube-apiserver's (1.32)
// messages (pkg/apis/admissionregistration/validation validation.go validateValidatingAdmissionPolicySpec,
// validateValidatingAdmissionPolicyBindingSpec): failurePolicy, paramKind, matchConstraints and their rules and
// selectors, every expression compiled (./compile.ts: kube's compile errors and return types), variables' names,
// auditAnnotations' keys, paramRef and validationActions. Also the policy's status as kube's type-checking
// controller sets it (./typecheck.ts). Linear in the object.

import { duplicate, forbidden, invalidValue, labelKeyMessages, notSupported, required, tooMany, validatePathSegmentName, isDNS1123Subdomain, isDNS1035Label } from '../../validation/names';
import { validateLabelSelector } from '../../validation/selector';
import { Causes, type Obj } from '../../validation/shape';
import { compileExpression } from './compile';
import { compileMutationExpression } from './mutate';
import { validatingAdmissionPolicy as defaultPolicy, validatingAdmissionPolicyBinding as defaultBinding } from '../defaults/more-groups';

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'];
const ACTIONS = ['Audit', 'Deny', 'Warn'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_AUDIT_VALUE_EXPRESSION = 5 * 1024;
const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

const isCelIdentifier = (s: string) => /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(s) && !CEL_RESERVED.has(s);

/** validateRuleWithOperations / validateRule, for the rules of matchResources. */
function validateRule(v: Causes, r: Obj, path: string, operations: readonly string[]): void {
  const ops = v.strs(r.operations, `${path}.operations`);
  if (!ops.length) v.add(required(`${path}.operations`));
  if (ops.length > 1 && ops.includes('*')) v.add(invalidValue(`${path}.operations`, ops, "if '*' is present, must not specify other operations"));
  ops.forEach((o, i) => operations.includes(o) || v.add(notSupported(`${path}.operations[${i}]`, o, [...operations])));
  const groups = v.strs(r.apiGroups, `${path}.apiGroups`);
  if (!groups.length) v.add(required(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) v.add(invalidValue(`${path}.apiGroups`, groups, "if '*' is present, must not specify other API groups"));
  const versions = v.strs(r.apiVersions, `${path}.apiVersions`);
  if (!versions.length) v.add(required(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) v.add(invalidValue(`${path}.apiVersions`, versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((x, i) => x === '' && v.add(required(`${path}.apiVersions[${i}]`)));
  const resources = v.strs(r.resources, `${path}.resources`);
  if (!resources.length) v.add(required(`${path}.resources`));
  const seen = new Set<string>();
  resources.forEach((res, i) => {
    const p = `${path}.resources[${i}]`;
    if (res === '') v.add(required(p));
    const [main, sub] = res.split('/', 2);
    if (res.includes('/') && (main === '' || sub === '')) v.add(invalidValue(p, res, 'must not be empty'));
    if (seen.has(res)) v.add(duplicate(p, res));
    seen.add(res);
  });
  if (resources.length > 1 && resources.includes('*/*')) v.add(invalidValue(`${path}.resources`, resources, "if '*/*' is present, must not specify other resources"));
  const scope = v.str(r.scope, `${path}.scope`);
  if (scope !== undefined && !SCOPES.includes(scope)) v.add(notSupported(`${path}.scope`, scope, SCOPES));
}

function validateMatchResources(v: Causes, m: Obj | undefined, path: string, operations: readonly string[] = OPERATIONS): void {
  if (!m) return;
  const mp = v.str(m.matchPolicy, `${path}.matchPolicy`);
  if (mp === undefined) v.add(required(`${path}.matchPolicy`));
  else if (!MATCH_POLICIES.includes(mp)) v.add(notSupported(`${path}.matchPolicy`, mp, MATCH_POLICIES));
  for (const sel of ['namespaceSelector', 'objectSelector'] as const) {
    const s = v.obj(m[sel], `${path}.${sel}`);
    if (!s) v.add(required(`${path}.${sel}`));
    else validateLabelSelector(v, s, `${path}.${sel}`);
  }
  for (const list of ['resourceRules', 'excludeResourceRules'] as const) {
    v.objs(m[list], `${path}.${list}`).forEach((r, i) => {
      const p = `${path}.${list}[${i}]`;
      const names = new Set<string>();
      v.strs(r.resourceNames, `${p}.resourceNames`).forEach((n, j) => {
        for (const msg of validatePathSegmentName(n)) v.add(invalidValue(`${p}.resourceNames[${j}]`, n, msg));
        if (names.has(n)) v.add(duplicate(`${p}.resourceNames[${j}]`, n));
        names.add(n);
      });
      validateRule(v, r, p, operations);
    });
  }
}

function validateParamKind(v: Causes, k: Obj, path: string): void {
  const apiVersion = v.str(k.apiVersion, `${path}.apiVersion`) ?? '';
  if (!apiVersion) v.add(required(`${path}.apiVersion`));
  else {
    const parts = apiVersion.split('/');
    if (parts.length > 2) v.add(invalidValue(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    else {
      const [group, version] = parts.length === 2 ? parts : ['', parts[0]];
      if (group) {
        const errs = isDNS1123Subdomain(group);
        if (errs.length) v.add(invalidValue(`${path}.apiVersion`, group, errs.join(',')));
      }
      if (!version) v.add(invalidValue(`${path}.apiVersion`, apiVersion, 'version must be specified'));
      else {
        const errs = isDNS1035Label(version);
        if (errs.length) v.add(invalidValue(`${path}.apiVersion`, version, errs.join(',')));
      }
    }
  }
  const kind = v.str(k.kind, `${path}.kind`) ?? '';
  if (!kind) v.add(required(`${path}.kind`));
  else {
    const errs = isDNS1035Label(kind.toLowerCase());
    if (errs.length) v.add(invalidValue(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${errs.join(',')}`));
  }
}

/** An expression's compile error as kube's field error (ErrorTypeInvalid: the expression as the value). */
function expression(v: Causes, text: string, returns: 'bool' | 'string' | 'string|null' | 'any', hasParams: boolean, authorizer: boolean, path: string): void {
  const c = compileExpression(text, returns, hasParams, authorizer);
  if (c.error) v.add(invalidValue(path, text, c.error));
}

// Validation sees the object as kube's decoder made it, defaults filled in (the write path defaults after it).
function defaulted(obj: Obj, fill: (o: Obj) => void): Obj {
  const copy = structuredClone(obj);
  try {
    fill(copy);
  } catch {
    return obj; // a body of the wrong shape: validation words it
  }
  return copy;
}

/** What both policy kinds share: failurePolicy, paramKind, matchConstraints, matchConditions, variables. */
function validatePolicyCommon(v: Causes, spec: Obj, operations: readonly string[] = OPERATIONS): { hasParams: boolean } {
  const fp = v.str(spec.failurePolicy, 'spec.failurePolicy');
  if (fp === undefined) v.add(required('spec.failurePolicy'));
  else if (!FAILURE_POLICIES.includes(fp)) v.add(notSupported('spec.failurePolicy', fp, FAILURE_POLICIES));
  const paramKind = v.obj(spec.paramKind, 'spec.paramKind');
  const hasParams = !!paramKind;
  if (paramKind) validateParamKind(v, paramKind, 'spec.paramKind');
  const mc = v.obj(spec.matchConstraints, 'spec.matchConstraints');
  if (!mc) v.add(required('spec.matchConstraints'));
  else {
    validateMatchResources(v, mc, 'spec.matchConstraints', operations);
    if (!v.arr(mc.resourceRules, 'spec.matchConstraints.resourceRules').length) v.add(required('spec.matchConstraints.resourceRules'));
  }
  const conditions = v.objs(spec.matchConditions, 'spec.matchConditions');
  if (conditions.length > 64) v.add(tooMany('spec.matchConditions', conditions.length, 64));
  const conditionNames = new Set<string>();
  conditions.forEach((m, i) => {
    const p = `spec.matchConditions[${i}]`;
    const e = (v.str(m.expression, `${p}.expression`) ?? '').trim();
    if (!e) v.add(required(`${p}.expression`));
    else expression(v, e, 'bool', hasParams, true, `${p}.expression`);
    const n = v.str(m.name, `${p}.name`) ?? '';
    if (!n) v.add(required(`${p}.name`));
    else for (const msg of labelKeyMessages(n)) v.add(invalidValue(`${p}.name`, n, msg));
    if (n && conditionNames.has(n)) v.add(duplicate(`${p}.name`, n));
    if (n) conditionNames.add(n);
  });
  v.objs(spec.variables, 'spec.variables').forEach((x, i) => {
    const p = `spec.variables[${i}]`;
    const n = v.str(x.name, `${p}.name`) ?? '';
    if (!n.trim()) v.add(required(`${p}.name`, 'name is not specified'));
    else if (!isCelIdentifier(n)) v.add(invalidValue(`${p}.name`, n, 'name is not a valid CEL identifier'));
    const e = v.str(x.expression, `${p}.expression`) ?? '';
    if (!e.trim()) v.add(required(`${p}.expression`, 'expression is not specified'));
    else expression(v, e, 'any', hasParams, true, `${p}.expression`);
  });
  return { hasParams };
}

export function validateAdmissionPolicy(v: Causes, raw: Obj): void {
  const obj = defaulted(raw, defaultPolicy);
  const spec = v.obj(obj.spec, 'spec') ?? {};
  const name = typeof (obj.metadata as Obj | undefined)?.name === 'string' ? ((obj.metadata as Obj).name as string) : '';
  const { hasParams } = validatePolicyCommon(v, spec);
  const validations = v.objs(spec.validations, 'spec.validations');
  const annotations = v.objs(spec.auditAnnotations, 'spec.auditAnnotations');
  if (!validations.length && !annotations.length) {
    v.add(required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    v.add(required('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
    return;
  }
  validations.forEach((x, i) => {
    const p = `spec.validations[${i}]`;
    const e = v.str(x.expression, `${p}.expression`) ?? '';
    if (!e.trim()) v.add(required(`${p}.expression`, 'expression is not specified'));
    else expression(v, e, 'bool', hasParams, true, `${p}.expression`);
    const me = v.str(x.messageExpression, `${p}.messageExpression`) ?? '';
    if (me.length && !me.trim()) v.add(invalidValue(`${p}.messageExpression`, me, 'must be non-empty if specified'));
    else if (me.trim()) expression(v, me, 'string', hasParams, false, `${p}.messageExpression`);
    const msg = v.str(x.message, `${p}.message`) ?? '';
    if (msg.length && !msg.trim()) v.add(invalidValue(`${p}.message`, msg, 'message must be non-empty if specified'));
    else if (/[\n\r]/.test(msg.trim())) v.add(invalidValue(`${p}.message`, msg, 'message must not contain line breaks'));
    const reason = v.str(x.reason, `${p}.reason`);
    if (reason !== undefined && !REASONS.includes(reason)) v.add(notSupported(`${p}.reason`, reason, REASONS));
  });
  if (annotations.length > MAX_AUDIT_ANNOTATIONS) v.add(invalidValue('spec.auditAnnotations', annotations, `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
  const keys = new Set<string>();
  annotations.forEach((a, i) => {
    const p = `spec.auditAnnotations[${i}]`;
    const key = v.str(a.key, `${p}.key`) ?? '';
    if (name) for (const msg of labelKeyMessages(`${name}/${key}`)) v.add(invalidValue(`${p}.key`, `${name}/${key}`, msg));
    else v.add(invalidValue(`${p}.key`, key, 'requires metadata.name be non-empty'));
    const e = (v.str(a.valueExpression, `${p}.valueExpression`) ?? '').trim();
    if (!e) v.add(required(`${p}.valueExpression`, 'valueExpression is not specified'));
    else if (e.length > MAX_AUDIT_VALUE_EXPRESSION) v.add(required(`${p}.valueExpression`, `must not exceed ${MAX_AUDIT_VALUE_EXPRESSION} bytes in length`));
    else expression(v, e, 'string|null', hasParams, true, `${p}.valueExpression`);
    if (keys.has(key)) v.add(duplicate(`${p}.key`, key));
    keys.add(key);
  });
}

export function validateAdmissionPolicyBinding(v: Causes, raw: Obj): void {
  const spec = validateBindingCommon(v, defaulted(raw, defaultBinding));
  validateActions(v, spec);
}

function validateBindingCommon(v: Causes, obj: Obj, operations: readonly string[] = OPERATIONS): Obj {
  const spec = v.obj(obj.spec, 'spec') ?? {};
  const policyName = v.str(spec.policyName, 'spec.policyName') ?? '';
  if (!policyName) v.add(required('spec.policyName'));
  else for (const msg of isDNS1123Subdomain(policyName)) v.add(invalidValue('spec.policyName', policyName, msg));
  const ref = v.obj(spec.paramRef, 'spec.paramRef');
  if (ref) {
    const name = v.str(ref.name, 'spec.paramRef.name') ?? '';
    const selector = v.obj(ref.selector, 'spec.paramRef.selector');
    if (name) {
      for (const msg of validatePathSegmentName(name)) v.add(invalidValue('spec.paramRef.name', name, msg));
      if (selector) v.add(forbidden('spec.paramRef.name', 'name and selector are mutually exclusive'));
    }
    if (selector) {
      validateLabelSelector(v, selector, 'spec.paramRef.selector');
      if (name) v.add(forbidden('spec.paramRef.selector', 'name and selector are mutually exclusive'));
    }
    if (!name && !selector) v.add(required('spec.paramRef', 'one of name or selector must be specified'));
    const action = v.str(ref.parameterNotFoundAction, 'spec.paramRef.parameterNotFoundAction') ?? '';
    if (!action) v.add(required('spec.paramRef.parameterNotFoundAction'));
    else if (action !== 'Deny' && action !== 'Allow') v.add(notSupported('spec.paramRef.parameterNotFoundAction', action, ['Deny', 'Allow']));
  }
  // kube spells this path "matchResouces".
  validateMatchResources(v, v.obj(spec.matchResources, 'spec.matchResources'), 'spec.matchResouces', operations);
  return spec;
}

function validateActions(v: Causes, spec: Obj): void {
  const actions = v.strs(spec.validationActions, 'spec.validationActions');
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!ACTIONS.includes(a)) v.add(notSupported(`spec.validationActions[${i}]`, a, ACTIONS));
    if (seen.has(a)) v.add(duplicate(`spec.validationActions[${i}]`, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    v.add(invalidValue('spec.validationActions', actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (!seen.size) v.add(required('spec.validationActions', 'at least one validation action is required'));
}

const PATCH_TYPES = ['ApplyConfiguration', 'JSONPatch'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
// A MutatingAdmissionPolicy (and its binding) may not match DELETE; `*` means CREATE, UPDATE and CONNECT.
const MUTATING_OPERATIONS = ['*', 'CONNECT', 'CREATE', 'UPDATE'];

/**
 * MutatingAdmissionPolicy (v1alpha1): what it shares with the validating policy, then mutations — patchType, the
 * expression of its applyConfiguration or jsonPatch compiled (Object{…}/JSONPatch{…} construction as ./mutate.ts
 * reads it) — reinvocationPolicy (required), and no DELETE in the rules.
 */
export function validateMutatingAdmissionPolicy(v: Causes, raw: Obj): void {
  const obj = defaulted(raw, defaultPolicy);
  const spec = v.obj(obj.spec, 'spec') ?? {};
  const { hasParams } = validatePolicyCommon(v, spec, MUTATING_OPERATIONS);
  const mutations = v.objs(spec.mutations, 'spec.mutations');
  if (!mutations.length) v.add(required('spec.mutations', 'mutations must contain at least one item'));
  mutations.forEach((m, i) => {
    const p = `spec.mutations[${i}]`;
    const type = v.str(m.patchType, `${p}.patchType`);
    if (!type) {
      v.add(required(`${p}.patchType`));
      return;
    }
    if (!PATCH_TYPES.includes(type)) {
      v.add(notSupported(`${p}.patchType`, type, PATCH_TYPES));
      return;
    }
    const field = type === 'JSONPatch' ? 'jsonPatch' : 'applyConfiguration';
    const holder = v.obj(m[field], `${p}.${field}`);
    if (!holder) {
      v.add(required(`${p}.${field}`, `${field} field is required when patchType is ${type}`));
      return;
    }
    const e = v.str(holder.expression, `${p}.${field}.expression`) ?? '';
    if (!e.trim()) v.add(required(`${p}.${field}.expression`));
    else {
      const c = compileMutationExpression(type, e, hasParams);
      if (c.error) v.add(invalidValue(`${p}.${field}.expression`, e, c.error));
    }
  });
  const reinvocation = v.str(spec.reinvocationPolicy, 'spec.reinvocationPolicy');
  if (reinvocation === undefined) v.add(required('spec.reinvocationPolicy'));
  else if (!REINVOCATION_POLICIES.includes(reinvocation)) v.add(notSupported('spec.reinvocationPolicy', reinvocation, REINVOCATION_POLICIES));
}

/** MutatingAdmissionPolicyBinding (v1alpha1): policyName, paramRef and matchResources as the validating binding's. */
export function validateMutatingAdmissionPolicyBinding(v: Causes, raw: Obj): void {
  validateBindingCommon(v, defaulted(raw, defaultBinding), MUTATING_OPERATIONS);
}
