// The fan-out hub with fake sinks: indexing, selector filtering, serialize-once, slow watchers,
// catch-up from window and log, 410, bookmarks and heartbeats.
import { describe, expect, it } from 'vitest';
import { WatchHub, type HubSource, type Sink, type WatchRequest } from '../../../core/watch/hub';
import { WatchWindow } from '../../../core/watch/window';
import { ObjectState, type StateEntry } from '../../../core/object-state';
import { parseSelectors } from '../../../core/list/options';
import type { EventType, Frame, WatchEvent } from '../../../core/watch/event';

function entry(ns: string, name: string, rv: number, labels: Record<string, string> = {}): StateEntry {
  const json = JSON.stringify({ metadata: { namespace: ns, name, resourceVersion: String(rv), labels } });
  return { key: `${ns}/${name}`, revision: rv, json, labels, fields: { 'metadata.name': name, 'metadata.namespace': ns } };
}

function event(rv: number, type: EventType, ns: string, name: string, labels: Record<string, string> = {}, prev?: StateEntry): WatchEvent {
  return { revision: rv, type, namespace: ns, name, key: `${ns}/${name}`, object: entry(ns, name, rv, labels), prev, at: 0 };
}

class FakeSink implements Sink {
  frames: Frame[] = [];
  closed = false;
  heartbeats = 0;
  constructor(private readonly capacity = Infinity, public isFull = false) {}
  send(f: Frame) {
    if (this.frames.length >= this.capacity) return false;
    this.frames.push(f);
    return true;
  }
  full() {
    return this.isFull;
  }
  drained() {
    return Promise.resolve(false);
  }
  close() {
    this.closed = true;
  }
  heartbeat() {
    this.heartbeats++;
  }
  types() {
    return this.frames.map((f) => JSON.parse(f.text)).map((e) => `${e.type}:${e.object.metadata?.name ?? ''}`);
  }
}

function setup(opts: { log?: WatchEvent[]; compacted?: number; windowMax?: number } = {}) {
  let revision = 0;
  const state = new ObjectState();
  const window = new WatchWindow({ maxEvents: opts.windowMax ?? 100, maxBytes: 1 << 30, minAgeMs: 0, minEvents: 0 }, 0);
  const log = opts.log ?? [];
  const src: HubSource = {
    kind: 'Pod', apiVersion: 'v1',
    revision: () => revision, compacted: () => opts.compacted ?? 0, window,
    entries: (ns) => state.range(ns ? `${ns}/` : ''),
    readLog: async (after, limit) => log.filter((e) => e.revision > after).slice(0, limit),
    waitFor: async () => false,
    table: (json) => json,
    yieldTurn: () => Promise.resolve(),
  };
  const hub = new WatchHub(src, { bookmarkIntervalMs: 1000, heartbeatIntervalMs: 500, replayBatch: 2, freshnessWaitMs: 0, drainWaitMs: 0 });
  const apply = (ev: WatchEvent) => {
    if (ev.type === 'DELETED') state.delete(ev.key);
    else state.set(ev.object);
    revision = ev.revision;
    window.append(ev, 0);
    hub.publish(ev);
  };
  return { hub, apply, setRevision: (r: number) => (revision = r) };
}

function request(over: Partial<WatchRequest> = {}, selector = ''): WatchRequest {
  const selectors = parseSelectors({ labelSelector: selector, fieldSelector: '' });
  return {
    scope: { namespace: over.scope?.namespace ?? '', selectors }, indexKey: { namespace: over.scope?.namespace ?? '' },
    format: 'json', bookmarks: false, deadline: 1e12, initialEvents: false, watchList: false, after: 0, ...over,
  };
}

