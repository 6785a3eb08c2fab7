// The robustness checker on hand-written histories: every bad one caught by the check that names its guarantee,
// every good one (overlapping writes with several linearizations, writes of unknown outcome) accepted, and the
// shrinker's sub-history small and still failing.
import { describe, expect, it } from 'vitest';
import { checkHistory, explain, shrink } from '../../robustness/check';
import { checkOperations, type Model } from '../../robustness/check/linearizability';
import type { History, HistoryEvent, Obj, Op, Session, WatchEvent } from '../../robustness/check/history';

const T = 'core/configmaps';
const obj = (rv: number | undefined, w: string, more: Partial<Obj> = {}): Obj => ({ rv, fields: { w }, finalizers: false, deleting: false, ...more });

class Builder {
  ops: Op[] = [];
  events: HistoryEvent[] = [];
  sessions: Session[] = [];
  final = 0;

  op(client: string, call: number, ret: number, o: Partial<Op> & Pick<Op, 'op'>): Op {
    const op: Op = { id: this.ops.length + 1, client, call, ret, type: T, outcome: 'ok', ...o };
    this.ops.push(op);
    return op;
  }
  create(client: string, call: number, ret: number, key: string, w: string, rv: number, more: Partial<Op> = {}) {
    return this.op(client, call, ret, { op: 'create', key, sets: { w }, result: obj(rv, w), ...more });
  }
  update(client: string, call: number, ret: number, key: string, w: string, rv: number, more: Partial<Op> = {}) {
    return this.op(client, call, ret, { op: 'update', key, sets: { w }, result: obj(rv, w), ...more });
  }
  get(client: string, call: number, ret: number, key: string, result: Obj | null, rv: '' | '0' = '') {
    return this.op(client, call, ret, { op: 'get', key, rv, outcome: result ? 'ok' : 'notFound', result: result ?? undefined });
  }
  list(client: string, call: number, ret: number, revision: number, items: Record<string, Obj>, more: Partial<Op> = {}) {
    return this.op(client, call, ret, { op: 'list', namespace: 'ns', rv: '', revision, items, ...more });
  }
  event(rv: number, type: HistoryEvent['type'], key: string, o: Obj, at?: number) {
    this.events.push({ rv, type, key, obj: { ...o, rv }, at });
    this.final = Math.max(this.final, rv);
  }
  watch(id: string, start: number | 'list', events: Partial<WatchEvent>[], end: Session['end'] = 'client') {
    this.sessions.push({
      id, watcher: id, transport: 'http', target: 'store', type: T, namespace: 'ns', start, opened: 0, closed: 1000, end,
      events: events.map((e) => ({ type: 'MODIFIED', rv: 0, at: 0, ...e })),
    });
  }
  history(): History {
    return { ops: this.ops, types: { [T]: { base: 0, initial: {}, events: this.events, final: this.final } }, sessions: this.sessions };
  }
}

/** The event a watcher receives for history change `rv`. */
const seen = (b: Builder, rv: number): Partial<WatchEvent> => {
  const e = b.events.find((x) => x.rv === rv)!;
  return { type: e.type, rv, key: e.key, obj: e.obj };
};

const checks = (h: History) => [...new Set(checkHistory(h).violations.map((v) => v.check))].sort();

