// Core: a strategy extended with the update strategies of subresources that replace one part of the object
// (core/subresource-strategies.ts: pods/ephemeralcontainers, certificatesigningrequests/approval), as kube
// installs a strategy per such subresource (podEphemeralContainersStrategy, csrApprovalStrategy).

import { subresourceStrategy } from '../subresource-strategies';
import type { WriteStrategy } from './strategy';
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

/** CertificateSigningRequests: /approval replaces only the approval conditions. */
export const CSR_STRATEGY: WriteStrategy = withSubresourceUpdates(DEFAULT_STRATEGY);
