// Exact resume, as a property: after random creates, updates and deletes across namespaces, a watch
// resumed from any revision receives exactly the log after it, in order, none twice, none missing,
// over both transports, whether the revision is still in the in-memory window or only in the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, type Running } from './fixtures';
import { httpWatch, wsWatch, type OpenWatch } from './watch-streams';

let r: Running;
// A tiny window forces most resumes through the SQLite log, in batches.
beforeAll(async () => {
  r = await startTestGateway({ vars: { WATCH_WINDOW_EVENTS: '40' } });
});
afterAll(() => stopTestGateway(r));

interface Written {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: string;
}

// A small deterministic generator, so a failure can be replayed.
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const NAMESPACES = ['p1', 'p2', 'p3'];
const key = (e: { object: any }) => `${e.object.metadata.namespace}/${e.object.metadata.name}`;

describe('exact resume from any revision', () => {
  it('delivers exactly the events after the revision, over HTTP and WebSocket', async () => {
    for (const ns of NAMESPACES) await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
    const random = rng(20261129);
    const live = new Set<string>();
    const written: Written[] = [];
    const podPath = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
    for (let i = 0; i < 400; i++) {
      const ns = NAMESPACES[Math.floor(random() * NAMESPACES.length)];
      const name = `pod-${Math.floor(random() * 12)}`;
      const k = `${ns}/${name}`;
      const choice = random();
      let res;
      let type: Written['type'];
      if (!live.has(k)) {
        res = await http(r, 'POST', podPath(ns), { metadata: { name, labels: { i: String(i) } }, spec: { containers: [{ name: 'c', image: 'x' }] } });
        type = 'ADDED';
        live.add(k);
      } else if (choice < 0.7) {
        res = await http(r, 'PATCH', `${podPath(ns)}/${name}`, { metadata: { labels: { i: String(i) } } }, { 'content-type': 'application/merge-patch+json' });
        type = 'MODIFIED';
      } else {
        res = await http(r, 'DELETE', `${podPath(ns)}/${name}`);
        type = 'DELETED';
        live.delete(k);
      }
      expect(res.status, JSON.stringify(res.json)).toBeLessThan(300);
      written.push({ rv: Number(res.json.metadata.resourceVersion), type, key: k });
    }
    for (let i = 1; i < written.length; i++) expect(written[i].rv).toBe(written[i - 1].rv + 1);

    // RV "0" means "current state, then changes", not a resume: start from the first write.
    const first = written[0].rv;
    const last = written.at(-1)!.rv;
    const starts = [first, last, ...Array.from({ length: 8 }, () => first + Math.floor(random() * (last - first)))];
    const watches: { from: number; w: OpenWatch }[] = [];
    for (const from of starts) {
      for (const open of [httpWatch, wsWatch]) {
        watches.push({ from, w: await open(r, `/api/v1/pods?watch=true&resourceVersion=${from}`) });
      }
    }
    for (const { from, w } of watches) {
      const expected = written.filter((e) => e.rv > from).length;
      await w.log.until((e) => e.length >= expected, `${expected} events after ${from}`);
    }
    // A sentinel after everything: anything delivered twice or out of order would show before it.
    const sentinel = await http(r, 'POST', podPath('p1'), { metadata: { name: 'sentinel' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    for (const { from, w } of watches) {
      await w.log.until((e) => e.some((x) => x.object.metadata.name === 'sentinel'), `sentinel after ${from}`);
      const expected = [...written.filter((e) => e.rv > from), { rv: Number(sentinel.json.metadata.resourceVersion), type: 'ADDED', key: 'p1/sentinel' }];
      expect(w.log.events.map((e) => ({ rv: Number(e.object.metadata.resourceVersion), type: e.type, key: key(e) }))).toEqual(expected);
      w.close();
    }
  });
});
