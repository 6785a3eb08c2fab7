// sameJson (core/object-meta.ts): equal exactly when the two values serialize to the same JSON with keys
// sorted, checked against that definition on generated values, plus the cases JSON.stringify treats
// specially (undefined members, non-finite numbers, holes in arrays, Dates).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sameJson } from '../../core/object-meta';

function canonical(v: unknown): string {
  if (v === undefined) return 'undefined';
  return JSON.stringify(v, (_k, val) => (val && typeof val === 'object' && !Array.isArray(val)
    ? Object.fromEntries(Object.keys(val).sort().map((k) => [k, (val as Record<string, unknown>)[k]]))
    : val));
}

const value = fc.letrec((tie) => ({
  leaf: fc.oneof(fc.constantFrom(null, undefined, true, false, 0, -0, 1, 1.5, NaN, Infinity, '', 'a', '1'), fc.integer({ min: -3, max: 3 })),
  node: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('arr'), tie('obj')),
  arr: fc.array(tie('node'), { maxLength: 3 }),
  obj: fc.dictionary(fc.constantFrom('a', 'b', 'c', '__proto__', 'toString'), tie('node'), { maxKeys: 3 }),
})).node;

describe('sameJson', () => {
  it('agrees with comparing canonical JSON text', () => {
    fc.assert(fc.property(value, value, (a, b) => {
      expect(sameJson(a, b)).toBe(canonical(a) === canonical(b));
      expect(sameJson(a, structuredClone(a))).toBe(true);
    }), { numRuns: 3000 });
  });

  it('ignores key order and undefined members, and reads JSON\'s nulls', () => {
    expect(sameJson({ a: 1, b: { c: [1, { d: 2, e: 3 }] } }, { b: { c: [1, { e: 3, d: 2 }] }, a: 1 })).toBe(true);
    expect(sameJson({ a: 1, x: undefined }, { a: 1 })).toBe(true);
    expect(sameJson([undefined, NaN], [null, null])).toBe(true);
    expect(sameJson({ a: Infinity }, { a: null })).toBe(true);
    expect(sameJson(undefined, null)).toBe(false);
    expect(sameJson(undefined, undefined)).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({}, [])).toBe(false);
    expect(sameJson('1', 1)).toBe(false);
    expect(sameJson({ t: new Date(0) }, { t: '1970-01-01T00:00:00.000Z' })).toBe(true);
  });
});
