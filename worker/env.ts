// Front door: the bindings the Worker gets from wrangler.toml / Miniflare, and per-request variables.

import type { ResourceStore } from '../durable-objects/resource-store';
import type { WatchReplica } from '../durable-objects/watch-replica';
import type { Authorizer } from '../durable-objects/authorizer';
import type { ControllerManagerObject } from '../durable-objects/controller-manager';
import type { UserInfo } from '../core/rbac/authorize';
import type { ResourceRequest } from '../core/request-info';
import type { AuditState } from './audit';

export interface Bindings {
  STORE: DurableObjectNamespace<ResourceStore>;
  REPLICA: DurableObjectNamespace<WatchReplica>;
  AUTHORIZER: DurableObjectNamespace<Authorizer>;
  CONTROLLER_MANAGER?: DurableObjectNamespace<ControllerManagerObject>;
  // Control loops (worker/controllers.ts): "" or "off" disables them; SIMULATED_NODES nodes of the
  // simulated kubelets (default 3, 0 = none).
  CONTROLLERS?: string;
  SIMULATED_NODES?: string;
  EVENT_TTL_SECONDS?: string; // events expire this long after their last write (kube-apiserver --event-ttl; default 3600)
  // Node loss (controllers/node-lifecycle.ts): seconds without a Lease renewal before a node is Unknown
  // (default 40), and the tolerationSeconds the DefaultTolerationSeconds admission gives pods (default 300).
  NODE_MONITOR_GRACE_SECONDS?: string;
  DEFAULT_TOLERATION_SECONDS?: string;
  // Secrets: the admin token (group system:masters), static tokens in kube's token-file CSV format, and
  // the key ServiceAccount tokens are signed with (derived from ADMIN_TOKEN when unset; with neither, the
  // Worker refuses to serve). Read through worker/settings.ts.
  ADMIN_TOKEN?: string;
  STATIC_TOKENS?: string;
  SERVICE_ACCOUNT_SIGNING_KEY?: string;
  ANONYMOUS_AUTH?: string; // "true": requests without a token act as system:anonymous
  SERVICE_ACCOUNT_ISSUER?: string; // iss of ServiceAccount tokens (kube's --service-account-issuer)
  API_AUDIENCES?: string; // comma-separated; tokens must carry one (kube's --api-audiences; default: the issuer)
  SERVICE_ACCOUNT_MAX_TOKEN_EXPIRATION_SECONDS?: string; // TokenRequests asking longer are shortened to this
  AUTHZ_SHARDS?: string; // authorizer Durable Objects users are spread over
  // Watch-cache replicas: location hints to place them in ("" switches replicas off), and how many
  // replicas share the watchers of one location.
  REPLICA_LOCATIONS?: string;
  REPLICAS_PER_LOCATION?: string;
  // Routes /debug/* (abort and pause objects) for fault tests. Never set in production.
  ENABLE_TEST_HOOKS?: string;
}

export interface AppEnv {
  Bindings: Bindings;
  // Set by authentication and authorization, in that order; `request` is undefined for non-resource paths.
  // `user` is the authenticated user until impersonation (in authorization) replaces it with the impersonated one.
  // `audit`: the request's audit state (worker/audit.ts), from the first API middleware on.
  // `impersonator`: the authenticated user of an impersonating request (`user` is then the impersonated one).
  Variables: { user: UserInfo; request: ResourceRequest | undefined; audit: AuditState | undefined; impersonator: UserInfo | undefined };
}
