// Well before the process runs out of file descriptors, new connections get a clean 429 and open
// ones keep working; MAX_WATCHERS does the same per resource type inside the Worker.
import { afterEach, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, TOKEN, watcherCount, type Running } from './fixtures';
import { httpWatch, type OpenWatch } from './watch-streams';

let r: Running | undefined;
afterEach(async () => {
  await stopTestGateway(r);
  r = undefined;
});

describe('limits', () => {
  it('answers watchers beyond MAX_WATCHERS with 429, then admits again once one leaves', async () => {
    r = await startTestGateway({ vars: { MAX_WATCHERS: '3', REPLICA_LOCATIONS: '', WATCH_HEARTBEAT_SECONDS: '1' } });
    const watchers: OpenWatch[] = [];
    for (let i = 0; i < 3; i++) watchers.push(await httpWatch(r, '/api/v1/namespaces/default/configmaps?watch=true'));
    const refused = await http(r, 'GET', '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Too many requests, please try again later.',
      reason: 'TooManyRequests', details: { retryAfterSeconds: 1 }, code: 429,
    });
    watchers.pop()!.close();
    // The store notices the closed stream at its next heartbeat (1 s here): poll every 200 ms, 10 s at most.
    const deadline = Date.now() + 10_000;
    let open = await watcherCount(r, 'core/configmaps');
    while (open > 2) {
      if (Date.now() > deadline) throw new Error(`the closed watcher was never dropped: still ${open} watchers`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      open = await watcherCount(r, 'core/configmaps');
    }
    expect((await http(r, 'GET', '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1')).status).toBe(200);
    watchers.forEach((w) => w.close());
  });

  it('answers connections beyond the listener limit with 429 while open ones keep working', async () => {
    r = await startTestGateway({ maxConnections: 5 });
    const held: OpenWatch[] = [];
    for (let i = 0; i < 5; i++) held.push(await httpWatch(r, '/api/v1/namespaces/default/pods?watch=true'));
    const extra = await fetch(`${r.gateway.url}/healthz`, { headers: { authorization: `Bearer ${TOKEN}`, connection: 'close' } });
    expect(extra.status).toBe(429);
    expect(extra.headers.get('retry-after')).toBe('1');
    expect(held.every((w) => !w.log.ended && w.log.status === 200)).toBe(true);
    held.forEach((w) => w.close());
  });
});
