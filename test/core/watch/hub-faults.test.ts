// Fault isolation in the fan-out hub: a renderer, a filter, an index lookup or a transport that throws
// for one watcher or one object never costs any other watcher an event, and is counted.
import { describe, expect, it } from 'vitest';
import { WatchHub, type HubSource, type Sink, type WatchRequest } from '../../../core/watch/hub';
import { WatchWindow } from '../../../core/watch/window';
import { ObjectState, type StateEntry } from '../../../core/object-state';
import { parseSelectors } from '../../../core/list/options';
import type { EventType, Frame, TableRenderer, WatchEvent } from '../../../core/watch/event';

function entry(ns: string, name: string, rv: number): StateEntry {
  const json = JSON.stringify({ metadata: { namespace: ns, name, resourceVersion: String(rv) } });
  return { key: `${ns}/${name}`, revision: rv, json, labels: {}, fields: { 'metadata.name': name, 'metadata.namespace': ns, 'spec.nodeName': 'n1' } };
}

function event(rv: number, type: EventType, name: string): WatchEvent {
  return { revision: rv, type, namespace: 'ns', name, key: `ns/${name}`, object: entry('ns', name, rv), prev: undefined, at: 0 };
}

class FakeSink implements Sink {
  frames: Frame[] = [];
  closed = false;
  constructor(private readonly throwOn?: (f: Frame) => boolean) {}
  send(f: Frame) {
    if (this.throwOn?.(f)) throw new Error('transport broke');
    this.frames.push(f);
    return true;
  }
  full() {
    return false;
  }
  drained() {
    return Promise.resolve(true);
  }
  close() {
    this.closed = true;
  }
  events() {
    return this.frames.map((f) => JSON.parse(f.text) as { type: string; object: any });
  }
  names() {
    return this.events().map((e) => `${e.type}:${e.object.metadata?.name ?? e.object.rows?.[0]?.cells?.[0] ?? ''}`);
  }
}

// A Table renderer that cannot render the object named "bad", as a printer meeting a malformed field.
const table: TableRenderer = (json) => {
  const obj = JSON.parse(json);
  if (obj.metadata.name === 'bad') throw new TypeError('status.conditions.some is not a function');
  return JSON.stringify({ kind: 'Table', rows: [{ cells: [obj.metadata.name] }] });
};

function setup(triggerOf?: HubSource['triggerOf']) {
  let revision = 0;
  const state = new ObjectState();
  const window = new WatchWindow({ maxEvents: 100, maxBytes: 1 << 30, minAgeMs: 0, minEvents: 0 }, 0);
  const src: HubSource = {
    kind: 'Pod', apiVersion: 'v1', revision: () => revision, compacted: () => 0, window,
    entries: (ns) => state.range(ns ? `${ns}/` : ''),
    readLog: async () => [], waitFor: async () => false, table, triggerOf, yieldTurn: () => Promise.resolve(),
  };
  const hub = new WatchHub(src, { bookmarkIntervalMs: 1000, heartbeatIntervalMs: 500, replayBatch: 10, freshnessWaitMs: 0, drainWaitMs: 0 });
  const apply = (ev: WatchEvent) => {
    state.set(ev.object);
    revision = ev.revision;
    window.append(ev, 0);
    hub.publish(ev);
  };
  return { hub, apply };
}

function request(over: Partial<WatchRequest> = {}): WatchRequest {
  return {
    scope: { namespace: '', selectors: parseSelectors({ labelSelector: '', fieldSelector: '' }) }, indexKey: { namespace: '' },
    format: 'json', bookmarks: false, deadline: 1e12, initialEvents: false, watchList: false, after: 0, ...over,
  };
}

