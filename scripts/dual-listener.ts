// Tooling: one local port that speaks both HTTP and HTTPS in front of Miniflare. kubectl (client-go)
// sends bearer tokens only over TLS, while curl, tests and browsers may use plain HTTP; the first byte
// of a connection tells them apart, and bytes are then piped unparsed.

import { createServer, connect, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
  close(): Promise<void>;
}

// What an over-limit connection gets instead of being dropped: kube-apiserver's 429 Status.
const TOO_MANY = JSON.stringify({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Too many requests, please try again later.',
  reason: 'TooManyRequests', details: { retryAfterSeconds: 1 }, code: 429,
});
const TOO_MANY_RESPONSE = `HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(TOO_MANY)}\r\n\r\n${TOO_MANY}`;

/**
 * `maxConnections` keeps the process well below its file-descriptor limit (each proxied connection
 * costs two here and one in workerd, and workerd aborts on EMFILE): past it, a clean 429.
 */
export function listenDual(port: number, upstreamPort: number, tls: TlsFiles, maxConnections: number): Promise<DualListener> {
  const open = new Set<Socket>();
  const serve = (client: Socket, full: boolean) => (full ? refuse(client) : pipeTo(client, upstreamPort));
  const tlsServer = createTlsServer({ cert: tls.cert, key: tls.key }, (secure) => serve(secure, open.size > maxConnections));
  tlsServer.on('tlsClientError', (_err, socket) => socket.destroy());
  const server = createServer({ noDelay: true }, (socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
    // Peek at the first byte without switching the socket to flowing mode, then hand it on untouched.
    socket.once('readable', () => {
      const first = socket.read(1) as Buffer | null;
      if (!first) return socket.destroy();
      socket.unshift(first);
      if (first[0] === TLS_HANDSHAKE) tlsServer.emit('connection', socket);
      else serve(socket, open.size > maxConnections);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : port,
        // Long-lived watch connections would keep close() waiting forever: end them.
        close: () => new Promise<void>((done) => {
          server.close(() => done());
          for (const s of open) s.destroy();
        }),
      });
    });
  });
}

function refuse(client: Socket): void {
  client.on('error', () => client.destroy());
  client.end(TOO_MANY_RESPONSE);
}

function pipeTo(client: Socket, upstreamPort: number): void {
  const upstream = connect({ host: '127.0.0.1', port: upstreamPort, noDelay: true });
  client.pipe(upstream);
  upstream.pipe(client);
  const closeBoth = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('close', closeBoth);
  upstream.on('close', closeBoth);
  upstream.on('error', closeBoth);
  client.on('error', closeBoth);
}
