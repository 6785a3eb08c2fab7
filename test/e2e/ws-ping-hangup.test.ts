// E2E (robustness finding 1, hostile input): WebSocket watchers that answer every event with "ping" and cut their TCP
// connection (no close frame) while writers run, at the store and at a replica. With the runtime's WebSocket
// auto-response answering "pong", its send raced the object's own sends on the dying socket and workerd aborted
// (`expected !currentlySending`, then `KJ async object being destroyed`) within ~20 s, taking every object and
// connection with it. Now pings reach the object (webSocketMessage) and are not answered: the runtime stays up,
// every write succeeds, and a pinging client only ever receives watch events.
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { workerdPids } from '../../robustness/run/failpoints';
import { http, startTestGateway, stopTestGateway, TOKEN } from './fixtures';

const PATH = '/api/v1/namespaces/default/configmaps';

describe('WebSocket watchers that ping and hang up', () => {
  it('never crash the runtime, and are never answered with anything but events', async () => {
    const r = await startTestGateway({ vars: { REPLICA_LOCATIONS: 'enam' } });
    try {
      const pids = workerdPids();
      let writing = true;
      let written = 0;
      const failedWrites: string[] = [];
      const writers = Array.from({ length: 4 }, async (_, j) => {
        for (let i = 0; writing; i++) {
          const res = await http(r, 'POST', PATH, { metadata: { name: `w${j}-${i}` }, data: { x: 'y'.repeat(200) } }).catch((e) => ({ status: 0, text: String(e) }));
          if (res.status !== 201) failedWrites.push(`${res.status} ${res.text.slice(0, 200)}`);
          if (failedWrites.length) return;
          written++;
        }
      });
      const notEvents: string[] = [];
      let events = 0;
      const churners = Array.from({ length: 3 }, async (_, j) => {
        for (let i = 0; i < 60 && !failedWrites.length; i++) {
          const url = new URL(`${PATH}?watch=true&resourceVersion=${Math.max(1, written - 30)}`, r.gateway.url.replace('http://', 'ws://'));
          const ws = new WebSocket(url, { headers: { authorization: `Bearer ${TOKEN}`, 'x-edgeplane-location': j ? 'enam' : 'store' } });
          ws.on('message', (data) => {
            const text = data.toString();
            try {
              if (typeof JSON.parse(text).type !== 'string') notEvents.push(text.slice(0, 100));
              events++;
            } catch {
              notEvents.push(text.slice(0, 100));
            }
            if (ws.readyState === WebSocket.OPEN) ws.send('ping');
          });
          ws.on('error', () => {}); // a dead runtime shows up in the writers and the health check below
          await new Promise<void>((res) => {
            ws.once('open', () => res());
            ws.once('close', () => res());
          });
          await new Promise((res) => setTimeout(res, 100 + ((i * 37) % 400))); // held 0.1–0.5 s while events flow
          ws.terminate(); // the TCP connection cut, no close frame
        }
      });
      await Promise.all(churners);
      writing = false;
      await Promise.all(writers);
      expect(failedWrites).toEqual([]);
      expect(written).toBeGreaterThan(100);
      expect(events).toBeGreaterThan(100);
      expect(notEvents).toEqual([]);
      expect((await http(r, 'GET', '/healthz')).status).toBe(200);
      expect(workerdPids()).toEqual(pids); // the same runtime process, never restarted
    } finally {
      await stopTestGateway(r);
    }
  }, 120_000);
});
