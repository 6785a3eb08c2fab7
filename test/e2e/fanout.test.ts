// Fan-out: 1,000 WebSocket and 1,000 HTTP watchers on one resource type; every watcher receives every
// event exactly once, in order. Watchers of other namespaces and names receive none of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, type Running } from './fixtures';
import { httpWatch, wsWatch, type OpenWatch } from './watch-streams';

let r: Running;
beforeAll(async () => {
  r = await startTestGateway();
  await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: 'fan' } });
  await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: 'quiet' } });
});
afterAll(() => stopTestGateway(r));

const WATCHERS_PER_TRANSPORT = 1000;
const EVENTS = 30;

describe('fan-out', () => {
  it(`delivers every event once, in order, to ${WATCHERS_PER_TRANSPORT} watchers per transport`, async () => {
    const head = (await http(r, 'GET', '/api/v1/namespaces/fan/configmaps')).json.metadata.resourceVersion;
    const path = `/api/v1/namespaces/fan/configmaps?watch=true&resourceVersion=${head}`;
    const watchers: OpenWatch[] = [];
    const opening: Promise<OpenWatch>[] = [];
    for (let i = 0; i < WATCHERS_PER_TRANSPORT; i++) {
      opening.push(wsWatch(r, path), httpWatch(r, path));
      if (opening.length >= 200) watchers.push(...(await Promise.all(opening.splice(0))));
    }
    watchers.push(...(await Promise.all(opening)));
    // Watchers elsewhere must see nothing: another namespace, and one other name in this namespace.
    const bystanders = [
      await httpWatch(r, `/api/v1/namespaces/quiet/configmaps?watch=true&resourceVersion=${head}`),
      await wsWatch(r, `/api/v1/namespaces/fan/configmaps?watch=true&resourceVersion=${head}&fieldSelector=metadata.name%3Dnobody`),
    ];

    const rvs: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const res = i % 3 === 2
        ? await http(r, 'PATCH', `/api/v1/namespaces/fan/configmaps/cm-${i - 1}`, { data: { v: String(i) } }, { 'content-type': 'application/merge-patch+json' })
        : await http(r, 'POST', '/api/v1/namespaces/fan/configmaps', { metadata: { name: `cm-${i}` }, data: { v: String(i) } });
      rvs.push(res.json.metadata.resourceVersion);
    }
    for (const w of watchers) await w.log.until((e) => e.length >= EVENTS, 'all events', 60_000);
    // One more write anyone watching "fan" sees: nothing extra may arrive before it.
    const marker = await http(r, 'POST', '/api/v1/namespaces/fan/configmaps', { metadata: { name: 'marker' } });
    rvs.push(marker.json.metadata.resourceVersion);
    for (const w of watchers) {
      await w.log.until((e) => e.length >= EVENTS + 1, 'marker', 60_000);
      expect(w.log.events.map((e) => e.object.metadata.resourceVersion)).toEqual(rvs);
      w.close();
    }
    for (const b of bystanders) {
      expect(b.log.events).toEqual([]);
      b.close();
    }
  }, 180_000);
});
