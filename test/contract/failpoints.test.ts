// The inside failpoints' registry (contract/failpoints.ts): gofail-style terms, counts, scoping to one object, and
// nothing at all while nothing is armed.
import { afterEach, describe, expect, it } from 'vitest';
import { armFailpoint, failpoint, failpointState, fired, INSIDE_FAILPOINTS, parseFailpointTerm } from '../../contract/failpoints';

const ctx = { abort: () => { throw new Error('aborted'); } } as unknown as DurableObjectState;
const store = 'core/configmaps';

afterEach(() => {
  for (const n of INSIDE_FAILPOINTS) armFailpoint(n, 'off');
});

describe('failpoint terms', () => {
  it('parses throw, abort, N*… and off, and nothing else', () => {
    expect(parseFailpointTerm('throw')).toEqual({ action: 'throw', count: 1 });
    expect(parseFailpointTerm(' 3*abort ')).toEqual({ action: 'abort', count: 3 });
    expect(parseFailpointTerm('off')).toEqual({ action: 'off', count: 1 });
    for (const bad of ['panic', '0*throw', '1234567*throw', 'sleep(100)', '', '2*']) expect(parseFailpointTerm(bad)).toBeUndefined();
  });
});

describe('failpoints', () => {
  it('do nothing unarmed', () => {
    expect(() => failpoint('store.write.in-transaction', ctx, store)).not.toThrow();
    expect(fired('replica.push.drop', store)).toBe(false);
  });

  it('fire their count, then disarm; throw, or abort the object', () => {
    armFailpoint('store.write.in-transaction', 'throw', 2);
    expect(() => failpoint('store.write.in-transaction', ctx, store)).toThrow('failpoint store.write.in-transaction');
    expect(failpointState().armed).toEqual({ 'store.write.in-transaction': '1*throw' });
    expect(() => failpoint('store.write.in-transaction', ctx, store)).toThrow();
    expect(() => failpoint('store.write.in-transaction', ctx, store)).not.toThrow();
    armFailpoint('store.write.after-commit', 'abort');
    expect(() => failpoint('store.write.after-commit', ctx, store)).toThrow('aborted');
    armFailpoint('store.storage-error', 'throw');
    expect(() => failpoint('store.storage-error', ctx, store)).toThrow(/^SQLITE_FULL/);
  });

  it('armed for one store, leave every other object alone', () => {
    armFailpoint('replica.push.drop', 'throw', 1, 'core/configmaps');
    expect(fired('replica.push.drop', 'core/secrets')).toBe(false);
    expect(fired('replica.push.drop', store)).toBe(true);
    expect(fired('replica.push.drop', store)).toBe(false);
  });
});
