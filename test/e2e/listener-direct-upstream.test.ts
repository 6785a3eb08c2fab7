// The `npm start` listener with listenerUpstream 'direct' (scripts/gateway.ts): clients reach the Worker through a
// socket past Miniflare's entry Worker. Plain HTTP, kubectl over TLS, HTTP and WebSocket watches, and a runtime
// restart all work through the same port; the listener's own limits still hold (a connection past maxConnections
// gets its 429 Status).
import { afterEach, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, TOKEN, type Running } from './fixtures';
import { httpWatch, wsWatch } from './watch-streams';

let r: Running | undefined;
afterEach(async () => {
  await stopTestGateway(r);
  r = undefined;
});

describe('listener upstream: direct', () => {
  it('serves requests, kubectl over TLS, HTTP and WebSocket watches, and again after a restart', async () => {
    r = await startTestGateway({ listenerUpstream: 'direct', vars: { REPLICA_LOCATIONS: '' } });
    const ns = '/api/v1/namespaces/default/configmaps';
    const http1 = await httpWatch(r, `${ns}?watch=true`);
    const ws1 = await wsWatch(r, `${ns}?watch=true`);
    expect((await http(r, 'POST', ns, { metadata: { name: 'a' } })).status).toBe(201);
    await http1.log.until((e) => e.some((x) => x.object?.metadata?.name === 'a'), 'the HTTP watcher sees a');
    await ws1.log.until((e) => e.some((x) => x.object?.metadata?.name === 'a'), 'the WebSocket watcher sees a');
    const got = await kubectl(r, ['get', 'configmap', 'a', '-n', 'default', '-o', 'jsonpath={.metadata.name}']);
    expect(got).toMatchObject({ code: 0, stdout: 'a' });
    http1.close();
    ws1.close();

    await r.gateway.restart();
    expect((await http(r, 'POST', ns, { metadata: { name: 'b' } })).status).toBe(201);
    expect((await kubectl(r, ['get', 'configmap', 'b', '-n', 'default', '-o', 'jsonpath={.metadata.name}'])).stdout).toBe('b');
  });

  it("keeps the listener's connection limit", async () => {
    r = await startTestGateway({ listenerUpstream: 'direct', listener: { maxConnections: 2 } });
    const held = [await httpWatch(r, '/api/v1/namespaces/default/pods?watch=true'), await httpWatch(r, '/api/v1/namespaces/default/pods?watch=true')];
    const extra = await fetch(`${r.gateway.url}/healthz`, { headers: { authorization: `Bearer ${TOKEN}`, connection: 'close' } });
    expect(extra.status).toBe(429);
    expect(held.every((w) => !w.log.ended && w.log.status === 200)).toBe(true);
    held.forEach((w) => w.close());
  });
});
