import { afterEach, describe, expect, it, vi } from 'vitest';
import { Hono } from 'hono';
import type { AppEnv, Bindings } from '../../worker/env';
import {
  authSettings, DEFAULT_MAX_TOKEN_EXPIRATION_SECONDS, DEFAULT_SERVICE_ACCOUNT_ISSUER, missingSecrets, requireConfiguration, signingKey,
} from '../../worker/settings';
import { deriveKeyFromAdminToken, keyFromSecret } from '../../core/auth/service-account-token';

const KEY = '0123456789abcdef0123456789abcdef';

afterEach(() => vi.restoreAllMocks());

describe('missingSecrets', () => {
  it('asks for a signing key, or an admin token to derive one from', () => {
    expect(missingSecrets({})).toEqual(['the SERVICE_ACCOUNT_SIGNING_KEY secret is not set (nor ADMIN_TOKEN to derive it from)']);
    expect(missingSecrets({ ADMIN_TOKEN: '', SERVICE_ACCOUNT_SIGNING_KEY: '' })).toHaveLength(1);
    expect(missingSecrets({ ADMIN_TOKEN: 'a' })).toEqual([]);
    expect(missingSecrets({ SERVICE_ACCOUNT_SIGNING_KEY: KEY })).toEqual([]);
  });

  it('refuses a signing key shorter than 256 bits even with an admin token', () => {
    expect(missingSecrets({ SERVICE_ACCOUNT_SIGNING_KEY: 'short', ADMIN_TOKEN: 'a' })).toEqual(['the SERVICE_ACCOUNT_SIGNING_KEY secret must be at least 32 bytes long']);
  });
});

describe('authSettings', () => {
  it('defaults the issuer, the API audiences to the issuer, and the expiration cap', () => {
    expect(authSettings({})).toEqual({
      adminToken: undefined, staticTokens: '', anonymousAuth: false, issuer: DEFAULT_SERVICE_ACCOUNT_ISSUER,
      apiAudiences: [DEFAULT_SERVICE_ACCOUNT_ISSUER], maxTokenExpirationSeconds: DEFAULT_MAX_TOKEN_EXPIRATION_SECONDS,
    });
    expect(DEFAULT_SERVICE_ACCOUNT_ISSUER).toBe('https://kubernetes.default.svc.cluster.local');
  });

  it('reads the issuer, comma-separated audiences and the cap from the settings', () => {
    const vars = (v: Record<string, string>) => v as Partial<Bindings>;
    const s = authSettings(vars({ SERVICE_ACCOUNT_ISSUER: 'https://issuer', API_AUDIENCES: ' a, ,b ', SERVICE_ACCOUNT_MAX_TOKEN_EXPIRATION_SECONDS: '7200', ANONYMOUS_AUTH: 'true' }));
    expect(s).toMatchObject({ issuer: 'https://issuer', apiAudiences: ['a', 'b'], maxTokenExpirationSeconds: 7200, anonymousAuth: true });
    expect(authSettings(vars({ SERVICE_ACCOUNT_ISSUER: 'https://issuer' })).apiAudiences).toEqual(['https://issuer']);
  });

  it('refuses to serve with a cap outside one hour to 2^32 seconds, instead of guessing one', async () => {
    const app = new Hono<AppEnv>();
    app.use('*', requireConfiguration);
    app.get('*', (c) => c.text('served'));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    for (const [value, problem] of [['60', 'must be between 3600 and 4294967296 (seconds), not 60'], ['soon', 'must be a whole number (seconds), not "soon"'], [String(2 ** 40), `must be between 3600 and 4294967296 (seconds), not ${2 ** 40}`]]) {
      const res = await app.request('/healthz', {}, { ADMIN_TOKEN: 'a', SERVICE_ACCOUNT_MAX_TOKEN_EXPIRATION_SECONDS: value } as unknown as Bindings);
      expect(res.status).toBe(503);
      expect(((await res.json()) as { message: string }).message).toBe(`edgeplane is not configured: SERVICE_ACCOUNT_MAX_TOKEN_EXPIRATION_SECONDS: ${problem}`);
    }
    expect(DEFAULT_MAX_TOKEN_EXPIRATION_SECONDS).toBe(86400);
  });
});

describe('signingKey', () => {
  it('is the explicit key, else one derived from the admin token, never anything else', async () => {
    expect(await signingKey({ SERVICE_ACCOUNT_SIGNING_KEY: KEY, ADMIN_TOKEN: 'a' })).toEqual(keyFromSecret(KEY));
    expect(await signingKey({ ADMIN_TOKEN: 'a' })).toEqual(await deriveKeyFromAdminToken('a'));
    expect(() => signingKey({})).toThrow(/SERVICE_ACCOUNT_SIGNING_KEY/);
  });
});

describe('requireConfiguration', () => {
  const app = new Hono<AppEnv>();
  app.use('*', requireConfiguration);
  app.get('*', (c) => c.text('served'));
  const env = (e: Partial<Bindings>) => e as Bindings;

  it('answers 503 naming the secret, logging it once', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    for (const path of ['/healthz', '/api/v1/pods']) {
      const res = await app.request(path, {}, env({ ADMIN_TOKEN: '' }));
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'ServiceUnavailable', code: 503,
        message: 'edgeplane is not configured: the SERVICE_ACCOUNT_SIGNING_KEY secret is not set (nor ADMIN_TOKEN to derive it from)',
      });
    }
    expect(log).toHaveBeenCalledTimes(1);
    expect(await (await app.request('/healthz', {}, env({ SERVICE_ACCOUNT_SIGNING_KEY: KEY }))).text()).toBe('served');
  });
});
