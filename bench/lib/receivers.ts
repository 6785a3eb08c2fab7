// Load generator: watch receivers. Each records, per event index, when the event arrived, and checks
// the stream: every event once (no duplicate, none missing) and in revision order. Frames are scanned
// as bytes for two markers (the index in the object's name, and its revision) without JSON parsing,
// so the client spends as little CPU as possible per delivery.

import { request } from 'node:http';
import WebSocket from 'ws';

export class Receiver {
  readonly arrivals: Float64Array;
  count = 0;
  duplicates = 0;
  outOfOrder = 0;
  errors = 0;
  private lastRevision = -1;
  close: () => void = () => undefined;

  constructor(capacity: number) {
    this.arrivals = new Float64Array(capacity).fill(NaN);
  }

  event(index: number, revision: number, now: number): void {
    if (index < 0 || index >= this.arrivals.length) return;
    if (Number.isNaN(this.arrivals[index])) this.arrivals[index] = now;
    else this.duplicates++;
    if (revision <= this.lastRevision) this.outOfOrder++;
    this.lastRevision = revision;
    this.count++;
  }
}

/** Where to find the index and the revision in a frame: `<indexMarker><digits>`, `<revisionMarker>["]<digits>`. */
export interface FrameMarkers {
  index: Buffer;
  revision: Buffer;
  error?: Buffer; // a frame holding this counts as an error
}

export const K8S_MARKERS: FrameMarkers = {
  index: Buffer.from('"name":"e-'),
  revision: Buffer.from('"resourceVersion":"'),
  error: Buffer.from('{"type":"ERROR"'),
};

function digitsAt(buf: Buffer, at: number, end: number): number {
  let i = at;
  if (buf[i] === 0x22) i++; // a quoted number
  let n = 0;
  let any = false;
  for (; i < end; i++) {
    const c = buf[i];
    if (c < 0x30 || c > 0x39) break;
    n = n * 10 + (c - 0x30);
    any = true;
  }
  return any ? n : -1;
}

/** Scans one frame (buf[start, end)) and records it on `r`. */
export function scanFrame(r: Receiver, m: FrameMarkers, buf: Buffer, start: number, end: number, now: number): void {
  const ii = buf.indexOf(m.index, start);
  if (ii < 0 || ii >= end) {
    if (m.error && buf.indexOf(m.error, start) === start) r.errors++;
    return; // a bookmark or another frame without an index
  }
  const ri = buf.indexOf(m.revision, start);
  const index = digitsAt(buf, ii + m.index.length, end);
  const revision = ri >= 0 && ri < end ? digitsAt(buf, ri + m.revision.length, end) : -1;
  r.event(index, revision, now);
}

/**
 * A WebSocket watcher: one frame per message, or with `protocols` naming edgeplane's multi-event protocol,
 * several newline-ended frames per message.
 */
export function openWsReceiver(url: string, headers: Record<string, string>, r: Receiver, m: FrameMarkers, protocols?: string[]): Promise<Receiver> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { headers, perMessageDeflate: false, skipUTF8Validation: true });
    r.close = () => ws.terminate();
    ws.on('message', (data: Buffer) => {
      const now = performance.now();
      let start = 0;
      for (let nl = data.indexOf(10, start); nl >= 0 && nl < data.length - 1; nl = data.indexOf(10, start)) {
        scanFrame(r, m, data, start, nl, now);
        start = nl + 1;
      }
      scanFrame(r, m, data, start, data.length, now);
    });
    ws.once('open', () => resolve(r));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`websocket upgrade answered ${res.statusCode}`)));
    ws.on('error', (e) => reject(e));
  });
}

/** An HTTP streaming watcher: chunked JSON, one frame per line. */
export function openHttpReceiver(url: string, headers: Record<string, string>, r: Receiver, m: FrameMarkers): Promise<Receiver> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`watch answered ${res.statusCode}`));
        res.resume();
        return;
      }
      let carry: Buffer | undefined;
      res.on('data', (chunk: Buffer) => {
        const now = performance.now();
        const buf = carry ? Buffer.concat([carry, chunk]) : chunk;
        carry = undefined;
        let start = 0;
        for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
          scanFrame(r, m, buf, start, nl, now);
          start = nl + 1;
        }
        if (start < buf.length) carry = buf.subarray(start);
      });
      res.on('error', () => undefined);
      resolve(r);
    });
    r.close = () => req.destroy();
    req.on('error', reject);
    req.end();
  });
}

/** Opens `count` watchers, `batch` at a time (a burst of thousands of connects would overflow backlogs). */
export async function openMany<T>(count: number, batch: number, open: (j: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += batch) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(batch, count - i) }, (_, k) => open(i + k)))));
  }
  return out;
}
