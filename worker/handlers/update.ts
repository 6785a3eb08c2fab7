// Front door: PUT of an object or of its /status, /scale or /finalize.

import { reply } from './reply';
import { attributed, send, writeQuery, writtenBody } from './write';
import type { Ctx, ResourceCall } from './call';

export async function update(c: Ctx, call: ResourceCall): Promise<Response> {
  const body = await writtenBody(c, call);
  const query = writeQuery(call.url);
  const { namespace, name, subresource } = call.info;
  return reply(await send(c, call, attributed(c, call.url, { verb: 'update', namespace, name, subresource, body }), query));
}
