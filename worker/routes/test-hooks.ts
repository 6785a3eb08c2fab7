// Front door, fault tests only: abort a store or a replica as a crash would, hold a replica's pushes to
// make it lag, or plant an object the API would refuse. Served only when ENABLE_TEST_HOOKS is "true";
// 404 otherwise.

import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { lookupGroupResource } from '../../core/registry';
import { badRequest, statusResponse, unknownResource } from '../../core/status';
import { reply } from '../handlers/resource';
import { storeFor } from '../stores';
import { replicaStub } from '../../contract/names';

export const testHooks = new Hono<AppEnv>();

testHooks.use('/debug/*', async (c, next) => {
  if (!c.get('settings').enableTestHooks) return statusResponse(unknownResource());
  await next();
});

testHooks.post('/debug/stores/:group/:resource/abort', async (c) => {
  const type = lookupGroupResource(`${c.req.param('group')}/${c.req.param('resource')}`);
  if (!type) return statusResponse(unknownResource());
  await storeFor(c.env, type).abort().catch(() => undefined);
  return c.text('aborted');
});

testHooks.post('/debug/replicas/:name/:action{abort|pause|resume}', async (c) => {
  const stub = replicaStub(c.env, c.req.param('name'));
  const action = c.req.param('action');
  if (action === 'abort') await stub.abort().catch(() => undefined);
  else await stub.setPaused(action === 'pause');
  return c.text(action);
});

/**
 * Commits `object` into the store of `groupResource` (e.g. "core/pods") as ADDED or MODIFIED, bypassing
 * admission, defaulting and validation, through the normal commit path (log, watchers, replicas).
 * Body: {"groupResource": "core/pods", "object": {...}}. Answers like a write: the stored object.
 */
testHooks.post('/debug/raw-write', async (c) => {
  let body: { groupResource?: unknown; object?: unknown };
  try {
    body = await c.req.json();
  } catch {
    return statusResponse(badRequest('raw write: the body must be JSON {groupResource, object}'));
  }
  const type = typeof body.groupResource === 'string' ? lookupGroupResource(body.groupResource) : undefined;
  if (!type || !type.stored) return statusResponse(badRequest(`raw write: unknown groupResource ${JSON.stringify(body.groupResource)}`));
  if (!body.object || typeof body.object !== 'object') return statusResponse(badRequest('raw write: object must be a JSON object'));
  return reply(await storeFor(c.env, type).rawWrite(body.groupResource as string, body.object as never));
});
