// API Priority and Fairness core: borrowing between priority levels (seat demand, the allocation, the periodic
// re-division), a mutating request's final seats, under an injected clock.
import { describe, expect, it } from 'vitest';
import { allocateConcurrency, BORROWING_PERIOD_MS, SeatDemand, updateDemandStats, noDemand } from '../../../core/flowcontrol/borrowing';
import { FlowController } from '../../../core/flowcontrol/controller';
import { QueueSet } from '../../../core/flowcontrol/queueset';
import { finalSeats, maxSeatsFor } from '../../../core/flowcontrol/width';
import type { RequestAttributes } from '../../../core/rbac/rules';

const res = (verb: string, resource: string, namespace = ''): RequestAttributes =>
  ({ verb, resourceRequest: true, apiGroup: '', resource, subresource: '', name: '', namespace, path: '' });
const who = (username: string, ...groups: string[]) => ({ username, uid: '', groups: [...groups, 'system:authenticated'] });
const sa = (ns: string, name: string) => who(`system:serviceaccount:${ns}:${name}`, 'system:serviceaccounts', `system:serviceaccounts:${ns}`);

describe('seat demand', () => {
  it('integrates a piecewise-constant demand: average, deviation and peak over the period, then starts again', () => {
    let t = 0;
    const d = new SeatDemand(() => t);
    d.set(4);
    t = 5000;
    d.set(0);
    t = 10_000;
    const obs = d.reset();
    expect(obs).toMatchObject({ durationMs: 10_000, average: 2, max: 4 });
    expect(obs.deviation).toBeCloseTo(2);
    t = 20_000;
    expect(d.reset()).toMatchObject({ durationMs: 10_000, average: 0, deviation: 0, max: 0 });
  });

  it('smooths up at once and down slowly', () => {
    const s = noDemand();
    updateDemandStats(s, { durationMs: 10_000, average: 10, deviation: 0, max: 10 });
    expect(s.smoothed).toBe(10);
    updateDemandStats(s, { durationMs: 10_000, average: 0, deviation: 0, max: 0 });
    expect(s.smoothed).toBeCloseTo(9.77);
    expect(s.highWatermark).toBe(0);
  });
});

describe('allocation', () => {
  it('divides in proportion to targets within the bounds, summing to the total', () => {
    const a = allocateConcurrency(100, [{ target: 30, lower: 0, upper: 100 }, { target: 10, lower: 0, upper: 100 }])!;
    expect(a[0]).toBeCloseTo(75);
    expect(a[1]).toBeCloseTo(25);
    const b = allocateConcurrency(100, [{ target: 90, lower: 0, upper: 40 }, { target: 20, lower: 20, upper: 100 }, { target: 5, lower: 5, upper: 100 }])!;
    expect(b[0]).toBeCloseTo(40); // capped
    expect(b[1]).toBeCloseTo(48); // the rest in proportion to the targets, 20 : 5
    expect(b[2]).toBeCloseTo(12);
    const c = allocateConcurrency(10, [{ target: 8, lower: 0, upper: 10 }, { target: 6, lower: 6, upper: 10 }])!;
    expect(c[1]).toBeCloseTo(6); // held at its lower bound: 8p + 6 = 10
    expect(c[0]).toBeCloseTo(4);
  });

  it('answers the bounds when they leave no room, and undefined when they cannot be met', () => {
    expect(allocateConcurrency(10, [{ target: 5, lower: 5, upper: 9 }, { target: 8, lower: 5, upper: 9 }])).toEqual([5, 5]);
    expect(allocateConcurrency(10, [{ target: 1, lower: 1, upper: 5 }, { target: 1, lower: 1, upper: 5 }])).toEqual([5, 5]);
    expect(allocateConcurrency(10, [{ target: 6, lower: 6, upper: 9 }, { target: 6, lower: 6, upper: 9 }])).toBeUndefined();
    expect(allocateConcurrency(10, [{ target: 1, lower: 2, upper: 9 }])).toBeUndefined(); // a target below its lower bound
    expect(allocateConcurrency(10, [{ target: 1, lower: 0, upper: 2 }])).toBeUndefined();
  });

  it('stays n log n on many levels', () => {
    const items = Array.from({ length: 50_000 }, (_, i) => ({ target: (i % 97) + 1, lower: i % 2, upper: 1000 }));
    const a = allocateConcurrency(1_000_000, items)!;
    expect(a.reduce((x, y) => x + y, 0)).toBeCloseTo(1_000_000, 0);
  });
});

