// Front door: authentication. Every request carries `Authorization: Bearer <token>`; for now the only
// identity is the admin token from the ADMIN_TOKEN secret binding (RBAC comes later).

import type { MiddlewareHandler } from 'hono';
import { statusResponse, unauthorized } from '../core/status';
import type { AppEnv } from './env';

export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const header = c.req.header('authorization') ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const expected = c.env.ADMIN_TOKEN;
  if (!expected || !match || !(await sameSecret(match[1], expected))) return statusResponse(unauthorized());
  await next();
};

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