/** A small correct history: create, two overlapping updates, a conflict, reads of every kind, a delete. */
function good(): Builder {
  const b = new Builder();
  b.create('c1', 0, 10, 'ns/a', 'w1', 1);
  b.event(1, 'ADDED', 'ns/a', obj(1, 'w1'), 9);
  // Two unconditional updates overlap: either order is a valid linearization; the server chose w3 last.
  b.update('c1', 20, 40, 'ns/a', 'w2', 2);
  b.update('c2', 21, 41, 'ns/a', 'w3', 3);
  b.event(2, 'MODIFIED', 'ns/a', obj(2, 'w2'), 30);
  b.event(3, 'MODIFIED', 'ns/a', obj(3, 'w3'), 35);
  // A read overlapping both may see either; one after both sees the last.
  b.get('c3', 22, 39, 'ns/a', obj(2, 'w2'));
  b.get('c3', 50, 55, 'ns/a', obj(3, 'w3'));
  // A stale precondition conflicts.
  b.update('c2', 60, 65, 'ns/a', 'w4', 0, { precondition: 2, outcome: 'conflict', result: undefined });
  b.list('c1', 66, 70, 3, { 'ns/a': obj(3, 'w3') });
  b.list('c1', 71, 72, 3, { 'ns/a': obj(3, 'w3') }, { rv: '0' });
  b.list('c1', 73, 74, 2, { 'ns/a': obj(2, 'w2') }, { rv: 2, match: 'Exact' });
  b.op('c2', 80, 90, { op: 'delete', key: 'ns/a', precondition: 3, result: null });
  b.event(4, 'DELETED', 'ns/a', obj(4, 'w3'), 85);
  b.get('c3', 91, 92, 'ns/a', null);
  b.create('c1', 100, 110, 'ns/b', 'w5', 5);
  b.event(5, 'ADDED', 'ns/b', obj(5, 'w5'), 105);
  b.watch('from0', 0, [1, 2, 3, 4, 5].map((rv) => seen(b, rv)));
  b.watch('resumed', 2, [seen(b, 3), { type: 'BOOKMARK', rv: 3 }, seen(b, 4)]);
  b.watch('list', 'list', [{ ...seen(b, 3), type: 'ADDED' }, { type: 'BOOKMARK', rv: 3, initialEnd: true }, seen(b, 4), seen(b, 5)]);
  // A change that arrives between the initial objects and the bookmark is part of the state the bookmark marks.
  b.watch('list-late', 'list', [{ ...seen(b, 2), type: 'ADDED' }, seen(b, 3), { type: 'BOOKMARK', rv: 3, initialEnd: true }, seen(b, 4)]);
  return b;
}

describe('the checker accepts correct histories', () => {
  it('a history with overlapping writes, conflicts, every read and watch kind', () => {
    const r = checkHistory(good().history());
    expect(r.violations).toEqual([]);
    expect(r.unknown).toEqual([]);
    expect(r.counts.partitions).toBe(2);
  });

  it('overlapping writes in the order the server did not pick for its revisions are still linearizable when reads agree', () => {
    const b = new Builder();
    b.create('c1', 0, 5, 'ns/a', 'w0', 1);
    b.event(1, 'ADDED', 'ns/a', obj(1, 'w0'));
    b.update('c1', 10, 30, 'ns/a', 'w1', 3);
    b.update('c2', 11, 31, 'ns/a', 'w2', 2);
    b.event(2, 'MODIFIED', 'ns/a', obj(2, 'w2'));
    b.event(3, 'MODIFIED', 'ns/a', obj(3, 'w1'));
    b.get('c3', 12, 29, 'ns/a', obj(2, 'w2'));
    b.get('c3', 40, 41, 'ns/a', obj(3, 'w1'));
    expect(checks(b.history())).toEqual([]);
  });

  it('writes of unknown outcome: one that took effect, one that never did, a delete that may have', () => {
    const b = new Builder();
    b.create('c1', 0, 5, 'ns/a', 'w0', 1);
    b.event(1, 'ADDED', 'ns/a', obj(1, 'w0'), 4);
    b.update('c1', 10, Infinity, 'ns/a', 'w1', 0, { outcome: 'unknown', result: undefined });
    b.event(2, 'MODIFIED', 'ns/a', obj(2, 'w1'), 50);
    b.update('c2', 12, Infinity, 'ns/a', 'lost', 0, { outcome: 'unknown', result: undefined, precondition: 1 });
    b.get('c3', 60, 61, 'ns/a', obj(2, 'w1'));
    b.op('c2', 70, Infinity, { op: 'delete', key: 'ns/a', outcome: 'unknown' });
    b.get('c3', 80, 81, 'ns/a', obj(2, 'w1'));
    expect(checkHistory(b.history()).violations).toEqual([]);
    // The same without the history to settle them: the model forks on each unknown write.
    const bare: History = { ...b.history(), types: {} };
    expect(checkHistory(bare).violations).toEqual([]);
  });

  it('finalizers: a delete marks, a second delete changes nothing, removing the finalizer removes the object', () => {
    const b = new Builder();
    const fin = { finalizers: true };
    b.create('c1', 0, 5, 'ns/f', 'w0', 1, { finalizers: true, result: obj(1, 'w0', fin) });
    b.event(1, 'ADDED', 'ns/f', obj(1, 'w0', fin));
    b.op('c1', 10, 15, { op: 'delete', key: 'ns/f', result: obj(2, 'w0', { finalizers: true, deleting: true }) });
    b.event(2, 'MODIFIED', 'ns/f', obj(2, 'w0', { finalizers: true, deleting: true }));
    b.op('c2', 20, 25, { op: 'delete', key: 'ns/f', result: obj(2, 'w0', { finalizers: true, deleting: true }) });
    b.update('c1', 30, 35, 'ns/f', 'w1', 3, { finalizers: false, result: obj(3, 'w1', { deleting: true }) });
    b.event(3, 'DELETED', 'ns/f', obj(3, 'w1', { deleting: true }));
    b.get('c2', 40, 41, 'ns/f', null);
    b.create('c2', 50, 55, 'ns/f', 'w2', 4);
    b.event(4, 'ADDED', 'ns/f', obj(4, 'w2'));
    expect(checkHistory(b.history()).violations).toEqual([]);
  });
});