describe('borrowing between levels', () => {
  it('lends an idle level\'s lendable seats to a busy one at the next period, and gives them back', () => {
    let t = 0;
    const fc = new FlowController({ serverConcurrencyLimit: 245, maxWaiting: 10_000, now: () => t });
    const level = (name: string) => fc.priorityLevels.find((l) => l.name === name)!;
    const low = level('workload-low');
    expect(low).toMatchObject({ nominalLimit: 100, minLimit: 10, maxLimit: 345 }); // lendable 90%
    const before = low.currentLimit; // idle: the seats shared in proportion to what each level cannot lend
    expect(before).toBeLessThan(low.nominalLimit);
    expect(level('exempt')).toMatchObject({ nominalLimit: 0, maxLimit: 245 });
    const p = fc.place(sa('team', 'flood'), res('list', 'configmaps', 'team'));
    expect(p.level.name).toBe('workload-low');
    const held = Array.from({ length: 200 }, () => fc.start(p, 1));
    expect(held.filter((a) => a.kind === 'executing')).toHaveLength(before);
    t += BORROWING_PERIOD_MS;
    fc.maybeUpdateBorrowing();
    // Its demand (200 seats) took every seat the idle levels can lend: each keeps only what it cannot lend.
    const idleFloor = fc.priorityLevels.filter((l) => l.name !== 'workload-low').reduce((n, l) => n + l.minLimit, 0);
    expect(level('workload-low').currentLimit).toBe(fc.priorityLevels.reduce((n, l) => n + l.nominalLimit, 0) - idleFloor);
    expect(level('global-default').currentLimit).toBe(level('global-default').minLimit);
    // The first ones ran through the whole period: parked (waiting on something else), no longer held against the
    // limit; the level's seats now run that many more.
    const running = held.filter((a) => (a.kind === 'executing' || a.kind === 'queued') && a.ticket.state === 'executing');
    expect(running.filter((a) => 'ticket' in a && a.ticket.parked)).toHaveLength(before);
    expect(running.length - before).toBe(level('workload-low').currentLimit);
    for (const a of held) fc.finish(p, a);
    // Demand gone: the smoothed demand still holds it high for a while (kube's 5-minute half-life), then it lends again.
    for (let i = 0; i < 400; i++) {
      t += BORROWING_PERIOD_MS;
      fc.maybeUpdateBorrowing();
    }
    expect(level('workload-low').currentLimit).toBeLessThan(low.nominalLimit);
    expect(level('global-default').currentLimit).toBeGreaterThanOrEqual(level('global-default').nominalLimit);
  });

  it('re-divides after half a second, not ten, when a level has requests waiting below what it may borrow', () => {
    let t = 0;
    const fc = new FlowController({ serverConcurrencyLimit: 100, maxWaiting: 10_000, now: () => t });
    const p = fc.place(sa('team', 'hung'), res('create', 'configmaps', 'team'));
    const before = p.level.currentLimit;
    const held = Array.from({ length: 30 }, () => fc.start(p, 1));
    expect(held.filter((a) => a.kind === 'queued').length).toBe(30 - before);
    t += 499;
    fc.maybeUpdateBorrowing();
    expect(p.level.currentLimit).toBe(before);
    t += 1;
    fc.maybeUpdateBorrowing();
    expect(p.level.currentLimit).toBeGreaterThanOrEqual(30);
    expect(held.every((a) => (a.kind === 'executing' || a.kind === 'queued') && a.ticket.state === 'executing')).toBe(true);
  });

  it('honours borrowingLimitPercent and lets busy exempt traffic take seats from the limited levels', () => {
    let t = 0;
    const fc = new FlowController({ serverConcurrencyLimit: 100, maxWaiting: 1000, now: () => t });
    const limited = (name: string, shares: number, lendablePercent: number, borrowingLimitPercent?: number) => ({
      metadata: { name }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent, borrowingLimitPercent, limitResponse: { type: 'Queue', queuing: { queues: 8, handSize: 2, queueLengthLimit: 100 } } } },
    });
    const rule = (user: string) => ({ subjects: [{ kind: 'User', user: { name: user } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }] });
    fc.setConfig([
      { metadata: { name: 'exempt' }, spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } } },
      { metadata: { name: 'catch-all' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } } },
      limited('a', 50, 50, 20), limited('b', 50, 100),
    ], [
      { metadata: { name: 'a' }, spec: { priorityLevelConfiguration: { name: 'a' }, matchingPrecedence: 10, rules: [rule('alice')] } },
      { metadata: { name: 'b' }, spec: { priorityLevelConfiguration: { name: 'b' }, matchingPrecedence: 10, rules: [rule('bob')] } },
    ]);
    const a = fc.place(who('alice'), res('get', 'pods', 'x'));
    expect(a.level).toMatchObject({ nominalLimit: 50, minLimit: 25, maxLimit: 60 });
    for (let i = 0; i < 100; i++) fc.start(a, 1);
    t += BORROWING_PERIOD_MS;
    fc.maybeUpdateBorrowing();
    expect(a.level.currentLimit).toBe(60); // nominal + 20%, though b lends everything
    // Exempt requests running take their seats from the others at the next period.
    const root = fc.place(who('root', 'system:masters'), res('get', 'pods', 'x'));
    const exempt = Array.from({ length: 70 }, () => fc.start(root, 1));
    expect(exempt[0]).toEqual({ kind: 'exempt', seats: 1 });
    t += BORROWING_PERIOD_MS;
    fc.maybeUpdateBorrowing();
    // kube's arithmetic: a is held at its demand's share between its floor (50, its peak capped at nominal) and 60.
    expect(a.level.currentLimit).toBe(59);
    expect(root.level.currentLimit).toBe(41);
    for (const e of exempt) fc.finish(root, e);
    expect(root.level.exemptSeats).toBe(0);
  });
});

