// Fault isolation on the fan-out path: an object whose Table row cannot be printed (planted through the
// raw-write test hook, which bypasses validation) is written while JSON and Table watchers are open over
// HTTP and WebSocket, at the store and at a replica. Every watcher receives every event, in order (the
// bad object's Table row falls back to null cells, as kube's CRD table convertor does), lists stay 200,
// the replica's push is not skipped, and /metrics counts the fallback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, metric, startTestGateway, stopTestGateway, type Running } from './fixtures';
import { httpWatch, wsWatch, type OpenWatch, type WatchEventMsg } from './watch-streams';

// What kubectl get -w sends.
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };

// A pod the pod printer cannot summarise: spec.initContainers must be a list.
const badPod = (ns: string, image: string) => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name: 'bad', namespace: ns, uid: 'bad-uid', creationTimestamp: new Date().toISOString() },
  spec: { initContainers: 5, containers: [{ name: 'c', image }] },
  status: { conditions: 5 },
});
const goodPod = (name: string) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

/** type:name@rv for a JSON or a Table frame. */
function summary(e: WatchEventMsg): string {
  const meta = e.object.kind === 'Table' ? e.object.rows[0].object.metadata : e.object.metadata;
  return `${e.type}:${meta.name}@${meta.resourceVersion}`;
}

for (const mode of ['store', 'replica'] as const) {
  describe(`fault isolation at the ${mode}`, () => {
    let r: Running;
    beforeAll(async () => {
      r = await startTestGateway({ vars: { ENABLE_TEST_HOOKS: 'true', REPLICA_LOCATIONS: mode === 'store' ? '' : 'enam', REPLICAS_PER_LOCATION: '1' } });
    });
    afterAll(() => stopTestGateway(r));

    it('an unrenderable object costs no watcher any event, and no list its 200', async () => {
      const ns = `faults-${mode}`;
      expect((await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
      const pods = `/api/v1/namespaces/${ns}/pods`;
      const head = (await http(r, 'GET', pods)).json.metadata.resourceVersion;
      const from = `?watch=true&resourceVersion=${head}`;
      const watchers: [string, OpenWatch][] = [
        ['http json', await httpWatch(r, pods + from)],
        ['ws json', await wsWatch(r, pods + from)],
        ['http table', await httpWatch(r, pods + from, TABLE)],
        ['ws table', await wsWatch(r, pods + from, { headers: TABLE })],
        ['http all namespaces table', await httpWatch(r, `/api/v1/pods${from}`, TABLE)],
        ['ws all namespaces', await wsWatch(r, `/api/v1/pods${from}`)],
      ];

      const expected: string[] = [];
      const create = async (name: string) => {
        const res = await http(r, 'POST', pods, goodPod(name));
        expect(res.status).toBe(201);
        expected.push(`ADDED:${name}@${res.json.metadata.resourceVersion}`);
      };
      const raw = async (image: string, type: string) => {
        const res = await http(r, 'POST', '/debug/raw-write', { groupResource: 'core/pods', object: badPod(ns, image) });
        expect(res.status).toBe(type === 'ADDED' ? 201 : 200);
        expect(res.json.spec.initContainers).toBe(5);
        expected.push(`${type}:bad@${res.json.metadata.resourceVersion}`);
      };
      await create('a');
      await raw('one', 'ADDED');
      await create('b');
      await raw('two', 'MODIFIED');
      // Through the API: accepted while pods are not validated against their schema (then it is one
      // more unrenderable object every watcher must get), refused with 422 once they are.
      await create('bad-api');
      const viaApi = await http(r, 'PATCH', `${pods}/bad-api/status`, { status: { conditions: 5 } }, { 'content-type': 'application/merge-patch+json' });
      if (viaApi.status === 200) expected.push(`MODIFIED:bad-api@${viaApi.json.metadata.resourceVersion}`);
      else expect(viaApi.status).toBe(422);
      const names = ['a', 'b', 'bad', 'bad-api'];

      // Lists stay 200 with every item; the bad Table row keeps its name, null for what cannot be printed.
      const list = await http(r, 'GET', pods);
      expect(list.status).toBe(200);
      expect(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(names);
      for (const q of ['', '?resourceVersion=0']) {
        const table = await http(r, 'GET', pods + q, undefined, TABLE);
        expect(table.status).toBe(200);
        expect(table.json.rows.map((row: { cells: unknown[] }) => row.cells[0])).toEqual(names);
        expect(table.json.rows[2].cells.slice(0, 4)).toEqual(['bad', null, null, null]);
      }
      const one = await http(r, 'GET', `${pods}/bad`, undefined, TABLE);
      expect(one.status).toBe(200);
      expect(one.json.rows[0].cells.slice(0, 4)).toEqual(['bad', null, null, null]);

      const del = await http(r, 'DELETE', `${pods}/bad?gracePeriodSeconds=0`);
      expect(del.status).toBe(200);
      const deletedRv = (await http(r, 'GET', pods)).json.metadata.resourceVersion;
      expected.push(`DELETED:bad@${deletedRv}`);
      await create('c');

      for (const [what, w] of watchers) {
        await w.log.until((e) => e.length >= expected.length, `every event at the ${what} watcher`);
        expect(w.log.events.map(summary), what).toEqual(expected);
        expect(w.log.ended, what).toBe(false);
        const badRow = w.log.events.find((e) => e.object.kind === 'Table' && e.object.rows[0].cells[0] === 'bad');
        if (badRow) expect(badRow.object.rows[0].cells.slice(0, 4), what).toEqual(['bad', null, null, null]);
      }
      for (const [, w] of watchers) w.close();

      const series = mode === 'store' ? 'edgeplane_render_errors_total' : 'edgeplane_replica_render_errors_total';
      expect(await metric(r, series, 'core/pods')).toBeGreaterThan(0);
      expect(await metric(r, mode === 'store' ? 'edgeplane_watch_sink_errors_total' : 'edgeplane_replica_watch_sink_errors_total', 'core/pods')).toBe(0);
    });

    it('the raw-write hook answers bad bodies with a Status', async () => {
      const missing = await http(r, 'POST', '/debug/raw-write', { groupResource: 'core/pods', object: { metadata: { namespace: 'default' } } });
      expect(missing.json).toEqual({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'raw write: metadata.name is required', reason: 'BadRequest', code: 400,
      });
      const unknown = await http(r, 'POST', '/debug/raw-write', { groupResource: 'core/nothing', object: { metadata: { name: 'x' } } });
      expect(unknown.status).toBe(400);
      expect(unknown.json.message).toBe('raw write: unknown groupResource "core/nothing"');
    });
  });
}
