// The watch client (client/) against the real gateway, over HTTP streaming and WebSockets: the informer's
// cache stays equal to the server's list across server-side stream ends and across a 410 that forces a relist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import WebSocket from 'ws';
import { ApiError, createInformer, objectKey, watch, type FetchFn, type Informer, type KubeObject, type Transport } from '../../client';
import { http, startTestGateway, stopTestGateway, TOKEN, type Running } from './fixtures';

const RETENTION = 20;
const TRANSPORTS: Transport[] = ['http', 'websocket'];
const BACKOFF = { initialMs: 20, maxMs: 200 };

let r: Running;
let closedPort: number;
beforeAll(async () => {
  r = await startTestGateway({ vars: { EVENT_RETENTION_COUNT: String(RETENTION) } });
  closedPort = await freePort();
});
afterAll(() => stopTestGateway(r));

/** A port nothing listens on: connections to it are refused at once. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * The informer's link to the gateway: counts list and watch requests, and while `down` sends new watch
 * connections to a closed port, like a partition between client and server. Lists are never touched.
 */
function link() {
  const s = { lists: 0, watches: [] as URL[], refused: 0, down: false };
  const reroute = (url: URL): URL => {
    s.watches.push(new URL(url));
    if (!s.down) return url;
    s.refused++;
    const to = new URL(url);
    to.port = String(closedPort);
    return to;
  };
  const fetchFn: FetchFn = (input, init) => {
    const url = new URL(input);
    if (url.searchParams.get('watch') !== 'true') {
      s.lists++;
      return fetch(input, init);
    }
    return fetch(reroute(url), init);
  };
  class Socket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(reroute(new URL(url)).toString(), protocols);
    }
  }
  return { s, fetch: fetchFn, WebSocket: Socket };
}

const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

async function ok(p: Promise<{ status: number; text: string }>, ...expected: number[]) {
  const res = await p;
  if (!expected.includes(res.status)) throw new Error(`unexpected ${res.status}: ${res.text}`);
}
const createNs = (ns: string) => ok(http(r, 'POST', '/api/v1/namespaces', { metadata: { name: ns } }), 201);
const createCm = (ns: string, name: string, labels: Record<string, string> = {}) =>
  ok(http(r, 'POST', cms(ns), { metadata: { name, labels }, data: { v: '0' } }), 201);
const patchCm = (ns: string, name: string, patch: object) =>
  ok(http(r, 'PATCH', `${cms(ns)}/${name}`, patch, { 'content-type': 'application/merge-patch+json' }), 200);
const updateCm = (ns: string, name: string) => patchCm(ns, name, { data: { v: String(Math.random()) } });
const deleteCm = (ns: string, name: string) => ok(http(r, 'DELETE', `${cms(ns)}/${name}`), 200);

const byKey = (objs: Iterable<KubeObject>) => [...objs].sort((a, b) => objectKey(a).localeCompare(objectKey(b)));

async function serverItems(ns: string, labelSelector?: string): Promise<KubeObject[]> {
  const q = labelSelector ? `?labelSelector=${encodeURIComponent(labelSelector)}` : '';
  const res = await http(r, 'GET', cms(ns) + q);
  expect(res.status).toBe(200);
  return byKey(res.json.items);
}

