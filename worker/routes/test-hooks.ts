// Front door, fault tests only: abort a store or a replica as a crash would, or hold a replica's
// pushes to make it lag. Served only when ENABLE_TEST_HOOKS is "true"; 404 otherwise.

import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { lookupGroupResource } from '../../core/registry';
import { statusResponse, unknownResource } from '../../core/status';
import { storeFor } from '../stores';

export const testHooks = new Hono<AppEnv>();

testHooks.use('/debug/*', async (c, next) => {
  if (c.env.ENABLE_TEST_HOOKS !== 'true') return statusResponse(unknownResource());
  await next();
});

testHooks.post('/debug/stores/:group/:resource/abort', async (c) => {
  const type = lookupGroupResource(`${c.req.param('group')}/${c.req.param('resource')}`);
  if (!type) return statusResponse(unknownResource());
  await storeFor(c.env, type).abort().catch(() => undefined);
  return c.text('aborted');
});

testHooks.post('/debug/replicas/:name/:action{abort|pause|resume}', async (c) => {
  const stub = c.env.REPLICA.get(c.env.REPLICA.idFromName(c.req.param('name')));
  const action = c.req.param('action');
  if (action === 'abort') await stub.abort().catch(() => undefined);
  else await stub.setPaused(action === 'pause');
  return c.text(action);
});