describe('the checker catches bad histories', () => {
  it('a stale read: a consistent GET after an acknowledged write shows the old object', () => {
    const b = good();
    b.get('c9', 56, 57, 'ns/a', obj(2, 'w2'));
    expect(checks(b.history())).toEqual(['Linearizable']);
  });

  it('a stale consistent list, served behind an acknowledged write', () => {
    const b = good();
    b.list('c9', 56, 57, 2, { 'ns/a': obj(2, 'w2') }, { target: 'enam#0' });
    expect(checks(b.history())).toEqual(['ConsistentRead', 'Linearizable']);
  });

  it('a lost acknowledged write', () => {
    const b = good();
    b.update('c1', 200, 210, 'ns/b', 'w6', 6);
    b.get('c2', 220, 221, 'ns/b', obj(5, 'w5'));
    expect(checks(b.history())).toEqual(['Durability', 'Linearizable']);
  });

  it('a refused write that took effect anyway', () => {
    const b = good();
    b.update('c1', 200, 210, 'ns/b', 'w6', 0, { outcome: 'failed', result: undefined });
    b.event(6, 'MODIFIED', 'ns/b', obj(6, 'w6'), 205);
    expect(checks(b.history())).toContain('Durability');
  });

  it('a duplicated watch event', () => {
    const b = good();
    b.watch('dup', 0, [1, 2, 3, 3, 4, 5].map((rv) => seen(b, rv)));
    expect(checks(b.history())).toEqual(['Unique']);
  });

  it('a reordered watch event', () => {
    const b = good();
    b.watch('swap', 0, [1, 3, 2, 4, 5].map((rv) => seen(b, rv)));
    expect(checks(b.history())).toEqual(['Ordered']);
  });

  it('a gap after resume: the resumed watch starts one change late', () => {
    const b = good();
    b.watch('gap', 2, [4, 5].map((rv) => seen(b, rv)));
    expect(checks(b.history())).toEqual(['Reliable', 'Resumable']);
  });

  it('a gap in the middle, and a watcher stuck behind the end of the run', () => {
    const b = good();
    b.watch('hole', 0, [1, 2, 4, 5].map((rv) => seen(b, rv)));
    b.watch('stuck', 0, [1, 2, 3].map((rv) => seen(b, rv)), 'open');
    const r = checkHistory(b.history());
    expect(r.violations.map((v) => `${v.check} ${v.subject}`)).toEqual(['Reliable watch hole', 'Reliable watch stuck']);
    expect(r.violations[0].message).toContain('missed MODIFIED ns/a@3');
  });

  it('an event that is not the history\'s change at its revision, and a bookmark that runs ahead', () => {
    const b = good();
    b.watch('wrong', 0, [seen(b, 1), { ...seen(b, 2), obj: obj(2, 'w3') }, seen(b, 3)]);
    b.watch('ahead', 0, [seen(b, 1), seen(b, 2), { type: 'BOOKMARK', rv: 3 }, seen(b, 3)]);
    expect(checks(b.history())).toEqual(['Atomic', 'Bookmarkable']);
  });

  it('a list that does not match the replayed history at its revision', () => {
    const b = good();
    b.list('c9', 200, 201, 5, { 'ns/a': obj(3, 'w3'), 'ns/b': obj(5, 'w5') }, { rv: '0' });
    expect(checks(b.history())).toEqual(['ListMatchesHistory']);
  });

  it('a watch-list whose initial events are not the state at its bookmark', () => {
    const b = good();
    b.watch('badlist', 'list', [seen(b, 1), { type: 'BOOKMARK', rv: 3, initialEnd: true }, seen(b, 4)]);
    expect(checks(b.history())).toEqual(['InitialEvents']);
  });

  it('a regression of resourceVersion "0" reads for one client', () => {
    const b = good();
    b.list('c7', 200, 201, 5, { 'ns/b': obj(5, 'w5') }, { rv: '0' });
    b.list('c7', 202, 203, 3, { 'ns/a': obj(3, 'w3') }, { rv: '0' });
    b.list('c8', 202, 203, 3, { 'ns/a': obj(3, 'w3') }, { rv: '0' }); // another client may be served older
    const r = checkHistory(b.history());
    expect(r.violations.map((v) => `${v.check} ${v.subject}`)).toEqual([`StaleRead ${T} c7`]);
  });

  it('a write acknowledged before another was sent, with a higher revision', () => {
    const b = good();
    b.create('c1', 200, 210, 'ns/c', 'w6', 7);
    b.create('c2', 220, 230, 'ns/d', 'w7', 6);
    b.event(6, 'ADDED', 'ns/d', obj(6, 'w7'));
    b.event(7, 'ADDED', 'ns/c', obj(7, 'w6'));
    expect(checks(b.history())).toEqual(['WriteOrder']);
  });

  it('an update that succeeded against a failed precondition', () => {
    const b = good();
    b.update('c1', 200, 210, 'ns/b', 'w6', 6, { precondition: 4 });
    b.event(6, 'MODIFIED', 'ns/b', obj(6, 'w6'));
    expect(checks(b.history())).toEqual(['Linearizable']);
  });
});

