// Reference (runs in workerd): the runtime's own floors, beside which every edgeplane figure is read. A
// front-door Worker forwards to one of two Durable Objects, as edgeplane's front door forwards to its stores:
// - BroadcastHub accepts hibernatable WebSockets (ctx.acceptWebSocket) and on each POST sends the body,
//   framed once, to every socket: the least a Durable Object can do per delivery;
// - SqliteWriter inserts each POSTed body into a SQLite table and answers after the write (the output gate
//   holds the answer until the write is durable, as it does edgeplane's): the least a durable create costs.
// Bundled by bench/targets/minimal.ts with esbuild, as scripts/build.ts bundles the gateway.

import { DurableObject } from 'cloudflare:workers';

interface Env {
  HUB: DurableObjectNamespace;
  WRITER: DurableObjectNamespace;
}

export class BroadcastHub extends DurableObject<Env> {
  // Frames carry an increasing sequence number (the receivers check order); it starts from the clock, so an
  // object the runtime restarts goes on in order.
  private seq = Date.now() * 1000;

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') {
      const [client, server] = Object.values(new WebSocketPair());
      this.ctx.acceptWebSocket(server);
      return new Response(null, { status: 101, webSocket: client });
    }
    if (request.method !== 'POST') return new Response('not found', { status: 404 });
    const body = await request.text();
    this.seq++;
    // Serialized once; the same string goes to every socket (the bare ws server frames it the same way).
    const frame = `{"type":"ADDED","seq":${this.seq},"object":${body}}\n`;
    for (const ws of this.ctx.getWebSockets()) {
      try {
        ws.send(frame);
      } catch {
        // closing meanwhile
      }
    }
    return new Response(String(this.seq));
  }

  override webSocketMessage(): void {}

  override webSocketClose(ws: WebSocket, code: number, reason: string): void {
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, reason);
    } catch {
      // already closed (web_socket_auto_reply_to_close)
    }
  }

  override webSocketError(): void {}
}

export class SqliteWriter extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS objects (id INTEGER PRIMARY KEY, key TEXT NOT NULL, value TEXT NOT NULL)');
  }

  override async fetch(request: Request): Promise<Response> {
    const body = await request.text();
    const row = this.ctx.storage.sql.exec<{ id: number }>('INSERT INTO objects (key, value) VALUES (?, ?) RETURNING id', new URL(request.url).pathname, body).one();
    return new Response(JSON.stringify({ id: row.id }), { status: 201, headers: { 'content-type': 'application/json' } });
  }
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    const path = new URL(request.url).pathname;
    const ns = path.startsWith('/write') ? env.WRITER : path === '/watch' || path === '/publish' ? env.HUB : undefined;
    if (!ns) return Promise.resolve(new Response('not found', { status: 404 }));
    return ns.get(ns.idFromName(ns === env.HUB ? 'hub' : 'writer')).fetch(request);
  },
} satisfies ExportedHandler<Env>;
