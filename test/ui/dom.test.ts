// Console (ui/) pure logic in Node: the frame scheduler renders a panel once per frame however often it is asked,
// a throttled panel at most once per interval, and the ring buffer hands out its newest entries.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Ring, schedule, throttled } from '../../ui/dom';
import { summarize } from '../../ui/panels/latency-summary';

let frames: (() => void)[] = [];
const runFrame = () => {
  const f = frames;
  frames = [];
  for (const cb of f) cb();
};

beforeEach(() => {
  frames = [];
  vi.stubGlobal('requestAnimationFrame', (cb: () => void) => frames.push(cb));
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('schedule', () => {
  it('renders each panel once per frame however many times it was asked', () => {
    const a = { renders: 0, render() { this.renders++; } };
    const b = { renders: 0, render() { this.renders++; } };
    for (let i = 0; i < 2500; i++) schedule(a);
    schedule(b);
    expect(frames.length).toBe(1);
    runFrame();
    expect([a.renders, b.renders]).toEqual([1, 1]);
    schedule(a);
    runFrame();
    expect(a.renders).toBe(2);
  });

  it('keeps rendering the other panels when one throws, and records the error for the debug state', () => {
    const debug: { lastError?: string } = {};
    vi.stubGlobal('window', { __edgeplane: debug });
    const bad = { render() { throw new Error('boom'); } };
    const good = { renders: 0, render() { this.renders++; } };
    schedule(bad);
    schedule(good);
    runFrame();
    expect(good.renders).toBe(1);
    expect(debug.lastError).toBe('boom');
  });
});

describe('throttled', () => {
  it('asks for at most one render per interval, and for the last request after a burst', () => {
    const p = { renders: 0, render() { this.renders++; } };
    const soon = throttled(p, 250);
    soon(); // the first request goes to the next frame at once
    runFrame();
    expect(p.renders).toBe(1);
    for (let i = 0; i < 1000; i++) soon(); // a burst inside the interval: one timer, no frame yet
    expect(frames.length).toBe(0);
    vi.advanceTimersByTime(249);
    expect(frames.length).toBe(0);
    vi.advanceTimersByTime(1);
    runFrame();
    expect(p.renders).toBe(2);
    vi.advanceTimersByTime(10_000);
    runFrame();
    expect(p.renders).toBe(2); // nothing asked since: nothing drawn
  });
});

describe('Ring', () => {
  it('gives the newest first, at most the limit asked for, across the wrap', () => {
    const r = new Ring<number>(5);
    for (let i = 1; i <= 7; i++) r.push(i);
    expect(r.newest()).toEqual([7, 6, 5, 4, 3]);
    expect(r.newest(2)).toEqual([7, 6]);
    expect(r.newest(0)).toEqual([]);
    expect(r.newest(50)).toEqual([7, 6, 5, 4, 3]);
  });
});

describe('latency summary', () => {
  it('summarizes one second of samples: p50, p99, max and count; nothing for none', () => {
    expect(summarize([])).toBeUndefined();
    const s = summarize(Array.from({ length: 100 }, (_, i) => 100 - i));
    expect(s).toEqual({ p50: 51, p99: 100, max: 100, count: 100 });
  });
});
