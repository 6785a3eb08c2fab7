// Core: RBAC validation with kube-apiserver's (v1.32) messages, after pkg/apis/rbac/validation
// (ValidateRole, ValidateClusterRole, ValidatePolicyRule, ValidateRoleBinding, ValidateClusterRoleBinding,
// ValidateRoleBindingSubject and the roleRef immutability of the *Update variants).
import { goRoleRef } from './go-values';
import { invalidValue, isDNS1123Subdomain, notSupported, required, validatePathSegmentName } from './names';
import { selectorFromLabelSelector, type LabelSelectorSpec } from '../selectors/label-selector';
import { validateLabelSelector } from './selector';
import { Causes, type Obj } from './shape';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function validatePolicyRules(v: Causes, rules: unknown, namespaced: boolean): void {
  v.objs(rules, 'rules').forEach((rule, i) => {
    const p = `rules[${i}]`;
    const verbs = v.strs(rule.verbs, `${p}.verbs`);
    const urls = v.strs(rule.nonResourceURLs, `${p}.nonResourceURLs`);
    const groups = v.strs(rule.apiGroups, `${p}.apiGroups`);
    const resources = v.strs(rule.resources, `${p}.resources`);
    const names = v.strs(rule.resourceNames, `${p}.resourceNames`);
    if (verbs.length === 0) v.add(required(`${p}.verbs`, 'verbs must contain at least one value'));
    if (urls.length > 0) {
      if (namespaced) v.add(invalidValue(`${p}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
      if (groups.length > 0 || resources.length > 0 || names.length > 0) {
        v.add(invalidValue(`${p}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
      }
      return;
    }
    if (groups.length === 0) v.add(required(`${p}.apiGroups`, 'resource rules must supply at least one api group'));
    if (resources.length === 0) v.add(required(`${p}.resources`, 'resource rules must supply at least one resource'));
  });
}

export function validateRole(v: Causes, obj: Obj): void {
  validatePolicyRules(v, obj.rules, true);
}

export function validateClusterRole(v: Causes, obj: Obj): void {
  validatePolicyRules(v, obj.rules, false);
  const agg = v.obj(obj.aggregationRule, 'aggregationRule');
  if (!agg) return;
  const selectors = v.objs(agg.clusterRoleSelectors, 'aggregationRule.clusterRoleSelectors');
  if (selectors.length === 0) {
    v.add(required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
  }
  selectors.forEach((sel, i) => {
    const p = `aggregationRule.clusterRoleSelectors[${i}]`;
    const before = v.all.length;
    validateLabelSelector(v, sel, p);
    if (v.all.length > before) return;
    try {
      selectorFromLabelSelector(sel as LabelSelectorSpec);
    } catch {
      v.add(invalidValue(p, sel, 'invalid label selector.'));
    }
  });
}

export function validateRoleBinding(v: Causes, obj: Obj, old?: Obj): void {
  validateBinding(v, obj, old, true);
}

export function validateClusterRoleBinding(v: Causes, obj: Obj, old?: Obj): void {
  validateBinding(v, obj, old, false);
}

function validateBinding(v: Causes, obj: Obj, old: Obj | undefined, namespaced: boolean): void {
  const ref = v.obj(obj.roleRef, 'roleRef') ?? {};
  const apiGroup = v.str(ref.apiGroup, 'roleRef.apiGroup') ?? '';
  if (apiGroup !== RBAC_GROUP) v.add(notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
  const kind = v.str(ref.kind, 'roleRef.kind') ?? '';
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(kind)) v.add(notSupported('roleRef.kind', kind, kinds));
  const name = v.str(ref.name, 'roleRef.name') ?? '';
  if (name === '') v.add(required('roleRef.name'));
  else for (const m of validatePathSegmentName(name)) v.add(invalidValue('roleRef.name', name, m));
  v.objs(obj.subjects, 'subjects').forEach((s, i) => validateSubject(v, s, namespaced, `subjects[${i}]`));
  if (old) {
    const before = isObjLike(old.roleRef) ? (old.roleRef as Obj) : undefined;
    const same = ['apiGroup', 'kind', 'name'].every((k) => (before?.[k] ?? '') === (ref[k] ?? ''));
    if (!same) v.add(invalidValue('roleRef', goRoleRef(ref), 'cannot change roleRef'));
  }
}

const isObjLike = (x: unknown) => typeof x === 'object' && x !== null && !Array.isArray(x);

function validateSubject(v: Causes, s: Obj, namespaced: boolean, path: string): void {
  const name = v.str(s.name, `${path}.name`) ?? '';
  if (name === '') v.add(required(`${path}.name`));
  const kind = v.str(s.kind, `${path}.kind`) ?? '';
  const apiGroupRaw = v.str(s.apiGroup, `${path}.apiGroup`);
  switch (kind) {
    case 'ServiceAccount': {
      if (name) for (const m of isDNS1123Subdomain(name)) v.add(invalidValue(`${path}.name`, name, m));
      if (apiGroupRaw) v.add(notSupported(`${path}.apiGroup`, apiGroupRaw, ['']));
      const ns = v.str(s.namespace, `${path}.namespace`) ?? '';
      if (!namespaced && ns === '') v.add(required(`${path}.namespace`));
      break;
    }
    case 'User':
    case 'Group': {
      // SetDefaults_Subject fills the RBAC group for users and groups.
      const apiGroup = apiGroupRaw || RBAC_GROUP;
      if (apiGroup !== RBAC_GROUP) v.add(notSupported(`${path}.apiGroup`, apiGroup, [RBAC_GROUP]));
      break;
    }
    default:
      v.add(notSupported(`${path}.kind`, kind, ['ServiceAccount', 'User', 'Group']));
  }
}
