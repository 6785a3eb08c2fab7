// Front door: POST pods/<name>/eviction (core/pods/eviction.ts), authorized as `create pods/eviction`: a DELETE of
// the pod with the Eviction's options, answered 201 with a Success Status.

import { createdStatus } from '../../core/status';
import { evictionDeleteOptions } from '../../core/pods/eviction';
import { json, reply } from './reply';
import { send, type WriteQuery } from './write';
import type { Ctx, ResourceCall } from './call';

export async function evict(c: Ctx, call: ResourceCall, body: string, query: WriteQuery): Promise<Response> {
  const { namespace, name } = call.info;
  const result = await send(c, call, { verb: 'delete', namespace, name, body: evictionDeleteOptions(body, name), query: {} }, query);
  return result.ok ? json(201, JSON.stringify(createdStatus())) : reply(result);
}
