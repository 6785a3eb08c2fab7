// Canonical layer admission: a binding's roleRef never changes (kube pkg/apis/rbac/validation
// ValidateRoleBindingUpdate): a change answers 422 with the new value printed as Go's %#v of the
// internal rbac.RoleRef, which is what clients see from kube-apiserver.

import type { KubeObject } from '../object-meta';
import { sameJson } from '../object-meta';
import type { StatusCause } from '../status';

const BINDING_KINDS = new Set(['RoleBinding', 'ClusterRoleBinding']);

export function roleRefViolations(kind: string, old: KubeObject, next: KubeObject): StatusCause[] {
  if (!BINDING_KINDS.has(kind) || sameJson(refOf(old.roleRef), refOf(next.roleRef))) return [];
  return [{ reason: 'FieldValueInvalid', field: 'roleRef', message: `Invalid value: ${goRoleRef(next.roleRef)}: cannot change roleRef` }];
}

const FIELDS = ['apiGroup', 'kind', 'name'] as const;

function refOf(v: unknown): Record<string, unknown> {
  const r = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  return Object.fromEntries(FIELDS.map((f) => [f, r[f] ?? '']));
}

function goRoleRef(v: unknown): string {
  const r = refOf(v);
  return `rbac.RoleRef{${FIELDS.map((f) => `${f === 'apiGroup' ? 'APIGroup' : f[0].toUpperCase() + f.slice(1)}:${JSON.stringify(typeof r[f] === 'string' ? r[f] : String(r[f]))}`).join(', ')}}`;
}
