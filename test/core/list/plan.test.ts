import { describe, expect, it } from 'vitest';
import { planList } from '../../../core/list/plan';
import { parseListOptions } from '../../../core/list/options';
import { encodeContinue } from '../../../core/list/continue-token';
import { statusOf } from '../status-of';

const plan = (query: string, compacted = 0) => planList(parseListOptions(new URLSearchParams(query), false), compacted);


describe('planList (api-concepts resourceVersion table)', () => {
  it.each([
    ['', { revision: 'latest', minRevision: 0, limit: 0 }],
    ['limit=5', { revision: 'latest', minRevision: 0, limit: 5 }],
    ['resourceVersion=0&limit=5', { revision: 'latest', minRevision: 0, limit: 0 }],
    ['resourceVersion=7', { revision: 'latest', minRevision: 7, limit: 0 }],
    ['resourceVersion=7&limit=5', { revision: 7, minRevision: 7, limit: 5 }],
    ['resourceVersion=7&resourceVersionMatch=NotOlderThan&limit=5', { revision: 'latest', minRevision: 7, limit: 5 }],
    ['resourceVersion=7&resourceVersionMatch=Exact', { revision: 7, minRevision: 7, limit: 0 }],
  ])('%s', (query, expected) => {
    expect(plan(query)).toMatchObject(expected);
  });

  it('reads a continue token at its revision and start key', () => {
    expect(plan(`limit=2&continue=${encodeContinue(9, 'ns/b\u0000')}`)).toMatchObject({ revision: 9, start: 'ns/b\u0000', limit: 2 });
    expect(plan(`limit=2&resourceVersion=0&continue=${encodeContinue(9, 'a\u0000')}`)).toMatchObject({ revision: 9 });
  });

  it('answers 410 with a fresh token for a compacted continue token', () => {
    const s = statusOf(() => plan(`limit=2&continue=${encodeContinue(3, 'ns/b\u0000')}`, 5));
    expect(s).toMatchObject({ code: 410, reason: 'Expired' });
    expect(s.message).toMatch(/^The provided continue parameter is too old/);
    expect(plan(`limit=2&continue=${s.metadata.continue}`)).toMatchObject({ revision: 'latest', start: 'ns/b\u0000' });
  });

  it('answers 410 for an Exact list below the compacted revision', () => {
    expect(statusOf(() => plan('resourceVersion=3&resourceVersionMatch=Exact', 5))).toMatchObject({
      code: 410, reason: 'Expired', message: 'The resourceVersion for the provided list is too old.',
    });
  });

  it.each([
    ['resourceVersionMatch=Exact', 422, 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
    ['resourceVersion=0&resourceVersionMatch=Exact', 422, 'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
    ['resourceVersion=1&resourceVersionMatch=Newest', 422, 'resourceVersionMatch: Unsupported value: "Newest"'],
    ['sendInitialEvents=true', 422, 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
    ['resourceVersion=x', 400, 'invalid resource version'],
    ['limit=abc', 400, 'limit'],
  ])('rejects %s with %i', (query, code, fragment) => {
    const s = statusOf(() => plan(query));
    expect(s.code).toBe(code);
    expect(s.message).toContain(fragment);
  });
});
