// Front door: the canonical store stub for a resource type; one Durable Object per group/resource (contract/names.ts).

import { groupResource, type ResourceType } from '../core/registry';
import type { Result } from '../core/status';
import { storeStub } from '../contract/names';
import type { Bindings } from './env';

export function storeFor(env: Bindings, type: ResourceType) {
  return storeStub(env, groupResource(type));
}

/** One stored object, parsed; the store's Status (e.g. 404 NotFound) when it has none. */
export async function readObject<T>(env: Bindings, type: ResourceType, namespace: string, name: string): Promise<Result<T>> {
  const got = await storeFor(env, type).get(groupResource(type), { namespace, name, subresource: '' });
  return got.ok ? { ok: true, value: JSON.parse(got.value.body) as T } : got;
}
