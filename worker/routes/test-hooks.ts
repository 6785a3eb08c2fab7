// Front door, fault tests only: abort a store, a replica, an authorizer shard or the controller manager as a
// crash would, hold a replica's pushes to make it lag, or plant an object the API would refuse. Served only when ENABLE_TEST_HOOKS is "true";
// 404 otherwise.

import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { lookupGroupResource } from '../../core/registry';
import { badRequest, statusResponse, unknownResource } from '../../core/status';
import { reply } from '../handlers/reply';
import { storeFor } from '../stores';
import { authorizerName, authorizerStub, controllerManagerStub, replicaStub } from '../../contract/names';
import { armFailpoint, failpointState, INSIDE_FAILPOINTS, parseFailpointTerm, SKEW_POINTS, SLEEP_POINTS, type InsideFailpoint } from '../../contract/failpoints';

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

testHooks.post('/debug/authorizers/:shard{[0-9]+}/abort', async (c) => {
  const shard = Number(c.req.param('shard'));
  if (shard >= c.get('settings').authzShards) return statusResponse(unknownResource());
  await authorizerStub(c.env, authorizerName(shard)).abort().catch(() => undefined);
  return c.text('aborted');
});

testHooks.post('/debug/controller-manager/abort', async (c) => {
  const manager = controllerManagerStub(c.env);
  if (!manager) return statusResponse(unknownResource());
  await manager.abort().catch(() => undefined);
  return c.text('aborted');
});

/**
 * Arms a failpoint inside the objects (contract/failpoints.ts) for its next hits: body `throw`, `abort`, `N*throw`,
 * `N*abort`, `sleep(ms)` / `N*sleep(ms)` (watch.* points only), `skew(±ms)` (clock.skew only, until `off`) or `off`;
 * `?store=core/configmaps` limits it to that type's store (for watch.* points: that type's watchers, at its store and
 * its replicas; for informer.drop-event: that type's informers). The replica.push.* and informer.drop-event points
 * take either action word and drop, duplicate or reorder one push of the store to one follower, or drop one event.
 */
testHooks.put('/debug/failpoints/:name', async (c) => {
  const name = c.req.param('name');
  if (!(INSIDE_FAILPOINTS as readonly string[]).includes(name)) return statusResponse(unknownResource());
  const term = parseFailpointTerm((await c.req.text()).slice(0, 100));
  if (!term) return statusResponse(badRequest('failpoint: the body must be throw, abort, sleep(ms), N*throw, N*abort, N*sleep(ms), skew(ms) or off'));
  if (term.action === 'sleep' && !SLEEP_POINTS.includes(name as InsideFailpoint)) {
    return statusResponse(badRequest(`failpoint: ${name} cannot sleep (only ${SLEEP_POINTS.join(', ')} can)`));
  }
  const skews = SKEW_POINTS.includes(name as InsideFailpoint);
  if ((term.action === 'skew') !== skews && term.action !== 'off') {
    return statusResponse(badRequest(skews ? `failpoint: ${name} takes skew(ms) or off` : `failpoint: ${name} cannot skew (only ${SKEW_POINTS.join(', ')} can)`));
  }
  armFailpoint(name as InsideFailpoint, term.action, term.count, c.req.query('store') || undefined, term.ms);
  return c.json(failpointState());
});

testHooks.get('/debug/failpoints', (c) => c.json(failpointState()));

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
