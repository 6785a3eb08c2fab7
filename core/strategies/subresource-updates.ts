// Core: a strategy extended with the update strategies of subresources that replace one part of the object
// (core/subresource-strategies.ts: pods/ephemeralcontainers, certificatesigningrequests/approval), as kube
// installs a strategy per such subresource (podEphemeralContainersStrategy, csrApprovalStrategy).

import { subresourceStrategy } from '../subresource-strategies';
import type { WriteStrategy } from './strategy';
import type { KubeObject } from '../object-meta';
import { DEFAULT_STRATEGY } from './default';

export function withSubresourceUpdates(base: WriteStrategy): WriteStrategy {
  return {
    ...base,
    prepareForUpdate(next, current, subresource, env) {
      const own = subresourceStrategy(env.type, subresource);
      return own ? own.merge(current, next, env.now) : base.prepareForUpdate(next, current, subresource, env);
    },
    validateUpdate(obj, old, env, subresource = '') {
      const own = subresourceStrategy(env.type, subresource);
      return own ? own.validate(obj, old) : base.validateUpdate(obj, old, env, subresource);
    },
  };
}

/**
 * CertificateSigningRequests: /approval replaces only the approval conditions; a create records who asked
 * (spec.username, uid, groups, extra — kubectl's REQUESTOR column, and what the signers and approvers judge) and
 * starts with no status, whatever the body said (pkg/registry/certificates/certificates/strategy.go PrepareForCreate).
 */
export const CSR_STRATEGY: WriteStrategy = {
  ...withSubresourceUpdates(DEFAULT_STRATEGY),
  prepareForCreate(obj, env) {
    DEFAULT_STRATEGY.prepareForCreate?.(obj, env);
    const o = obj as KubeObject & { spec?: Record<string, unknown>; status?: unknown };
    const spec = (o.spec && typeof o.spec === 'object' ? o.spec : (o.spec = {})) as Record<string, unknown>;
    delete spec.username; delete spec.uid; delete spec.groups; delete spec.extra;
    const user = env.user;
    if (user) {
      if (user.username) spec.username = user.username;
      if (user.uid) spec.uid = user.uid;
      if (user.groups.length) spec.groups = [...user.groups];
      if (user.extra && Object.keys(user.extra).length) spec.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
    }
    o.status = {};
  },
};
