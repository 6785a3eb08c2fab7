// Front door: the bindings the Worker gets from wrangler.toml / Miniflare, and per-request variables.

import type { ResourceStore } from '../durable-objects/resource-store';
import type { WatchReplica } from '../durable-objects/watch-replica';

export interface Bindings {
  STORE: DurableObjectNamespace<ResourceStore>;
  REPLICA: DurableObjectNamespace<WatchReplica>;
  ADMIN_TOKEN: string;
  // Watch-cache replicas: location hints to place them in ("" switches replicas off), and how many
  // replicas share the watchers of one location.
  REPLICA_LOCATIONS?: string;
  REPLICAS_PER_LOCATION?: string;
  // Routes /debug/* (abort and pause objects) for fault tests. Never set in production.
  ENABLE_TEST_HOOKS?: string;
}

export interface AppEnv {
  Bindings: Bindings;
}
