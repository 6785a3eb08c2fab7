// WebSocket watchers that stop reading: workerd has no bufferedAmount, so each socket may be sent at most
// WATCH_SOCKET_BUDGET_BYTES without the client being heard from (any message, such as "ping", which is not
// answered). A stalled client is closed once over it, holding at most the budget; a client
// that pings keeps receiving; one that never sends is closed after each budget's worth and resumes from
// its last revision without loss.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { http, metric, startTestGateway, stopTestGateway, TOKEN, type Running } from './fixtures';
import { EventLog, httpWatch } from './watch-streams';

const BUDGET = 4 * 1024 * 1024;
const WRITES = 60;
const BLOB = 'x'.repeat(128 * 1024);
const NS = 'stall';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

let r: Running;
beforeAll(async () => {
  r = await startTestGateway({ vars: { REPLICA_LOCATIONS: '', WATCH_SOCKET_BUDGET_BYTES: String(BUDGET) } });
  expect((await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
});
afterAll(() => stopTestGateway(r));

interface RawSocket {
  ws: WebSocket;
  log: EventLog;
  bytes: number; // bytes of event messages received
}

/** A raw `ws` watch; `ping`: answer each event with "ping", as a client that proves it reads. */
function rawWatch(path: string, ping = false): Promise<RawSocket> {
  const ws = new WebSocket(new URL(path, r.gateway.url.replace('http://', 'ws://')), { headers: { authorization: `Bearer ${TOKEN}` } });
  const s: RawSocket = { ws, log: new EventLog(), bytes: 0 };
  ws.on('message', (data) => {
    const text = data.toString();
    if (text === 'pong') return;
    s.bytes += Buffer.byteLength(text);
    s.log.push(JSON.parse(text));
    if (ping) ws.send('ping');
  });
  ws.on('close', () => s.log.end());
  return new Promise((resolve, reject) => {
    ws.on('open', () => resolve(s));
    ws.on('error', reject);
  });
}

async function writeBlobs(prefix: string): Promise<string[]> {
  const rvs: string[] = [];
  for (let i = 0; i < WRITES; i++) {
    const res = await http(r, 'POST', CM, { metadata: { name: `${prefix}-${i}` }, data: { blob: BLOB } });
    expect(res.status).toBe(201);
    rvs.push(res.json.metadata.resourceVersion);
  }
  return rvs;
}

const rvsOf = (log: EventLog) => log.events.map((e) => e.object.metadata.resourceVersion as string);
const stalls = () => metric(r, 'edgeplane_watch_socket_stalled_total', 'core/configmaps');

describe('stalled WebSocket watchers', () => {
  it('are closed once over their budget, holding at most it, while readers get every event', async () => {
    const head = (await http(r, 'GET', CM)).json.metadata.resourceVersion;
    const path = `${CM}?watch=true&resourceVersion=${head}`;
    const stalled = await rawWatch(path);
    // Stop reading: TCP flow control backs up to the server, as with a client that hangs.
    (stalled.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const pinging = await rawWatch(path, true);
    const streaming = await httpWatch(r, path);
    const before = await stalls();

    const rvs = await writeBlobs('a');
    await pinging.log.until((e) => e.length >= WRITES, 'every event at the pinging socket', 60_000);
    await streaming.log.until((e) => e.length >= WRITES, 'every event at the HTTP watcher', 60_000);
    expect(rvsOf(pinging.log)).toEqual(rvs);
    expect(rvsOf(streaming.log)).toEqual(rvs);
    expect(pinging.log.ended).toBe(false);
    expect(await stalls()).toBe(before + 1);

    // Resumed, the stalled client finds what was queued for it, no more than the budget, then the close.
    (stalled.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await stalled.log.untilEnded('the close of the stalled socket', 30_000);
    const got = rvsOf(stalled.log);
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(WRITES);
    expect(got).toEqual(rvs.slice(0, got.length));
    expect(stalled.bytes).toBeLessThanOrEqual(BUDGET);
    pinging.ws.close();
    streaming.close();
  }, 120_000);

  it('lets a client that reads but never sends resume after each budget, without loss', async () => {
    const head = (await http(r, 'GET', CM)).json.metadata.resourceVersion;
    const before = await stalls();
    let socket = await rawWatch(`${CM}?watch=true&resourceVersion=${head}`);
    const rvs = await writeBlobs('b');
    const got: string[] = [];
    let connections = 1;
    for (;;) {
      await socket.log.until((e) => got.length + e.length >= WRITES || socket.log.ended, 'events or a close', 30_000);
      got.push(...rvsOf(socket.log));
      expect(socket.bytes).toBeLessThanOrEqual(BUDGET);
      if (got.length >= WRITES) break;
      await socket.log.untilEnded('the close after the budget');
      socket = await rawWatch(`${CM}?watch=true&resourceVersion=${got.at(-1)}`);
      connections++;
    }
    expect(got).toEqual(rvs);
    expect(connections).toBeGreaterThan(1);
    expect(await stalls()).toBe(before + connections - 1);
    socket.ws.close();
  }, 120_000);
});
