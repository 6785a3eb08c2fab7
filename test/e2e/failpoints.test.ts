// E2E: the failpoints inside the objects (contract/failpoints.ts; issue 21 item 2). Armed through
// PUT /debug/failpoints/<name> only with ENABLE_TEST_HOOKS (404 otherwise); each fires at its point: a throw before or
// inside a write's transaction changes nothing; an abort after the commit leaves the unacknowledged write all or
// nothing for readers and watchers alike; dropped,
// duplicated and reordered replica pushes still give a replica's watcher every change once, in order; a watch frame
// held back (sleep) delays it and those behind it, and loses or reorders none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, type Running } from './fixtures';
import { httpWatch, wsWatch } from './watch-streams';

const CM = '/api/v1/namespaces/fp/configmaps';
const arm = (r: Running, name: string, term: string, store = '') => fetch(`${r.gateway.url}/debug/failpoints/${name}${store ? `?store=${store}` : ''}`, { method: 'PUT', body: term, headers: { authorization: 'Bearer e2e-admin-token' } });

describe('without ENABLE_TEST_HOOKS', () => {
  it('has no failpoint route', async () => {
    const r = await startTestGateway();
    try {
      expect((await arm(r, 'store.write.in-transaction', 'throw')).status).toBe(404);
      expect((await http(r, 'GET', '/debug/failpoints')).status).toBe(404);
    } finally {
      await stopTestGateway(r);
    }
  }, 60_000);
});

