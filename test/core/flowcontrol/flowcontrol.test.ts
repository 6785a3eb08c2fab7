// API Priority and Fairness core: bootstrap reconciliation, classification, seats, and the queueset's fairness
// under a deterministic clock.
import { describe, expect, it } from 'vitest';
import {
  AUTOUPDATE_SPEC_ANNOTATION, MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, reconcileFlowControl, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS,
  type FlowSchema, type PriorityLevelConfiguration,
} from '../../../core/flowcontrol/bootstrap';
import { classify, orderFlowSchemas } from '../../../core/flowcontrol/classify';
import { dealHand, QueueSet, type Ticket } from '../../../core/flowcontrol/queueset';
import { estimateSeats, maxSeatsFor } from '../../../core/flowcontrol/width';
import { FlowController, flowHash } from '../../../core/flowcontrol/controller';
import { DroppedRequests } from '../../../core/flowcontrol/retry-after';
import { bootstrapWrites } from '../../../core/bootstrap';
import type { RequestAttributes } from '../../../core/rbac/rules';

const ALL_FS = [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS];
const ordered = orderFlowSchemas(ALL_FS, () => true);
const res = (verb: string, resource: string, namespace = '', apiGroup = '', subresource = ''): RequestAttributes =>
  ({ verb, resourceRequest: true, apiGroup, resource, subresource, name: '', namespace, path: '' });
const nonRes = (verb: string, path: string): RequestAttributes =>
  ({ verb, resourceRequest: false, apiGroup: '', resource: '', subresource: '', name: '', namespace: '', path });
const who = (username: string, ...groups: string[]) => ({ username, uid: '', groups: [...groups, 'system:authenticated'] });
const schemaOf = (user: ReturnType<typeof who>, attrs: RequestAttributes) => classify(ordered, user, attrs).flowSchema.metadata.name;

describe('bootstrap objects', () => {
  it("ships kube 1.32's names", () => {
    expect(ALL_FS.map((f) => f.metadata.name).sort()).toEqual([
      'catch-all', 'endpoint-controller', 'exempt', 'global-default', 'kube-controller-manager', 'kube-scheduler', 'kube-system-service-accounts',
      'probes', 'service-accounts', 'system-leader-election', 'system-node-high', 'system-nodes', 'workload-leader-election',
    ]);
    expect([...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS].map((p) => p.metadata.name).sort()).toEqual([
      'catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low',
    ]);
  });

  it('creates missing objects and leaves current ones alone', () => {
    const writes = bootstrapWrites('flowcontrol.apiserver.k8s.io/flowschemas', () => undefined);
    expect(writes).toHaveLength(ALL_FS.length);
    const stored = new Map(writes.map((w) => [JSON.parse((w as { body: string }).body).metadata.name, JSON.parse((w as { body: string }).body)]));
    expect(bootstrapWrites('flowcontrol.apiserver.k8s.io/flowschemas', (_ns, name) => stored.get(name))).toEqual([]);
  });

  it('restores a mandatory spec, keeps an edited suggested one that opted out, and marks an edited unannotated one false', () => {
    const catchAll = structuredClone(MANDATORY_PRIORITY_LEVELS[1]!) as PriorityLevelConfiguration;
    catchAll.spec.limited!.nominalConcurrencyShares = 1;
    catchAll.metadata.annotations![AUTOUPDATE_SPEC_ANNOTATION] = 'false';
    const r1 = reconcileFlowControl(catchAll, MANDATORY_PRIORITY_LEVELS[1]!, true);
    expect(r1.op).toBe('update');
    expect((r1 as { object: PriorityLevelConfiguration }).object.spec.limited!.nominalConcurrencyShares).toBe(5);

    const exempt = structuredClone(MANDATORY_PRIORITY_LEVELS[0]!) as PriorityLevelConfiguration;
    exempt.spec.exempt = { nominalConcurrencyShares: 7, lendablePercent: 10 };
    expect(reconcileFlowControl(exempt, MANDATORY_PRIORITY_LEVELS[0]!, true).op).toBe('none'); // the operator's to tune

    const low = structuredClone(SUGGESTED_PRIORITY_LEVELS[4]!) as PriorityLevelConfiguration;
    low.spec.limited!.nominalConcurrencyShares = 3;
    low.metadata.annotations![AUTOUPDATE_SPEC_ANNOTATION] = 'false';
    expect(reconcileFlowControl(low, SUGGESTED_PRIORITY_LEVELS[4]!, false).op).toBe('none');
    low.metadata.annotations![AUTOUPDATE_SPEC_ANNOTATION] = 'true';
    expect(reconcileFlowControl(low, SUGGESTED_PRIORITY_LEVELS[4]!, false).op).toBe('update');

    const edited = { ...structuredClone(SUGGESTED_FLOW_SCHEMAS[0]!), metadata: { name: 'system-nodes', generation: 3 } } as FlowSchema;
    edited.spec.matchingPrecedence = 42;
    const r2 = reconcileFlowControl(edited, SUGGESTED_FLOW_SCHEMAS[0]!, false);
    expect(r2).toMatchObject({ op: 'update', object: { metadata: { annotations: { [AUTOUPDATE_SPEC_ANNOTATION]: 'false' } }, spec: { matchingPrecedence: 42 } } });
  });
});

