// Test helper: the resource handlers (worker/handlers/resource.ts) behind a small Hono app, as worker/app.ts mounts
// them after authentication and authorization: the user, the settings and the parsed request are set directly, the
// STORE binding is the in-memory fake (./fake-store.ts) and AUTHORIZER a stub whose answers a test chooses.
import { Hono } from 'hono';
import type { AppEnv, Bindings } from '../../worker/env';
import { handleResource } from '../../worker/handlers/resource';
import { internalError, StatusError, statusResponse, unknownResource } from '../../core/status';
import { parseResourcePath } from '../../core/request-info';
import { queryBool } from '../../core/query-bool';
import { parseSettings } from '../../core/settings';
import type { UserInfo } from '../../core/rbac/authorize';
import { fakeStores } from './fake-store';
import { admissionCache } from '../../worker/admission-cache';

export const ADMIN: UserInfo = { username: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] };
export const ALICE: UserInfo = { username: 'alice', uid: 'u1', groups: ['system:authenticated'] };

export interface AuthorizerAnswers {
  /** What `check` (a second authorization, e.g. apply's create) answers; default true. */
  check?: boolean;
}

export function resourceApp(opts: { user?: UserInfo; vars?: Record<string, string>; authorizer?: AuthorizerAnswers } = {}) {
  const stores = fakeStores();
  admissionCache.clear(); // each app is a cluster of its own; the cache is the isolate's
  const authorizerCalls: { method: string; args: unknown[] }[] = [];
  const authorizer = {
    check: async (...args: unknown[]) => {
      authorizerCalls.push({ method: 'check', args });
      return opts.authorizer?.check ?? true;
    },
    catchUp: async (...args: unknown[]) => {
      authorizerCalls.push({ method: 'catchUp', args });
    },
    escalationGrant: async (...args: unknown[]) => {
      authorizerCalls.push({ method: 'escalationGrant', args });
      return { user: { username: 'alice', groups: [] }, privileged: false, namespace: '', ownerRules: [], resolutionErrors: [] };
    },
  };
  const env = {
    STORE: stores.STORE,
    AUTHORIZER: { idFromName: (n: string) => n, get: () => authorizer },
    CONTROLLERS: 'off',
    ...opts.vars,
  } as unknown as Bindings;
  const { settings, problems } = parseSettings(env);
  if (problems.length) throw new Error(problems.join('; '));
  const app = new Hono<AppEnv>();
  app.onError((err) => (err instanceof StatusError ? statusResponse(err.status) : statusResponse(internalError(err.message))));
  app.use('*', async (c, next) => {
    c.set('settings', settings);
    c.set('user', opts.user ?? ADMIN);
    const url = new URL(c.req.url);
    c.set('request', parseResourcePath(c.req.method, url.pathname, queryBool(url.searchParams, 'watch')));
    await next();
  });
  app.all('*', (c) => {
    const info = c.get('request');
    return info ? handleResource(c, info) : statusResponse(unknownResource());
  });
  const request = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => app.request(path, {
    method, headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  }, env);
  return { app, env, request, stores, storeOf: stores.storeOf, calls: stores.calls, authorizerCalls };
}
