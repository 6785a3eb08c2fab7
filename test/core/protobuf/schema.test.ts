// Tests: the generated schema is self-consistent (every referenced message exists, every kind maps to a message),
// so a bad regeneration fails here rather than on some client's request.

import { describe, expect, it } from 'vitest';
import { KINDS, LIST_WRAPPERS, MESSAGES } from '../../../core/protobuf/schema.generated';

const SCALARS = new Set([
  'string', 'bytes', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64',
  'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'double', 'float',
]);

function fieldsOf(key: string) {
  const pkg = key.slice(0, key.lastIndexOf('.'));
  return MESSAGES[key]!.split(' ').map((entry) => {
    const [num, name, type, flags = ''] = entry.split(':') as [string, string, string, string?];
    const map = type.match(/^map<(\w+),([\w./]+)>$/);
    const valueType = map ? map[2]! : type;
    const ref = SCALARS.has(valueType) ? undefined : valueType.includes('.') ? valueType : `${pkg}.${valueType}`;
    return { num: Number(num), name, type, flags, ref, mapKey: map?.[1] };
  });
}

describe('schema.generated', () => {
  it('every message references only known messages and has well-formed fields', () => {
    const problems: string[] = [];
    for (const key of Object.keys(MESSAGES)) {
      const fields = fieldsOf(key);
      if (new Set(fields.map((f) => f.num)).size !== fields.length) problems.push(`${key}: duplicate field number`);
      for (const f of fields) {
        const at = `${key}.${f.name}`;
        if (!(Number.isInteger(f.num) && f.num > 0)) problems.push(`${at}: bad number`);
        if (!/^[A-Za-z][A-Za-z0-9]*$/.test(f.name)) problems.push(`${at}: bad name`);
        if (!/^[rzi]*$/.test(f.flags)) problems.push(`${at}: bad flags ${f.flags}`);
        if (f.ref && MESSAGES[f.ref] === undefined) problems.push(`${at}: unknown message ${f.ref}`);
        if (f.mapKey && !SCALARS.has(f.mapKey)) problems.push(`${at}: map key ${f.mapKey}`);
        if (f.flags.includes('z') && f.ref) problems.push(`${at}: z on a message`);
        if (f.flags.includes('i') && !f.ref) problems.push(`${at}: i on a scalar`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('every kind names a message, and the kinds kubectl create/auth send are present', () => {
    for (const target of Object.values(KINDS)) expect(MESSAGES[target]).toBeDefined();
    for (const k of [
      'v1/Namespace', 'v1/ConfigMap', 'v1/Secret', 'v1/ServiceAccount', 'v1/Service', 'v1/Pod',
      'apps/v1/Deployment', 'batch/v1/Job', 'batch/v1/CronJob', 'rbac.authorization.k8s.io/v1/Role',
      'rbac.authorization.k8s.io/v1/RoleBinding', 'rbac.authorization.k8s.io/v1/ClusterRole',
      'rbac.authorization.k8s.io/v1/ClusterRoleBinding', 'authentication.k8s.io/v1/TokenRequest',
      'authentication.k8s.io/v1/SelfSubjectReview', 'authorization.k8s.io/v1/SelfSubjectAccessReview',
      'authorization.k8s.io/v1/SelfSubjectRulesReview', 'policy/v1/PodDisruptionBudget', 'policy/v1/Eviction',
      'networking.k8s.io/v1/Ingress', 'scheduling.k8s.io/v1/PriorityClass', 'v1/ResourceQuota',
    ]) {
      expect(KINDS[k], k).toBeDefined();
    }
  });

  it('list wrappers are single repeated-string messages', () => {
    for (const key of LIST_WRAPPERS) expect(MESSAGES[key]).toBe('1:items:string:r');
  });
});