describe('with ENABLE_TEST_HOOKS', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: { ENABLE_TEST_HOOKS: 'true', REPLICA_LOCATIONS: 'enam', REPLICAS_PER_LOCATION: '1' } });
    expect((await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: 'fp' } })).status).toBe(201);
  }, 60_000);
  afterAll(() => stopTestGateway(r));

  it('refuses unknown names (404) and terms (400)', async () => {
    expect((await arm(r, 'store.nope', 'throw')).status).toBe(404);
    expect((await arm(r, 'store.write.in-transaction', 'panic')).status).toBe(400);
    expect((await arm(r, 'store.write.in-transaction', 'sleep(100)')).status).toBe(400); // only watch.* points can wait
    expect((await arm(r, 'watch.before-send', 'sleep(10001)')).status).toBe(400);
    expect((await arm(r, 'clock.skew', 'throw')).status).toBe(400); // the clock only skews
    expect((await arm(r, 'store.write.in-transaction', 'skew(1000)')).status).toBe(400); // and nothing else does
    const skewed = await arm(r, 'clock.skew', 'skew(-30000)');
    expect(skewed.status).toBe(200);
    expect(((await skewed.json()) as any).armed['clock.skew']).toBe('skew(-30000)');
    expect((await arm(r, 'clock.skew', 'off')).status).toBe(200);
  });

  it.each(['http', 'ws'] as const)('watch.before-send over %s: the held frame and those behind it arrive late, all of them, in order', async (transport) => {
    const list = (await http(r, 'GET', CM)).json as any;
    const path = `${CM}?watch=true&resourceVersion=${list.metadata.resourceVersion}`;
    const w = transport === 'http' ? await httpWatch(r, path) : await wsWatch(r, path);
    try {
      const hitsBefore = ((await http(r, 'GET', '/debug/failpoints')).json as any).hits['watch.before-send'] ?? 0;
      const from = Date.now();
      // Three hits: a watcher of an earlier test the store has not yet noticed gone may take one.
      expect((await arm(r, 'watch.before-send', '3*sleep(5000)', 'core/configmaps')).status).toBe(200);
      const names = [0, 1, 2].map((i) => `d-${transport}-${i}`);
      for (const name of names) expect((await http(r, 'POST', CM, { metadata: { name } })).status).toBe(201);
      const seen = () => w.log.events.filter((e) => names.includes(e.object?.metadata?.name));
      // Held for 5 s from the first frame: nothing of them may have arrived yet, if we got here within that time.
      if (Date.now() - from < 4000) expect(seen()).toEqual([]);
      await w.log.until(() => seen().length >= names.length, 'the held frames', 15_000);
      expect(seen().map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(names.map((n) => `ADDED ${n}`));
      expect(((await http(r, 'GET', '/debug/failpoints')).json as any).hits['watch.before-send']).toBeGreaterThan(hitsBefore);
    } finally {
      await arm(r, 'watch.before-send', 'off');
      w.close();
    }
  }, 30_000);

  it.each(['store.write.before-transaction', 'store.write.in-transaction', 'store.storage-error'])('%s: the write fails and changes nothing; the next succeeds', async (name) => {
    // Only in the ConfigMaps' store: a write to another type first passes untouched.
    expect((await arm(r, name, 'throw', 'core/configmaps')).status).toBe(200);
    expect((await http(r, 'POST', '/api/v1/namespaces/fp/secrets', { metadata: { name: `s-${name}` } })).status).toBe(201);
    const failed = await http(r, 'POST', CM, { metadata: { name: `f-${name}` } });
    expect(failed.status).toBe(500);
    expect((await http(r, 'GET', `${CM}/f-${name}`)).status).toBe(404);
    expect((await http(r, 'POST', CM, { metadata: { name: `f-${name}` } })).status).toBe(201);
    expect(((await http(r, 'GET', '/debug/failpoints')).json as any).hits[name]).toBe(1);
  });

  it.each(['store.write.after-commit', 'store.write.after-broadcast'])('%s with abort: the unacknowledged write is all or nothing, for readers and watchers alike', async (name) => {
    const list = (await http(r, 'GET', CM)).json as any;
    const w = await httpWatch(r, `${CM}?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
    try {
      expect((await arm(r, name, 'abort')).status).toBe(200);
      const res = await http(r, 'POST', CM, { metadata: { name: `a-${name}` } });
      expect(res.status).toBeGreaterThanOrEqual(500); // the object went away before answering: the outcome is unknown
      expect(((await http(r, 'GET', '/debug/failpoints')).json as any).hits[name]).toBe(1); // counted across the abort
      // The store comes back from what was durable. The output gate held the answer, the watch frames and the
      // replica pushes of a write that was not yet durable: measured, the write is lost, and nobody saw it.
      expect((await http(r, 'POST', CM, { metadata: { name: `b-${name}` } })).status).toBe(201);
      const stored = (await http(r, 'GET', `${CM}/a-${name}`)).status === 200;
      const again = await httpWatch(r, `${CM}?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
      try {
        await again.log.until((es) => es.some((e) => e.object.metadata.name === `b-${name}`), 'the next write');
        const seen = (log: typeof again.log) => log.events.filter((e) => e.object?.metadata?.name === `a-${name}`).length;
        expect(seen(again.log)).toBe(stored ? 1 : 0);
        expect(seen(w.log)).toBeLessThanOrEqual(stored ? 1 : 0);
      } finally {
        again.close();
      }
    } finally {
      w.close();
    }
  }, 30_000);

  it('replica pushes dropped, duplicated and reordered: a replica watcher still gets every change once, in order', async () => {
    const list = (await http(r, 'GET', CM)).json as any;
    const w = await httpWatch(r, `${CM}?watch=true&resourceVersion=${list.metadata.resourceVersion}`, { 'x-edgeplane-location': 'enam' });
    try {
      const names: string[] = [];
      for (const [i, fp] of ['replica.push.drop', 'replica.push.duplicate', 'replica.push.reorder', '', 'replica.push.drop', ''].entries()) {
        if (fp) expect((await arm(r, fp, 'throw', 'core/configmaps')).status).toBe(200);
        names.push(`p${i}`);
        expect((await http(r, 'POST', CM, { metadata: { name: `p${i}` } })).status).toBe(201);
      }
      await w.log.until((es) => es.filter((e) => e.type === 'ADDED').length >= names.length, 'every change at the replica', 20_000);
      const added = w.log.events.filter((e) => e.type === 'ADDED');
      expect(added.map((e) => e.object.metadata.name)).toEqual(names);
      const rvs = added.map((e) => Number(e.object.metadata.resourceVersion));
      expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
      const hits = ((await http(r, 'GET', '/debug/failpoints')).json as any).hits;
      expect(hits).toMatchObject({ 'replica.push.drop': 2, 'replica.push.duplicate': 1, 'replica.push.reorder': 1 });
    } finally {
      w.close();
    }
  });
});
