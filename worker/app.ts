// Front door: the Hono app. Authentication first, then health, discovery and OpenAPI, then every
// resource path; every error leaves as a Kubernetes Status.

import { Hono } from 'hono';
import { internalError, StatusError, statusResponse, unknownResource } from '../core/status';
import type { AppEnv } from './env';
import { authenticate } from './auth';
import { authorize } from './authz';
import { discovery } from './routes/discovery';
import { metrics } from './routes/metrics';
import { testHooks } from './routes/test-hooks';
import { handleResource } from './handlers/resource';
import { encodeResponse } from './response-encoding';

export const app = new Hono<AppEnv>();

app.onError((err) => {
  if (err instanceof StatusError) return statusResponse(err.status);
  console.error('unhandled error', err);
  return statusResponse(internalError(err.message));
});

app.notFound(() => statusResponse(unknownResource()));

app.use('*', encodeResponse);
app.use('*', authenticate);
app.use('*', authorize);

for (const path of ['/healthz', '/livez', '/readyz']) app.get(path, (c) => c.text('ok'));

app.route('/', discovery);
app.route('/', metrics);
app.route('/', testHooks);

app.all('*', (c) => {
  const info = c.get('request');
  if (!info) return statusResponse(unknownResource());
  return handleResource(c, info);
});
