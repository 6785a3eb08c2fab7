// Tooling: one local port that speaks both HTTP and HTTPS in front of Miniflare. kubectl (client-go)
// sends bearer tokens only over TLS, while curl, tests and browsers may use plain HTTP; the first byte
// of a connection tells them apart. The listener then waits for the end of the first request's headers
// (a blank line) within a bounded time, and from there pipes bytes unparsed both ways.

import { createServer, connect, type Socket } from 'node:net';
import { createSecureContext, TLSSocket, type SecureContext } from 'node:tls';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';

export interface TlsFiles {
  cert: string; // PEM
  key: string; // PEM
}

const TLS_HANDSHAKE = 0x16;

/** A self-signed certificate for 127.0.0.1 and localhost, made once and kept beside the state. */
export function localCertificate(dir: string): TlsFiles {
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  if (!existsSync(certPath) || !existsSync(keyPath)) {
    mkdirSync(dir, { recursive: true });
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '3650',
      '-subj', '/CN=edgeplane-local', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-keyout', keyPath, '-out', certPath,
    ], { stdio: 'ignore' });
  }
  return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
}

export interface DualListener {
  port: number;
  /** Bytes this process holds for clients now (their write buffers): bounded however slow a client reads. */
  bufferedBytes(): number;
  /** Connections open and opening now, the cap on open ones, and how many requests got the cap's 429 so far. */
  stats(): { open: number; opening: number; maxConnections: number; refused: number };
  close(): Promise<void>;
}

/**
 * What protects this process's (and workerd's) file descriptors without letting one client lock the others
 * out. A connection is "opening" from accept until its first request's headers have arrived (TLS handshake
 * included), then "open" until it closes. Only open connections count against `maxConnections`: an opening
 * one costs a descriptor here and nothing upstream, has `headerTimeoutMs` to finish, and when
 * `maxOpening` of them (or `maxOpeningBytes` of their buffered headers) are waiting, the oldest is closed to
 * make room. A real client sends its headers within milliseconds of connecting, so a flood of idle or
 * trickling sockets only ever evicts itself.
 */
export interface ListenerLimits {
  maxConnections: number; // open connections (headers sent, piped to workerd) before a new request gets 429
  maxOpening: number; // connections still opening before the oldest of them is closed
  headerTimeoutMs: number; // accept to end of the first request's headers; past it the connection is closed
}

// kube-apiserver's ReadHeaderTimeout (staging/src/k8s.io/apiserver/pkg/server/secure_serving.go: 32 s, "just shy
// of requestTimeoutUpperBound"); Go's TLS handshake gets the same deadline (net/http tlsHandshakeTimeout).
export const DEFAULT_HEADER_TIMEOUT_MS = 32_000;
// workerd answers 431 to request headers of 128 KiB or more (measured), so more is never worth buffering here.
const MAX_HEADER_BYTES = 128 * 1024;
// All opening connections' buffered header bytes together: past this the oldest is closed, as past maxOpening.
const MAX_OPENING_BYTES = 32 * 1024 * 1024;
// Descriptors kept for everything else this process opens (Miniflare, esbuild, state files, the console's tools).
const RESERVED_DESCRIPTORS = 512;
// After a refusal (429, 431) is written, how long a client that never closes its side may keep the socket.
const REFUSAL_LINGER_MS = 2000;

/** The soft limit on open files (`ulimit -n`) this process and its workerd child run under. */
export function descriptorLimit(): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s+/)[3]);
    if (Number.isFinite(soft) && soft > 0) return soft;
  } catch {
    // not Linux: ask the shell, which inherits the same limit
  }
  try {
    const soft = Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim());
    if (Number.isFinite(soft) && soft > 0) return soft;
  } catch {
    // fall through
  }
  return 1024;
}

/**
 * Limits that fit `fdLimit`: an open connection costs two descriptors here (client and upstream) and one in
 * workerd, an opening one a single descriptor here; a tenth of what is usable goes to opening connections.
 * At the 20,000 of this machine: 8,770 open and 1,948 opening.
 */
export function defaultLimits(fdLimit = descriptorLimit()): ListenerLimits {
  const usable = Math.max(64, fdLimit - RESERVED_DESCRIPTORS);
  const maxOpening = Math.floor(usable / 10);
  return { maxConnections: Math.floor((usable - maxOpening) / 2), maxOpening, headerTimeoutMs: DEFAULT_HEADER_TIMEOUT_MS };
}

// What an over-limit request gets instead of being dropped: kube-apiserver's 429 Status.
const TOO_MANY = JSON.stringify({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Too many requests, please try again later.',
  reason: 'TooManyRequests', details: { retryAfterSeconds: 1 }, code: 429,
});
const TOO_MANY_RESPONSE = `HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(TOO_MANY)}\r\n\r\n${TOO_MANY}`;
// Go's net/http answer to headers past MaxHeaderBytes (server.go), which workerd gives too.
const HEADERS_TOO_LARGE_RESPONSE = '431 Request Header Fields Too Large';
const HEADERS_TOO_LARGE = `HTTP/1.1 ${HEADERS_TOO_LARGE_RESPONSE}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${HEADERS_TOO_LARGE_RESPONSE}`;

const LF = 0x0a;
const CR = 0x0d;

/**
 * Finds the blank line that ends a request's headers, across chunks: a line feed, an optional carriage
 * return, a line feed ("\r\n\r\n", or the bare "\n\n" Go's textproto accepts too). One pass over each byte.
 */
export class HeaderEnd {
  private state = 0; // 0: inside a line; 1: just after LF; 2: after LF CR

