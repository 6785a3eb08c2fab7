// Front door: authentication. A bearer token (header, or the WebSocket subprotocol browsers use) is the
// admin token, a static token from STATIC_TOKENS, or a ServiceAccount JWT this gateway signed for the API's
// audience. A request without a token is anonymous where allowed (ANONYMOUS_AUTH, or the health and version
// paths); a request with a token that does not authenticate is 401 even there, as kube-apiserver's
// union.NewFailOnError(authenticators, anonymous) does. Any failure while authenticating is a 401 (fail
// closed). Tokens and Authorization headers are never logged. Impersonation headers are read after this, by
// authorization (worker/authz.ts), which checks them against the user authenticated here.

import type { MiddlewareHandler } from 'hono';
import { base64url } from 'jose';
import { statusResponse, unauthorized } from '../core/status';
import { parseStaticTokens } from '../core/auth/static-tokens';
import { serviceAccountUsername, verifyServiceAccountToken } from '../core/auth/service-account-token';
import type { UserInfo } from '../core/rbac/authorize';
import type { AppEnv, Bindings } from './env';
import { ANONYMOUS_PATHS, authSettings, signingKey, type AuthSettings } from './settings';
import { stillBound } from './service-account-bindings';
import { INTERNAL_TOKEN_PREFIX, verifyInternalToken } from '../core/auth/internal-identity';
import { auditFailedAuthentication } from './audit';

// Browsers cannot set headers on a WebSocket, so the token may come as a subprotocol instead
// (apiserver pkg/authentication/request/websocket/protocol.go).
export const BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

const AUTHENTICATED = 'system:authenticated';
const ANONYMOUS: UserInfo = { username: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] };

/** No credential, a token to check, or a credential that is malformed (401 without looking further). */
type Credential = { kind: 'none' } | { kind: 'token'; token: string } | { kind: 'invalid' };

export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  let user: UserInfo | undefined;
  try {
    user = await authenticateRequest(c.env, c.req.raw);
  } catch (e) {
    // Only the error's class: its message or fields could hold claims from the token.
    console.error(`authentication failed closed: ${e instanceof Error ? e.name : typeof e}`);
    user = undefined;
  }
  if (!user) {
    auditFailedAuthentication(c); // kube's WithFailedAuthenticationAudit
    return statusResponse(unauthorized());
  }
  c.set('user', user);
  await next();
};

async function authenticateRequest(env: Bindings, req: Request): Promise<UserInfo | undefined> {
  const settings = authSettings(env);
  const credential = requestCredential(req.headers);
  if (credential.kind === 'token') return userFor(env, settings, credential.token);
  if (credential.kind === 'invalid') return undefined;
  return settings.anonymousAuth || ANONYMOUS_PATHS.has(new URL(req.url).pathname) ? ANONYMOUS : undefined;
}

async function userFor(env: Bindings, settings: AuthSettings, token: string): Promise<UserInfo | undefined> {
  if (settings.adminToken && (await sameSecret(token, settings.adminToken))) {
    return { username: 'admin', uid: 'admin', groups: ['system:masters', AUTHENTICATED] };
  }
  const fixed = staticTokens(settings.staticTokens).get(token);
  if (fixed) return { ...fixed, groups: [...fixed.groups, AUTHENTICATED] };
  // The gateway's own components (controller manager, simulated nodes): core/auth/internal-identity.ts.
  if (token.startsWith(INTERNAL_TOKEN_PREFIX)) return verifyInternalToken(await signingKey(env), token);
  if (token.split('.').length === 3) return serviceAccountUser(env, settings, token);
  return undefined;
}

