// Tests: a JSON patch cannot make the store work (or nest) without bound: the work budget, the
// depth limit during application, and linear cost for ordinary patches.

import { describe, expect, it } from 'vitest';
import { applyJsonPatch, JSON_PATCH_MAX_WORK } from '../../../core/patch/json-patch';
import { GENERIC_422_MESSAGE, PatchError } from '../../../core/patch/patch-error';
import { jsonDepthError, MAX_JSON_DEPTH } from '../../../core/encoding/json-depth';
import { countOps, opGrowth } from '../op-count';

function failure(doc: unknown, patch: unknown): PatchError {
  try {
    applyJsonPatch(doc, patch);
  } catch (e) {
    if (e instanceof PatchError) return e;
    throw e;
  }
  throw new Error('patch applied but was expected to fail');
}

const expectGeneric422 = (err: PatchError, detail: RegExp) => {
  expect(err.toStatus()).toEqual({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: GENERIC_422_MESSAGE, reason: 'Invalid', details: {}, code: 422,
  });
  expect(err.detail).toMatch(detail);
};

/** An array nested `levels` deep: [[[...[]...]]]. */
function nested(levels: number): unknown {
  let v: unknown = [];
  for (let i = 1; i < levels; i++) v = [v];
  return v;
}

describe('JSON patch work budget', () => {
  it('stops 10000 inserts at the front of a 300k-element list within the budget', () => {
    const doc = { list: new Array(300_000).fill(0) };
    const patch = Array.from({ length: 10_000 }, () => ({ op: 'add', path: '/list/0', value: 1 }));
    let err: PatchError | undefined;
    const ops = countOps(() => {
      err = failure(doc, patch);
    });
    expectGeneric422(err!, /needs more than 33554432 units of work/);
    // Without the budget this is 3·10^9 element shifts; with it, the budget plus a few copies of the doc.
    expect(ops).toBeLessThan(JSON_PATCH_MAX_WORK + 10 * 300_000 + 100_000);
  });

  it('still applies 10000 ordinary operations', () => {
    const patch = Array.from({ length: 10_000 }, (_, i) => ({ op: 'add', path: '/list/-', value: i }));
    const out = applyJsonPatch({ list: [] }, patch) as { list: number[] };
    expect(out.list).toHaveLength(10_000);
    expect(out.list[9_999]).toBe(9_999);
    // 2,500 front inserts into a list of 2,500 shift about 9.4M elements: under the budget.
    const front = Array.from({ length: 2_500 }, (_, i) => ({ op: 'add', path: '/list/0', value: i }));
    expect((applyJsonPatch({ list: new Array(2_500).fill(0) }, front) as { list: number[] }).list[0]).toBe(2_499);
  });

  it('costs linear work in the number of operations and the document', () => {
    const adds = (n: number) => {
      const doc = { data: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v'])) };
      const patch = Array.from({ length: n }, (_, i) => ({ op: 'replace', path: `/data/k${i}`, value: 'w' }));
      return () => void applyJsonPatch(doc, patch);
    };
    const ratio = opGrowth(adds, 1_000);
    expect(ratio, `4x the input cost ${ratio.toFixed(2)}x the operations`).toBeLessThan(4.5);
  });
});

describe('JSON patch amplification and nesting', () => {
  it('refuses a copy that doubles the document 20 times once 3 MiB have been copied', () => {
    const doubling = Array.from({ length: 20 }, (_, i) => ({ op: 'copy', from: '/a', path: `/b${i}` }))
      .flatMap((copy, i) => [copy, { op: 'move', from: `/b${i}`, path: '/a/-' }]);
    const err = failure({ a: ['x'.repeat(1000)] }, doubling);
    expectGeneric422(err, /^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/);
  });

  it('refuses a move that would nest the object past the depth limit', () => {
    const half = MAX_JSON_DEPTH / 2 + 10;
    const deepest = `/b${'/0'.repeat(half - 2)}/-`;
    const err = failure({ a: nested(half), b: nested(half) }, [{ op: 'move', from: '/a', path: deepest }]);
    expectGeneric422(err, new RegExp(`would nest the object deeper than ${MAX_JSON_DEPTH} levels`));
    // The same move with room to spare applies.
    const ok = applyJsonPatch({ a: nested(10), b: nested(10) }, [{ op: 'move', from: '/a', path: `/b${'/0'.repeat(8)}/-` }]);
    // {"b": 9 levels, the last holding a's 10}: 20 levels with the outer object.
    expect(jsonDepthError(JSON.stringify(ok), 20)).toBeUndefined();
    expect(jsonDepthError(JSON.stringify(ok), 19)).toBe("invalid character '[' exceeded max depth");
  });

  it('refuses copies of a subtree into itself that would double its depth', () => {
    const ops = Array.from({ length: 12 }, () => ({ op: 'copy', from: '/a', path: '/a/-' }));
    // Each copy nests one level deeper; the depth check fires long before the stack would be at risk.
    const doc = { a: nested(MAX_JSON_DEPTH - 5) };
    expectGeneric422(failure(doc, ops), /would nest the object deeper/);
  });
});
