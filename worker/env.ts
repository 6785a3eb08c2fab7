// Front door: the bindings the Worker gets from wrangler.toml / Miniflare, and per-request variables.

import type { ResourceStore } from '../durable-objects/resource-store';
import type { WatchReplica } from '../durable-objects/watch-replica';
import type { Authorizer } from '../durable-objects/authorizer';
import type { ControllerManagerObject } from '../durable-objects/controller-manager';
import type { UserInfo } from '../core/rbac/authorize';
import type { ResourceRequest } from '../core/request-info';
import type { Settings } from '../core/settings';
import type { AuditState } from './audit';

/**
 * The Durable Object bindings and the secrets. Every other variable is a setting: read through
 * core/settings.ts (c.get('settings') in the Worker, requireSettings(env) in a Durable Object), never here.
 */
export interface Bindings {
  STORE: DurableObjectNamespace<ResourceStore>;
  REPLICA: DurableObjectNamespace<WatchReplica>;
  AUTHORIZER: DurableObjectNamespace<Authorizer>;
  CONTROLLER_MANAGER?: DurableObjectNamespace<ControllerManagerObject>;
  // Secrets: the admin token (group system:masters), static tokens in kube's token-file CSV format, and
  // the key ServiceAccount tokens are signed with (derived from ADMIN_TOKEN when unset; with neither, the
  // Worker refuses to serve). Read through worker/settings.ts.
  ADMIN_TOKEN?: string;
  STATIC_TOKENS?: string;
  SERVICE_ACCOUNT_SIGNING_KEY?: string;
}

export interface AppEnv {
  Bindings: Bindings;
  // Set by authentication and authorization, in that order; `request` is undefined for non-resource paths.
  // `user` is the authenticated user until impersonation (in authorization) replaces it with the impersonated one.
  // `audit`: the request's audit state (worker/audit.ts), from the first API middleware on.
  // `impersonator`: the authenticated user of an impersonating request (`user` is then the impersonated one).
  Variables: { settings: Settings; user: UserInfo; request: ResourceRequest | undefined; audit: AuditState | undefined; impersonator: UserInfo | undefined };
}
