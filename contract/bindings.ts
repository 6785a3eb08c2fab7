// Contract: the environment the Worker and every Durable Object get from wrangler.toml / Miniflare — the
// Durable Object namespaces, typed by their RPC interfaces (rpc.ts), and the secrets.

import type { AuthorizerRpc, ControllerManagerRpc, ReplicaRpc, StoreRpc } from './rpc';

/**
 * The Durable Object bindings and the secrets. Every other variable is a setting: read through
 * core/settings.ts (c.get('settings') in the Worker, requireSettings(env) in a Durable Object), never here.
 */
export interface Bindings {
  STORE: DurableObjectNamespace<StoreRpc>;
  REPLICA: DurableObjectNamespace<ReplicaRpc>;
  AUTHORIZER: DurableObjectNamespace<AuthorizerRpc>;
  CONTROLLER_MANAGER?: DurableObjectNamespace<ControllerManagerRpc>;
  // Secrets: the admin token (group system:masters), static tokens in kube's token-file CSV format, and
  // the key ServiceAccount tokens are signed with (derived from ADMIN_TOKEN when unset; with neither, the
  // Worker refuses to serve). Read through worker/settings.ts.
  ADMIN_TOKEN?: string;
  STATIC_TOKENS?: string;
  SERVICE_ACCOUNT_SIGNING_KEY?: string;
  // The cluster CA's private key (PEM), which signs approved CertificateSigningRequests with CLUSTER_SIGNING_CERT.
  CLUSTER_SIGNING_KEY?: string;
}
