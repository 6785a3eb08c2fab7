import { describe, expect, it } from 'vitest';
import { LogPosition } from '../../../core/follow/log-position';
import { StoreFollower } from '../../../core/follow/store-follower';
import type { ChangeRow } from '../../../core/follow/change-log';
import { FakeStore, MapSink } from './fake-store';

const row = (revision: number, key = `k${revision}`): ChangeRow => ({ revision, type: 'ADDED', key, value: `{"v":${revision}}`, prev_value: null });
const revisions = (rows: ChangeRow[]) => rows.map((r) => r.revision);

describe('LogPosition', () => {
  it.each([
    { name: 'takes the run that continues from the position', at: 3, rows: [4, 5, 6], run: [4, 5, 6], head: 3 },
    { name: 'drops what was applied already', at: 5, rows: [3, 4, 5, 6], run: [6], head: 5 },
    { name: 'stops at a gap and learns the head past it', at: 3, rows: [4, 6, 7], run: [4], head: 6 },
    { name: 'takes nothing when the first change is past a gap', at: 3, rows: [5], run: [], head: 5 },
  ])('$name', ({ at, rows, run, head }) => {
    const p = new LogPosition();
    p.adopt(at);
    expect(revisions(p.next(rows.map((r) => row(r))))).toEqual(run);
    expect(p.head).toBe(head);
  });

  it('never adopts a snapshot older than what it holds, and is behind until it reaches the head', () => {
    const p = new LogPosition();
    expect(p.adopt(5)).toBe(true);
    expect(p.adopt(4)).toBe(false);
    expect(p.adopt(5)).toBe(true);
    p.heard(7, 2);
    p.heard(6, 1); // what was heard never goes back
    expect([p.head, p.compacted, p.behind]).toEqual([7, 2, true]);
    p.advance(7);
    expect(p.behind).toBe(false);
    expect(p.compactedPast({ revision: 9, compacted: 8 })).toBe(true);
    expect(p.compactedPast({ revision: 9, compacted: 8, changes: [] })).toBe(false);
    expect([p.head, p.compacted]).toEqual([9, 8]);
  });
});

