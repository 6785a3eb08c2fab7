// Benchmark: write-to-delivery latency and deliveries per second for W watchers of one resource type,
// through the local gateway (Miniflare, as `npm start` runs it). Also checks completeness: every
// watcher must receive every event once, in order.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, Agent } from 'node:http';
import WebSocket from 'ws';
import { startGateway, type Gateway } from '../scripts/gateway';

export interface FanoutOptions {
  watchers: number;
  transport: 'websocket' | 'http';
  events: number;
  ratePerSecond: number; // 0: as fast as possible (one write in flight at a time)
  direct?: boolean; // connect to workerd's port rather than the dual HTTP/HTTPS listener
}

export interface FanoutResult extends FanoutOptions {
  deliveries: number;
  deliveriesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  complete: boolean;
}

const TOKEN = 'bench-token';
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function post(url: string, path: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(new URL(path, url), {
      method: 'POST', agent,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      // A kept-alive connection the server closed while idle: the request never reached it, retry once.
      if (req.reusedSocket && e.code === 'ECONNRESET') post(url, path, body).then(resolve, reject);
      else reject(e);
    });
    req.end(data);
  });
}

function listRevision(url: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { agent, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(JSON.parse(body).metadata.resourceVersion));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A watcher that records, per event index, when it arrived; events carry their index in the name. */
interface Receiver {
  arrivals: number[];
  revisions: number[];
  close(): void;
}

const INDEX = /"name":"e-(\d+)"/;
const REVISION = /"resourceVersion":"(\d+)"/;

function record(r: Receiver, text: string): void {
  const m = INDEX.exec(text);
  if (!m) return;
  r.arrivals[Number(m[1])] = performance.now();
  r.revisions.push(Number(REVISION.exec(text)![1]));
}

function openWs(url: string, path: string): Promise<Receiver> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(new URL(path, url.replace('http', 'ws')), { headers: { authorization: `Bearer ${TOKEN}` }, perMessageDeflate: false });
    const r: Receiver = { arrivals: [], revisions: [], close: () => ws.terminate() };
    ws.on('message', (data) => record(r, data.toString()));
    ws.on('open', () => resolve(r));
    ws.on('error', reject);
  });
}

function openHttp(url: string, path: string): Promise<Receiver> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      const r: Receiver = { arrivals: [], revisions: [], close: () => req.destroy() };
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          record(r, buffer.slice(0, nl));
          buffer = buffer.slice(nl + 1);
        }
      });
      resolve(r);
    });
    req.on('error', reject);
    req.end();
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : NaN;
}

export async function runFanout(gateway: Gateway, opts: FanoutOptions, namespace: string): Promise<FanoutResult> {
  const url = opts.direct ? gateway.directUrl : gateway.url;
  await post(url, '/api/v1/namespaces', { metadata: { name: namespace } });
  const head = await listRevision(url, `/api/v1/namespaces/${namespace}/configmaps`);
  const path = `/api/v1/namespaces/${namespace}/configmaps?watch=true&resourceVersion=${head}`;
  const receivers: Receiver[] = [];
  for (let i = 0; i < opts.watchers; i += 100) {
    const batch = Array.from({ length: Math.min(100, opts.watchers - i) }, () =>
      opts.transport === 'websocket' ? openWs(url, path) : openHttp(url, path));
    receivers.push(...(await Promise.all(batch)));
  }
  const sentAt: number[] = [];
  const start = performance.now();
  const interval = opts.ratePerSecond > 0 ? 1000 / opts.ratePerSecond : 0;
  const inflight: Promise<number>[] = [];
  for (let i = 0; i < opts.events; i++) {
    if (interval) {
      const due = start + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    sentAt[i] = performance.now();
    const p = post(url, `/api/v1/namespaces/${namespace}/configmaps`, { metadata: { name: `e-${i}` }, data: { payload: 'x'.repeat(512) } });
    if (interval) inflight.push(p);
    else await p;
  }
  await Promise.all(inflight);
  const deadline = performance.now() + 60_000;
  while (receivers.some((r) => r.revisions.length < opts.events) && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  let end = start;
  for (const r of receivers) for (const t of r.arrivals) if (t !== undefined && t > end) end = t;
  const latencies: number[] = [];
  let complete = true;
  for (const r of receivers) {
    // Complete: every event once (all indices arrived, no extra), in revision order.
    const arrived = r.arrivals.filter((t) => t !== undefined).length;
    if (arrived !== opts.events || r.revisions.length !== opts.events || r.revisions.some((v, i) => i > 0 && v <= r.revisions[i - 1])) complete = false;
    r.arrivals.forEach((t, i) => t !== undefined && latencies.push(t - sentAt[i]));
    r.close();
  }
  latencies.sort((a, b) => a - b);
  const deliveries = latencies.length;
  return {
    ...opts,
    deliveries,
    deliveriesPerSecond: Math.round(deliveries / ((end - start) / 1000)),
    p50Ms: round(percentile(latencies, 0.5)),
    p99Ms: round(percentile(latencies, 0.99)),
    maxMs: round(latencies.at(-1) ?? NaN),
    complete,
  };
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export async function withGateway<T>(vars: Record<string, string>, fn: (g: Gateway) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-bench-'));
  const gateway = await startGateway({ port: 0, persistDir: dir, adminToken: TOKEN, vars });
  try {
    return await fn(gateway);
  } finally {
    await gateway.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
