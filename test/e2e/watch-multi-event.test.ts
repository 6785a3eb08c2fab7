// Watch over WebSocket with several events per message (contract/headers.ts MULTI_EVENT_PROTOCOL), through the real
// gateway: a client that offers the protocol gets a burst (one deletecollection) in fewer messages, every event
// once and in order; a kube client beside it on the same collection keeps one event per message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, type Running } from './fixtures';
import { wsWatch } from './watch-streams';
import { MULTI_EVENT_PROTOCOL } from '../../contract/headers';
import { MULTI_EVENT_PROTOCOL as CLIENT_MULTI_EVENT_PROTOCOL, openWatchStream } from '../../client/watch-stream';
import WebSocket from 'ws';

let r: Running;
beforeAll(async () => {
  r = await startTestGateway();
});
afterAll(() => stopTestGateway(r));

const N = 12;
const names = (events: { type: string; object: any }[]) => events.map((e) => `${e.type}:${e.object.metadata.name}`);

describe('multi-event WebSocket messages', () => {
  it('client and server name the same protocol', () => {
    expect(CLIENT_MULTI_EVENT_PROTOCOL).toBe(MULTI_EVENT_PROTOCOL);
  });

  for (const location of ['store', 'replica']) {
    it(`sends a burst in fewer messages to a client that opted in, one per event to a kube client (${location})`, async () => {
      const ns = `multi-${location}`;
      expect((await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
      const base = `/api/v1/namespaces/${ns}/configmaps`;
      for (let i = 0; i < N; i++) expect((await http(r, 'POST', base, { metadata: { name: `c${i}`, labels: { burst: 'yes' } } })).status).toBe(201);
      const list = await http(r, 'GET', base);
      const rv = list.json.metadata.resourceVersion;
      // The admin may pick where it is served: the store itself, or a replica (worker/replicas.ts).
      const headers: Record<string, string> = ({ 'x-edgeplane-location': location === 'store' ? 'store' : 'enam' });
      const path = `${base}?watch=true&resourceVersion=${rv}`;
      const multi = await wsWatch(r, path, { headers, protocolAuth: true, protocols: [MULTI_EVENT_PROTOCOL, 'base64.binary.k8s.io'] });
      const kube = await wsWatch(r, path, { headers, protocolAuth: true });
      try {
        expect(multi.protocol()).toBe(MULTI_EVENT_PROTOCOL);
        expect(kube.protocol()).toBe('base64.binary.k8s.io');
        // One write that deletes N objects: N events published in one turn.
        expect((await http(r, 'DELETE', `${base}?labelSelector=burst%3Dyes`)).status).toBe(200);
        const expected = Array.from({ length: N }, (_, i) => `DELETED:c${i}`).sort();
        for (const w of [multi, kube]) await w.log.until((e) => e.length >= N, `${N} DELETED events`);
        expect(names(multi.log.events).sort()).toEqual(expected);
        expect(names(kube.log.events)).toEqual(names(multi.log.events)); // same events, same order
        const revisions = multi.log.events.map((e) => Number(e.object.metadata.resourceVersion));
        expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
        expect(kube.log.messages).toBe(N);
        expect(multi.log.messages).toBeLessThan(N);
        // Later single writes still arrive, one message each.
        expect((await http(r, 'POST', base, { metadata: { name: 'after' } })).status).toBe(201);
        for (const w of [multi, kube]) await w.log.until((e) => e.length === N + 1, 'the next ADDED');
        expect(multi.log.events[N].object.metadata.name).toBe('after');
      } finally {
        multi.close();
        kube.close();
      }
    });
  }

  it("edgeplane's client offers it and reads several events per message", async () => {
    const ns = 'multi-client';
    expect((await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    for (let i = 0; i < N; i++) expect((await http(r, 'POST', base, { metadata: { name: `c${i}` } })).status).toBe(201);
    const rv = (await http(r, 'GET', base)).json.metadata.resourceVersion;
    const abort = new AbortController();
    const stream = openWatchStream({ server: r.gateway.url, token: (await import('./fixtures')).TOKEN, path: base, transport: 'websocket', resourceVersion: rv, signal: abort.signal, WebSocket: WebSocket as never });
    const got: string[] = [];
    const reading = (async () => {
      for (;;) {
        const next = await stream.next();
        if (next.done) return;
        got.push(`${next.value.type}:${next.value.object.metadata?.name}`);
        if (got.length === N) return;
      }
    })();
    try {
      expect((await http(r, 'DELETE', base)).status).toBe(200);
      await reading;
      expect(got.sort()).toEqual(Array.from({ length: N }, (_, i) => `DELETED:c${i}`).sort());
    } finally {
      abort.abort();
      await stream.return({ kind: 'aborted' });
    }
  });
});
