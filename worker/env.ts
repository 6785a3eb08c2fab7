// Front door: the bindings the Worker gets from wrangler.toml / Miniflare, and per-request variables.

import type { ResourceStore } from '../durable-objects/resource-store';

export interface Bindings {
  STORE: DurableObjectNamespace<ResourceStore>;
  ADMIN_TOKEN: string;
}

export interface AppEnv {
  Bindings: Bindings;
}