describe('StoreFollower', () => {
  it('lists at R page by page, subscribes after R, and applies what the subscription brings', async () => {
    const store = new FakeStore();
    for (let i = 1; i <= 5; i++) store.write(`k${i}`, `{"v":${i}}`);
    const sink = new MapSink();
    const f = new StoreFollower(store.source(), sink);
    const gate = deferred();
    store.gate = gate.promise;
    const started = f.start();
    store.write('k6', '{"v":6}'); // after the list began, before the subscription
    gate.resolve();
    await started;
    expect(store.calls.listPage).toBe(3); // five objects, two per page
    expect(store.subscribed).toBe(true);
    expect(sink.events).toEqual(['load@5', 'apply@6', 'reached@6']);
    expect(sink.values.size).toBe(6);
    expect(f.following).toBe(true);
    expect(f.stats).toEqual({ applied: 1, pushes: 0, loads: 1 });
  });

  it('applies pushes in order, ignores repeats, and pulls what a gap hides', async () => {
    const store = new FakeStore();
    const sink = new MapSink();
    const f = new StoreFollower(store.source(), sink);
    await f.start();
    const r1 = store.write('a', '{"a":1}');
    await f.receive([r1], 1, 0);
    await f.receive([r1], 1, 0);
    store.write('b', '{"b":1}');
    const r3 = store.write('a', '{"a":3}');
    await f.receive([r3], 3, 0); // revision 2's push was lost
    expect(sink.events).toEqual(['load@0', 'apply@1', 'reached@1', 'apply@2', 'apply@3', 'reached@3']);
    expect(store.calls.readLog).toBe(1);
    expect(sink.values.get('a')).toEqual({ a: 3 });
    expect(f.position.revision).toBe(3);
  });

  it('lists again when the log was compacted past it, after telling the sink what it held is lost', async () => {
    const store = new FakeStore();
    const sink = new MapSink();
    const f = new StoreFollower(store.source(), sink);
    await f.start();
    for (let i = 1; i <= 4; i++) store.write(`k${i}`, '{}');
    store.write('k1', undefined);
    store.compact();
    await f.receive([store.log[4]], 5, 5); // the pull finds revisions 1-4 gone
    expect(sink.events).toEqual(['load@0', 'lost', 'load@5']);
    expect([...sink.values.keys()]).toEqual(['k2', 'k3', 'k4']);
    expect(f.stats.loads).toBe(2);
    expect(store.calls.subscribe).toBe(2);
  });

  it('pulls until it has caught up, in batches, and reads the log at least once on a refresh', async () => {
    const store = new FakeStore();
    const sink = new MapSink();
    const f = new StoreFollower(store.source(false), sink, { shared: false });
    await f.refresh();
    expect(store.calls).toMatchObject({ listPage: 1, readLog: 0 }); // the first refresh only lists
    await f.refresh();
    expect(store.calls.readLog).toBe(1); // nothing changed: one small read
    for (let i = 1; i <= 7; i++) store.write(`k${i}`, '{}');
    await f.refresh();
    expect(store.calls.readLog).toBe(4); // 3 + 3 + 1, and no read once the reply says it reached the head
    expect(f.position.revision).toBe(7);
  });

  it('resolves catchUp once the revision is applied, even with a pull already running', async () => {
    const store = new FakeStore();
    const sink = new MapSink();
    const f = new StoreFollower(store.source(), sink);
    await f.start();
    for (let i = 1; i <= 2; i++) store.write(`k${i}`, '{}');
    const running = f.receive([], 2, 0);
    store.write('k3', '{}'); // written while the pull is in flight
    await f.catchUp(3);
    await running;
    expect(f.position.revision).toBe(3);
    await f.catchUp(99); // a revision the store never had: gives up after asking
    expect(f.position.revision).toBe(3);
  });

  it('drops the subscription of a push that arrives while stopped, and ignores one while starting', async () => {
    const store = new FakeStore();
    const sink = new MapSink();
    const f = new StoreFollower(store.source(), sink);
    await f.receive([row(1)], 1, 0);
    expect(store.calls.unsubscribe).toBe(1);
    const gate = deferred();
    store.gate = gate.promise;
    const started = f.start();
    await f.receive([row(1)], 1, 0);
    expect(store.calls.unsubscribe).toBe(1);
    expect(sink.events).toEqual([]);
    gate.resolve();
    await started;
    await f.stop();
    expect(sink.events).toEqual(['load@0', 'lost']);
    expect(store.subscribed).toBe(false);
  });

  it('shares one loop between concurrent callers in a Durable Object', async () => {
    const store = new FakeStore();
    const f = new StoreFollower(store.source(), new MapSink());
    await Promise.all([f.start(), f.start(), f.start()]);
    expect(store.calls).toMatchObject({ listPage: 1, subscribe: 1 });
  });

  it('keeps concurrent callers in order when each runs its own loop (a Worker)', async () => {
    const store = new FakeStore();
    const sink = new MapSink();
    const f = new StoreFollower(store.source(false), sink, { shared: false });
    store.write('a', '{"a":1}');
    const gate = deferred();
    store.gate = gate.promise;
    const slow = f.refresh(); // lists at 1, answers last
    store.gate = Promise.resolve();
    store.write('a', '{"a":2}');
    await f.refresh(); // lists at 2
    gate.resolve();
    await slow;
    expect(sink.events).toEqual(['load@2']); // the older list was not adopted over the newer one
    expect(sink.values.get('a')).toEqual({ a: 2 });
  });

  it('holds pushes back while paused and applies them on release', async () => {
    const store = new FakeStore();
    const sink = new MapSink();
    const f = new StoreFollower(store.source(), sink);
    await f.start();
    await f.hold(true);
    await f.receive([store.write('a', '{}')], 1, 0);
    await f.receive([store.write('b', '{}')], 2, 0);
    expect(f.position.revision).toBe(0);
    await f.hold(false);
    expect(f.position.revision).toBe(2);
    expect(store.calls.readLog).toBe(0);
  });
});

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
