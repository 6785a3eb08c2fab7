// Core: ServiceAccount tokens, signed and verified with `jose` (HS256 over WebCrypto, so the same code runs
// in the Worker and in Node tests). The claims are kube-apiserver's (pkg/serviceaccount/claims.go):
// iss, sub, aud, iat, nbf, exp, jti and a private "kubernetes.io" claim naming the account and, for a
// bound token, the Pod, Secret or Node it is bound to. Whether the named objects still exist is the
// caller's check (the front door reads the stores); this module only answers "did we sign this, for
// this audience, and is it within its lifetime".

import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { hmacKey } from './hmac-key';

export interface ObjectRef {
  name: string;
  uid: string; // may be "" only for the node a pod-bound token records (the node may not exist)
}

export interface KubernetesClaim {
  namespace: string;
  serviceaccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
}

export interface ServiceAccountClaims {
  iss: string;
  sub: string; // system:serviceaccount:<namespace>:<name>
  aud: string[];
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
  'kubernetes.io': KubernetesClaim;
}

/** What a token must match: the issuer we sign as, the audiences the API accepts, and the time. */
export interface Expected {
  issuer: string;
  audiences: readonly string[];
  nowSeconds: number;
}

export type Verification = { ok: true; claims: ServiceAccountClaims } | { ok: false; reason: string };

// The only algorithm accepted; anything else (including "none") is rejected before the signature is read.
export const ALGORITHM = 'HS256';
// go-jose's jwt.DefaultLeeway, which kube-apiserver's validator uses for exp, nbf and iat.
export const CLOCK_LEEWAY_SECONDS = 60;
// ValidateTokenRequest's upper bound (1<<32 seconds); no token we issue is older than this.
export const MAX_TOKEN_AGE_SECONDS = 2 ** 32;
// RFC 7518 §3.2: an HS256 key MUST be at least as long as the hash output (256 bits).
export const MIN_KEY_BYTES = 32;
// Longer than any token we issue (bound tokens are well under 2 KiB); longer input is not parsed at all.
export const MAX_TOKEN_BYTES = 8 * 1024;

export const serviceAccountUsername = (namespace: string, name: string): string => `system:serviceaccount:${namespace}:${name}`;

const enc = new TextEncoder();

/** The raw HMAC key for a configured secret (its UTF-8 bytes). */
export function keyFromSecret(secret: string): Uint8Array {
  return enc.encode(secret);
}

/**
 * A signing key derived from the admin token, for deployments that set only ADMIN_TOKEN: HMAC-SHA256
 * keyed by the admin token over a fixed label, so the key is as secret as the token and is never the
 * token itself (a leaked ServiceAccount key does not reveal the admin token).
 */
export async function deriveKeyFromAdminToken(adminToken: string): Promise<Uint8Array> {
  if (!adminToken) throw new Error('deriveKeyFromAdminToken: empty admin token');
  const hmac = await crypto.subtle.importKey('raw', enc.encode(adminToken), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', hmac, enc.encode('edgeplane service-account signing key v1')));
}

export async function signServiceAccountToken(claims: ServiceAccountClaims, key: Uint8Array): Promise<string> {
  if (key.byteLength < MIN_KEY_BYTES) throw new Error(`signing key shorter than ${MIN_KEY_BYTES} bytes`);
  return new SignJWT(claims as unknown as JWTPayload).setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' }).sign(key);
}

/**
 * The claims of a token we signed with `key`, for one of `expected.audiences`, from `expected.issuer`,
 * inside its nbf/iat..exp window (with go-jose's leeway), shaped as a ServiceAccount token. The reason
 * on failure is for tests and debug logs; it never contains the token or its claims.
 */
export async function verifyServiceAccountToken(token: string, key: Uint8Array, expected: Expected): Promise<Verification> {
  if (token.length > MAX_TOKEN_BYTES) return { ok: false, reason: 'token too long' };
  if (key.byteLength < MIN_KEY_BYTES) return { ok: false, reason: 'signing key too short' };
  if (expected.audiences.length === 0) return { ok: false, reason: 'no API audiences configured' };
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, await hmacKey(key), {
      algorithms: [ALGORITHM],
      issuer: expected.issuer,
      audience: [...expected.audiences],
      currentDate: new Date(expected.nowSeconds * 1000),
      clockTolerance: CLOCK_LEEWAY_SECONDS,
      maxTokenAge: MAX_TOKEN_AGE_SECONDS, // also rejects an iat in the future
      requiredClaims: ['iss', 'sub', 'aud', 'iat', 'nbf', 'exp'],
    }));
  } catch (e) {
    return { ok: false, reason: rejection(e) };
  }
  const claims = serviceAccountClaims(payload);
  return claims ? { ok: true, claims } : { ok: false, reason: 'not a ServiceAccount token' };
}

// jose's error codes name the failed check without echoing the token or its claims.
function rejection(e: unknown): string {
  if (e instanceof errors.JWTClaimValidationFailed) return `claim ${e.claim} ${e.reason}`;
  if (e instanceof errors.JOSEError) return e.code;
  return 'malformed token';
}

function isRef(v: unknown, uidRequired: boolean): v is ObjectRef {
  if (typeof v !== 'object' || v === null) return false;
  const { name, uid } = v as Record<string, unknown>;
  return typeof name === 'string' && name !== '' && typeof uid === 'string' && (uid !== '' || !uidRequired);
}

/** The payload as ServiceAccount claims, if it has their shape and its subject matches its account. */
function serviceAccountClaims(payload: JWTPayload): ServiceAccountClaims | undefined {
  const k = payload['kubernetes.io'] as Record<string, unknown> | undefined;
  if (typeof k !== 'object' || k === null || typeof k.namespace !== 'string' || k.namespace === '') return undefined;
  if (!isRef(k.serviceaccount, true)) return undefined;
  if (payload.sub !== serviceAccountUsername(k.namespace, k.serviceaccount.name)) return undefined;
  for (const bound of ['pod', 'secret'] as const) {
    if (k[bound] !== undefined && !isRef(k[bound], true)) return undefined;
  }
  // A node is bound directly (uid required) or recorded for a pod-bound token (uid may be empty).
  if (k.node !== undefined && !isRef(k.node, k.pod === undefined)) return undefined;
  // Bound to one object at most; a pod-bound token's node is information, not a second binding.
  if ([k.pod, k.secret, k.pod ? undefined : k.node].filter((r) => r !== undefined).length > 1) return undefined;
  const aud = typeof payload.aud === 'string' ? [payload.aud] : payload.aud!;
  return {
    iss: payload.iss!, sub: payload.sub as string, aud, iat: payload.iat!, nbf: payload.nbf!, exp: payload.exp!,
    jti: typeof payload.jti === 'string' ? payload.jti : '',
    'kubernetes.io': k as unknown as KubernetesClaim,
  };
}