/** Polls a local condition (no server traffic) until it holds; fails with `what` after the timeout. */
async function waitUntil(cond: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A copy of the cache rebuilt only from handler calls, and the calls by kind (after `since()` is called). */
function recorder(inf: Informer) {
  const mirror = new Map<string, KubeObject>();
  const calls = { add: [] as string[], update: [] as string[], delete: [] as string[] };
  inf.on('add', (o) => {
    expect(mirror.has(objectKey(o))).toBe(false);
    mirror.set(objectKey(o), o);
    calls.add.push(o.metadata.name!);
  });
  inf.on('update', (o, old) => {
    expect(mirror.get(objectKey(o))).toBe(old);
    mirror.set(objectKey(o), o);
    calls.update.push(o.metadata.name!);
  });
  inf.on('delete', (o) => {
    expect(mirror.delete(objectKey(o))).toBe(true);
    calls.delete.push(o.metadata.name!);
  });
  return {
    mirror,
    calls,
    since() {
      calls.add = [];
      calls.update = [];
      calls.delete = [];
    },
  };
}

async function expectInSync(inf: Informer, mirror: Map<string, KubeObject>, ns: string, labelSelector?: string) {
  const expected = await serverItems(ns, labelSelector);
  await waitUntil(() => isDeepStrictEqual(byKey(inf.list()), expected), `the ${ns} cache to equal the server list`);
  expect(byKey(mirror.values())).toEqual(expected);
}

describe.each(TRANSPORTS)('watch client over %s', (transport) => {
  const informers: Informer[] = [];
  afterAll(() => Promise.all(informers.map((i) => i.stop())));
  const start = async (ns: string, l: ReturnType<typeof link>, extra: { labelSelector?: string } = {}) => {
    const errors: unknown[] = [];
    const inf = createInformer({
      server: r.gateway.url, token: TOKEN, path: cms(ns), transport, timeoutSeconds: 1, pageSize: 2, backoff: BACKOFF,
      fetch: l.fetch, WebSocket: l.WebSocket, onError: (e) => errors.push(e), ...extra,
    });
    informers.push(inf);
    const rec = recorder(inf);
    await inf.start();
    expect(inf.hasSynced()).toBe(true);
    return { inf, errors, ...rec };
  };

  it('resumes from its last resourceVersion after the server ends each stream, without relisting', async () => {
    const ns = `wc-resume-${transport}`;
    await createNs(ns);
    for (const name of ['a', 'b', 'c', 'd', 'e']) await createCm(ns, name);
    const l = link();
    const { inf, mirror, errors } = await start(ns, l);
    await expectInSync(inf, mirror, ns);
    expect(l.s.lists).toBe(3); // five objects in pages of two

    for (let round = 0; round < 3; round++) {
      const watches = l.s.watches.length;
      await createCm(ns, `new-${round}`);
      await updateCm(ns, ['a', 'b', 'c'][round]);
      if (round === 1) await deleteCm(ns, 'e');
      // timeoutSeconds=1: the server ends the stream, the informer opens another.
      await waitUntil(() => l.s.watches.length > watches, `watch #${watches + 1} after the server ended the last one`);
    }
    await expectInSync(inf, mirror, ns);

    expect(l.s.lists).toBe(3);
    expect(errors).toEqual([]);
    const rvs = l.s.watches.map((u) => Number(u.searchParams.get('resourceVersion')));
    expect(rvs.every((rv, i) => rv > 0 && (i === 0 || rv >= rvs[i - 1]))).toBe(true);
    for (const u of l.s.watches) {
      expect(u.searchParams.get('timeoutSeconds')).toBe('1');
      expect(u.searchParams.get('allowWatchBookmarks')).toBe('true');
    }
  });

  it('relists after a 410 and tells handlers what changed while it was cut off', async () => {
    const ns = `wc-expire-${transport}`;
    const filler = `wc-filler-${transport}`;
    await createNs(ns);
    await createNs(filler);
    await createCm(filler, 'filler');
    for (const name of ['keep', 'gone', 'changed']) await createCm(ns, name);
    const l = link();
    const { inf, mirror, calls, since, errors } = await start(ns, l);
    await expectInSync(inf, mirror, ns);

    l.s.down = true;
    await waitUntil(() => l.s.refused >= 1, 'the stream to end and the informer to fail to reconnect');
    const staleRv = inf.resourceVersion();
    const listsBefore = l.s.lists;
    since();
    await deleteCm(ns, 'gone');
    await updateCm(ns, 'changed');
    await createCm(ns, 'new');
    // Push the informer's resourceVersion out of the retained history (one store holds all configmaps).
    for (let i = 0; i <= RETENTION; i++) await updateCm(filler, 'filler');
    const probe = await http(r, 'GET', `${cms(ns)}?watch=true&resourceVersion=${staleRv}`);
    expect(probe.json, 'premise: the stale resourceVersion is expired').toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });

    l.s.down = false;
    await waitUntil(() => l.s.lists > listsBefore, 'a relist after the 410');
    await expectInSync(inf, mirror, ns);
    expect(calls).toEqual({ add: ['new'], update: ['changed'], delete: ['gone'] });
    expect(l.s.watches.some((u) => u.searchParams.get('resourceVersion') === staleRv)).toBe(true);

    // It watches again from the new list: later changes arrive without another list.
    const listsAfter = l.s.lists;
    await createCm(ns, 'later');
    await deleteCm(ns, 'keep');
    await expectInSync(inf, mirror, ns);
    expect(l.s.lists).toBe(listsAfter);
    expect(errors).toEqual([]);
  });

  it('with a label selector, drops objects that stop matching and adds those that start to', async () => {
    const ns = `wc-select-${transport}`;
    await createNs(ns);
    await createCm(ns, 'web-1', { app: 'web' });
    await createCm(ns, 'db-1', { app: 'db' });
    const l = link();
    const { inf, mirror, calls, since, errors } = await start(ns, l, { labelSelector: 'app=web' });
    await expectInSync(inf, mirror, ns, 'app=web');
    since();
    await patchCm(ns, 'web-1', { metadata: { labels: { app: 'db' } } });
    await patchCm(ns, 'db-1', { metadata: { labels: { app: 'web' } } });
    await createCm(ns, 'web-2', { app: 'web' });
    await expectInSync(inf, mirror, ns, 'app=web');
    expect(calls.delete).toEqual(['web-1']);
    expect(calls.add.sort()).toEqual(['db-1', 'web-2']);
    expect(l.s.watches.every((u) => u.searchParams.get('labelSelector') === 'app=web')).toBe(true);
    expect(errors).toEqual([]);
  });

  it('watch(): an expired resourceVersion calls onExpired; a bad token rejects with 401', async () => {
    const ns = `wc-raw-${transport}`;
    await createNs(ns);
    await createCm(ns, 'x');
    for (let i = 0; i <= RETENTION; i++) await updateCm(ns, 'x');
    const base = { server: r.gateway.url, path: cms(ns), transport, backoff: BACKOFF, WebSocket, onEvent: () => {} };
    let expired: unknown;
    const res = await watch({ ...base, token: TOKEN, resourceVersion: '1', onExpired: (s) => (expired = s) });
    expect(res).toEqual({ reason: 'expired', resourceVersion: '1' });
    expect(expired).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });

    const err = await watch({ ...base, token: 'wrong', resourceVersion: '1' }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe(401);
  });
});
