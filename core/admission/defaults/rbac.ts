// Canonical layer admission: rbac/v1 defaulting (kubernetes pkg/apis/rbac/v1/defaults.go): a binding's
// roleRef and its User/Group subjects belong to rbac.authorization.k8s.io unless they say otherwise.

import { isObject, objects, type Obj } from './fill';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export function binding(obj: Obj): void {
  if (isObject(obj.roleRef) && !obj.roleRef.apiGroup) obj.roleRef.apiGroup = RBAC_GROUP;
  for (const s of objects(obj.subjects)) {
    if (s.apiGroup) continue;
    // A ServiceAccount's group is "", which the omitempty field does not write.
    if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = RBAC_GROUP;
  }
}
