import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { ApiEventRecorder, EVENT_WRITERS, MAX_QUEUED_EVENTS, SPAM_BURST } from '../../controllers/events';
import { EventCorrelator } from '../../controllers/event-correlator';
import { FakeApi, FakeClock } from './fakes';

const podNamed = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', uid: `${name}-uid`, resourceVersion: '1' } });
const id = (name: string, type = 'Warning', reason = 'FailedScheduling') => ({ component: 'default-scheduler', host: '', kind: 'Pod', namespace: 'ns', name, uid: `${name}-uid`, apiVersion: 'v1', type, reason });

describe('EventCorrelator', () => {
  it('lets a source write 25 events about an object, then one per 5 minutes, counting the dropped ones', () => {
    const c = new EventCorrelator();
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    let names = 0;
    const written = [];
    for (let i = 0; i < 40; i++) {
      const r = c.correlate(id('p'), 'ns', 'no nodes', t0 + i * 1000, () => `p.${names++}`);
      if (r) written.push(r);
    }
    expect(written).toHaveLength(SPAM_BURST);
    expect(written[0]).toMatchObject({ name: 'p.0', count: 1, patch: false });
    expect(written[24]).toMatchObject({ name: 'p.0', count: 25, patch: true });
    // 5 minutes after the burst: one more token, and the write carries every occurrence so far.
    expect(c.correlate(id('p'), 'ns', 'no nodes', t0 + 40_000, () => 'x')).toBeUndefined();
    expect(c.correlate(id('p'), 'ns', 'no nodes', t0 + 24_000 + 300_000, () => 'x')).toMatchObject({ name: 'p.0', count: 42, patch: true });
    expect(names).toBe(1);
  });

  it('keeps a budget per object and per type', () => {
    const c = new EventCorrelator();
    const t = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < SPAM_BURST; i++) expect(c.correlate(id('p'), 'ns', `m${i % 3}`, t, () => `p.${i}`)).toBeDefined();
    expect(c.correlate(id('p'), 'ns', 'm0', t, () => 'x')).toBeUndefined();
    expect(c.correlate(id('q'), 'ns', 'm0', t, () => 'q.0')).toBeDefined();
    expect(c.correlate(id('p', 'Normal', 'Scheduled'), 'ns', 'ok', t, () => 'p.n')).toBeDefined();
  });

  it('combines the 10th and later distinct messages of one reason, and starts over after 10 quiet minutes', () => {
    const c = new EventCorrelator();
    const t = Date.parse('2026-01-01T00:00:00Z');
    const out = Array.from({ length: 12 }, (_, i) => c.correlate(id('rs', 'Normal', 'SuccessfulCreate'), 'ns', `Created pod: p${i}`, t, () => `rs.${i}`)!);
    expect(out.slice(0, 9).every((o) => !o.patch && !o.message.startsWith('('))).toBe(true);
    expect(out[9]).toMatchObject({ message: '(combined from similar events): Created pod: p9', count: 1, patch: false });
    expect(out[11]).toMatchObject({ name: out[9].name, message: '(combined from similar events): Created pod: p11', count: 3, patch: true });
    expect(c.correlate(id('rs', 'Normal', 'SuccessfulCreate'), 'ns', 'Created pod: p12', t + 600_001, () => 'fresh')).toMatchObject({ name: 'fresh', message: 'Created pod: p12' });
  });
});

describe('ApiEventRecorder with the correlator', () => {
  it('writes an unschedulable pod\'s repeated FailedScheduling as one counted event and stops at the spam budget', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    const rec = new ApiEventRecorder(api, 'default-scheduler', clock);
    for (let i = 0; i < 100; i++) {
      rec.event(podNamed('p'), 'Warning', 'FailedScheduling', '0/3 nodes are available');
      clock.advance(10_000);
    }
    await rec.flush();
    expect(api.writes('create')).toHaveLength(1);
    // The burst of 25, then the bucket's refill (one per 300 s) over the 990 s: at 300 s, 600 s and 900 s.
    expect(api.writes()).toHaveLength(SPAM_BURST + 3);
    expect(api.writes().at(-1)!.body).toMatchObject({ count: 91, lastTimestamp: '2026-01-01T00:15:00Z' });
  });

  it('creates a vanished event again under its name with the count so far', async () => {
    const api = new FakeApi();
    const rec = new ApiEventRecorder(api, 'c', new FakeClock());
    rec.event(podNamed('p'), 'Warning', 'BackOff', 'x');
    rec.event(podNamed('p'), 'Warning', 'BackOff', 'x');
    await rec.flush();
    api.objects.clear();
    rec.event(podNamed('p'), 'Warning', 'BackOff', 'x');
    await rec.flush();
    const [first, , again] = api.writes();
    expect(api.writes().map((w) => w.verb)).toEqual(['create', 'patch', 'patch', 'create']);
    expect(api.writes()[3]).toMatchObject({ name: first.name, body: { count: 3, firstTimestamp: '2026-01-01T00:00:00Z' } });
    expect(again.body).toMatchObject({ count: 3 });
  });

  it('holds at most MAX_QUEUED_EVENTS waiting writes and drops the rest', async () => {
    const api = new FakeApi();
    const release: (() => void)[] = [];
    const create = api.create.bind(api);
    api.create = (r, ns, obj) => new Promise((resolve) => release.push(() => resolve(create(r, ns, obj))));
    const rec = new ApiEventRecorder(api, 'c', new FakeClock());
    for (let i = 0; i < MAX_QUEUED_EVENTS + 500; i++) rec.event(podNamed(`p${i}`), 'Normal', 'Scheduled', 'ok');
    expect(rec.dropped).toBe(499); // one is being written, 1,000 wait
    api.create = create;
    release.splice(0).forEach((r) => r());
    await rec.flush();
    expect(api.writes('create')).toHaveLength(MAX_QUEUED_EVENTS + 1);
  });

  it('keeps at most EVENT_WRITERS event writes in flight across recorders', async () => {
    const api = new FakeApi();
    const release: (() => void)[] = [];
    const create = api.create.bind(api);
    api.create = (r, ns, obj) => new Promise((resolve) => release.push(() => resolve(create(r, ns, obj))));
    const recorders = Array.from({ length: EVENT_WRITERS + 3 }, (_, i) => new ApiEventRecorder(api, 'kubelet', new FakeClock(), `node-${i}`));
    recorders.forEach((rec, i) => { rec.event(podNamed(`p${i}`), 'Normal', 'Pulling', 'x'); rec.event(podNamed(`p${i}`), 'Normal', 'Started', 'x'); });
    await new Promise((r) => setTimeout(r, 0));
    expect(release).toHaveLength(EVENT_WRITERS);
    api.create = create;
    while (release.length) {
      release.splice(0).forEach((r) => r());
      await new Promise((r) => setTimeout(r, 0));
    }
    await Promise.all(recorders.map((rec) => rec.flush()));
    expect(api.writes('create')).toHaveLength(2 * recorders.length);
  });
});
