import { describe, expect, it } from 'vitest';
import { formatRevision, InvalidResourceVersion, parseResourceVersion } from '../../core/revision';

describe('parseResourceVersion', () => {
  it.each([
    [undefined, 0],
    [null, 0],
    ['', 0],
    ['0', 0],
    ['1', 1],
    ['12345', 12345],
    // strconv.ParseUint accepts leading zeros.
    ['007', 7],
    ['9007199254740991', 9007199254740991],
    ['18446744073709551615', 18446744073709551615],
  ])('%j is %d', (rv, n) => {
    expect(parseResourceVersion(rv)).toBe(n);
  });

  it.each([
    ['abc', 'invalid syntax'],
    ['-1', 'invalid syntax'],
    ['+1', 'invalid syntax'],
    [' 1', 'invalid syntax'],
    ['1.0', 'invalid syntax'],
    ['1_000', 'invalid syntax'],
    ['0x10', 'invalid syntax'],
    ['18446744073709551616', 'value out of range'],
    // ParseUint notices the overflow before it reaches the bad character.
    ['99999999999999999999x', 'value out of range'],
  ])('%j is rejected (%s)', (rv, problem) => {
    const message = `invalid resource version: resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": ${problem}`;
    expect(() => parseResourceVersion(rv)).toThrow(new InvalidResourceVersion(message));
  });

  it('quotes odd characters the way Go does', () => {
    expect(() => parseResourceVersion('a"\n')).toThrow(
      'invalid resource version: resourceVersion: Invalid value: "a\\"\\n": strconv.ParseUint: parsing "a\\"\\n": invalid syntax',
    );
  });

  it('throws InvalidResourceVersion', () => {
    expect(() => parseResourceVersion('x')).toThrow(InvalidResourceVersion);
  });
});

describe('formatRevision', () => {
  it.each([
    [0, '0'],
    [42, '42'],
    [Number.MAX_SAFE_INTEGER, '9007199254740991'],
  ])('%d is %j', (n, text) => {
    expect(formatRevision(n)).toBe(text);
  });

  it.each([-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1])('refuses %d', (n) => {
    expect(() => formatRevision(n)).toThrow(RangeError);
  });

  it.each([0, 1, 987654321])('round-trips %d', (n) => {
    expect(parseResourceVersion(formatRevision(n))).toBe(n);
  });
});
