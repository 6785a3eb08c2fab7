import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../core/rate-limit';

describe('token buckets', () => {
  it('allows a burst, then one request per 1/qps seconds, per key', () => {
    const b = new TokenBuckets();
    for (let i = 0; i < 3; i++) expect(b.take('a', 0, 2, 3)).toBe(0);
    expect(b.take('a', 0, 2, 3)).toBe(500);
    expect(b.take('b', 0, 2, 3)).toBe(0);
    expect(b.take('a', 500, 2, 3)).toBe(0);
  });
});