  /** The offset just past the blank line in `chunk`, or -1 if the headers go on. */
  scan(chunk: Uint8Array): number {
    let s = this.state;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (b === LF) {
        if (s !== 0) return i + 1;
        s = 1;
      } else {
        s = b === CR && s === 1 ? 2 : 0;
      }
    }
    this.state = s;
    return -1;
  }
}

/** One accepted connection: its TCP socket, and what it sent while opening. */
interface Connection {
  raw: Socket;
  chunks: Buffer[]; // bytes received while opening, replayed upstream
  bytes: number;
  timer?: NodeJS.Timeout;
  client?: Duplex; // once piped: the stream to the client (the TLS layer for HTTPS)
}

export function listenDual(port: number, upstreamPort: number, tls: TlsFiles, limits: ListenerLimits = defaultLimits()): Promise<DualListener> {
  const secureContext: SecureContext = createSecureContext({ cert: tls.cert, key: tls.key });
  const opening = new Set<Connection>(); // insertion order: the oldest first
  const open = new Set<Connection>();
  let openingBytes = 0;
  let refused = 0;

  const forget = (c: Connection) => {
    if (opening.delete(c)) openingBytes -= c.bytes;
    open.delete(c);
    clearTimeout(c.timer);
    c.chunks = [];
    c.bytes = 0;
  };
  // Over either bound, close the oldest opening connections until both hold again.
  const makeRoom = () => {
    for (const oldest of opening) {
      if (opening.size <= limits.maxOpening && openingBytes <= MAX_OPENING_BYTES) return;
      forget(oldest);
      oldest.raw.destroy();
    }
  };

  /** Reads `stream` until the first request's headers end, then hands the connection on. */
  const awaitHeaders = (c: Connection, stream: Duplex) => {
    const end = new HeaderEnd();
    const onData = (chunk: Buffer) => {
      if (!opening.has(c)) return;
      const at = end.scan(chunk);
      c.chunks.push(chunk);
      c.bytes += chunk.length;
      openingBytes += chunk.length;
      if (at < 0 && c.bytes >= MAX_HEADER_BYTES) {
        stream.off('data', onData);
        return refuse(c, stream, HEADERS_TOO_LARGE);
      }
      if (at < 0) return makeRoom();
      stream.off('data', onData);
      const chunks = c.chunks;
      forget(c);
      if (open.size >= limits.maxConnections) {
        refused++;
        return refuse(c, stream, TOO_MANY_RESPONSE);
      }
      open.add(c);
      c.client = stream;
      pipeTo(c, stream, chunks, upstreamPort);
    };
    stream.on('data', onData);
  };

  // Answers and closes; until the client has closed its side too, the socket stays evictable as an opening one.
  const refuse = (c: Connection, stream: Duplex, response: string) => {
    forget(c);
    opening.add(c);
    makeRoom();
    c.timer = setTimeout(() => c.raw.destroy(), REFUSAL_LINGER_MS);
    stream.end(response);
  };

  const server = createServer({ noDelay: true }, (raw) => {
    const c: Connection = { raw, chunks: [], bytes: 0 };
    opening.add(c);
    makeRoom();
    c.timer = setTimeout(() => raw.destroy(), limits.headerTimeoutMs);
    raw.on('close', () => forget(c));
    raw.on('error', () => raw.destroy());
    // Peek at the first byte without switching the socket to flowing mode, then hand it on untouched.
    raw.once('readable', () => {
      const first = raw.read(1) as Buffer | null;
      if (!first) return raw.destroy();
      raw.unshift(first);
      if (first[0] !== TLS_HANDSHAKE) return awaitHeaders(c, raw);
      // The TLS layer takes the unshifted byte too (it replays what the socket has buffered).
      const secure = new TLSSocket(raw, { isServer: true, secureContext });
      secure.on('error', () => raw.destroy());
      secure.on('close', () => {
        forget(c);
        raw.destroy();
      });
      awaitHeaders(c, secure);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : port,
        bufferedBytes: () => {
          let n = 0;
          for (const c of open) n += c.client?.writableLength ?? 0;
          return n;
        },
        stats: () => ({ open: open.size, opening: opening.size, maxConnections: limits.maxConnections, refused }),
        // Long-lived watch connections would keep close() waiting forever: end them.
        close: () => new Promise<void>((done) => {
          server.close(() => done());
          for (const c of [...opening, ...open]) c.raw.destroy();
        }),
      });
    });
  });
}

/**
 * From here the connection is a byte pipe. It costs this process ~17-21 µs of CPU per WebSocket message over plain
 * HTTP and ~26 µs over TLS, 55-60% (plain) of it in the kernel's loopback TCP read and write (bench/listener.ts);
 * no JavaScript variant measured moved it (reads into one shared buffer, copying or not: within ±5%; holding
 * reads for a window of 0-100 ms: no fewer reads at W = 1,000, where one socket's frames arrive 30-250 ms apart).
 * `pipe` keeps backpressure: a client that stops reading stops the reads from workerd.
 */
function pipeTo(c: Connection, client: Duplex, head: Buffer[], upstreamPort: number): void {
  const upstream = connect({ host: '127.0.0.1', port: upstreamPort, noDelay: true });
  for (const chunk of head) upstream.write(chunk);
  client.pipe(upstream);
  upstream.pipe(client);
  const closeBoth = () => {
    client.destroy();
    c.raw.destroy();
    upstream.destroy();
  };
  client.on('close', closeBoth);
  c.raw.on('close', closeBoth);
  upstream.on('close', closeBoth);
  upstream.on('error', closeBoth);
  client.on('error', closeBoth);
}
