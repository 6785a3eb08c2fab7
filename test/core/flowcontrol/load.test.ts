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
  it('holds new requests of a saturated level in its queues and lets them go as lag falls', () => {
    let t = 0;
    const fc = new FlowController({ serverConcurrencyLimit: 100, maxWaiting: 1000, now: () => t });
    const flood = fc.place(sa('a', 'flood'), res('list', 'configmaps', 'a'));
    const quiet = fc.place(sa('b', 'quiet'), res('list', 'configmaps', 'b'));
    const limit = flood.level.currentLimit;
    const running = Array.from({ length: limit }, () => fc.start(flood, 1));
    expect(running.every((a) => a.kind === 'executing')).toBe(true);
    // The loop runs late: the level's usable seats shrink below what the flood holds (within a quarter second, before
    // the flood's requests count as waiting on the network).
    for (let i = 0; i < 24; i++) {
      t += 10;
      fc.noteLag(40);
    }
    expect(fc.capacityFactor).toBeLessThan(0.1);
    expect(flood.level.queues!.limit).toBe(limit); // the level's limit stands; what its young requests may use shrank
    const waiting = Array.from({ length: 5 }, () => fc.start(flood, 1));
    const q = fc.start(quiet, 1);
    expect([...waiting, q].every((a) => a.kind === 'queued')).toBe(true);
    // The flood's running requests end: the level is free, but only its shrunk share of young requests runs.
    for (const a of running) fc.finish(flood, a);
    const started = [...waiting, q].filter((a) => a.kind === 'queued' && a.ticket.state === 'executing');
    expect(started.length).toBe(flood.level.queues!.stats.executing);
    expect(started.length).toBeLessThan(waiting.length + 1);
    // No lag sample for a second: every seat is usable again.
    t += DEFAULT_LAG.staleMs;
    fc.tick();
    expect(fc.capacityFactor).toBe(1);
    expect([...waiting, q].every((a) => a.kind === 'queued' && a.ticket.state === 'executing')).toBe(true);
  });

  it("does not count requests waiting on the network (running over a quarter second) against the shrunk share", () => {
    let t = 0;
    const fc = new FlowController({ serverConcurrencyLimit: 1000, maxWaiting: 1000, now: () => t });
    const hung = fc.place(sa('a', 'attacker'), res('create', 'configmaps', 'a'));
    const victim = fc.place(sa('b', 'victim'), res('delete', 'configmaps', 'b'));
    const held = Array.from({ length: 20 }, () => fc.start(hung, 1)); // stuck on a hanging webhook
    expect(held.every((a) => a.kind === 'executing')).toBe(true);
    for (let i = 0; i < 20; i++) {
      t += 10;
      fc.noteLag(40); // the thread is busy with something else meanwhile
    }
    expect(fc.capacityFactor).toBeLessThan(0.15);
    const first = fc.start(victim, 1);
    expect(first.kind).toBe('queued'); // the 20 started 0.2 s ago still count
    for (let i = 0; i < 70; i++) {
      t += 10;
      fc.noteLag(40);
    }
    fc.tick(); // what a waiting request does as it looks
    // Past a quarter second they are parked: the victim's request runs while they still hang.
    expect(first.kind === 'queued' && first.ticket.state).toBe('executing');
    expect(held.every((a) => a.kind === 'executing' && a.ticket.state === 'executing')).toBe(true);
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
