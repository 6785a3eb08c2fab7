// Front door: keeps this isolate's CRD-defined types current before a request is routed (see
// core/crd/registry-sync.ts). Built-in resources never wait; a custom resource accepts a view up to
// CRD_MAX_AGE_MS old; discovery, OpenAPI and paths naming no known type look again after
// LOOKUP_AGAIN_MS, so a CRD created through any isolate is served here at once.

import type { MiddlewareHandler } from 'hono';
import { parseResourcePath } from '../core/request-info';
import { CRD_MAX_AGE_MS, crdSource, syncCustomTypes } from '../contract/crd-types';
import type { AppEnv } from './env';

const LOOKUP_AGAIN_MS = 100;

export const customTypes: MiddlewareHandler<AppEnv> = async (c, next) => {
  const path = new URL(c.req.url).pathname;
  if (path.startsWith('/api') || path.startsWith('/openapi')) {
    const info = parseResourcePath(c.req.method, path, false);
    const maxAgeMs = info?.type && !info.type.custom ? undefined : info?.type ? CRD_MAX_AGE_MS : LOOKUP_AGAIN_MS;
    if (maxAgeMs !== undefined) {
      try {
        await syncCustomTypes(crdSource(c.env), { now: Date.now(), maxAgeMs });
      } catch (e) {
        // Serve with the view this isolate has; the next request tries again.
        console.error('CRD sync failed', (e as Error)?.message);
      }
    }
  }
  await next();
};
