// Front door: POST pods/<name>/binding (core/pods/binding.ts), authorized as `create pods/binding`: an atomic update
// of the pod's "binding" subresource, which the Pod strategy writes (core/strategies/pod.ts).

import { reply } from './reply';
import { attributed, send, type WriteQuery } from './write';
import type { Ctx, ResourceCall } from './call';

export async function bind(c: Ctx, call: ResourceCall, body: string, query: WriteQuery): Promise<Response> {
  const { namespace, name } = call.info;
  return reply(await send(c, call, attributed(c, call.url, { verb: 'update', namespace, name, subresource: 'binding', body }), query));
}
