// Load generator: a small keep-alive HTTP/1.1 client (node:http) for writes and lists, with the
// bearer token, one retry when a kept-alive socket turns out to be closed, and per-request timing.

import { request, Agent } from 'node:http';

export interface HttpReply {
  status: number;
  body: Buffer;
  ms: number;
  headers?: Record<string, string | string[] | undefined>;
}

export class HttpClient {
  readonly agent: Agent;

  constructor(readonly base: string, private readonly headers: Record<string, string> = {}, maxSockets = 64) {
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  send(method: string, path: string, body?: string | Buffer, extra: Record<string, string> = {}): Promise<HttpReply> {
    const t0 = performance.now();
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...this.headers, ...extra };
      if (body !== undefined) {
        headers['content-type'] ??= 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      const req = request(new URL(path, this.base), { method, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), ms: performance.now() - t0, headers: res.headers }));
        res.on('error', reject);
      });
      req.on('error', (e: NodeJS.ErrnoException) => {
        // A kept-alive connection the server closed while idle: the request never reached it.
        if (req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE')) this.send(method, path, body, extra).then(resolve, reject);
        else reject(new Error(`${e.message} (${req.reusedSocket ? 'kept-alive' : 'new'} connection)`, { cause: e }));
      });
      req.end(body);
    });
  }

  async json<T = any>(method: string, path: string, body?: unknown, okStatuses = [200, 201]): Promise<T> {
    const r = await this.send(method, path, body === undefined ? undefined : JSON.stringify(body));
    if (!okStatuses.includes(r.status)) throw new Error(`${method} ${path}: ${r.status} ${r.body.toString().slice(0, 300)}`);
    return JSON.parse(r.body.toString()) as T;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Runs `count` tasks with at most `concurrency` in flight; stops starting new ones after `maxMs`. */
export async function pool(count: number, concurrency: number, maxMs: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const end = performance.now() + maxMs;
  const worker = async () => {
    while (next < count && performance.now() < end) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return next;
}
