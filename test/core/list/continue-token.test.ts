import { describe, expect, it } from 'vitest';
import { decodeContinue, encodeContinue, InvalidContinueToken } from '../../../core/list/continue-token';

const b64 = (json: string): string => Buffer.from(json, 'utf8').toString('base64url');
const token = (fields: string): string => b64(`{"v":"meta.k8s.io/v1",${fields}}`);

describe('encodeContinue', () => {
  it('writes apiserver\'s JSON layout, base64url without padding', () => {
    const t = encodeContinue(12, 'default/foo\u0000');
    expect(t).not.toMatch(/[=+/]/);
    expect(Buffer.from(t, 'base64url').toString('utf8')).toBe('{"v":"meta.k8s.io/v1","rv":12,"start":"default/foo\\u0000"}');
  });

  it('escapes HTML characters as Go\'s json.Marshal does', () => {
    const json = Buffer.from(encodeContinue(1, 'a<b>&c\u2028'), 'base64url').toString('utf8');
    expect(json).toBe('{"v":"meta.k8s.io/v1","rv":1,"start":"a\\u003cb\\u003e\\u0026c\\u2028"}');
  });

  it.each([
    [1, 'name\u0000'],
    [98765, 'kube-system/coredns-5d78c9869d-abcde\u0000'],
    [-1, 'ns/a\u0000'],
    [7, 'ünïcode/名前\u0000'],
    [3, 'a'],
    [3, 'ab'],
    [3, 'abc'],
  ])('round-trips rv %d, start %j', (rv, start) => {
    expect(decodeContinue(encodeContinue(rv, start))).toEqual({ rv, start });
  });
});

describe('decodeContinue', () => {
  it.each([
    [token('"rv":5,"start":"default/web\\u0000"'), { rv: 5, start: 'default/web\u0000' }],
    // A leading slash is part of the path apiserver cleans, not of the key.
    [token('"rv":5,"start":"/default/web"'), { rv: 5, start: 'default/web' }],
    // Negative means "continue at the latest revision".
    [token('"rv":-1,"start":"a"'), { rv: -1, start: 'a' }],
    // Go matches struct fields case-insensitively and ignores unknown ones.
    [b64('{"V":"meta.k8s.io/v1","RV":3,"Start":"a","extra":[1,{}]}'), { rv: 3, start: 'a' }],
    [b64(' {"v":"meta.k8s.io/v1","rv":3,"start":"a","v2":null}\n'), { rv: 3, start: 'a' }],
    [b64('{"constructor":"x","__proto__":{},"v":"meta.k8s.io/v1","rv":3,"start":"a"}'), { rv: 3, start: 'a' }],
    // Go's decoder skips CR and LF inside base64 input.
    [`${token('"rv":5,"start":"b"').slice(0, 4)}\r\n${token('"rv":5,"start":"b"').slice(4)}`, { rv: 5, start: 'b' }],
  ])('decodes %s', (t, position) => {
    expect(decodeContinue(t)).toEqual(position);
  });

  it.each([
    ['!!!', 'illegal base64 data at input byte 0'],
    ['abcde', 'illegal base64 data at input byte 4'],
    ['ab=c', 'illegal base64 data at input byte 2'],
    ['YWJj+w', 'illegal base64 data at input byte 4'],
    ['', 'unexpected end of JSON input'],
    ['abc', "invalid character 'i' looking for beginning of value"],
    [b64('nope'), "invalid character 'o' in literal null (expecting 'u')"],
    [b64('{"v":x}'), "invalid character 'x' looking for beginning of value"],
    [b64('{"v" "a"}'), 'invalid character \'"\' after object key'],
    [b64('{"v":"a" "rv":1}'), 'invalid character \'"\' after object key:value pair'],
    [b64('{v:1}'), "invalid character 'v' looking for beginning of object key string"],
    [b64('{"v":"a\\q"}'), "invalid character 'q' in string escape code"],
    [b64('{"v":"\u0001"}'), "invalid character '\\x01' in string literal"],
    [b64('{"rv":01}'), "invalid character '1' after object key:value pair"],
    [b64('{"rv":1.}'), "invalid character '}' after decimal point in numeric literal"],
    [b64('{"v":"meta.k8s.io/v1"'), 'unexpected end of JSON input'],
    [b64('{} x'), "invalid character 'x' after top-level value"],
    [b64('[]'), 'json: cannot unmarshal array into Go value of type storage.continueToken'],
    [b64('"s"'), 'json: cannot unmarshal string into Go value of type storage.continueToken'],
    [token('"rv":"5","start":"a"'), 'json: cannot unmarshal string into Go struct field continueToken.rv of type int64'],
    [token('"rv":1.5,"start":"a"'), 'json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64'],
    [b64('{"v":1,"rv":true}'), 'json: cannot unmarshal number into Go struct field continueToken.v of type string'],
    [b64('null'), 'server does not recognize this encoded version '],
    [b64('{"v":"meta.k8s.io/v2","rv":1,"start":"a"}'), 'server does not recognize this encoded version meta.k8s.io/v2'],
    [token('"rv":0,"start":"a"'), 'incorrect encoded start resourceVersion (version meta.k8s.io/v1)'],
    [token('"start":"a"'), 'incorrect encoded start resourceVersion (version meta.k8s.io/v1)'],
    [token('"rv":1,"start":""'), 'encoded start key empty (version meta.k8s.io/v1)'],
    [token('"rv":1,"start":"../secrets/x"'), '../secrets/x'],
    [token('"rv":1,"start":"ns/../../x"'), 'ns/../../x'],
    [token('"rv":1,"start":"ns//x"'), 'ns//x'],
    [token('"rv":1,"start":"ns/./x"'), 'ns/./x'],
    [token('"rv":1,"start":"ns/"'), 'ns/'],
  ])('rejects %j: %s', (t, detail) => {
    const expected = `continue key is not valid: ${detail}`;
    expect(() => decodeContinue(t)).toThrow(new InvalidContinueToken(expected));
    expect(() => decodeContinue(t)).toThrow(`invalid continue token: ${expected}`);
  });
});

describe('decodeContinue bounds', () => {
  const token = (json: string) => Buffer.from(json).toString('base64url');
  it('refuses a token nested past the JSON depth limit without overflowing the stack', () => {
    for (const levels of [1001, 12_000, 100_000]) {
      expect(() => decodeContinue(token('['.repeat(levels)))).toThrow(
        new InvalidContinueToken("continue key is not valid: invalid character '[' exceeded max depth"),
      );
    }
    // Below the limit, the usual errors.
    expect(() => decodeContinue(token('['.repeat(1000)))).toThrow(new InvalidContinueToken('continue key is not valid: unexpected end of JSON input'));
  });
});
