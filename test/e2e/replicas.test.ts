// Watch-cache replicas: one subscription per replica whatever the watcher count, resume at any
// replica, and no gap or duplicate when a replica or the store restarts mid-stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, metric, startTestGateway, stopTestGateway, type Running } from './fixtures';
import { httpWatch, wsWatch, type OpenWatch } from './watch-streams';

let r: Running;
beforeAll(async () => {
  r = await startTestGateway({ vars: { REPLICA_LOCATIONS: 'enam,weur', REPLICAS_PER_LOCATION: '2', ENABLE_TEST_HOOKS: 'true' } });
});
afterAll(() => stopTestGateway(r));

const REPLICAS = [['enam', 0], ['enam', 1], ['weur', 0], ['weur', 1]] as const;
const at = (location: string, index: number) => ({ 'x-edgeplane-location': location, 'x-edgeplane-replica-index': String(index) });
const replicaName = (ns: string, location: string, index: number) => `core/configmaps@${location}#${index}`;
const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const rvs = (w: OpenWatch) => w.log.events.map((e) => e.object.metadata.resourceVersion);

async function namespace(name: string) {
  expect((await http(r, 'POST', '/api/v1/namespaces', { metadata: { name } })).status).toBe(201);
  return (await http(r, 'GET', cmPath(name))).json.metadata.resourceVersion as string;
}

async function writes(ns: string, prefix: string, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await http(r, 'POST', cmPath(ns), { metadata: { name: `${prefix}-${i}` } });
    expect(res.status).toBe(201);
    out.push(res.json.metadata.resourceVersion);
  }
  return out;
}

