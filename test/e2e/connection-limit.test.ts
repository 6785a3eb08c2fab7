// Well before the process runs out of file descriptors, new connections get a clean 429 and open
// ones keep working; MAX_WATCHERS does the same for tenants' watches per resource type inside the Worker
// (test/e2e/watch-quota.test.ts has the rest of the watch quota). Connections that send
// nothing, or trickle headers that never end (issue 18, class 4), are closed after the header timeout and never
// lock anyone out: only connections that have sent their request headers count against the limit.
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { http, startTestGateway, stopTestGateway, TOKEN, waitFor, type Running } from './fixtures';
import { httpWatch, type OpenWatch } from './watch-streams';
import { as, limitedTenant, Victim, type Tenant } from './hostile';

/** A raw connection to the gateway's port that records when the server closed it. */
interface RawSocket {
  socket: Socket;
  closed: boolean;
  received: string;
}

function rawSocket(r: Running, onConnect?: (s: Socket) => void): Promise<RawSocket> {
  const port = Number(new URL(r.gateway.url).port);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const raw: RawSocket = { socket, closed: false, received: '' };
    socket.on('data', (d) => (raw.received += d));
    socket.on('close', () => (raw.closed = true));
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      onConnect?.(socket);
      resolve(raw);
    });
    socket.once('error', reject);
  });
}

/** Slowloris: a request line, then one more header line every `everyMs`, never the blank line that ends them. */
function trickle(r: Running, everyMs = 200): Promise<RawSocket> {
  return rawSocket(r, (s) => {
    s.write('GET /api/v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const timer = setInterval(() => s.write('X-Slow: 1\r\n'), everyMs);
    s.on('close', () => clearInterval(timer));
  });
}

let r: Running | undefined;
afterEach(async () => {
  await stopTestGateway(r);
  r = undefined;
});

describe('limits', () => {
  it("answers tenants' watchers beyond MAX_WATCHERS with 429, spares the admin, and admits again once one leaves", async () => {
    r = await startTestGateway({ vars: { MAX_WATCHERS: '3', REPLICA_LOCATIONS: '' } });
    const [a, b, c] = [await limitedTenant(r, 'a'), await limitedTenant(r, 'b'), await limitedTenant(r, 'c')];
    const path = (t: Tenant) => `/api/v1/namespaces/${t.namespace}/configmaps?watch=true`;
    const watchers: OpenWatch[] = [];
    for (const t of [a, a, b]) watchers.push(await httpWatch(r, path(t), { authorization: `Bearer ${t.token}` }));
    expect(watchers.map((w) => w.log.status)).toEqual([200, 200, 200]);
    const refused = await as(r, c, 'GET', `${path(c)}&timeoutSeconds=1`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Too many requests, please try again later.',
      reason: 'TooManyRequests', details: { retryAfterSeconds: 1 }, code: 429,
    });
    // MAX_WATCHERS counts tenants: the cluster admin (system:masters) is neither refused nor counted.
    const admin = await httpWatch(r, '/api/v1/namespaces/default/configmaps?watch=true');
    expect(admin.log.status).toBe(200);
    admin.close();
    watchers.shift()!.close();
    // A refused watch asks the holders whether their clients are there, so the closed one frees its slot; poll.
    await waitFor('c admitted', async () => ((await as(r!, c, 'GET', `${path(c)}&timeoutSeconds=1`)).status === 200 ? true : undefined), 15_000, 200);
    watchers.forEach((w) => w.close());
  });

  it('answers connections beyond the listener limit with 429 while open ones keep working', async () => {
    r = await startTestGateway({ listener: { maxConnections: 5 } });
    const held: OpenWatch[] = [];
    for (let i = 0; i < 5; i++) held.push(await httpWatch(r, '/api/v1/namespaces/default/pods?watch=true'));
    const extra = await fetch(`${r.gateway.url}/healthz`, { headers: { authorization: `Bearer ${TOKEN}`, connection: 'close' } });
    expect(extra.status).toBe(429);
    expect(extra.headers.get('retry-after')).toBe('1');
    expect(held.every((w) => !w.log.ended && w.log.status === 200)).toBe(true);
    held.forEach((w) => w.close());
  });

  it('closes idle and trickling connections after the header timeout, and they never lock anyone out', async () => {
    // Scaled down: 20 open connections at most (the default follows ulimit -n: 8,770 here). Before the fix,
    // 21 idle sockets answered every later client 429 for as long as they stayed, which was forever.
    const limits = { maxConnections: 20, maxOpening: 30, headerTimeoutMs: 3000 };
    r = await startTestGateway({ listener: limits });
    const victim = await Victim.create(r);
    await victim.baseline();
    const attack: RawSocket[] = [];
    const { report } = await victim.during('200 idle + 20 trickling sockets', async () => {
      for (let i = 0; i < 200; i++) attack.push(await rawSocket(r!));
      for (let i = 0; i < 20; i++) attack.push(await trickle(r!));
      // The admin is served, a watch included, with every attacking socket opened.
      expect((await http(r!, 'GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
      const w = await httpWatch(r!, '/api/v1/namespaces/default/configmaps?watch=true');
      expect(w.log.status).toBe(200);
      w.close();
      // What was not evicted to make room goes at the header timeout: nothing stays (bounded wait, polled).
      await waitFor('every attacking socket closed', async () => (attack.every((s) => s.closed) ? true : undefined), 20_000);
    });
    expect(report.failures).toEqual([]);
    // None of them was answered: an idle or unfinished connection is closed silently, as Go's server does.
    expect(attack.filter((s) => s.received !== '').map((s) => s.received.slice(0, 40))).toEqual([]);
  });

  it('gives a connection the whole header timeout, over plain HTTP and TLS, then closes it', async () => {
    r = await startTestGateway({ listener: { headerTimeoutMs: 4000 } });
    const port = Number(new URL(r.gateway.url).port);
    const slow = await trickle(r, 300);
    const idle = await rawSocket(r);
    // A TLS client that finishes its handshake and then sends nothing.
    const secure = await new Promise<{ closed: boolean }>((resolve, reject) => {
      const state = { closed: false };
      const s = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => resolve(state));
      s.on('close', () => (state.closed = true));
      s.on('error', () => undefined);
      s.once('error', reject);
    });
    const started = Date.now();
    // Still open well inside the timeout: the limit is the deadline, not the pace of the bytes.
    await new Promise((res) => setTimeout(res, 1500));
    expect([slow.closed, idle.closed, secure.closed]).toEqual([false, false, false]);
    await waitFor('the three sockets closed', async () => (slow.closed && idle.closed && secure.closed ? true : undefined), 15_000);
    expect(Date.now() - started).toBeGreaterThan(2000);
    // A client that sends its headers in time is served, and its connection then carries on as long as it likes.
    const w = await httpWatch(r, '/api/v1/namespaces/default/configmaps?watch=true');
    await new Promise((res) => setTimeout(res, 4500));
    expect(w.log.ended).toBe(false);
    w.close();
  });

  it('answers request headers of 128 KiB or more with 431, as workerd and Go do', async () => {
    r = await startTestGateway();
    const s = await rawSocket(r, (sock) => sock.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(130 * 1024)}`));
    await waitFor('the 431 answer', async () => (s.closed ? true : undefined), 10_000);
    expect(s.received.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
  });
});
