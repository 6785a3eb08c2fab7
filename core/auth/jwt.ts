// Front door authentication: ServiceAccount tokens as compact JWTs (HS256), signed and verified with
// WebCrypto, so the same code runs in the Worker and in Node tests.

export interface ServiceAccountClaims {
  iss: string;
  sub: string; // system:serviceaccount:<namespace>:<name>
  aud: string[];
  iat: number;
  nbf: number;
  exp: number;
  'kubernetes.io': { namespace: string; serviceaccount: { name: string; uid: string } };
}

export const ISSUER = 'https://edgeplane.local';

const enc = new TextEncoder();

function b64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromB64url(s: string): Uint8Array<ArrayBuffer> {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, '='));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', enc.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

export async function signJwt(claims: ServiceAccountClaims, secret: string): Promise<string> {
  const head = b64url(enc.encode(JSON.stringify({ alg: 'HS256', typ: 'JWT' })));
  const body = b64url(enc.encode(JSON.stringify(claims)));
  const sig = new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret), enc.encode(`${head}.${body}`)));
  return `${head}.${body}.${b64url(sig)}`;
}

/** The claims of a token this gateway signed and that has not expired; undefined otherwise. */
export async function verifyJwt(token: string, secret: string, nowSeconds: number): Promise<ServiceAccountClaims | undefined> {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const header = JSON.parse(new TextDecoder().decode(fromB64url(parts[0]))) as { alg?: string };
    if (header.alg !== 'HS256') return undefined;
    const ok = await crypto.subtle.verify('HMAC', await hmacKey(secret), fromB64url(parts[2]), enc.encode(`${parts[0]}.${parts[1]}`));
    if (!ok) return undefined;
    const claims = JSON.parse(new TextDecoder().decode(fromB64url(parts[1]))) as ServiceAccountClaims;
    if (claims.iss !== ISSUER || typeof claims.exp !== 'number' || claims.exp <= nowSeconds || claims.nbf > nowSeconds) return undefined;
    if (!claims['kubernetes.io']?.serviceaccount?.uid) return undefined;
    return claims;
  } catch {
    return undefined;
  }
}
