// Front door: the Hono environment — the bindings every part gets (contract/bindings.ts), and the per-request
// variables the middleware sets.

import type { Bindings } from '../contract/bindings';
import type { UserInfo } from '../core/rbac/authorize';
import type { ResourceRequest } from '../core/request-info';
import type { Settings } from '../core/settings';
import type { AuditState } from './audit';

export type { Bindings };

export interface AppEnv {
  Bindings: Bindings;
  // Set by authentication and authorization, in that order; `request` is undefined for non-resource paths.
  // `user` is the authenticated user until impersonation (in authorization) replaces it with the impersonated one.
  // `audit`: the request's audit state (worker/audit.ts), from the first API middleware on.
  // `impersonator`: the authenticated user of an impersonating request (`user` is then the impersonated one).
  Variables: { settings: Settings; user: UserInfo; request: ResourceRequest | undefined; audit: AuditState | undefined; impersonator: UserInfo | undefined };
}
