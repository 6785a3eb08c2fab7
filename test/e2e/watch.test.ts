// Watch semantics through the real gateway, over both transports: initial state, exact resume,
// selector transitions, bookmarks, WatchList, timeouts and 410.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, type Running } from './fixtures';
import { httpWatch, wsWatch, type OpenWatch, type WatchEventMsg } from './watch-streams';

let r: Running;
beforeAll(async () => {
  r = await startTestGateway({ vars: { WATCH_BOOKMARK_INTERVAL_SECONDS: '1', EVENT_RETENTION_COUNT: '300' } });
});
afterAll(() => stopTestGateway(r));

const transports = [['http', httpWatch], ['websocket', wsWatch]] as const;
const pod = (name: string, labels: Record<string, string> = {}) =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });

async function createNamespace(name: string) {
  expect((await http(r, 'POST', '/api/v1/namespaces', { metadata: { name } })).status).toBe(201);
}

const names = (events: WatchEventMsg[]) => events.map((e) => `${e.type}:${e.object.metadata.name}`);

describe.each(transports)('watch over %s', (transport, open) => {
  const ns = `w-${transport}`;
  const base = `/api/v1/namespaces/${ns}/pods`;
  let watches: OpenWatch[] = [];
  beforeAll(() => createNamespace(ns));
  afterAll(() => watches.forEach((w) => w.close()));
  const watch = async (path: string) => {
    const w = await open(r, path);
    watches.push(w);
    return w;
  };

  it('starts with ADDED for the current state, then streams changes', async () => {
    await http(r, 'POST', base, pod('a'));
    const w = await watch(`${base}?watch=true`);
    await w.log.until((e) => e.length >= 1, 'initial ADDED');
    const created = await http(r, 'POST', base, pod('b'));
    await http(r, 'PATCH', `${base}/b`, { metadata: { labels: { x: 'y' } } }, { 'content-type': 'application/merge-patch+json' });
    const deleted = await http(r, 'DELETE', `${base}/a`);
    await w.log.until((e) => e.length >= 4, 'three changes');
    expect(names(w.log.events)).toEqual(['ADDED:a', 'ADDED:b', 'MODIFIED:b', 'DELETED:a']);
    expect(w.log.events[1].object.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
    expect(w.log.events[3].object.metadata.resourceVersion).toBe(deleted.json.metadata.resourceVersion);
  });

  it('resumes from a resourceVersion with exactly the events after it', async () => {
    const first = await http(r, 'POST', base, pod('r1'));
    const rv = first.json.metadata.resourceVersion;
    await http(r, 'POST', base, pod('r2'));
    await http(r, 'DELETE', `${base}/r1`);
    const w = await watch(`${base}?watch=true&resourceVersion=${rv}`);
    await w.log.until((e) => e.length >= 2, 'events after rv');
    expect(names(w.log.events)).toEqual(['ADDED:r2', 'DELETED:r1']);
  });

  it('turns selector transitions into ADDED and DELETED', async () => {
    const w = await watch(`${base}?watch=true&labelSelector=app%3Dsel&resourceVersion=${(await http(r, 'GET', base)).json.metadata.resourceVersion}`);
    await http(r, 'POST', base, pod('s', { app: 'other' }));
    const patch = (app: string) => http(r, 'PATCH', `${base}/s`, { metadata: { labels: { app } } }, { 'content-type': 'application/merge-patch+json' });
    await patch('sel');
    await http(r, 'PATCH', `${base}/s`, { metadata: { labels: { app: 'sel', more: '1' } } }, { 'content-type': 'application/merge-patch+json' });
    const out = await patch('gone');
    await http(r, 'DELETE', `${base}/s`);
    await w.log.until((e) => e.length >= 3, 'transitions');
    expect(names(w.log.events)).toEqual(['ADDED:s', 'MODIFIED:s', 'DELETED:s']);
    // A DELETED for "stopped matching" carries the previous state at the event's revision.
    expect(w.log.events[2].object.metadata.labels.app).toBe('sel');
    expect(w.log.events[2].object.metadata.resourceVersion).toBe(out.json.metadata.resourceVersion);
  });

  it('sends the WatchList initial-events-end bookmark after the initial state', async () => {
    await http(r, 'POST', base, pod('wl'));
    const w = await watch(`${base}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    await w.log.until((e) => e.some((x) => x.type === 'BOOKMARK' && x.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true'), 'initial-events-end bookmark');
    const end = w.log.events.findIndex((x) => x.type === 'BOOKMARK');
    const initial = w.log.events.slice(0, end);
    expect(initial.every((x) => x.type === 'ADDED')).toBe(true);
    expect(initial.map((x) => x.object.metadata.name)).toEqual((await http(r, 'GET', base)).json.items.map((i: any) => i.metadata.name));
    expect(w.log.events[end].object).toMatchObject({ kind: 'Pod', apiVersion: 'v1' });
  });

  it('sends periodic bookmarks that advance with the store, and ends at timeoutSeconds', async () => {
    const head = (await http(r, 'GET', base)).json.metadata.resourceVersion;
    const w = await watch(`${base}?watch=true&resourceVersion=${head}&allowWatchBookmarks=true&timeoutSeconds=4`);
    await w.log.until((e) => e.some((x) => x.type === 'BOOKMARK'), 'a bookmark');
    const write = await http(r, 'POST', base, pod('bm'));
    await w.log.until((e) => e.some((x) => x.type === 'BOOKMARK' && Number(x.object.metadata.resourceVersion) >= Number(write.json.metadata.resourceVersion)), 'a bookmark after the write');
    await w.log.untilEnded('the timeout to end the watch', 10_000);
    for (const b of w.log.events.filter((x) => x.type === 'BOOKMARK')) {
      expect(b.object).toEqual({ kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: b.object.metadata.resourceVersion } });
    }
  });

  it('answers a compacted resourceVersion with one ERROR 410 event and closes', async () => {
    const start = (await http(r, 'POST', base, pod('old'))).json.metadata.resourceVersion;
    for (let i = 0; i < 320; i++) {
      await http(r, 'PATCH', `${base}/old`, { metadata: { labels: { i: String(i) } } }, { 'content-type': 'application/merge-patch+json' });
    }
    const w = await watch(`${base}?watch=true&resourceVersion=${start}`);
    await w.log.untilEnded('the stream to close');
    expect(w.log.events).toHaveLength(1);
    expect(w.log.events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    expect(w.log.events[0].object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
  });
});

describe('watch request validation', () => {
  it('rejects resourceVersionMatch without sendInitialEvents with 422', async () => {
    const res = await http(r, 'GET', '/api/v1/namespaces/default/pods?watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=1');
    expect(res.status).toBe(422);
    expect(res.json.message).toContain('resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  });

  it('rejects a field selector naming another object on a named watch with 400', async () => {
    const res = await http(r, 'GET', '/api/v1/watch/namespaces/default/pods/a?fieldSelector=metadata.name%3Db');
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("fieldSelector metadata.name doesn't match requested name");
  });

  it('authenticates a browser WebSocket by its bearer subprotocol', async () => {
    const w = await wsWatch(r, '/api/v1/namespaces/default/configmaps?watch=true', { protocolAuth: true });
    await http(r, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'proto-auth' } });
    await w.log.until((e) => e.some((x) => x.object.metadata.name === 'proto-auth'), 'event over protocol-authenticated socket');
    w.close();
  });
});
