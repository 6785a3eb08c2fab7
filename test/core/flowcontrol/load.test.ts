// API Priority and Fairness core: the event-loop lag governor (an isolate is one thread) and how it scales the
// levels' limits, under an injected clock.
import { describe, expect, it } from 'vitest';
import { DEFAULT_LAG, LagGovernor } from '../../../core/flowcontrol/load';
import { FlowController } from '../../../core/flowcontrol/controller';
import type { RequestAttributes } from '../../../core/rbac/rules';

const res = (verb: string, resource: string, namespace = ''): RequestAttributes =>
  ({ verb, resourceRequest: true, apiGroup: '', resource, subresource: '', name: '', namespace, path: '' });
const sa = (ns: string, name: string) => ({ username: `system:serviceaccount:${ns}:${name}`, uid: '', groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] });

describe('lag governor', () => {
  it('shrinks multiplicatively while the loop runs late, grows back additively, and is full again when samples stop', () => {
    let t = 0;
    const g = new LagGovernor(100, () => t);
    expect(g.factor).toBe(1);
    for (let i = 0; i < 20; i++) {
      t += DEFAULT_LAG.minSpacingMs;
      g.sample(50);
    }
    expect(g.factor).toBeCloseTo(0.9 ** 20, 5);
    t += 1;
    expect(g.sample(50)).toBe(false); // too close to the last one: counted once
    t += DEFAULT_LAG.minSpacingMs;
    g.sample(0);
    expect(g.factor).toBeCloseTo(0.9 ** 20 + 0.02, 5);
    t += DEFAULT_LAG.staleMs;
    expect(g.factor).toBe(1);
  });

  it('never goes below one seat', () => {
    let t = 0;
    const g = new LagGovernor(10, () => t);
    for (let i = 0; i < 200; i++) {
      t += 10;
      g.sample(1000);
    }
    expect(g.factor).toBeCloseTo(0.1);
  });
});

describe('capacity factor on the levels', () => {
  it('holds new requests of a saturated level in its queues, where fair queuing orders them, and lets them go as lag falls', () => {
    let t = 0;
    const fc = new FlowController({ serverConcurrencyLimit: 100, maxWaiting: 1000, now: () => t });
    const flood = fc.place(sa('a', 'flood'), res('list', 'configmaps', 'a'));
    const quiet = fc.place(sa('b', 'quiet'), res('list', 'configmaps', 'b'));
    const limit = flood.level.currentLimit;
    const running = Array.from({ length: limit }, () => fc.start(flood, 1));
    expect(running.every((a) => a.kind === 'executing')).toBe(true);
    // The loop runs late: the level's usable seats shrink below what the flood holds.
    for (let i = 0; i < 30; i++) {
      t += 10;
      fc.noteLag(40);
    }
    expect(fc.capacityFactor).toBeLessThan(0.1);
    expect(flood.level.queues!.limit).toBe(Math.max(1, Math.round(limit * fc.capacityFactor)));
    const waiting = Array.from({ length: 5 }, () => fc.start(flood, 1));
    const q = fc.start(quiet, 1);
    expect([...waiting, q].every((a) => a.kind === 'queued')).toBe(true);
    // Seats free as the flood's requests end; the quiet flow's request is the first to go.
    for (const a of running) {
      fc.finish(flood, a);
      if (q.kind === 'queued' && q.ticket.state === 'executing') break;
    }
    expect(q.kind === 'queued' && q.ticket.state).toBe('executing');
    expect(waiting.filter((a) => a.kind === 'queued' && a.ticket.state === 'executing')).toHaveLength(0);
    // No lag sample for a second: every seat is usable again.
    t += DEFAULT_LAG.staleMs;
    fc.tick();
    expect(fc.capacityFactor).toBe(1);
    expect(waiting.every((a) => a.kind === 'queued' && a.ticket.state === 'executing')).toBe(true);
  });

  it('can be switched off', () => {
    const fc = new FlowController({ serverConcurrencyLimit: 100, maxWaiting: 1000, now: () => 0, lag: false });
    fc.noteLag(1000);
    expect(fc.capacityFactor).toBe(1);
    expect(fc.wantsLagSample()).toBe(false);
  });
});

describe('place in the queue', () => {
  it('counts the requests ahead of a waiting one, for how often it looks', async () => {
    const { QueueSet } = await import('../../../core/flowcontrol/queueset');
    const qs = new QueueSet({ concurrencyLimit: 1, queues: 1, handSize: 1, queueLengthLimit: 10 }, () => 0);
    const first = qs.start(1, 'f', 1);
    const waiting = Array.from({ length: 4 }, () => qs.start(1, 'f', 1));
    const tickets = waiting.map((w) => (w.kind === 'queued' ? w.ticket : undefined)!);
    expect(tickets.map((t) => qs.ahead(t))).toEqual([0, 1, 2, 3]);
    qs.remove(tickets[1]!);
    if (first.kind === 'executing') qs.finish(first.ticket);
    expect(qs.ahead(tickets[0]!)).toBe(0); // dispatched
    expect(qs.ahead(tickets[3]!)).toBe(1);
  });
});
