// resource.Quantity parsing, comparison and canonical printing.
import { describe, expect, it } from 'vitest';
import { compareQuantity, formatQuantity, tryParseQuantity as parseQuantity, QUANTITY_FORMAT_ERROR, type Quantity } from '../../../core/quantity';

const q = (s: string | number) => parseQuantity(s) as Quantity;

describe('quantity', () => {
  it.each([
    ['1', '1'], ['1000m', '1'], ['1500m', '1500m'], ['0.5', '500m'], ['2000', '2k'], [0.25, '250m'], [3, '3'],
    ['1Gi', '1Gi'], ['1024Mi', '1Gi'], ['1536Mi', '1536Mi'], ['512', '512'], ['1e3', '1e3'], ['1.5e3', '1500'],
    ['100M', '100M'], ['0', '0'], ['-1', '-1'], ['1n', '1n'], ['0.0000000001', '1n'], ['128974848', '128974848'],
  ])('%s prints as %s', (input, out) => {
    expect(formatQuantity(q(input))).toBe(out);
  });

  it('compares across suffixes', () => {
    expect(compareQuantity(q('1'), q('1000m'))).toBe(0);
    expect(compareQuantity(q('1Gi'), q('1G'))).toBe(1);
    expect(compareQuantity(q('250m'), q('0.3'))).toBe(-1);
    expect(compareQuantity(q('1e3'), q('1k'))).toBe(0);
  });

  // parseQuantityString reads a suffix with no digits before it as zero ("Gi" is 0), as Go does.
  it('reads a bare suffix as zero, as Go does', () => {
    expect(formatQuantity(q('Gi'))).toBe('0');
  });

  it.each(['', 'abc', '1.2.3', '1Xi', '--1'])('rejects %j', (s) => {
    expect(typeof parseQuantity(s)).toBe('string');
  });

  it('rejects non-strings with the decoder message', () => {
    expect(parseQuantity({})).toBe(QUANTITY_FORMAT_ERROR);
  });
});

describe('quantity bounds', () => {
  it('refuses absurd digit counts, and takes any int32 exponent (as Go) without computing with it', () => {
    expect(typeof parseQuantity('9'.repeat(100_000))).toBe('string');
    expect(formatQuantity(q('1e300'))).toBe('1e300');
    expect(formatQuantity(q('1e999999'))).toBe('1e999999');
    expect(formatQuantity(q('2e-2147483647'))).toBe('1e-9');
    expect(compareQuantity(q('1e999999'), q('1e-999999'))).toBe(1);
    expect(compareQuantity(q('-1e999999'), q('1'))).toBe(-1);
  });
});
