import { describe, expect, it } from 'vitest';
import { base64url, SignJWT } from 'jose';
import {
  CLOCK_LEEWAY_SECONDS, deriveKeyFromAdminToken, keyFromSecret, MAX_TOKEN_BYTES, signServiceAccountToken,
  verifyServiceAccountToken, type ServiceAccountClaims,
} from '../../../core/auth/service-account-token';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const KEY = keyFromSecret('0123456789abcdef0123456789abcdef');
const OTHER_KEY = keyFromSecret('fedcba9876543210fedcba9876543210');
const NOW = 1_700_000_000;
const expected = { issuer: ISSUER, audiences: [ISSUER], nowSeconds: NOW };

const claims = (over: Partial<ServiceAccountClaims> = {}): ServiceAccountClaims => ({
  iss: ISSUER, sub: 'system:serviceaccount:ns:sa', aud: [ISSUER], iat: NOW - 10, nbf: NOW - 10, exp: NOW + 3600, jti: 'j1',
  'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'u1' } },
  ...over,
});

/** A compact JWT with any header and payload, signed (HMAC-SHA256) with `key` or not at all. */
async function rawJwt(header: object, payload: object, key?: Uint8Array): Promise<string> {
  const signingInput = `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(payload))}`;
  if (!key) return `${signingInput}.`;
  const hmac = await crypto.subtle.importKey('raw', key as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const sig = new Uint8Array(await crypto.subtle.sign('HMAC', hmac, new TextEncoder().encode(signingInput)));
  return `${signingInput}.${base64url.encode(sig)}`;
}

async function reason(token: string, exp = expected, key = KEY): Promise<string> {
  const v = await verifyServiceAccountToken(token, key, exp);
  if (v.ok) throw new Error('expected the token to be rejected');
  return v.reason;
}

describe('ServiceAccount tokens', () => {
  it('verifies what it signed and returns the claims, bound objects included', async () => {
    const bound = claims({ 'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'u1' }, pod: { name: 'p', uid: 'pu' }, node: { name: 'n', uid: '' } } });
    const token = await signServiceAccountToken(bound, KEY);
    expect(JSON.parse(new TextDecoder().decode(base64url.decode(token.split('.')[0])))).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(await verifyServiceAccountToken(token, KEY, expected)).toEqual({ ok: true, claims: bound });
  });

  it('accepts a token carrying any one of the API audiences, and rejects one for another audience', async () => {
    const vault = await signServiceAccountToken(claims({ aud: ['https://vault.example.com'] }), KEY);
    expect(await reason(vault)).toBe('claim aud check_failed');
    const both = await signServiceAccountToken(claims({ aud: ['https://vault.example.com', 'api'] }), KEY);
    expect((await verifyServiceAccountToken(both, KEY, { ...expected, audiences: [ISSUER, 'api'] })).ok).toBe(true);
    expect(await reason(both)).toBe('claim aud check_failed');
    expect(await reason(both, { ...expected, audiences: [] })).toBe('no API audiences configured');
  });

  it('rejects a wrong issuer', async () => {
    const token = await signServiceAccountToken(claims({ iss: 'https://edgeplane.local' }), KEY);
    expect(await reason(token)).toBe('claim iss check_failed');
  });

  it('rejects an expired token, allowing go-jose\'s one-minute leeway', async () => {
    const token = await signServiceAccountToken(claims({ iat: NOW - 7200, nbf: NOW - 7200, exp: NOW - 30 }), KEY);
    expect((await verifyServiceAccountToken(token, KEY, expected)).ok).toBe(true);
    expect(await reason(token, { ...expected, nowSeconds: NOW - 30 + CLOCK_LEEWAY_SECONDS })).toBe('ERR_JWT_EXPIRED');
  });

  it('rejects a token that is not yet valid, or issued in the future', async () => {
    const early = await signServiceAccountToken(claims({ nbf: NOW + CLOCK_LEEWAY_SECONDS + 1 }), KEY);
    expect(await reason(early)).toBe('claim nbf check_failed');
    const future = await signServiceAccountToken(claims({ iat: NOW + CLOCK_LEEWAY_SECONDS + 1 }), KEY);
    expect(await reason(future)).toBe('claim iat check_failed');
  });

  it('rejects alg none, other algorithms and a missing signature', async () => {
    const payload = claims();
    expect(await reason(await rawJwt({ alg: 'none', typ: 'JWT' }, payload))).toBe('ERR_JOSE_ALG_NOT_ALLOWED');
    expect(await reason(await rawJwt({ alg: 'HS256', typ: 'JWT' }, payload))).toBe('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    const hs512 = await new SignJWT({ ...payload }).setProtectedHeader({ alg: 'HS512' }).sign(KEY);
    expect(await reason(hs512)).toBe('ERR_JOSE_ALG_NOT_ALLOWED');
    // The right signature under a header that claims another algorithm still fails: the header is signed.
    const good = await signServiceAccountToken(payload, KEY);
    const [, body, sig] = good.split('.');
    expect(await reason(`${base64url.encode(JSON.stringify({ alg: 'HS384' }))}.${body}.${sig}`)).toBe('ERR_JOSE_ALG_NOT_ALLOWED');
  });

  it('rejects a tampered signature, a changed payload and another key', async () => {
    const token = await signServiceAccountToken(claims(), KEY);
    const [head, body, sig] = token.split('.');
    const flipped = `${sig.slice(0, 5)}${sig[5] === 'A' ? 'B' : 'A'}${sig.slice(6)}`;
    expect(await reason(`${head}.${body}.${flipped}`)).toBe('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    const admin = base64url.encode(JSON.stringify(claims({ sub: 'system:serviceaccount:ns:admin' })));
    expect(await reason(`${head}.${admin}.${sig}`)).toBe('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    expect(await reason(token, expected, OTHER_KEY)).toBe('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    expect(await reason(await rawJwt({ alg: 'HS256' }, claims(), OTHER_KEY))).toBe('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
  });

  it('rejects signed tokens without the ServiceAccount shape or required claims', async () => {
    const { exp: _exp, ...noExp } = claims();
    expect(await reason(await rawJwt({ alg: 'HS256' }, noExp, KEY))).toBe('claim exp missing');
    const otherSubject = await signServiceAccountToken(claims({ sub: 'system:serviceaccount:ns:admin' }), KEY);
    expect(await reason(otherSubject)).toBe('not a ServiceAccount token');
    const noUid = await rawJwt({ alg: 'HS256' }, { ...claims(), 'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'sa', uid: '' } } }, KEY);
    expect(await reason(noUid)).toBe('not a ServiceAccount token');
    const podWithoutUid = await rawJwt({ alg: 'HS256' }, { ...claims(), 'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'u1' }, pod: { name: 'p' } } }, KEY);
    expect(await reason(podWithoutUid)).toBe('not a ServiceAccount token');
  });

  it('rejects garbage and oversized input without throwing', async () => {
    for (const garbage of ['', 'a.b.c', 'not-a-jwt', '..', `${'x'.repeat(10)}.${'y'.repeat(10)}.z`]) {
      expect((await verifyServiceAccountToken(garbage, KEY, expected)).ok).toBe(false);
    }
    expect(await reason('a'.repeat(MAX_TOKEN_BYTES + 1))).toBe('token too long');
  });

  it('refuses keys shorter than 256 bits', async () => {
    await expect(signServiceAccountToken(claims(), keyFromSecret('short'))).rejects.toThrow(/shorter than 32 bytes/);
    const token = await signServiceAccountToken(claims(), KEY);
    expect(await reason(token, expected, keyFromSecret('short'))).toBe('signing key too short');
  });

  it('derives a stable 256-bit key from the admin token that is neither the token nor shared between tokens', async () => {
    const a = await deriveKeyFromAdminToken('admin-token');
    expect(a.byteLength).toBe(32);
    expect(await deriveKeyFromAdminToken('admin-token')).toEqual(a);
    expect(await deriveKeyFromAdminToken('admin-token2')).not.toEqual(a);
    await expect(deriveKeyFromAdminToken('')).rejects.toThrow();
  });
});
