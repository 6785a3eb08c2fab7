// Tests: JSON merge patch and the Go-syntax scanner cost linear work in their input.

import { describe, expect, it } from 'vitest';
import { applyMergePatch } from '../../../core/patch/merge-patch';
import { goJsonSyntaxError } from '../../../core/patch/go-json-scanner';
import { opGrowth } from '../op-count';

const wide = (n: number, v: (i: number) => unknown) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, v(i)]));

describe('merge patch and scanner costs', () => {
  it('merges, deletes and prunes in linear work', () => {
    const ratio = opGrowth((n) => {
      const doc = { data: wide(n, () => 'v'), list: Array.from({ length: n }, (_, i) => i) };
      const patch = { data: wide(n, (i) => (i % 2 ? null : { nested: [null, i, { x: null }] })), list: Array.from({ length: n }, () => null) };
      return () => void applyMergePatch(doc, patch);
    }, 1_000);
    expect(ratio, `4x the input cost ${ratio.toFixed(2)}x`).toBeLessThan(4.5);
  });

  it('finds the syntax error of a large body in linear work', () => {
    const ratio = opGrowth((n) => {
      const text = `{"a":[${Array.from({ length: n }, (_, i) => `{"k${i}":"v\\u0041",  "n": -1.5e3}`).join(',')}] x`;
      return () => expect(goJsonSyntaxError(text)).toBe("invalid character 'x' after object key:value pair");
    }, 500);
    expect(ratio, `4x the input cost ${ratio.toFixed(2)}x`).toBeLessThan(4.5);
  });
});
