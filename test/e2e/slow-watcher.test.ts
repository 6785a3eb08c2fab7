// A watcher that stops reading gets a bounded buffer and is closed when it overflows; the others keep
// receiving every event, and the slow client resumes from its last revision without loss.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { http, metric, startTestGateway, stopTestGateway, TOKEN, type Running } from './fixtures';
import { collectLines, httpWatch, wsWatch, EventLog } from './watch-streams';

let r: Running;
beforeAll(async () => {
  r = await startTestGateway({ vars: { WATCH_BUFFER_BYTES: String(256 * 1024) } });
});
afterAll(() => stopTestGateway(r));

const WRITES = 60;
const BIG = 'x'.repeat(1024 * 1024);

/** An HTTP watch whose client does not read until `resume` is called. */
function stalledWatch(path: string) {
  const log = new EventLog();
  let resume!: () => void;
  const ready = new Promise<void>((resolve) => {
    const req = request(new URL(path, r.gateway.url), { headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      collectLines(res, log);
      res.pause();
      resume = () => res.resume();
      resolve();
    });
    req.end();
  });
  return { log, ready, resume: () => resume() };
}

describe('slow watcher', () => {
  it('is closed on overflow without delaying others, and resumes without loss', async () => {
    const head = (await http(r, 'GET', '/api/v1/namespaces/default/configmaps')).json.metadata.resourceVersion;
    const path = `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${head}`;
    const slow = stalledWatch(path);
    await slow.ready;
    const fastHttp = await httpWatch(r, path);
    // 60 MiB of events is past a WebSocket's send budget: this client shows it reads by pinging.
    const fastWs = await wsWatch(r, path, { ping: true });

    const rvs: string[] = [];
    for (let i = 0; i < WRITES; i++) {
      const res = await http(r, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `big-${i}` }, data: { blob: BIG } });
      expect(res.status).toBe(201);
      rvs.push(res.json.metadata.resourceVersion);
    }
    for (const fast of [fastHttp, fastWs]) {
      await fast.log.until((e) => e.length >= WRITES, 'every event at the fast watchers', 60_000);
      expect(fast.log.events.map((e) => e.object.metadata.resourceVersion)).toEqual(rvs);
    }

    slow.resume();
    await slow.log.untilEnded('the server to close the slow watcher', 60_000);
    const got = slow.log.events.map((e) => e.object.metadata.resourceVersion);
    expect(got.length).toBeLessThan(WRITES);
    expect(got).toEqual(rvs.slice(0, got.length));

    const last = got.at(-1) ?? head;
    const resumed = await httpWatch(r, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${last}`);
    await resumed.log.until((e) => e.length >= WRITES - got.length, 'the rest after resuming', 60_000);
    expect([...got, ...resumed.log.events.map((e) => e.object.metadata.resourceVersion)]).toEqual(rvs);
    for (const w of [fastHttp, fastWs, resumed]) w.close();

    // Exactly one watcher was closed for overflowing its buffer (watches are served by replicas here).
    expect(await metric(r, 'edgeplane_replica_slow_closed_total', 'core/configmaps')).toBe(1);
    expect(await metric(r, 'edgeplane_watch_slow_closed_total', 'core/configmaps')).toBe(0);
  }, 180_000);
});
