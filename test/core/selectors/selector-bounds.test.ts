// Tests: selectors cost O(selector) to parse and O(labels) per object to match, whatever their
// size, with the same answers as checking each requirement.

import { describe, expect, it } from 'vitest';
import { matchesLabels, parseLabelSelector } from '../../../core/selectors/label-selector';
import { matchesFields, parseFieldSelector } from '../../../core/selectors/field-selector';
import { countOps } from '../op-count';

const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
/** `a in (v0,...)`, then `b!=vN` terms, then `c>k` terms: all on few keys. */
const hostile = (n: number) => [`a in (${values(n).join(',')})`, ...values(n).map((v) => `b!=${v}`), ...Array.from({ length: n }, (_, i) => `c>${i}`)].join(',');
const objects = (n: number) => Array.from({ length: n }, (_, i) => ({ a: `v${i}`, b: `v${n + i}`, c: String(n + i), other: 'x' }));

describe('label selectors at scale', () => {
  it('gives the per-requirement answers for a selector of thousands of terms', () => {
    const sel = parseLabelSelector(hostile(3000));
    expect(sel.requirements).toHaveLength(6001);
    expect(matchesLabels(sel, { a: 'v2999', b: 'v3000', c: '3000' })).toBe(true);
    expect(matchesLabels(sel, { a: 'v3000', b: 'v3000', c: '3000' })).toBe(false); // not in the set
    expect(matchesLabels(sel, { a: 'v1', b: 'v1500', c: '3000' })).toBe(false); // a forbidden value
    expect(matchesLabels(sel, { a: 'v1', b: 'w', c: '2999' })).toBe(false); // not above every bound
    expect(matchesLabels(sel, { a: 'v1', b: 'w', c: 'x' })).toBe(false); // not an integer
    expect(matchesLabels(sel, { a: 'v1', c: '3000' })).toBe(true); // b absent: != holds
    expect(matchesLabels(sel, { a: 'v1', b: 'w' })).toBe(false); // c absent: > fails
    expect(matchesLabels(parseLabelSelector('a in (x,y),a in (y,z),!b'), { a: 'y' })).toBe(true);
    expect(matchesLabels(parseLabelSelector('a in (x,y),a in (y,z),!b'), { a: 'x' })).toBe(false);
    expect(matchesLabels(parseLabelSelector('a in (x,y),a in (y,z),!b'), { a: 'y', b: '' })).toBe(false);
  });

  it('parses and matches a list in time linear in selector size plus list size', () => {
    const cost = (n: number) => countOps(() => {
      const sel = parseLabelSelector(hostile(n));
      for (const labels of objects(n)) matchesLabels(sel, labels);
    });
    const ratio = cost(2000) / cost(500);
    // Checking every requirement on every object would be 16x for 4x the selector and the list.
    expect(ratio, `4x the selector and objects cost ${ratio.toFixed(2)}x`).toBeLessThan(5);
  });
});

describe('field selectors at scale', () => {
  it('folds thousands of terms on one field into one check', () => {
    const text = values(3000).map((v) => `metadata.name!=${v}`).join(',');
    const sel = parseFieldSelector(text);
    expect(matchesFields(sel, { 'metadata.name': 'v2999' })).toBe(false);
    expect(matchesFields(sel, { 'metadata.name': 'web' })).toBe(true);
    expect(matchesFields(parseFieldSelector('metadata.name=a,metadata.name=b'), { 'metadata.name': 'a' })).toBe(false);
    expect(matchesFields(parseFieldSelector('metadata.name=a,metadata.name==a'), { 'metadata.name': 'a' })).toBe(true);
    const cost = (n: number) => countOps(() => {
      const s = parseFieldSelector(values(n).map((v) => `metadata.name!=${v}`).join(','));
      for (let i = 0; i < n; i++) matchesFields(s, { 'metadata.name': `w${i}` });
    });
    const ratio = cost(2000) / cost(500);
    expect(ratio, `4x the selector and objects cost ${ratio.toFixed(2)}x`).toBeLessThan(5);
  });
});