describe('classification', () => {
  it("maps kube's and edgeplane's system identities to their levels", () => {
    expect(schemaOf(who('admin', 'system:masters'), res('list', 'pods'))).toBe('exempt');
    expect(schemaOf(who('system:node:node-1', 'system:nodes'), res('patch', 'nodes', '', '', 'status'))).toBe('system-node-high');
    expect(schemaOf(who('system:node:node-1', 'system:nodes'), res('update', 'leases', 'kube-node-lease', 'coordination.k8s.io'))).toBe('system-node-high');
    expect(schemaOf(who('system:node:node-1', 'system:nodes'), res('get', 'pods', 'default'))).toBe('system-nodes');
    expect(schemaOf(who('system:kube-controller-manager'), res('update', 'leases', 'kube-system', 'coordination.k8s.io'))).toBe('system-leader-election');
    expect(schemaOf(who('system:kube-controller-manager'), res('list', 'pods'))).toBe('kube-controller-manager');
    expect(schemaOf(who('system:kube-scheduler'), res('create', 'pods', 'default', '', 'binding'))).toBe('kube-scheduler');
    const epc = who('system:serviceaccount:kube-system:endpoint-controller', 'system:serviceaccounts', 'system:serviceaccounts:kube-system');
    expect(schemaOf(epc, res('update', 'endpoints', 'default'))).toBe('endpoint-controller');
    expect(schemaOf(epc, res('list', 'services'))).toBe('kube-system-service-accounts');
    const tenantSa = who('system:serviceaccount:team:bot', 'system:serviceaccounts', 'system:serviceaccounts:team');
    expect(schemaOf(tenantSa, res('list', 'pods', 'team'))).toBe('service-accounts');
    expect(schemaOf(who('jane'), res('list', 'pods', 'team'))).toBe('global-default');
    expect(schemaOf(who('jane'), nonRes('get', '/readyz'))).toBe('probes');
    expect(schemaOf({ username: 'odd', uid: '', groups: [] }, res('get', 'pods', 'x'))).toBe('catch-all');
  });

  it('orders by precedence then name, skips dangling schemas and supplies the mandatory ones', () => {
    const mine: FlowSchema = {
      metadata: { name: 'b-mine' }, spec: { priorityLevelConfiguration: { name: 'mine' }, matchingPrecedence: 1000, distinguisherMethod: { type: 'ByNamespace' },
        rules: [{ subjects: [{ kind: 'User', user: { name: '*' } }], resourceRules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'], namespaces: ['team'] }] }] },
    };
    const earlier = { ...structuredClone(mine), metadata: { name: 'a-mine' } };
    const o = orderFlowSchemas([mine, earlier, ...SUGGESTED_FLOW_SCHEMAS], (n) => n !== 'missing');
    expect(o[0]!.metadata.name).toBe('exempt');
    expect(o.at(-1)!.metadata.name).toBe('catch-all');
    const got = classify(o, who('jane'), res('list', 'pods', 'team'));
    expect(got).toMatchObject({ flowSchema: { metadata: { name: 'a-mine' } }, flow: 'team' });
    expect(classify(o, who('jane'), res('list', 'pods', '')).flowSchema.metadata.name).toBe('global-default'); // no clusterScope
    const dangling = orderFlowSchemas([{ ...mine, spec: { ...mine.spec, priorityLevelConfiguration: { name: 'missing' } } }], (n) => n !== 'missing');
    expect(dangling.map((f) => f.metadata.name)).toEqual(['exempt', 'catch-all']);
  });

  it('matches ServiceAccount subjects exactly, and non-resource URLs by prefix pattern', () => {
    const fs: FlowSchema = { metadata: { name: 'x' }, spec: { priorityLevelConfiguration: { name: 'p' }, rules: [
      { subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'ns', name: 'a' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }] },
    ] } };
    const o = orderFlowSchemas([fs], () => true);
    expect(classify(o, who('system:serviceaccount:ns:a'), nonRes('get', '/apis/apps')).flowSchema.metadata.name).toBe('x');
    expect(classify(o, who('system:serviceaccount:ns:ab'), nonRes('get', '/apis/apps')).flowSchema.metadata.name).toBe('catch-all');
    expect(classify(o, who('system:serviceaccount:ns:a'), nonRes('get', '/api')).flowSchema.metadata.name).toBe('catch-all');
  });
});

describe('seats', () => {
  const q = (s: string) => new URLSearchParams(s);
  it('charges lists by the objects they go through, capped, and everything else one seat', () => {
    expect(estimateSeats({ verb: 'get', name: 'a', query: q('') }, 10_000, 10)).toBe(1);
    expect(estimateSeats({ verb: 'create', name: '', query: q('') }, 10_000, 10)).toBe(1);
    expect(estimateSeats({ verb: 'list', name: '', query: q('') }, 250, 10)).toBe(3); // consistent list from cache
    expect(estimateSeats({ verb: 'list', name: '', query: q('limit=50&resourceVersion=7') }, 250, 10)).toBe(1); // 2 × 50 from storage
    expect(estimateSeats({ verb: 'list', name: '', query: q('labelSelector=a%3Db&continue=x') }, 250, 10)).toBe(5); // stored + limit
    expect(estimateSeats({ verb: 'list', name: '', query: q('') }, 1_000_000, 10)).toBe(10);
    expect(estimateSeats({ verb: 'list', name: '', query: q('') }, 1_000_000, 4)).toBe(4);
    expect(estimateSeats({ verb: 'list', name: '', query: q('') }, undefined, 10)).toBe(1);
    expect(estimateSeats({ verb: 'watch', name: '', query: q('') }, 1_000_000, 10)).toBe(1);
    expect(estimateSeats({ verb: 'watch', name: '', query: q('sendInitialEvents=true') }, 1_000, 10)).toBe(10);
    expect(maxSeatsFor(2)).toBe(1);
    expect(maxSeatsFor(1000)).toBe(10);
  });
});

describe('queueset', () => {
  it('deals distinct cards deterministically', () => {
    for (const h of [0, 1, 12345, flowHash('fs', 'user'), 2 ** 52 + 3]) {
      const hand = dealHand(h, 64, 6);
      expect(new Set(hand).size).toBe(6);
      expect(hand.every((c) => c >= 0 && c < 64)).toBe(true);
      expect(dealHand(h, 64, 6)).toEqual(hand);
    }
    expect(dealHand(99, 3, 3).sort()).toEqual([0, 1, 2]);
  });

  it('runs within the limit, queues beyond it, rejects a full queue, and dispatches on finish', () => {
    let now = 0;
    const qs = new QueueSet({ concurrencyLimit: 2, queues: 1, handSize: 1, queueLengthLimit: 2 }, () => now);
    const a = qs.start(1, 'f', 1);
    const b = qs.start(1, 'f', 1);
    const c = qs.start(1, 'f', 1);
    const d = qs.start(1, 'f', 1);
    expect([a.kind, b.kind, c.kind, d.kind]).toEqual(['executing', 'executing', 'queued', 'queued']);
    expect(qs.start(1, 'f', 1)).toEqual({ kind: 'rejected', reason: 'queue-full' });
    let dispatched = 0;
    (c as { ticket: Ticket }).ticket.onDispatch = () => dispatched++;
    now = 5;
    qs.finish((a as { ticket: Ticket }).ticket);
    expect(dispatched).toBe(1);
    expect(qs.remove((d as { ticket: Ticket }).ticket)).toBe(true);
    expect(qs.stats).toMatchObject({ waiting: 0, executing: 2, seatsInUse: 2 });
  });

  it('rejects at the limit when the level does not queue', () => {
    const qs = new QueueSet({ concurrencyLimit: 1, queues: 0, handSize: 0, queueLengthLimit: 0 }, () => 0);
    expect(qs.start(1, 'a', 1).kind).toBe('executing');
    expect(qs.start(1, 'b', 2)).toEqual({ kind: 'rejected', reason: 'concurrency-limit' });
  });

  it('shares seats fairly between a flooding flow and a light one', () => {
    let now = 0;
    const qs = new QueueSet({ concurrencyLimit: 2, queues: 16, handSize: 2, queueLengthLimit: 1000 }, () => now);
    const running: { flow: string; t: Ticket }[] = [];
    const served: Record<string, number> = { flood: 0, light: 0 };
    const waitingByFlow: Record<string, Ticket[]> = { flood: [], light: [] };
    const submit = (flow: string) => {
      const r = qs.start(1, flow, flowHash('fs', flow));
      if (r.kind === 'rejected') throw new Error(r.reason);
      if (r.kind === 'executing') running.push({ flow, t: r.ticket });
      else {
        r.ticket.onDispatch = () => running.push({ flow, t: r.ticket });
        waitingByFlow[flow]!.push(r.ticket);
      }
    };
    for (let i = 0; i < 200; i++) submit('flood');
    for (let i = 0; i < 10; i++) submit('light');
    // Each step: 10 ms later, the oldest running request finishes.
    let lightDoneAt = -1;
    for (let step = 0; step < 100 && lightDoneAt < 0; step++) {
      now += 10;
      const done = running.shift()!;
      served[done.flow]!++;
      qs.finish(done.t);
      if (served.light === 10) lightDoneAt = step;
    }
    // The light flow's 10 requests are not stuck behind the 200 of the flood: about half the seats are its own.
    expect(lightDoneAt).toBeGreaterThan(0);
    expect(lightDoneAt).toBeLessThan(40);
    expect(served.flood).toBeLessThan(35);
  });

  it('serves a flow that arrives while a flood of long requests runs next, not after the flood', () => {
    let now = 0;
    const qs = new QueueSet({ concurrencyLimit: 4, queues: 64, handSize: 6, queueLengthLimit: 100 }, () => now);
    const running: Ticket[] = [];
    const submit = (flow: string) => {
      const r = qs.start(1, flow, flowHash('fs', flow));
      if (r.kind === 'rejected') throw new Error(r.reason);
      if (r.kind === 'executing') running.push(r.ticket);
      else r.ticket.onDispatch = () => running.push(r.ticket);
      return r;
    };
    for (let i = 0; i < 100; i++) submit('flood');
    // The flood runs for a while: each request takes 300 ms (far longer than the estimate charged at dispatch).
    for (let i = 0; i < 40; i++) {
      now += 75;
      qs.finish(running.shift()!);
    }
    const late = submit('late');
    expect(late.kind).toBe('queued');
    // The flood's queues were charged its work in flight at dispatch, so the newcomer's queue is due first — not
    // after the flood's 56 waiting requests (which charging a fixed estimate and not the work done would make it wait for).
    let finishes = 0;
    while ((late as { ticket: Ticket }).ticket.state === 'waiting' && finishes < 60) {
      now += 75;
      qs.finish(running.shift()!);
      finishes++;
    }
    expect(finishes).toBeLessThanOrEqual(2);
    expect(qs.stats.waiting).toBeGreaterThan(40);
  });

  it('lets a request in beside ones stuck on the network (parked past a quarter second), not past its limit of active ones', () => {
    let now = 0;
    const qs = new QueueSet({ concurrencyLimit: 2, queues: 4, handSize: 2, queueLengthLimit: 10 }, () => now);
    const stuck = [qs.start(1, 'hung', 1), qs.start(1, 'hung', 1)];
    expect(stuck.map((r) => r.kind)).toEqual(['executing', 'executing']);
    const victim = qs.start(1, 'victim', 99);
    expect(victim.kind).toBe('queued');
    now = 200;
    expect(qs.poke()).toEqual([]); // still young: they count against the limit
    now = 251;
    const started = qs.poke();
    expect(started).toHaveLength(1);
    expect((victim as { ticket: Ticket }).ticket.state).toBe('executing');
    // Two parked and one active: the next gets the second active seat, the one after that waits.
    expect(qs.start(1, 'victim', 99).kind).toBe('executing');
    expect(qs.start(1, 'victim', 99).kind).toBe('queued');
    expect(qs.stats).toMatchObject({ executing: 4, seatsInUse: 4 }); // the figures still count the parked ones
  });

  it('takes back seats and queue places that cancelled requests never released', () => {
    let now = 0;
    const fc = new FlowController({ serverConcurrencyLimit: 245, maxWaiting: 100, now: () => now });
    const p = fc.place(who('jane'), res('get', 'pods', 'x')); // global-default
    const limit = p.level.currentLimit;
    const held = Array.from({ length: limit + 1 }, () => fc.start(p, 1));
    expect(held.at(-1)!.kind).toBe('queued');
    now = 30_000;
    expect(fc.reap(60_000, 15_000)).toBe(1); // the queued one, past its wait
    now = 61_000;
    expect(fc.reap(60_000, 15_000)).toBe(limit); // the abandoned seats
    expect(fc.start(p, 1).kind).toBe('executing');
    expect(fc.series.get('global-default\u0000global-default')).toMatchObject({ executing: 1, inQueue: 0, rejected: { 'time-out': 1 } });
    fc.finish(p, held[0]!); // a late release of a reaped request changes nothing
    expect(fc.series.get('global-default\u0000global-default')!.executing).toBe(1);
  });

  it('lets a wide request wait for enough seats rather than be overtaken', () => {
    const qs = new QueueSet({ concurrencyLimit: 4, queues: 8, handSize: 1, queueLengthLimit: 10 }, () => 0);
    const a = qs.start(3, 'a', flowHash('x', 'a'));
    expect(a.kind).toBe('executing');
    const wide = qs.start(4, 'w', flowHash('x', 'w'));
    expect(wide.kind).toBe('queued');
    qs.finish((a as { ticket: Ticket }).ticket);
    expect((wide as { ticket: Ticket }).ticket.state).toBe('executing');
  });
});

describe('controller', () => {
  it('divides the server limit by shares, and keeps exempt requests out of the queues', () => {
    const fc = new FlowController({ serverConcurrencyLimit: 245, maxWaiting: 100, now: () => 0 });
    const byName = new Map(fc.priorityLevels.map((l) => [l.name, l]));
    expect(byName.get('global-default')!.nominalLimit).toBe(20);
    expect(byName.get('workload-low')!.nominalLimit).toBe(100);
    expect(byName.get('exempt')!.exempt).toBe(true);
    const p = fc.place(who('root', 'system:masters'), res('delete', 'pods', 'x'));
    expect(fc.start(p, 1)).toEqual({ kind: 'exempt', seats: 1 });
  });

  it('ignores a broken level and a schema pointing at it, and rejects past the isolate-wide waiting bound', () => {
    const fc = new FlowController({ serverConcurrencyLimit: 10, maxWaiting: 1, now: () => 0 });
    const tiny = { metadata: { name: 'tiny', uid: 'u-tiny' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 2, queueLengthLimit: 5 } } } } };
    const broken = { metadata: { name: 'broken' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 2, handSize: 3, queueLengthLimit: 1 } } } } };
    const rule = { subjects: [{ kind: 'User', user: { name: 'bot' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }] };
    fc.setConfig([...MANDATORY_PRIORITY_LEVELS, tiny, broken], [
      { metadata: { name: 'to-broken' }, spec: { priorityLevelConfiguration: { name: 'broken' }, matchingPrecedence: 10, rules: [rule] } },
      { metadata: { name: 'to-tiny', uid: 'u-fs' }, spec: { priorityLevelConfiguration: { name: 'tiny' }, matchingPrecedence: 20, rules: [rule] } },
    ]);
    const p = fc.place(who('bot'), res('get', 'pods', 'x'));
    expect(p.flowSchema.metadata.name).toBe('to-tiny');
    expect(p.level).toMatchObject({ uid: 'u-tiny', nominalLimit: 2 }); // ceil(10 × 1/6)
    const r = [fc.start(p, 1), fc.start(p, 1), fc.start(p, 1), fc.start(p, 1)];
    expect(r.map((x) => x.kind)).toEqual(['executing', 'executing', 'queued', 'rejected']);
    fc.finish(p, r[0]!);
    expect(fc.series.get('tiny\u0000to-tiny')).toMatchObject({ executing: 2, dispatched: 3, inQueue: 0, rejected: { 'queue-full': 1 } });
  });
});

describe('Retry-After', () => {
  it('doubles while a level keeps rejecting, up to 32 s, and comes back down one second at a time', () => {
    const d = new DroppedRequests();
    expect(d.retryAfter('pl')).toBe(1);
    const seen: number[] = [];
    for (let second = 1; second <= 120; second++) {
      for (let i = 0; i < 200; i++) d.record('pl', second);
      seen.push(d.retryAfter('pl'));
    }
    expect(seen[0]).toBe(1);
    expect(seen).toContain(2);
    expect(Math.max(...seen)).toBe(32);
    expect(d.retryAfter('other')).toBe(1);
    // Then one rejection now and then: it decreases by one per reconsideration.
    const before = d.retryAfter('pl');
    d.record('pl', 200);
    expect(d.retryAfter('pl')).toBe(before - 1);
  });
});
