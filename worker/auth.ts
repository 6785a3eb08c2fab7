// Front door: authentication. Every request carries `Authorization: Bearer <token>`; for now the only
// identity is the admin token from the ADMIN_TOKEN secret binding (RBAC comes later).

import type { MiddlewareHandler } from 'hono';
import { statusResponse, unauthorized } from '../core/status';
import type { AppEnv } from './env';

// Browsers cannot set headers on a WebSocket, so the token may come as a subprotocol instead
// (apiserver pkg/authentication/request/websocket/protocol.go).
export const BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = bearerToken(c.req.header('authorization')) ?? protocolToken(c.req.header('sec-websocket-protocol'));
  const expected = c.env.ADMIN_TOKEN;
  if (!expected || !token || !(await sameSecret(token, expected))) return statusResponse(unauthorized());
  await next();
};

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
