// Boolean query parameters as apimachinery's Convert_Slice_string_To_bool reads them.
import { describe, expect, it } from 'vitest';
import { optionalQueryBool, parseQueryBool, queryBool } from '../../core/query-bool';
import { parseListOptions } from '../../core/list/options';

describe('query booleans', () => {
  it.each([
    ['true', true], ['True', true], ['TRUE', true], ['1', true], ['', true], ['yes', true], ['t', true],
    ['false', false], ['False', false], ['FALSE', false], ['0', false],
  ])('%j is %s', (v, want) => {
    expect(parseQueryBool(v)).toBe(want);
  });

  it('absent is false, and the first occurrence counts', () => {
    expect(queryBool(new URLSearchParams(''), 'watch')).toBe(false);
    expect(queryBool(new URLSearchParams('watch'), 'watch')).toBe(true);
    expect(queryBool(new URLSearchParams('watch=0&watch=1'), 'watch')).toBe(false);
    expect(optionalQueryBool(new URLSearchParams(''), 'sendInitialEvents')).toBeUndefined();
    expect(optionalQueryBool(new URLSearchParams('sendInitialEvents=False'), 'sendInitialEvents')).toBe(false);
  });

  it('list options read allowWatchBookmarks=True as the Python client sends it', () => {
    expect(parseListOptions(new URLSearchParams('allowWatchBookmarks=True'), true).allowWatchBookmarks).toBe(true);
    expect(parseListOptions(new URLSearchParams('allowWatchBookmarks=FALSE'), true).allowWatchBookmarks).toBe(false);
  });
});
