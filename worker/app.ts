// Front door: the Hono app. Authentication first, then health, discovery and OpenAPI, then every
// resource path; every error leaves as a Kubernetes Status.

import { Hono } from 'hono';
import { internalError, StatusError, statusResponse, unknownResource } from '../core/status';
import type { AppEnv } from './env';
import { requireConfiguration } from './settings';
import { authenticate } from './auth';
import { authorize } from './authz';
import { audit, auditInit } from './audit';
import { auditLog } from './audit-log';
import { discovery } from './routes/discovery';
import { health } from './routes/health';
import { metrics } from './routes/metrics';
import { testHooks } from './routes/test-hooks';
import { handleResource } from './handlers/resource';
import { ui } from './routes/ui';
import { consoleApi } from './routes/console-api';
import { simulatedNodes } from './routes/simulated-nodes';
import { encodeResponse } from './response-encoding';
import { drainUnread } from './body';
import { customTypes } from './crd-sync';
import { ensureControllers } from './controllers';
import { proxyRules } from './routes/proxy-rules';

export const app = new Hono<AppEnv>();

app.onError((err) => {
  if (err instanceof StatusError) return statusResponse(err.status);
  console.error('unhandled error', err);
  return statusResponse(internalError(err.message));
});

app.notFound(() => statusResponse(unknownResource()));

// Outermost: a request body left unread by an early answer is drained, so the client gets that answer.
app.use('*', async (c, next) => {
  await next();
  await drainUnread(c.req.raw);
});
app.use('*', requireConfiguration); // 503 naming a missing secret or a bad setting; c.get('settings') after it
app.use('*', encodeResponse);
app.use('*', ensureControllers); // wakes the controller manager singleton once per isolate

// The console's assets are public (the API calls they make are not).
app.route('/', ui);

// kube's handler chain, outermost first: audit init (Audit-Id), authentication (failures audited), audit (the
// policy judged on the authenticated user), then impersonation, flow control and authorization (worker/authz.ts).
app.use('*', auditInit);
app.use('*', authenticate);
app.use('*', audit);
app.use('*', customTypes); // CRD-defined types, before a request is parsed against the registry
app.use('*', authorize);

app.route('/', health);
app.route('/', discovery);
app.route('/', metrics);
app.route('/', auditLog);
app.route('/', testHooks);
app.route('/', consoleApi);
app.route('/', proxyRules);
app.route('/', simulatedNodes);

app.all('*', (c) => {
  const info = c.get('request');
  if (!info) return statusResponse(unknownResource());
  return handleResource(c, info);
});
