// Front door: the canonical store stub for a resource type; one Durable Object per group/resource.

import { groupResource, type ResourceType } from '../core/registry';
import type { Bindings } from './env';

export function storeFor(env: Bindings, type: ResourceType) {
  return env.STORE.get(env.STORE.idFromName(groupResource(type)));
}
