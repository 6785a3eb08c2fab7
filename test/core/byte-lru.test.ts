// The byte-bounded LRU behind the decision cache and the rate-limit buckets.
import { describe, expect, it } from 'vitest';
import { ByteLru, ENTRY_OVERHEAD_BYTES } from '../../core/byte-lru';
import { TokenBuckets } from '../../core/rate-limit';

describe('ByteLru', () => {
  it('charges every entry for its key, and never holds more than its budget', () => {
    const lru = new ByteLru<boolean>(10_000);
    for (let i = 0; i < 1000; i++) lru.set(`key-${i}-${'x'.repeat(i % 50)}`, true);
    expect(lru.bytes).toBeLessThanOrEqual(10_000);
    expect(lru.size).toBeGreaterThan(0);
    // The bytes are the sum of what the entries held cost.
    const short = new ByteLru<boolean>(10_000);
    short.set('ab', true);
    expect(short.bytes).toBe(4 + ENTRY_OVERHEAD_BYTES);
  });

  it('keeps the recently used and evicts the least recently used', () => {
    const lru = new ByteLru<number>(3 * (2 + ENTRY_OVERHEAD_BYTES));
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('c', 3);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('d', 4);
    expect(lru.get('b')).toBeUndefined();
    expect([lru.get('a'), lru.get('c'), lru.get('d')]).toEqual([1, 3, 4]);
  });

  it('refuses an entry larger than the whole budget instead of emptying itself for it', () => {
    const lru = new ByteLru<boolean>(4096);
    lru.set('small', true);
    expect(lru.set('x'.repeat(2 * 1024 * 1024), true)).toBe(false);
    expect(lru.get('small')).toBe(true);
    expect(lru.bytes).toBe(lru.cost('small'));
  });

  it('a flood of 2 MB keys stays within the budget', () => {
    const lru = new ByteLru<boolean>(16 << 20);
    const big = 'n'.repeat(2 << 20);
    for (let i = 0; i < 20; i++) lru.set(`${i}${big}`, false);
    expect(lru.bytes).toBeLessThanOrEqual(16 << 20);
    expect(lru.size).toBeLessThanOrEqual(4);
  });

  it('replacing a key does not double-charge it, and delete and clear give the bytes back', () => {
    const lru = new ByteLru<number>(1 << 20);
    lru.set('k', 1);
    lru.set('k', 2);
    expect(lru.bytes).toBe(lru.cost('k'));
    lru.delete('k');
    expect(lru.bytes).toBe(0);
    lru.set('j', 1);
    lru.clear();
    expect([lru.size, lru.bytes]).toEqual([0, 0]);
  });
});

describe('TokenBuckets', () => {
  it('holds a bounded number of users', () => {
    const b = new TokenBuckets(64 * 1024);
    for (let i = 0; i < 10_000; i++) b.take(`user-${i}`, 0, 10, 10);
    expect(b.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(b.size).toBeLessThan(10_000);
    // The most recent user keeps its bucket: a second take in the same instant has one token fewer.
    for (let i = 0; i < 9; i++) expect(b.take('user-9999', 0, 10, 10)).toBe(0);
    expect(b.take('user-9999', 0, 10, 10)).toBeGreaterThan(0);
  });
});
