import { describe, expect, it } from 'vitest';
import { parseStaticTokens } from '../../../core/auth/static-tokens';

describe('static tokens', () => {
  it('reads kube-apiserver token-file lines with quoted groups', () => {
    const users = parseStaticTokens('# comment\nt1,alice,u1,"a,b"\nt2,bob,u2\n\nbroken\n');
    expect(users.get('t1')).toEqual({ username: 'alice', uid: 'u1', groups: ['a', 'b'] });
    expect(users.get('t2')).toEqual({ username: 'bob', uid: 'u2', groups: [] });
    expect(users.size).toBe(2);
  });
});
