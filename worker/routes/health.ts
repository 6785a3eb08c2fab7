// Front door: /healthz, /livez and /readyz in kube-apiserver's format (apiserver pkg/server/healthz):
// "ok", or with ?verbose one "[+]<check> ok" line per check and "<endpoint> check passed"; each check
// also at /<endpoint>/<check>; ?exclude=<check> skips one. Anonymous callers reach the bare endpoints
// (worker/settings.ts ANONYMOUS_PATHS, then RBAC's system:public-info-viewer); sub-paths need a user.
// The Worker answering is the only check there is: a check that inspected nothing would be a lie.

import { Hono, type Context } from 'hono';
import type { AppEnv } from '../env';
import { statusResponse, unknownResource } from '../../core/status';

const CHECKS = ['ping'] as const;
const HEADERS = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' };

export const health = new Hono<AppEnv>();

for (const endpoint of ['healthz', 'livez', 'readyz']) {
  health.get(`/${endpoint}`, (c) => report(c, endpoint));
  health.get(`/${endpoint}/:check`, (c) => {
    if (!(CHECKS as readonly string[]).includes(c.req.param('check'))) return statusResponse(unknownResource());
    return c.body('ok', 200, HEADERS);
  });
}

function report(c: Context<AppEnv>, endpoint: string): Response {
  const url = new URL(c.req.url);
  if (!url.searchParams.has('verbose')) return c.body('ok', 200, HEADERS);
  const excluded = new Set(url.searchParams.getAll('exclude').flatMap((e) => e.split(',')).map((e) => e.trim()).filter(Boolean));
  const lines = CHECKS.map((check) => (excluded.delete(check) ? `[+]${check} excluded: ok` : `[+]${check} ok`));
  if (excluded.size > 0) {
    lines.push(`warn: some health checks cannot be excluded: no matches for ${[...excluded].map((e) => `"${e}"`).join(',')}`);
  }
  lines.push(`${endpoint} check passed`);
  return c.body(`${lines.join('\n')}\n`, 200, HEADERS);
}
