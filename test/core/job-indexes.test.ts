// Unit tests: Indexed Job completion indexes as intervals (core/job-indexes.ts) — kube's parsing, merging,
// formatting and pending-index search, and the format errors status validation reports — never one step per index.
import { describe, expect, it } from 'vitest';
import {
  checkIndexesFormat, countIndexes, firstPendingIndexes, formatIndexes, goAtoi, hasIndex, mergeIntervals, overlapError, parseIndexes, withIndexes,
} from '../../core/job-indexes';

const iv = (first: number, last = first) => ({ first, last });

describe('index intervals', () => {
  it('parses as kube\'s controller does: corrupt fragments skipped, cut at completions, neighbours joined', () => {
    expect(parseIndexes('', 10)).toEqual([]);
    expect(parseIndexes('0-2,5,7-8', 10)).toEqual([iv(0, 2), iv(5), iv(7, 8)]);
    expect(parseIndexes('0-2,3,4-5,x,7,y-9', 10)).toEqual([iv(0, 5), iv(7)]);
    expect(parseIndexes('1,3-20,12', 10)).toEqual([iv(1), iv(3, 9)]); // cut at 9; 12 ends the list
    expect(parseIndexes('1,10,2', 10)).toEqual([iv(1)]); // kube stops at the first index ≥ completions
    expect(parseIndexes('+1,007', 10)).toEqual([iv(1), iv(7)]); // strconv.Atoi takes a sign and leading zeros
    expect(parseIndexes('1-2-9', 10)).toEqual([iv(1, 2)]); // a third part is ignored by the controller
  });

  it('sorts and merges a list validation would refuse instead of trusting its order', () => {
    expect(parseIndexes('5-6,1-5,3,9-2,8', 10)).toEqual([iv(1, 6), iv(8)]);
  });

  it('costs the intervals, not the indexes: 10^8 completions, one interval', () => {
    const big = parseIndexes('0-15999999,16000001-99999999', 100_000_000);
    expect(big).toEqual([iv(0, 15_999_999), iv(16_000_001, 99_999_999)]);
    expect(countIndexes(big)).toBe(99_999_999);
    expect(hasIndex(big, 16_000_000)).toBe(false);
    expect(hasIndex(big, 99_999_999)).toBe(true);
    expect(firstPendingIndexes(big, 5, 100_000_000)).toEqual([16_000_000]);
    expect(formatIndexes(withIndexes(big, [16_000_000]))).toBe('0-99999999');
  });

  it('merges ordered lists and adds indexes in any order', () => {
    expect(mergeIntervals([iv(0, 2), iv(10, 12)], [iv(3), iv(5, 9), iv(11, 20)])).toEqual([iv(0, 3), iv(5, 20)]);
    expect(withIndexes([iv(2, 3)], [9, 1, 4, 9])).toEqual([iv(1, 4), iv(9)]);
  });

  it('formats as kube\'s String(): two neighbours with a comma, three or more as a range', () => {
    expect(formatIndexes([iv(0, 2), iv(5), iv(7, 8)])).toBe('0-2,5,7,8');
    expect(formatIndexes([])).toBe('');
  });

  it('finds the first pending indexes around the taken ones, below completions', () => {
    expect(firstPendingIndexes([iv(0, 1), iv(3), iv(6, 7)], 4, 9)).toEqual([2, 4, 5, 8]);
    expect(firstPendingIndexes([iv(0, 1)], 5, 4)).toEqual([2, 3]);
    expect(firstPendingIndexes([], 0, 4)).toEqual([]);
  });

  it('reads integers as strconv.Atoi does', () => {
    expect(['0', '+3', '-3', '0007', '9223372036854775807'].map(goAtoi)).toEqual([0, 3, -3, 7, 9223372036854775807]);
    expect(['', ' 1', '1_0', '0x1', '9223372036854775808', '1.0'].map(goAtoi)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });
});

describe('index list validation (validateIndexesFormat)', () => {
  it('counts a well-formed list', () => {
    expect(checkIndexesFormat('', 0)).toEqual({ total: 0 });
    expect(checkIndexesFormat('0-15999999', 100_000_000)).toEqual({ total: 16_000_000 });
    expect(checkIndexesFormat('1,3-5,7', 8)).toEqual({ total: 5 });
  });

  it('refuses with kube\'s messages', () => {
    expect(checkIndexesFormat('0-100000000', 100_000_000)).toEqual({ error: 'too large index: "100000000"' });
    expect(checkIndexesFormat('7', 7)).toEqual({ error: 'too large index: "7"' });
    expect(checkIndexesFormat('1-2-3', 7)).toEqual({ error: 'the fragment "1-2-3" violates the requirement that an index interval can have at most two parts separated by \'-\'' });
    expect(checkIndexesFormat('a', 7)).toEqual({ error: 'cannot convert string to integer for index: "a"' });
    expect(checkIndexesFormat('1,', 7)).toEqual({ error: 'cannot convert string to integer for index: ""' });
    expect(checkIndexesFormat('1-x', 7)).toEqual({ error: 'cannot convert string to integer for index: "x"' });
    expect(checkIndexesFormat('3-3', 7)).toEqual({ error: 'non-increasing order, previous: 3, current: 3' });
    expect(checkIndexesFormat('1-3,3', 7)).toEqual({ error: 'non-increasing order, previous: 3, current: 3' });
    expect(checkIndexesFormat('5,1', 7)).toEqual({ error: 'non-increasing order, previous: 5, current: 1' });
    expect(checkIndexesFormat('-1', 7)).toEqual({ error: 'cannot convert string to integer for index: ""' });
    expect(checkIndexesFormat('"\n', 7)).toEqual({ error: 'cannot convert string to integer for index: "\\"\\n"' });
  });

  it('finds the first index both completed and failed hold, skipping fragments that do not parse', () => {
    expect(overlapError('0-3,8', '4-7', 10)).toBeUndefined();
    expect(overlapError('0-3,8', '5,8-9', 10)).toBe('failedIndexes and completedIndexes overlap at index: 8');
    expect(overlapError('x,2-6', '0,4', 10)).toBe('failedIndexes and completedIndexes overlap at index: 4');
    expect(overlapError('', '1', 10)).toBeUndefined();
  });

  it('runs in time proportional to the text, whatever the numbers: 200,000 fragments', () => {
    const list = Array.from({ length: 200_000 }, (_, i) => `${4 * i}-${4 * i + 1}`).join(',');
    expect(checkIndexesFormat(list, 2_000_000_000)).toEqual({ total: 400_000 });
    expect(parseIndexes(list, 2_000_000_000)).toHaveLength(200_000);
    expect(overlapError(list, '799999,799997', 2_000_000_000)).toBeUndefined();
  });
});