describe('replicas', () => {
  it('serve 1,000 watchers from 4 subscriptions, with O(replicas) messages per write', async () => {
    const head = await namespace('rep-fan');
    const watchers: OpenWatch[] = [];
    for (let i = 0; i < 1000; i += 100) {
      watchers.push(...(await Promise.all(Array.from({ length: 100 }, (_, j) => {
        const [location, index] = REPLICAS[(i + j) % REPLICAS.length];
        const path = `${cmPath('rep-fan')}?watch=true&resourceVersion=${head}`;
        return (i + j) % 2 ? wsWatch(r, path, { headers: at(location, index) }) : httpWatch(r, path, at(location, index));
      }))));
    }
    expect(await metric(r, 'edgeplane_store_subscriptions', 'core/configmaps')).toBe(4);
    expect(await metric(r, 'edgeplane_watchers', 'core/configmaps')).toBe(0);
    expect(await metric(r, 'edgeplane_replica_watchers', 'core/configmaps')).toBe(1000);
    const writesBefore = await metric(r, 'edgeplane_store_writes_total', 'core/configmaps');
    const messagesBefore = await metric(r, 'edgeplane_store_replica_messages_total', 'core/configmaps');
    const expected = await writes('rep-fan', 'cm', 20);
    for (const w of watchers) await w.log.until((e) => e.length >= expected.length, 'every event at every watcher', 60_000);
    for (const w of watchers) {
      expect(rvs(w)).toEqual(expected);
      w.close();
    }
    const writesDone = (await metric(r, 'edgeplane_store_writes_total', 'core/configmaps')) - writesBefore;
    const messages = (await metric(r, 'edgeplane_store_replica_messages_total', 'core/configmaps')) - messagesBefore;
    expect(writesDone).toBe(20);
    expect(messages / writesDone).toBe(4);
  }, 180_000);

  it('lets watchers of an aborted replica resume at another one with no gap and no duplicate', async () => {
    const head = await namespace('rep-abort');
    const path = `${cmPath('rep-abort')}?watch=true&resourceVersion=${head}`;
    const doomed = [await httpWatch(r, path, at('enam', 0)), await wsWatch(r, path, { headers: at('enam', 0) })];
    const first = await writes('rep-abort', 'a', 5);
    for (const w of doomed) await w.log.until((e) => e.length >= 5, 'events before the abort');
    await http(r, 'POST', `/debug/replicas/${encodeURIComponent(replicaName('rep-abort', 'enam', 0))}/abort`);
    for (const w of doomed) await w.log.untilEnded('the aborted replica to drop its watchers');
    const second = await writes('rep-abort', 'b', 5);
    for (const w of doomed) {
      const last = rvs(w).at(-1)!;
      const resumed = await httpWatch(r, `${cmPath('rep-abort')}?watch=true&resourceVersion=${last}`, at('weur', 1));
      await resumed.log.until((e) => rvs(w).length + e.length >= 10, 'the rest at another replica');
      expect([...rvs(w), ...rvs(resumed)]).toEqual([...first, ...second]);
      resumed.close();
    }
  }, 60_000);

  it('keeps replicas and their watchers going without loss when the store restarts', async () => {
    const head = await namespace('rep-store');
    const path = `${cmPath('rep-store')}?watch=true&resourceVersion=${head}`;
    const watchers = [await httpWatch(r, path, at('enam', 1)), await wsWatch(r, path, { headers: at('weur', 0) })];
    const first = await writes('rep-store', 'a', 5);
    await http(r, 'POST', '/debug/stores/core/configmaps/abort');
    const second = await writes('rep-store', 'b', 5);
    for (const w of watchers) {
      await w.log.until((e) => e.length >= 10, 'every event across the store restart');
      expect(rvs(w)).toEqual([...first, ...second]);
      expect(w.log.ended).toBe(false);
      w.close();
    }
  }, 60_000);

  it('makes a watcher resuming at a lagging replica wait for the right events, never an older state', async () => {
    const head = await namespace('rep-lag');
    const name = encodeURIComponent(replicaName('rep-lag', 'weur', 1));
    // Warm the replica, then hold its pushes.
    const warm = await wsWatch(r, `${cmPath('rep-lag')}?watch=true&resourceVersion=${head}`, { headers: at('weur', 1) });
    await http(r, 'POST', `/debug/replicas/${name}/pause`);
    const missed = await writes('rep-lag', 'x', 3);
    const latest = missed.at(-1)!;
    // A list not older than the latest revision must not be answered from the lagging state.
    const stale = await http(r, 'GET', `${cmPath('rep-lag')}?resourceVersion=${latest}&resourceVersionMatch=NotOlderThan`, undefined, at('weur', 1));
    expect(stale.status).toBe(504);
    expect(stale.json).toMatchObject({ reason: 'Timeout', details: { causes: [{ reason: 'ResourceVersionTooLarge' }] } });
    const resumed = await httpWatch(r, `${cmPath('rep-lag')}?watch=true&resourceVersion=${missed[0]}`, at('weur', 1));
    await http(r, 'POST', `/debug/replicas/${name}/resume`);
    const after = await writes('rep-lag', 'y', 2);
    await resumed.log.until((e) => e.length >= 4, 'the events after the resume point');
    expect(rvs(resumed)).toEqual([...missed.slice(1), ...after]);
    const fresh = await http(r, 'GET', `${cmPath('rep-lag')}?resourceVersion=${latest}&resourceVersionMatch=NotOlderThan`, undefined, at('weur', 1));
    expect(fresh.status).toBe(200);
    expect(Number(fresh.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(after.at(-1)));
    for (const w of [warm, resumed]) w.close();
  }, 60_000);

  it('serves consistent lists (RV unset) from a caught-up replica, and from the store when it lags', async () => {
    await namespace('rep-read');
    const [created] = await writes('rep-read', 'c', 1);
    const fresh = await http(r, 'GET', cmPath('rep-read'), undefined, at('enam', 0));
    expect(fresh.json.items.map((i: any) => i.metadata.resourceVersion)).toEqual([created]);
    const name = encodeURIComponent(replicaName('rep-read', 'enam', 0));
    await http(r, 'POST', `/debug/replicas/${name}/pause`);
    const [held] = await writes('rep-read', 'd', 1);
    // The paused replica cannot reach the store's revision: the list must still include the new write.
    const consistent = await http(r, 'GET', cmPath('rep-read'), undefined, at('enam', 0));
    expect(consistent.json.items.map((i: any) => i.metadata.resourceVersion)).toEqual([created, held]);
    await http(r, 'POST', `/debug/replicas/${name}/resume`);
  }, 30_000);
});
