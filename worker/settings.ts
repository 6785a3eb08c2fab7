// Front door: the secrets and vars authentication needs, read in one place, with named defaults, and the
// check that refuses to serve without a signing secret. There is no built-in fallback key: without
// SERVICE_ACCOUNT_SIGNING_KEY or an ADMIN_TOKEN to derive it from, every request gets 503 naming the
// missing secret (a computable key would let anyone mint ServiceAccount tokens).

import type { MiddlewareHandler } from 'hono';
import { serviceUnavailable, statusResponse } from '../core/status';
import { deriveKeyFromAdminToken, keyFromSecret, MIN_KEY_BYTES } from '../core/auth/service-account-token';
import type { AppEnv, Bindings } from './env';

// kube-apiserver's --service-account-issuer as clusters commonly set it; --api-audiences defaults to it.
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
// TokenRequest: spec.expirationSeconds defaults to one hour and may not be under ten minutes
// (pkg/apis/authentication/v1 defaults; validation.ValidateTokenRequest) nor over 2^32 seconds.
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 60 * 60;
export const MIN_TOKEN_EXPIRATION_SECONDS = 10 * 60;
export const MAX_TOKEN_EXPIRATION_SECONDS = 2 ** 32;
// --service-account-max-token-expiration: longer requests are shortened to this, with a warning. kube has
// no cap unless the flag is set; here one day is the default, and the setting may not go under one hour.
export const DEFAULT_MAX_TOKEN_EXPIRATION_SECONDS = 24 * 60 * 60;
export const MIN_MAX_TOKEN_EXPIRATION_SECONDS = 60 * 60;

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

export function authSettings(env: Partial<Bindings>): AuthSettings {
  const issuer = env.SERVICE_ACCOUNT_ISSUER?.trim() || DEFAULT_SERVICE_ACCOUNT_ISSUER;
  const audiences = (env.API_AUDIENCES ?? '').split(',').map((a) => a.trim()).filter(Boolean);
  return {
    adminToken: env.ADMIN_TOKEN || undefined,
    staticTokens: env.STATIC_TOKENS ?? '',
    anonymousAuth: env.ANONYMOUS_AUTH === 'true',
    issuer,
    apiAudiences: audiences.length > 0 ? audiences : [issuer],
    maxTokenExpirationSeconds: boundedInteger(env.SERVICE_ACCOUNT_MAX_TOKEN_EXPIRATION_SECONDS, DEFAULT_MAX_TOKEN_EXPIRATION_SECONDS, MIN_MAX_TOKEN_EXPIRATION_SECONDS, MAX_TOKEN_EXPIRATION_SECONDS),
  };
}

function boundedInteger(raw: string | undefined, fallback: number, min: number, max: number): number {
  const n = Number(raw);
  if (raw === undefined || raw.trim() === '' || !Number.isInteger(n)) return fallback;
  return Math.min(max, Math.max(min, n));
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

/** First middleware: without its secrets the Worker answers every request with 503 naming them. */
export const requireSecrets: MiddlewareHandler<AppEnv> = async (c, next) => {
  const problems = missingSecrets(c.env);
  if (problems.length === 0) return next();
  const message = `edgeplane is not configured: ${problems.join('; ')}`;
  if (reported !== message) {
    reported = message; // once per isolate (and again only if the problem changes)
    console.error(message);
  }
  return statusResponse(serviceUnavailable(message));
};
