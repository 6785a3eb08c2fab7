import { describe, expect, it } from 'vitest';
import { ISSUER, signJwt, verifyJwt, type ServiceAccountClaims } from '../../../core/auth/jwt';
import { parseStaticTokens } from '../../../core/auth/static-tokens';
import { TokenBuckets } from '../../../core/rate-limit';

const claims = (exp: number): ServiceAccountClaims => ({
  iss: ISSUER, sub: 'system:serviceaccount:ns:sa', aud: [ISSUER], iat: 100, nbf: 100, exp,
  'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'u1' } },
});

describe('ServiceAccount JWTs', () => {
  it('verifies what it signed until it expires', async () => {
    const token = await signJwt(claims(1000), 'k');
    expect((await verifyJwt(token, 'k', 500))?.sub).toBe('system:serviceaccount:ns:sa');
    expect(await verifyJwt(token, 'k', 1000)).toBeUndefined();
  });

  it('rejects another key, a changed payload and garbage', async () => {
    const token = await signJwt(claims(1000), 'k');
    expect(await verifyJwt(token, 'other', 500)).toBeUndefined();
    const [h, , s] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims(1000), sub: 'system:serviceaccount:ns:admin' })).toString('base64url');
    expect(await verifyJwt(`${h}.${forged}.${s}`, 'k', 500)).toBeUndefined();
    expect(await verifyJwt('a.b.c', 'k', 500)).toBeUndefined();
    expect(await verifyJwt('not-a-jwt', 'k', 500)).toBeUndefined();
  });
});

describe('static tokens', () => {
  it('reads kube-apiserver token-file lines with quoted groups', () => {
    const users = parseStaticTokens('# comment\nt1,alice,u1,"a,b"\nt2,bob,u2\n\nbroken\n');
    expect(users.get('t1')).toEqual({ username: 'alice', uid: 'u1', groups: ['a', 'b'] });
    expect(users.get('t2')).toEqual({ username: 'bob', uid: 'u2', groups: [] });
    expect(users.size).toBe(2);
  });
});

describe('token buckets', () => {
  it('allows a burst, then one request per 1/qps seconds, per key', () => {
    const b = new TokenBuckets();
    for (let i = 0; i < 3; i++) expect(b.take('a', 0, 2, 3)).toBe(0);
    expect(b.take('a', 0, 2, 3)).toBe(500);
    expect(b.take('b', 0, 2, 3)).toBe(0);
    expect(b.take('a', 500, 2, 3)).toBe(0);
  });
});
