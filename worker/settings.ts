// Front door: the secrets authentication needs, the settings of this isolate (core/settings.ts, parsed once),
// and the check that refuses to serve without them. There is no built-in fallback key: without
// SERVICE_ACCOUNT_SIGNING_KEY or an ADMIN_TOKEN to derive it from, every request gets 503 naming the missing
// secret (a computable key would let anyone mint ServiceAccount tokens); a setting with a bad value is a 503
// naming it too, never a guess.

import type { MiddlewareHandler } from 'hono';
import { serviceUnavailable, statusResponse } from '../core/status';
import { deriveKeyFromAdminToken, keyFromSecret, MIN_KEY_BYTES } from '../core/auth/service-account-token';
import type { AppEnv, Bindings } from './env';
import { SETTINGS, settingsOf } from '../core/settings';

// kube-apiserver's --service-account-issuer as clusters commonly set it; --api-audiences defaults to it.
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = SETTINGS.serviceAccountIssuer.default;
// TokenRequest: spec.expirationSeconds defaults to one hour and may not be under ten minutes
// (pkg/apis/authentication/v1 defaults; validation.ValidateTokenRequest) nor over 2^32 seconds.
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 60 * 60;
export const MIN_TOKEN_EXPIRATION_SECONDS = 10 * 60;
export const MAX_TOKEN_EXPIRATION_SECONDS = 2 ** 32;
// --service-account-max-token-expiration: longer requests are shortened to this, with a warning. kube has
// no cap unless the flag is set; here one day is the default, and the setting may not go under one hour.
export const DEFAULT_MAX_TOKEN_EXPIRATION_SECONDS = SETTINGS.serviceAccountMaxTokenExpirationSeconds.default;

/**
 * Paths anonymous requests may reach even with ANONYMOUS_AUTH off, so load balancers can probe: kube 1.32's
 * AuthenticationConfiguration `anonymous: {enabled: true, conditions: [{path: /livez}, ...]}`
 * (feature AnonymousAuthConfigurableEndpoints; apiserver pkg/authentication/request/anonymous matches
 * req.URL.Path exactly). RBAC (system:public-info-viewer) still decides what anonymous may do there.
 */
export const ANONYMOUS_PATHS: ReadonlySet<string> = new Set(['/healthz', '/livez', '/readyz', '/version']);

export interface AuthSettings {
  adminToken: string | undefined;
  staticTokens: string; // kube's --token-auth-file CSV
  anonymousAuth: boolean; // ANONYMOUS_AUTH = "true": anonymous on every path (subject to RBAC)
  issuer: string;
  apiAudiences: string[]; // a ServiceAccount token authenticates only if its aud holds one of these
  maxTokenExpirationSeconds: number;
}

/** Every problem that stops the Worker from serving, each naming the secret to set; empty when fine. */
export function missingSecrets(env: Partial<Bindings>): string[] {
  const explicit = env.SERVICE_ACCOUNT_SIGNING_KEY;
  if (explicit) {
    return keyFromSecret(explicit).byteLength < MIN_KEY_BYTES
      ? [`the SERVICE_ACCOUNT_SIGNING_KEY secret must be at least ${MIN_KEY_BYTES} bytes long`]
      : [];
  }
  if (env.ADMIN_TOKEN) return [];
  return ['the SERVICE_ACCOUNT_SIGNING_KEY secret is not set (nor ADMIN_TOKEN to derive it from)'];
}

/** The secrets from `env`, the rest from its settings (requireConfiguration has refused bad ones already). */
export function authSettings(env: Partial<Bindings>): AuthSettings {
  const s = settingsOf(env).settings;
  return {
    adminToken: env.ADMIN_TOKEN || undefined,
    staticTokens: env.STATIC_TOKENS ?? '',
    anonymousAuth: s.anonymousAuth,
    issuer: s.serviceAccountIssuer,
    apiAudiences: s.apiAudiences.length > 0 ? [...s.apiAudiences] : [s.serviceAccountIssuer],
    maxTokenExpirationSeconds: s.serviceAccountMaxTokenExpirationSeconds,
  };
}

// One derived key per distinct secret; a Worker isolate sees one configuration, so this holds one entry.
let cachedKey: { secret: string; explicit: boolean; key: Promise<Uint8Array> } | undefined;

/** The ServiceAccount signing key; throws when missingSecrets(env) is not empty (requireSecrets stops that first). */
export function signingKey(env: Partial<Bindings>): Promise<Uint8Array> {
  const problems = missingSecrets(env);
  if (problems.length > 0) throw new Error(problems.join('; '));
  const explicit = Boolean(env.SERVICE_ACCOUNT_SIGNING_KEY);
  const secret = explicit ? env.SERVICE_ACCOUNT_SIGNING_KEY! : env.ADMIN_TOKEN!;
  if (cachedKey?.secret !== secret || cachedKey.explicit !== explicit) {
    cachedKey = { secret, explicit, key: explicit ? Promise.resolve(keyFromSecret(secret)) : deriveKeyFromAdminToken(secret) };
  }
  return cachedKey.key;
}

let reported = '';

/**
 * First middleware: without its secrets, or with a setting it cannot read, the Worker answers every request
 * with 503 naming them; otherwise the request carries the isolate's settings (c.get('settings')).
 */
export const requireConfiguration: MiddlewareHandler<AppEnv> = async (c, next) => {
  const parsed = settingsOf(c.env);
  const problems = [...missingSecrets(c.env), ...parsed.problems];
  if (problems.length === 0) {
    c.set('settings', parsed.settings);
    return next();
  }
  const message = `edgeplane is not configured: ${problems.join('; ')}`;
  if (reported !== message) {
    reported = message; // once per isolate (and again only if the problem changes)
    console.error(message);
  }
  return statusResponse(serviceUnavailable(message));
};
