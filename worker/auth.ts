// Front door: authentication. A bearer token (header, or the WebSocket subprotocol browsers use) is the
// admin token, a static token from STATIC_TOKENS, or a ServiceAccount JWT this gateway signed. Anything
// else is 401, unless ANONYMOUS_AUTH is "true". Tokens are never logged.

import type { MiddlewareHandler } from 'hono';
import { statusResponse, unauthorized } from '../core/status';
import { parseStaticTokens } from '../core/auth/static-tokens';
import { verifyJwt } from '../core/auth/jwt';
import type { UserInfo } from '../core/rbac/authorize';
import { lookupGroupResource } from '../core/registry';
import type { AppEnv, Bindings } from './env';
import { storeFor } from './stores';

// Browsers cannot set headers on a WebSocket, so the token may come as a subprotocol instead
// (apiserver pkg/authentication/request/websocket/protocol.go).
export const BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

const AUTHENTICATED = 'system:authenticated';
const SERVICE_ACCOUNTS = lookupGroupResource('core/serviceaccounts')!;

export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = bearerToken(c.req.header('authorization')) ?? protocolToken(c.req.header('sec-websocket-protocol'));
  const user = token ? await userFor(c.env, token) : anonymous(c.env);
  if (!user) return statusResponse(unauthorized());
  c.set('user', user);
  await next();
};

async function userFor(env: Bindings, token: string): Promise<UserInfo | undefined> {
  if (env.ADMIN_TOKEN && (await sameSecret(token, env.ADMIN_TOKEN))) {
    return { username: 'admin', uid: 'admin', groups: ['system:masters', AUTHENTICATED] };
  }
  const fixed = staticTokens(env).get(token);
  if (fixed) return { ...fixed, groups: [...fixed.groups, AUTHENTICATED] };
  if (token.split('.').length === 3) return serviceAccountUser(env, token);
  return undefined;
}

/** A ServiceAccount token is valid while signed by us, unexpired, and its account still exists as it was. */
async function serviceAccountUser(env: Bindings, token: string): Promise<UserInfo | undefined> {
  const claims = await verifyJwt(token, await signingKey(env), Math.floor(Date.now() / 1000));
  if (!claims) return undefined;
  const { namespace, serviceaccount } = claims['kubernetes.io'];
  const sa = await storeFor(env, SERVICE_ACCOUNTS).get('core/serviceaccounts', { namespace, name: serviceaccount.name, subresource: '' });
  if (!sa.ok || (JSON.parse(sa.value.body) as { metadata: { uid: string } }).metadata.uid !== serviceaccount.uid) return undefined;
  return {
    username: `system:serviceaccount:${namespace}:${serviceaccount.name}`,
    uid: serviceaccount.uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, AUTHENTICATED],
  };
}

function anonymous(env: Bindings): UserInfo | undefined {
  return env.ANONYMOUS_AUTH === 'true' ? { username: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] } : undefined;
}

let parsedTokens: { source: string; users: Map<string, UserInfo> } | undefined;
function staticTokens(env: Bindings): Map<string, UserInfo> {
  const source = env.STATIC_TOKENS ?? '';
  if (parsedTokens?.source !== source) parsedTokens = { source, users: parseStaticTokens(source) };
  return parsedTokens.users;
}

/** The ServiceAccount signing key: SERVICE_ACCOUNT_SIGNING_KEY, else one derived from the admin token. */
export async function signingKey(env: Bindings): Promise<string> {
  if (env.SERVICE_ACCOUNT_SIGNING_KEY) return env.SERVICE_ACCOUNT_SIGNING_KEY;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`service-account-signing:${env.ADMIN_TOKEN}`));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

function protocolToken(header: string | undefined): string | undefined {
  const encoded = header?.split(',').map((p) => p.trim()).find((p) => p.startsWith(BEARER_PROTOCOL_PREFIX));
  if (!encoded) return undefined;
  try {
    const b64 = encoded.slice(BEARER_PROTOCOL_PREFIX.length).replace(/-/g, '+').replace(/_/g, '/');
    return atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, '='));
  } catch {
    return undefined;
  }
}

// Compare digests, not strings, so the time taken says nothing about the token.
async function sameSecret(a: string, b: string): Promise<boolean> {
  const enc = new TextEncoder();
  const [da, db] = await Promise.all([
    crypto.subtle.digest('SHA-256', enc.encode(a)),
    crypto.subtle.digest('SHA-256', enc.encode(b)),
  ]);
  const x = new Uint8Array(da);
  const y = new Uint8Array(db);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}
