// Tests: the local listener's byte pipe (scripts/dual-listener.ts) in front of a plain TCP upstream, no Workers
// runtime: bytes arrive whole and in order over plain HTTP and TLS; each request of a keep-alive connection is
// answered; a client that stops reading stops the reads from upstream, so what this process holds for it stays
// bounded.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listenDual, localCertificate, type DualListener } from '../../scripts/dual-listener';

const REQUEST = 'GET /watch HTTP/1.1\r\nHost: x\r\n\r\n';
const tlsFiles = localCertificate(mkdtempSync(join(tmpdir(), 'listener-pipe-tls-')));

let upstream: Server | undefined;
let listener: DualListener | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  sockets.forEach((s) => s.destroy());
  sockets.length = 0;
  await listener?.close();
  await new Promise((done) => (upstream ? upstream.close(done) : done(undefined)));
  listener = upstream = undefined;
});

/** An upstream that hands each accepted connection (after the first request's bytes) to `onRequest`. */
async function start(onRequest: (s: Socket, first: string) => void): Promise<number> {
  upstream = createServer((s) => {
    sockets.push(s);
    s.once('data', (d) => onRequest(s, d.toString()));
    s.on('error', () => undefined);
  });
  await new Promise<void>((done) => upstream!.listen(0, '127.0.0.1', done));
  const port = (upstream.address() as { port: number }).port;
  listener = await listenDual(0, port, tlsFiles);
  return listener.port;
}

function client(port: number, tls: boolean): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = tls ? tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => resolve(s)) : connect(port, '127.0.0.1', () => resolve(s));
    sockets.push(s);
    s.once('error', reject);
  });
}

async function waitFor<T>(what: string, probe: () => T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the listener pipe', () => {
  for (const tls of [false, true]) {
    it(`carries every byte whole and in order (${tls ? 'TLS' : 'plain'})`, async () => {
      const frames = 2000;
      const port = await start((s) => {
        // Small frames in bursts, as a watch's events arrive.
        let i = 0;
        const burst = () => {
          for (let k = 0; k < 50 && i < frames; k++, i++) s.write(`frame ${i};`);
          if (i < frames) setTimeout(burst, 1);
        };
        burst();
      });
      const c = await client(port, tls);
      let got = '';
      c.on('data', (d) => (got += d));
      c.write(REQUEST);
      const expected = Array.from({ length: frames }, (_, i) => `frame ${i};`).join('');
      await waitFor('every frame', () => (got.length >= expected.length ? true : undefined));
      expect(got).toBe(expected);
    });
  }

  it('answers each request of a keep-alive connection', async () => {
    const port = await start((s, first) => {
      s.write(`answer to ${first.length}`);
      s.on('data', (d) => s.write(`answer to ${d.length}`));
    });
    const c = await client(port, false);
    let got = '';
    c.on('data', (d) => (got += d));
    c.write(REQUEST);
    await waitFor('the first answer', () => (got === `answer to ${REQUEST.length}` ? true : undefined));
    for (let i = 1; i <= 5; i++) {
      got = '';
      c.write('x'.repeat(i));
      await waitFor(`answer ${i}`, () => (got === `answer to ${i}` ? true : undefined));
    }
  });

  for (const tls of [false, true]) {
    it(`stops reading from upstream while a client does not read, holding a bounded amount (${tls ? 'TLS' : 'plain'})`, async () => {
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let up: Socket | undefined;
      const port = await start((s) => {
        up = s;
        // Write as fast as the connection takes it, forever.
        const pump = () => {
          while (s.write(chunk));
        };
        s.on('drain', pump);
        pump();
      });
      const c = await client(port, tls);
      c.pause(); // never reads
      c.write(REQUEST);
      // Upstream stalls: its writes stop completing once every buffer in between is full (no progress for 500 ms).
      let last = -1;
      let since = Date.now();
      await waitFor('upstream to stall', () => {
        const sent = up ? up.bytesWritten - up.writableLength : 0;
        if (sent !== last) {
          last = sent;
          since = Date.now();
        }
        return sent > 0 && Date.now() - since > 500 ? true : undefined;
      });
      // The kernel buffers what it can; this process holds no more than one read past the client's buffer.
      expect(listener!.bufferedBytes()).toBeLessThanOrEqual(16 * 1024 + 64 * 1024 + 64 * 1024);
      expect(up!.writableLength).toBeGreaterThan(0);
    });
  }
});
