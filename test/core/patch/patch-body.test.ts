import { describe, expect, it } from 'vitest';
import { goJsonSyntaxError } from '../../../core/patch/go-json-scanner';
import { goValue } from '../../../core/patch/go-format';
import { decodePatchBody, patchTypeOf, type PatchType } from '../../../core/patch/patch-body';
import { PatchError } from '../../../core/patch/patch-error';

describe('goJsonSyntaxError: Go encoding/json scanner messages', () => {
  it.each([
    ['', 'unexpected end of JSON input'],
    ['   ', 'unexpected end of JSON input'],
    ['{"a":1', 'unexpected end of JSON input'],
    ['[1,2', 'unexpected end of JSON input'],
    ['{"a":}', "invalid character '}' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['[1 2]', "invalid character '2' after array element"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{} x', "invalid character 'x' after top-level value"],
    // At end of input Go's scanner.eof() feeds a space, so a cut literal or number names ' '.
    ['tru', "invalid character ' ' in literal true (expecting 'e')"],
    ['trux', "invalid character 'x' in literal true (expecting 'e')"],
    ['nul1', "invalid character '1' in literal null (expecting 'l')"],
    ['fals', "invalid character ' ' in literal false (expecting 'e')"],
    ['-', "invalid character ' ' in numeric literal"],
    ['-x', "invalid character 'x' in numeric literal"],
    ['1.x', "invalid character 'x' after decimal point in numeric literal"],
    ['1e+', "invalid character ' ' in exponent of numeric literal"],
    ['1ex', "invalid character 'x' in exponent of numeric literal"],
    ['01', "invalid character '1' after top-level value"],
    ['"a\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ['"a\u0001"', "invalid character '\\x01' in string literal"],
    ['apply', "invalid character 'a' looking for beginning of value"],
  ])('%j -> %s', (text, message) => {
    expect(goJsonSyntaxError(text)).toBe(message);
  });

  it.each(['{}', '[]', '1', '-0.5e+3', '"x"', 'null', ' {"a":[true,false,null,{"b":"\\u00e9"}]} '])(
    'accepts %j',
    (text) => {
      expect(goJsonSyntaxError(text)).toBeUndefined();
    },
  );
});

describe('decodePatchBody', () => {
  it.each<[PatchType, string, string]>([
    ['json', '[{"op":', 'error decoding patch: unexpected end of JSON input'],
    ['merge', '{"metadata":{labels}}', "error decoding patch: invalid character 'l' looking for beginning of object key string"],
    ['strategic', '{"spec":', 'unexpected end of JSON input'],
    ['strategic', 'spec: {}', "invalid character 's' looking for beginning of value"],
  ])('%s body %j is a 400: %s', (type, body, message) => {
    let err: unknown;
    try {
      decodePatchBody(type, body);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PatchError);
    expect((err as PatchError).code).toBe(400);
    expect((err as PatchError).message).toBe(message);
  });

  it('parses a valid body', () => {
    expect(decodePatchBody('strategic', '{"spec":{"replicas":3}}')).toEqual({ spec: { replicas: 3 } });
  });

  it.each([
    ['application/json-patch+json', 'json'],
    ['application/merge-patch+json; charset=utf-8', 'merge'],
    ['application/strategic-merge-patch+json', 'strategic'],
    ['application/apply-patch+yaml', undefined],
  ])('patchTypeOf(%s) = %s', (contentType, type) => {
    expect(patchTypeOf(contentType)).toBe(type);
  });
});

describe('goValue: fmt %v of decoded JSON', () => {
  it.each([
    [{ name: 'a', image: 'x' }, 'map[image:x name:a]'],
    [[{ b: 1 }, 'c', null], '[map[b:1] c <nil>]'],
    [{ $patch: 'merge', a: { b: true } }, 'map[$patch:merge a:map[b:true]]'],
    [1.5, '1.5'],
    [0.00001, '1e-05'],
  ])('%j -> %s', (v, s) => {
    expect(goValue(v)).toBe(s);
  });
});
