// Tests: the in-memory watch window is bounded in events and in bytes; what it drops is answered from the log.
import { describe, expect, it } from 'vitest';
import { WatchWindow } from '../../../core/watch/window';
import type { WatchEvent } from '../../../core/watch/event';

function event(revision: number, size: number, at = 0): WatchEvent {
  const json = JSON.stringify({ metadata: { name: `o${revision}` }, data: { v: 'x'.repeat(size) } });
  return { revision, type: 'MODIFIED', namespace: 'ns', name: `o${revision}`, key: `ns/o${revision}`,
    object: { key: `ns/o${revision}`, revision, json } as WatchEvent['object'], prev: undefined, at };
}

describe('WatchWindow', () => {
  it('evicts the oldest events beyond its byte budget, even when they are young', () => {
    const w = new WatchWindow({ maxEvents: 10_000, maxBytes: 10_000, minAgeMs: 75_000, minEvents: 1000 }, 0);
    for (let r = 1; r <= 100; r++) w.append(event(r, 1000, 0), 0);
    expect(w.heldBytes).toBeLessThanOrEqual(10_000);
    expect(w.size).toBeGreaterThan(0);
    expect(w.since(w.floor)!.map((e) => e.revision)).toEqual(Array.from({ length: w.size }, (_, i) => 100 - w.size + 1 + i));
    expect(w.since(w.floor - 1)).toBeUndefined(); // dropped: the caller reads the log
  });

  it('keeps one event however large, so the newest is always replayable from memory', () => {
    const w = new WatchWindow({ maxEvents: 10, maxBytes: 100, minAgeMs: 0, minEvents: 0 }, 0);
    w.append(event(1, 10_000), 0);
    expect(w.size).toBe(1);
    w.append(event(2, 10_000), 0);
    expect(w.since(1)!.map((e) => e.revision)).toEqual([2]);
  });

  it('still bounds by count', () => {
    const w = new WatchWindow({ maxEvents: 5, maxBytes: 1 << 30, minAgeMs: 75_000, minEvents: 0 }, 0);
    for (let r = 1; r <= 20; r++) w.append(event(r, 10), 0);
    expect(w.size).toBe(5);
    expect(w.floor).toBe(15);
  });
});
