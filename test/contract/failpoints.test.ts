// The inside failpoints' registry (contract/failpoints.ts): gofail-style terms, counts, scoping to one object, and
// nothing at all while nothing is armed; the watch points' sink wrapper holding frames in order.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { armFailpoint, clockSkewMs, failpoint, failpointSleep, failpointState, fired, INSIDE_FAILPOINTS, parseFailpointTerm } from '../../contract/failpoints';
import { delayableSink } from '../../durable-objects/watch-sinks';

const ctx = { abort: () => { throw new Error('aborted'); } } as unknown as DurableObjectState;
const store = 'core/configmaps';

afterEach(() => {
  for (const n of INSIDE_FAILPOINTS) armFailpoint(n, 'off');
});

describe('failpoint terms', () => {
  it('parses throw, abort, sleep(ms), N*… and off, and nothing else', () => {
    expect(parseFailpointTerm('throw')).toEqual({ action: 'throw', count: 1 });
    expect(parseFailpointTerm(' 3*abort ')).toEqual({ action: 'abort', count: 3 });
    expect(parseFailpointTerm('off')).toEqual({ action: 'off', count: 1 });
    expect(parseFailpointTerm('sleep(100)')).toEqual({ action: 'sleep', count: 1, ms: 100 });
    expect(parseFailpointTerm('2*sleep(10000)')).toEqual({ action: 'sleep', count: 2, ms: 10000 });
    expect(parseFailpointTerm('skew(-30000)')).toEqual({ action: 'skew', count: 1, ms: -30000 });
    expect(parseFailpointTerm('skew(600000)')).toEqual({ action: 'skew', count: 1, ms: 600000 });
    for (const bad of ['panic', '0*throw', '1234567*throw', 'sleep(10001)', 'sleep()', 'sleep(-1)', 'sleep', '', '2*', 'skew(600001)', 'skew()', '2*skew(5)', 'skew(--5)']) expect(parseFailpointTerm(bad)).toBeUndefined();
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

  it('clock.skew holds its offset until disarmed, counted as one hit', () => {
    expect(clockSkewMs()).toBe(0);
    armFailpoint('clock.skew', 'skew', 1, undefined, -45_000);
    expect(failpointState().armed).toEqual({ 'clock.skew': 'skew(-45000)' });
    expect(clockSkewMs()).toBe(-45_000);
    expect(clockSkewMs()).toBe(-45_000);
    expect(failpointState().hits['clock.skew']).toBeGreaterThanOrEqual(1);
    const hits = failpointState().hits['clock.skew'];
    clockSkewMs();
    expect(failpointState().hits['clock.skew']).toBe(hits);
    armFailpoint('clock.skew', 'off');
    expect(clockSkewMs()).toBe(0);
  });

  it('armed for one store, leave every other object alone', () => {
    armFailpoint('replica.push.drop', 'throw', 1, 'core/configmaps');
    expect(fired('replica.push.drop', 'core/secrets')).toBe(false);
    expect(fired('replica.push.drop', store)).toBe(true);
    expect(fired('replica.push.drop', store)).toBe(false);
  });

  it('that may wait sleep their ms, count their hits, and throw when armed to', () => {
    expect(failpointSleep('watch.before-send', store)).toBe(0);
    armFailpoint('watch.before-send', 'sleep', 2, store, 300);
    expect(failpointState().armed).toEqual({ 'watch.before-send': '2*sleep(300) in core/configmaps' });
    expect(failpointSleep('watch.before-send', 'core/secrets')).toBe(0);
    expect(failpointSleep('watch.before-send', store)).toBe(300);
    expect(failpointSleep('watch.before-send', store)).toBe(300);
    expect(failpointSleep('watch.before-send', store)).toBe(0);
    armFailpoint('watch.before-bookmark', 'throw');
    expect(() => failpointSleep('watch.before-bookmark', store)).toThrow('failpoint watch.before-bookmark');
    // A sleep at a point that cannot wait does nothing (the route refuses to arm one).
    armFailpoint('store.write.in-transaction', 'sleep', 1, undefined, 100);
    expect(() => failpoint('store.write.in-transaction', ctx, store)).not.toThrow();
  });
});

describe('watch points around a transport (durable-objects/watch-sinks.ts delayableSink)', () => {
  const frame = (text: string) => ({ text: `${text}\n` });
  const recording = () => {
    const sent: string[] = [];
    let closed = false;
    const inner = { send: (f: { text: string }) => (sent.push(f.text.trim()), true), full: () => false, drained: async () => true, close: () => void (closed = true) };
    return { sent, inner, closed: () => closed };
  };

  it('unarmed, pass every frame straight through', () => {
    const t = recording();
    const s = delayableSink(t.inner, store, 1000);
    expect(s.send(frame('a'))).toBe(true);
    expect(t.sent).toEqual(['a']);
  });

  it('hold the frame that fires and every later one, then send them in order', () => {
    vi.useFakeTimers();
    try {
      const t = recording();
      const s = delayableSink(t.inner, store, 1000);
      armFailpoint('watch.before-send', 'sleep', 1, store, 500);
      for (const x of ['a', 'b', 'c']) expect(s.send(frame(x))).toBe(true);
      expect(t.sent).toEqual([]);
      vi.advanceTimersByTime(499);
      expect(t.sent).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(t.sent).toEqual(['a', 'b', 'c']);
      expect(s.send(frame('d'))).toBe(true); // disarmed: straight through again
      expect(t.sent).toEqual(['a', 'b', 'c', 'd']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('tell a bookmark from an event, hold at most limitBytes, and send what waits before closing', () => {
    vi.useFakeTimers();
    try {
      const t = recording();
      const s = delayableSink(t.inner, store, 64);
      armFailpoint('watch.before-bookmark', 'sleep', 1, store, 500);
      expect(s.send(frame('{"type":"ADDED"}'))).toBe(true); // not a bookmark: not held
      expect(s.send(frame('{"type":"BOOKMARK","object":{}}'))).toBe(true);
      expect(t.sent).toEqual(['{"type":"ADDED"}']);
      expect(s.send(frame('x'.repeat(100)))).toBe(false); // past the bound: the hub closes the watcher
      s.close();
      expect(t.sent).toEqual(['{"type":"ADDED"}', '{"type":"BOOKMARK","object":{}}']);
      expect(t.closed()).toBe(true);
      vi.advanceTimersByTime(1000);
      expect(t.sent.length).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