describe('WatchHub', () => {
  it('delivers each event once to matching watchers, with the same frame for all', async () => {
    const { hub, apply } = setup();
    const a = new FakeSink();
    const b = new FakeSink();
    const other = new FakeSink();
    await hub.start(request({ scope: { namespace: 'ns', selectors: parseSelectors({ labelSelector: '', fieldSelector: '' }) } }), a, 0);
    await hub.start(request(), b, 0);
    await hub.start(request({ scope: { namespace: 'elsewhere', selectors: parseSelectors({ labelSelector: '', fieldSelector: '' }) } }), other, 0);
    apply(event(1, 'ADDED', 'ns', 'p'));
    expect(a.types()).toEqual(['ADDED:p']);
    expect(b.frames[0]).toBe(a.frames[0]);
    expect(other.frames).toEqual([]);
  });

  it('turns selector transitions into ADDED and DELETED', async () => {
    const { hub, apply } = setup();
    const s = new FakeSink();
    await hub.start(request({}, 'app=x'), s, 0);
    const first = event(1, 'ADDED', 'ns', 'p', { app: 'y' });
    apply(first);
    const second = event(2, 'MODIFIED', 'ns', 'p', { app: 'x' }, first.object);
    apply(second);
    apply(event(3, 'MODIFIED', 'ns', 'p', { app: 'z' }, second.object));
    expect(s.types()).toEqual(['ADDED:p', 'DELETED:p']);
    expect(JSON.parse(s.frames[1].text).object.metadata).toMatchObject({ resourceVersion: '3', labels: { app: 'x' } });
  });

  it('closes a watcher whose buffer overflows and keeps serving the others', async () => {
    const { hub, apply } = setup();
    const slow = new FakeSink(1);
    const fast = new FakeSink();
    await hub.start(request(), slow, 0);
    await hub.start(request(), fast, 0);
    for (let i = 1; i <= 3; i++) apply(event(i, 'ADDED', 'ns', `p${i}`));
    expect(slow.closed).toBe(true);
    expect(hub.stats.slowClosed).toBe(1);
    expect(fast.types()).toEqual(['ADDED:p1', 'ADDED:p2', 'ADDED:p3']);
  });

  it('replays from the log, then the window, then goes live, without gaps or repeats', async () => {
    const log = [1, 2, 3, 4, 5].map((i) => event(i, 'ADDED', 'ns', `p${i}`));
    const { hub, apply } = setup({ log, windowMax: 2 });
    for (const ev of log) apply(ev);
    const s = new FakeSink();
    await hub.start(request({ after: 1 }), s, 0);
    apply(event(6, 'ADDED', 'ns', 'p6'));
    expect(s.types()).toEqual(['ADDED:p2', 'ADDED:p3', 'ADDED:p4', 'ADDED:p5', 'ADDED:p6']);
  });

  it('answers a compacted revision with one 410 ERROR and closes', async () => {
    const { hub, setRevision } = setup({ compacted: 5 });
    setRevision(9);
    const s = new FakeSink();
    await hub.start(request({ after: 3 }), s, 0);
    expect(s.closed).toBe(true);
    const err = JSON.parse(s.frames[0].text);
    expect(err).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired', message: 'too old resource version: 3 (5)' } });
  });

  it('sends bookmarks, a last one before the deadline, heartbeats, and closes at the deadline', async () => {
    const { hub, setRevision } = setup();
    setRevision(7);
    const s = new FakeSink();
    await hub.start(request({ bookmarks: true, deadline: 5000, after: 7 }), s, 0);
    expect(hub.tick(600)).toBe(1000);
    expect(s.heartbeats).toBe(1);
    hub.tick(1000);
    hub.tick(3100);
    expect(s.types()).toEqual(['BOOKMARK:', 'BOOKMARK:']);
    hub.tick(5000);
    expect(s.closed).toBe(true);
  });

  it('flushes sinks that hold frames once per turn, after every event of the turn, sharing the joined message', async () => {
    const { hub, apply } = setup();
    const held = () => {
      const s = Object.assign(new FakeSink(), { messages: [] as string[], pending: [] as Frame[] });
      s.send = (f: Frame) => (s.pending.push(f), true);
      (s as Sink).flush = (join) => {
        const frames = s.pending;
        s.pending = [];
        s.messages.push(join(frames));
        return true;
      };
      return s;
    };
    const a = held();
    const b = held();
    const plain = new FakeSink();
    for (const s of [a, b, plain]) await hub.start(request(), s, 0);
    apply(event(1, 'ADDED', 'ns', 'p'));
    apply(event(2, 'ADDED', 'ns', 'q'));
    apply(event(3, 'DELETED', 'ns', 'p'));
    expect(plain.types()).toEqual(['ADDED:p', 'ADDED:q', 'DELETED:p']); // sent as they come
    expect(a.messages).toEqual([]); // held until the turn ends
    await Promise.resolve();
    expect(a.messages).toHaveLength(1);
    expect(a.messages[0].split('\n').filter(Boolean).map((l) => JSON.parse(l).type)).toEqual(['ADDED', 'ADDED', 'DELETED']);
    expect(b.messages[0]).toBe(a.messages[0]); // one join shared by both
    apply(event(4, 'ADDED', 'ns', 'r'));
    await Promise.resolve();
    expect(a.messages).toHaveLength(2);
    expect(JSON.parse(a.messages[1]).object.metadata.name).toBe('r');
  });

  it('closes a holding watcher whose flush fails, and only it', async () => {
    const { hub, apply } = setup();
    const failing = Object.assign(new FakeSink(), { flush: () => false });
    const fine = new FakeSink();
    await hub.start(request(), failing, 0);
    await hub.start(request(), fine, 0);
    apply(event(1, 'ADDED', 'ns', 'p'));
    await Promise.resolve();
    expect(failing.closed).toBe(true);
    expect(hub.size).toBe(1);
    expect(hub.stats.sinkErrors).toBe(1);
    apply(event(2, 'ADDED', 'ns', 'q'));
    expect(fine.types()).toEqual(['ADDED:p', 'ADDED:q']);
  });
});
