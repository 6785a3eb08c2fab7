import { describe, expect, it } from 'vitest';
import { ObjectState, type StateEntry } from '../../core/object-state';
import { entriesAt, readPage } from '../../core/list/query';
import { parseSelectors } from '../../core/list/options';
import { decodeContinue } from '../../core/list/continue-token';

const entry = (key: string, labels: Record<string, string> = {}): StateEntry => ({ key, revision: 1, json: `{"k":"${key}"}`, labels, fields: {} });
const all = parseSelectors({ labelSelector: '', fieldSelector: '' });

function state(keys: string[]) {
  const s = new ObjectState();
  for (const k of keys) s.set(entry(k, { app: k.endsWith('1') ? 'one' : 'other' }));
  return s;
}

describe('ObjectState', () => {
  it('iterates a namespace in key order from a start key', () => {
    const s = state(['b/2', 'a/1', 'b/1', 'c/1', 'b/3']);
    expect([...s.range('b/')].map((e) => e.key)).toEqual(['b/1', 'b/2', 'b/3']);
    expect([...s.range('b/', 'b/1\u0000')].map((e) => e.key)).toEqual(['b/2', 'b/3']);
    expect([...s.range('')].map((e) => e.key)).toEqual(['a/1', 'b/1', 'b/2', 'b/3', 'c/1']);
    expect(s.countFrom('b/', 'b/1\u0000')).toBe(2);
    s.delete('b/2');
    expect([...s.range('b/')].map((e) => e.key)).toEqual(['b/1', 'b/3']);
  });
});

describe('readPage', () => {
  it('pages with a continue token and remainingItemCount when unfiltered', () => {
    const s = state(['a', 'b', 'c', 'd']);
    const page = readPage(s.range(''), { selectors: all, hasSelectors: false, limit: 2, revision: 7 }, (after) => s.countFrom('', after));
    expect(page.items.map((e) => e.key)).toEqual(['a', 'b']);
    expect(page.remainingItemCount).toBe(2);
    expect(decodeContinue(page.continue!)).toEqual({ rv: 7, start: 'b\u0000' });
  });

  it('fills the page past non-matching keys and omits remainingItemCount with selectors', () => {
    const s = state(['a1', 'b2', 'c2', 'd1', 'e1']);
    const sel = parseSelectors({ labelSelector: 'app=one', fieldSelector: '' });
    const page = readPage(s.range(''), { selectors: sel, hasSelectors: true, limit: 2, revision: 7 }, () => 0);
    expect(page.items.map((e) => e.key)).toEqual(['a1', 'd1']);
    expect(decodeContinue(page.continue!).start).toBe('d1\u0000');
    expect(page.remainingItemCount).toBeUndefined();
  });

  it('gives no continue token on the last page', () => {
    const s = state(['a', 'b']);
    expect(readPage(s.range(''), { selectors: all, hasSelectors: false, limit: 2, revision: 1 }, () => 0).continue).toBeUndefined();
  });
});

describe('entriesAt', () => {
  it('replaces changed keys by their old values and drops keys created later', () => {
    const s = state(['a', 'c', 'd']);
    const overrides = new Map<string, StateEntry | null>([
      ['b', entry('b')], // deleted since: it existed then
      ['c', { ...entry('c'), json: 'old-c' }], // modified since
      ['d', null], // created since
    ]);
    const seen = [...entriesAt(s.range(''), overrides)];
    expect(seen.map((e) => e.key)).toEqual(['a', 'b', 'c']);
    expect(seen[2].json).toBe('old-c');
  });
});
