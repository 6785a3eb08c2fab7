// Reference server (a child process): the `ws` package broadcasting one pre-serialized frame to every
// open socket per POST /publish, the transport's limit on this machine. Prints its port on stdout.

import { createServer } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

const sockets = new Set<WebSocket>();
let seq = 0;
const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    seq++;
    // Serialized once; the same bytes go to every socket.
    const frame = Buffer.concat([Buffer.from(`{"type":"ADDED","seq":${seq},"object":`), ...chunks, Buffer.from('}\n')]);
    for (const ws of sockets) ws.send(frame, { binary: false });
    res.writeHead(200, { 'content-type': 'text/plain' }).end(String(seq));
  });
});
server.on('upgrade', (req, socket, head) => {
  wss.handleUpgrade(req, socket, head, (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('error', () => sockets.delete(ws));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening ${(server.address() as { port: number }).port}`);
});