describe('final seats of a mutating request', () => {
  it('are charged per 10 watchers for 5 ms after the write, and only for writes to watched types', () => {
    expect(finalSeats('create', 9)).toBeUndefined();
    expect(finalSeats('create', 25)).toEqual({ seats: 3, ms: 5 });
    expect(finalSeats('delete', 5000)).toEqual({ seats: 10, ms: 5 });
    expect(finalSeats('list', 5000)).toBeUndefined();
    expect(finalSeats('update', undefined)).toBeUndefined();
    expect(maxSeatsFor(100, 6)).toBe(10);
    expect(maxSeatsFor(20, 6)).toBe(3);
  });

  it('hold their seats after the request ends until their time is up, then dispatch the next', () => {
    let t = 0;
    const qs = new QueueSet({ concurrencyLimit: 4, queues: 8, handSize: 2, queueLengthLimit: 10 }, () => t);
    const w = qs.start(1, 'writer', 1, true, { seats: 4, ms: 5 });
    expect(w.kind).toBe('executing');
    const r = qs.start(1, 'reader', 2);
    expect(r.kind).toBe('queued'); // the write holds its 4 final seats from its start
    if (w.kind === 'rejected' || r.kind === 'rejected') return;
    t = 10;
    qs.finish(w.ticket);
    expect(w.ticket.state).toBe('final');
    expect(qs.stats.seatsInUse).toBe(4);
    expect(r.ticket.state).toBe('waiting');
    t = 14;
    expect(qs.expireFinals()).toEqual([]);
    t = 15;
    expect(qs.expireFinals()).toEqual([r.ticket]);
    expect(w.ticket.state).toBe('done');
    expect(qs.stats).toMatchObject({ seatsInUse: 1, executing: 1 });
  });
});