describe('WatchHub fault isolation', () => {
  it('ends only the Table watchers of an unrenderable object, with an ERROR; JSON watchers get everything', async () => {
    const { hub, apply } = setup();
    const json = new FakeSink();
    const tableA = new FakeSink();
    const tableB = new FakeSink();
    await hub.start(request(), json, 0);
    await hub.start(request({ format: 'table' }), tableA, 0);
    await hub.start(request({ format: 'table' }), tableB, 0);
    apply(event(1, 'ADDED', 'a'));
    apply(event(2, 'ADDED', 'bad'));
    apply(event(3, 'ADDED', 'c'));
    expect(json.names()).toEqual(['ADDED:a', 'ADDED:bad', 'ADDED:c']);
    for (const s of [tableA, tableB]) {
      expect(s.names().slice(0, 1)).toEqual(['ADDED:a']);
      expect(s.events()[1]).toEqual({
        type: 'ERROR',
        object: {
          kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
          message: 'Internal error occurred: unable to encode watch event for ns/bad: status.conditions.some is not a function',
          reason: 'InternalError',
          details: { causes: [{ message: 'unable to encode watch event for ns/bad: status.conditions.some is not a function' }] },
          code: 500,
        },
      });
      expect(s.frames).toHaveLength(2);
      expect(s.closed).toBe(true);
    }
    expect(hub.stats.renderErrors).toBe(2);
    expect(hub.size).toBe(1);
  });

  it('ends a watcher whose initial state holds an unrenderable object, and no other', async () => {
    const { hub, apply } = setup();
    apply(event(1, 'ADDED', 'a'));
    apply(event(2, 'ADDED', 'bad'));
    const table = new FakeSink();
    const json = new FakeSink();
    await hub.start(request({ format: 'table', initialEvents: true, after: undefined }), table, 0);
    await hub.start(request({ initialEvents: true, after: undefined }), json, 0);
    apply(event(3, 'ADDED', 'c'));
    expect(table.names()).toEqual(['ADDED:a', 'ERROR:']);
    expect(table.closed).toBe(true);
    expect(json.names()).toEqual(['ADDED:a', 'ADDED:bad', 'ADDED:c']);
    expect(hub.stats.renderErrors).toBe(1);
  });

  it('closes a watcher whose transport throws and keeps delivering to the rest, in order', async () => {
    const { hub, apply } = setup();
    const broken = new FakeSink((f) => f.text.includes('"b"'));
    const before = new FakeSink();
    const after = new FakeSink();
    await hub.start(request(), before, 0);
    await hub.start(request(), broken, 0);
    await hub.start(request(), after, 0);
    for (const [i, n] of ['a', 'b', 'c'].entries()) apply(event(i + 1, 'ADDED', n));
    expect(broken.names()).toEqual(['ADDED:a']);
    expect(broken.closed).toBe(true);
    for (const s of [before, after]) expect(s.names()).toEqual(['ADDED:a', 'ADDED:b', 'ADDED:c']);
    expect(hub.stats.sinkErrors).toBe(1);
    expect(hub.stats.renderErrors).toBe(0);
  });

  it('survives a throwing index lookup: no watcher misses the event', async () => {
    const { hub, apply } = setup(() => {
      throw new Error('index broke');
    });
    const all = new FakeSink();
    const byNode = new FakeSink();
    await hub.start(request(), all, 0);
    await hub.start(request({ indexKey: { namespace: '', trigger: 'n1' } }), byNode, 0);
    apply(event(1, 'ADDED', 'a'));
    expect(all.names()).toEqual(['ADDED:a']);
  });

  it('a sink that throws on close is counted, not propagated', async () => {
    const { hub, apply } = setup();
    const s = new FakeSink();
    s.close = () => {
      throw new Error('close broke');
    };
    const w = await hub.start(request(), s, 0);
    hub.close(w);
    expect(hub.stats.sinkErrors).toBe(1);
    const other = new FakeSink();
    await hub.start(request(), other, 0);
    apply(event(1, 'ADDED', 'a'));
    expect(other.names()).toEqual(['ADDED:a']);
  });
});
