// The authentication middleware on its own, with fake bindings: who a request becomes, and that any
// failure while authenticating is a 401 that logs neither the token nor the header.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Hono } from 'hono';
import type { AppEnv, Bindings } from '../../worker/env';
import { authenticate } from '../../worker/auth';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER as ISSUER } from '../../worker/settings';
import { keyFromSecret, signServiceAccountToken } from '../../core/auth/service-account-token';

const KEY = '0123456789abcdef0123456789abcdef';
const app = new Hono<AppEnv>();
app.use('*', authenticate);
app.get('*', (c) => c.json(c.get('user')));

afterEach(() => vi.restoreAllMocks());

async function userFor(path: string, headers: Record<string, string>, env: Partial<Bindings> & Record<string, unknown>): Promise<unknown> {
  const res = await app.request(path, { headers }, { SERVICE_ACCOUNT_SIGNING_KEY: KEY, ...env } as Bindings);
  return res.status === 200 ? res.json() : res.status;
}

const ANONYMOUS = { username: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] };

describe('authenticate', () => {
  it('lets anonymous reach exactly the health and version paths unless ANONYMOUS_AUTH is on', async () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/version']) expect(await userFor(path, {}, {})).toEqual(ANONYMOUS);
    for (const path of ['/api', '/healthz/', '/livez/ping', '/versions', '/api/v1/namespaces']) expect(await userFor(path, {}, {})).toBe(401);
    expect(await userFor('/api', {}, { ANONYMOUS_AUTH: 'true' })).toEqual(ANONYMOUS);
    // Another scheme, or "Bearer" without a token, is no credential at all (bearertoken.go).
    expect(await userFor('/healthz', { authorization: 'Basic YTpi' }, {})).toEqual(ANONYMOUS);
    expect(await userFor('/healthz', { authorization: 'Bearer ' }, {})).toEqual(ANONYMOUS);
  });

  it('never falls back to anonymous for a token that does not authenticate', async () => {
    expect(await userFor('/healthz', { authorization: 'Bearer nope' }, { ANONYMOUS_AUTH: 'true' })).toBe(401);
    const twice = `base64url.bearer.authorization.k8s.io.YQ, base64url.bearer.authorization.k8s.io.Yg, x`;
    expect(await userFor('/healthz', { 'sec-websocket-protocol': twice }, { ADMIN_TOKEN: 'a' })).toBe(401);
  });

  it('knows the admin token, static tokens and a WebSocket bearer subprotocol', async () => {
    expect(await userFor('/api', { authorization: 'Bearer adm' }, { ADMIN_TOKEN: 'adm' })).toEqual({ username: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] });
    expect(await userFor('/api', { authorization: 'bearer t1' }, { STATIC_TOKENS: 't1,alice,u1,"g"' })).toEqual({ username: 'alice', uid: 'u1', groups: ['g', 'system:authenticated'] });
    const protocol = `base64url.bearer.authorization.k8s.io.${Buffer.from('adm').toString('base64url')}, base64.binary.k8s.io`;
    expect(await userFor('/api', { 'sec-websocket-protocol': protocol }, { ADMIN_TOKEN: 'adm' })).toMatchObject({ username: 'admin' });
  });

  it('fails closed with 401 when a lookup throws, and logs neither the token nor the header', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await signServiceAccountToken({
      iss: ISSUER, sub: 'system:serviceaccount:ns:sa', aud: [ISSUER], iat: now, nbf: now, exp: now + 600, jti: 'j',
      'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'u' } },
    }, keyFromSecret(KEY));
    const logged: string[] = [];
    for (const level of ['error', 'warn', 'log', 'info', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => { logged.push(args.map(String).join(' ')); });
    }
    const failingStore = { idFromName: () => { throw new Error(`store unavailable while checking ${token}`); } };
    expect(await userFor('/api', { authorization: `Bearer ${token}` }, { STORE: failingStore as unknown as Bindings['STORE'] })).toBe(401);
    expect(logged).toEqual(['authentication failed closed: Error']);
    expect(logged.join('\n')).not.toContain(token.split('.')[2]);
  });
});