/** A ServiceAccount token: ours, for the API's audience, in its lifetime, its account and bound object unchanged. */
async function serviceAccountUser(env: Bindings, settings: AuthSettings, token: string, audiences = settings.apiAudiences): Promise<UserInfo | undefined> {
  const nowSeconds = Math.floor(Date.now() / 1000);
  const verified = await verifyServiceAccountToken(token, await signingKey(env), {
    issuer: settings.issuer, audiences, nowSeconds,
  });
  if (!verified.ok) return undefined;
  const k = verified.claims['kubernetes.io'];
  if (!(await stillBound(env, k, nowSeconds))) return undefined;
  return {
    username: serviceAccountUsername(k.namespace, k.serviceaccount.name),
    uid: k.serviceaccount.uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${k.namespace}`, AUTHENTICATED],
  };
}

export interface TokenReviewResult {
  user?: UserInfo;
  audiences: string[]; // the requested audiences the token is good for
}

/**
 * TokenReview (pkg/registry/authentication/tokenreview/storage.go): the token authenticated as a request's would
 * be, for `requested` audiences (default: the API's). ServiceAccount tokens must carry one of them; tokens without
 * audiences (admin, static, internal) are audience-agnostic and good for the API's own audiences only
 * (authenticator.WrapAudienceAgnosticToken). Anything failing is simply unauthenticated.
 */
export async function reviewToken(env: Bindings, token: string, requested: string[]): Promise<TokenReviewResult> {
  const settings = authSettings(env);
  const auds = requested.length ? requested : [...settings.apiAudiences];
  try {
    if (token.split('.').length === 3 && !token.startsWith(INTERNAL_TOKEN_PREFIX)) {
      const user = await serviceAccountUser(env, settings, token, auds);
      if (!user) return { audiences: [] };
      const claimed = tokenAudiences(token);
      return { user, audiences: auds.filter((a) => claimed.includes(a)) };
    }
    const agnostic = auds.filter((a) => settings.apiAudiences.includes(a));
    if (!agnostic.length) return { audiences: [] };
    const user = await userFor(env, settings, token);
    return user ? { user, audiences: agnostic } : { audiences: [] };
  } catch (e) {
    console.error(`token review failed closed: ${e instanceof Error ? e.name : typeof e}`);
    return { audiences: [] };
  }
}

/** The `aud` claim of a JWT this gateway already verified. */
function tokenAudiences(token: string): string[] {
  try {
    const payload = JSON.parse(new TextDecoder().decode(base64url.decode(token.split('.')[1]!))) as { aud?: unknown };
    return Array.isArray(payload.aud) ? payload.aud.filter((a): a is string => typeof a === 'string') : typeof payload.aud === 'string' ? [payload.aud] : [];
  } catch {
    return [];
  }
}

let parsedTokens: { source: string; users: Map<string, UserInfo> } | undefined;
function staticTokens(source: string): Map<string, UserInfo> {
  if (parsedTokens?.source !== source) parsedTokens = { source, users: parseStaticTokens(source) };
  return parsedTokens.users;
}

/** The request's credential: the Authorization bearer token, else a WebSocket bearer subprotocol. */
export function requestCredential(headers: Headers): Credential {
  const bearer = bearerToken(headers.get('authorization'));
  if (bearer) return { kind: 'token', token: bearer };
  return protocolCredential(headers.get('sec-websocket-protocol'));
}

// apiserver pkg/authentication/request/bearertoken: "Bearer <token>"; another scheme or an empty token is
// no credential at all.
function bearerToken(header: string | null): string | undefined {
  const parts = (header ?? '').trim().split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer' || parts[1] === '') return undefined;
  return parts[1];
}

// apiserver pkg/authentication/request/websocket/protocol.go: a bearer protocol that does not decode, is
// empty, or comes twice is an error (401), not an absent credential.
function protocolCredential(header: string | null): Credential {
  const encoded = (header ?? '').split(',').map((p) => p.trim()).filter((p) => p.startsWith(BEARER_PROTOCOL_PREFIX));
  if (encoded.length === 0) return { kind: 'none' };
  if (encoded.length > 1) return { kind: 'invalid' };
  try {
    const token = new TextDecoder('utf-8', { fatal: true }).decode(base64url.decode(encoded[0].slice(BEARER_PROTOCOL_PREFIX.length)));
    return token ? { kind: 'token', token } : { kind: 'invalid' };
  } catch {
    return { kind: 'invalid' };
  }
}

// Compare digests, not strings, so the time taken says nothing about the token. The configured secret's
// digest is kept (per isolate, for the one secret configured): every request digests only what it presents.
// (The bytes are kept, not a promise: a promise is tied to the request that made it.)
let secretDigest: { secret: string; digest: Uint8Array } | undefined;

async function sameSecret(presented: string, secret: string): Promise<boolean> {
  const enc = new TextEncoder();
  const known = secretDigest?.secret === secret ? secretDigest.digest : undefined;
  const [da, db] = await Promise.all([
    crypto.subtle.digest('SHA-256', enc.encode(presented)),
    known ?? crypto.subtle.digest('SHA-256', enc.encode(secret)),
  ]);
  const x = new Uint8Array(da);
  const y = known ?? new Uint8Array(db);
  if (!known) secretDigest = { secret, digest: y };
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}
