// Authorizer input: stored Roles and bindings read defensively. An object that does not have the shape
// RBAC needs (subjects not a list, a rule field not a list of strings, no roleRef) is refused here, and
// the policy treats it as absent. kube-apiserver could not have decoded such an object into its typed
// informer cache either, and its rule resolver skips what it cannot use (rbac/validation/rule.go
// VisitRulesFor), so one bad object never fails other requests.

import type { PolicyRule } from './rules';

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup?: string;
  kind: string;
  name: string;
}

export interface StoredRole {
  rules: PolicyRule[];
}

export interface StoredBinding {
  subjects: Subject[];
  roleRef: RoleRef;
}

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const optString = (v: unknown): v is string | undefined | null => v === undefined || v === null || typeof v === 'string';

/** A list of strings, or absent (null, undefined) as an empty one; undefined when it is neither. */
function stringList(v: unknown): string[] | undefined | false {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) return false;
  return v as string[];
}

const RULE_FIELDS = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;

/** One PolicyRule with only its known list fields, or undefined when a field has the wrong type. */
export function parseRule(v: unknown): PolicyRule | undefined {
  if (!isObject(v)) return undefined;
  const rule: PolicyRule = {};
  for (const field of RULE_FIELDS) {
    const list = stringList(v[field]);
    if (list === false) return undefined;
    if (list) rule[field] = list;
  }
  return rule;
}

/** A rules list (absent: none), or undefined when it or any rule in it is malformed. */
export function parseRules(v: unknown): PolicyRule[] | undefined {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) return undefined;
  const rules: PolicyRule[] = [];
  for (const r of v) {
    const rule = parseRule(r);
    if (!rule) return undefined;
    rules.push(rule);
  }
  return rules;
}

export function parseRoleRef(v: unknown): RoleRef | undefined {
  if (!isObject(v) || typeof v.kind !== 'string' || typeof v.name !== 'string' || !optString(v.apiGroup)) return undefined;
  return { apiGroup: v.apiGroup ?? '', kind: v.kind, name: v.name };
}

function parseSubject(v: unknown): Subject | undefined {
  if (!isObject(v) || typeof v.kind !== 'string' || typeof v.name !== 'string' || !optString(v.namespace)) return undefined;
  return v.namespace ? { kind: v.kind, name: v.name, namespace: v.namespace } : { kind: v.kind, name: v.name };
}

export function parseRole(v: unknown): StoredRole | undefined {
  if (!isObject(v)) return undefined;
  const rules = parseRules(v.rules);
  return rules && { rules };
}

export function parseBinding(v: unknown): StoredBinding | undefined {
  if (!isObject(v)) return undefined;
  const roleRef = parseRoleRef(v.roleRef);
  if (!roleRef) return undefined;
  if (v.subjects !== undefined && v.subjects !== null && !Array.isArray(v.subjects)) return undefined;
  const subjects: Subject[] = [];
  for (const s of (v.subjects as unknown[] | undefined | null) ?? []) {
    const subject = parseSubject(s);
    if (!subject) return undefined;
    subjects.push(subject);
  }
  return { subjects, roleRef };
}