describe('the shrinker and the report', () => {
  it('reduces a stale read buried in noise to the few operations that show it', () => {
    const b = good();
    for (let i = 0; i < 40; i++) b.get(`n${i % 4}`, 120 + i * 2, 121 + i * 2, 'ns/b', obj(5, 'w5'));
    b.get('c9', 56, 57, 'ns/a', obj(2, 'w2'));
    const h = b.history();
    const r = checkHistory(h);
    expect(r.violations).toHaveLength(1);
    const small = shrink(h, r.violations[0]);
    // The create, both updates (w2 so the read is explained, w3 so it is stale) and the read.
    expect(small.ops.map((o) => o.client).sort()).toEqual(['c1', 'c1', 'c2', 'c9']);
    expect(checkHistory(small).violations.map((v) => v.check)).toContain('Linearizable');
    const text = explain(h, r);
    expect(text).toContain('Linearizable: core/configmaps ns/a: no linearization');
    expect(text).toMatch(/op #\d+ c9 \[56\.0, 57\.0\] get ns\/a rv="" → ok 2 \{w=w2\}/);
  });

  it('reduces a reordered watch to the swapped events', () => {
    const b = good();
    b.watch('swap', 0, [1, 3, 2, 4, 5].map((rv) => seen(b, rv)));
    const h = b.history();
    const v = checkHistory(h).violations[0];
    const small = shrink(h, v);
    expect(small.sessions[0].events.map((e) => e.rv)).toEqual([3, 2]);
  });
});

describe('the search', () => {
  // A register: writes set it, reads must see the latest.
  const register: Model<number, { call: number; ret: number; w?: number; r?: number }> = {
    init: 0,
    step: (s, o) => (o.w !== undefined ? o.w : o.r === s ? s : undefined),
    hash: (s) => String(s),
  };
  const far = { maxSteps: 1e7, deadline: Date.now() + 60_000 };

  it('finds a linearization among many concurrent writes, and proves there is none when a read is impossible', () => {
    const ops = Array.from({ length: 10 }, (_, i) => ({ call: 0, ret: 100, w: i + 1 }));
    expect(checkOperations(register, [...ops, { call: 101, ret: 102, r: 7 }], far).result).toBe('ok');
    const v = checkOperations(register, [...ops, { call: 101, ret: 102, r: 7 }, { call: 103, ret: 104, r: 8 }], far);
    expect(v.result).toBe('illegal');
  });

  it('answers unknown, not forever, when the budget runs out', () => {
    const ops = Array.from({ length: 16 }, (_, i) => ({ call: 0, ret: 100, w: i + 1 }));
    const reads = Array.from({ length: 16 }, (_, i) => ({ call: 0, ret: 100, r: i + 1 }));
    const v = checkOperations(register, [...ops, ...reads, { call: 200, ret: 201, r: 99 }], { maxSteps: 5000, deadline: Date.now() + 60_000 });
    expect(v.result).toBe('unknown');
  });
});
