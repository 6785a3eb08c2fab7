// resource.Quantity as kube stores it: canonical forms and errors, with cases from apimachinery's
// pkg/api/resource/quantity_test.go (TestQuantityParseEmit, TestQuantityString, invalid inputs).
import { describe, expect, it } from 'vitest';
import { canonicalQuantity, QUANTITY_FORMAT_ERROR, QUANTITY_SUFFIX_ERROR } from '../../../core/quantity';

describe('canonicalQuantity', () => {
  it.each([
    // TestQuantityParseEmit
    ['1Ki', '1Ki'], ['1Mi', '1Mi'], ['1Gi', '1Gi'], ['1024Mi', '1Gi'], ['1000M', '1G'],
    ['.001Ki', '1024m'], ['.000001Ki', '1024u'], ['.000000001Ki', '1024n'], ['.000000000001Ki', '2n'],
    // TestQuantityString alternates (non-canonical input → canonical output)
    ['1024Mi', '1Gi'], ['307200Ki', '300Mi'], ['1025024Mi', '1001Gi'], ['1024Gi', '1Ti'], ['5000m', '5'],
    ['0.5', '500m'], ['1000M', '1G'], ['0.001T', '1G'], ['1000u', '1m'], ['1.08', '1080m'], ['1080000000n', '1080m'],
    ['.001e12', '1e9'], ['0.001e0', '1e-3'], ['1000e-12', '1e-9'], ['00', '0'],
    // canonical input is kept as written (quantity.go caches the string)
    ['1Gi', '1Gi'], ['300Mi', '300Mi'], ['6Ki', '6Ki'], ['1001Gi', '1001Gi'], ['5', '5'], ['500m', '500m'], ['1G', '1G'],
    ['1m', '1m'], ['80m', '80m'], ['1080m', '1080m'], ['300M', '300M'], ['1T', '1T'], ['1234567M', '1234567M'], ['3k', '3k'],
    ['1025', '1025'], ['0', '0'], ['1e9', '1e9'], ['1e-3', '1e-3'], ['80e-3', '80e-3'], ['300e6', '300e6'], ['1e3', '1e3'],
    ['1n', '1n'], ['1080n', '1080n'], ['1u', '1u'], ['1080u', '1080u'], ['100m', '100m'], ['1536Mi', '1536Mi'],
    // the examples
    ['1.5', '1500m'], ['0.5Gi', '512Mi'], ['1000m', '1'], ['1.5Gi', '1536Mi'],
    // signs
    ['-1.5', '-1500m'], ['-1024Mi', '-1Gi'], ['+1', '+1'], ['-0', '0'],
  ])('%s → %s', (input, expected) => {
    expect(canonicalQuantity(input)).toBe(expected);
  });

  it.each(['1.1.M', '1+1.0M', 'aoeu', '0.1am', ' 1', '1 ', ''])('rejects %j with the format error', (input) => {
    expect(() => canonicalQuantity(input)).toThrow(QUANTITY_FORMAT_ERROR);
  });

  it.each(['0.1mi', '-3.01e-', '.5i', '1i', '-3.01i', '1K'])('rejects %j with the suffix error', (input) => {
    expect(() => canonicalQuantity(input)).toThrow(QUANTITY_SUFFIX_ERROR);
  });
});

describe('canonicalQuantity on hostile input', () => {
  // A render loop dividing by ten once per trailing zero made "1" and 100,000 zeros take 5.7 s, and
  // "1e-2000000" computed 10^1999991 (0.26 s; 10^2147483638 never ends): both are now one pass over the text.
  it('renders a thousand trailing zeros and extreme exponents without arithmetic on their size', () => {
    expect(canonicalQuantity(`1${'0'.repeat(999)}`)).toBe('1e999');
    expect(canonicalQuantity('1e-2147483647')).toBe('1e-9');
    expect(canonicalQuantity('6e2147483646')).toBe('6e2147483646');
    expect(canonicalQuantity('5e2147483647')).toBe('50e2147483646');
  });

  it('refuses more than 1,000 digits with the numeric error', () => {
    expect(() => canonicalQuantity(`1${'0'.repeat(100_000)}`)).toThrow('unable to parse numeric part of quantity');
  });
});
