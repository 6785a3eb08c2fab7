// Test helpers: a scripted fetch and WebSocket, so the stream and watcher logic runs without a server.
import type { FetchFn, WebSocketLike } from '../../client/types';

/** A 200 whose body arrives in exactly these byte chunks, then ends (or errors, if `fail` is set). */
export function streamResponse(chunks: (string | Uint8Array)[], fail?: Error): Response {
  const enc = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < chunks.length) {
        const chunk = chunks[i++];
        c.enqueue(typeof chunk === 'string' ? enc.encode(chunk) : chunk);
      } else if (fail) c.error(fail);
      else c.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
}

export const line = (type: string, rv: string, name = 'a', extra: object = {}) =>
  `${JSON.stringify({ type, object: { kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: rv }, ...extra } })}\n`;

export const statusLine = (code: number, reason: string) =>
  `${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, code, message: reason } })}\n`;

/** fetch that answers each call with the next scripted response and records the URLs it was asked for. */
export function scriptedFetch(responses: ((init?: RequestInit) => Response | Promise<Response>)[]): FetchFn & { urls: URL[] } {
  const urls: URL[] = [];
  const f = (async (input: string, init?: RequestInit) => {
    urls.push(new URL(input));
    const next = responses.shift();
    if (!next) throw new Error(`unexpected request ${input}`);
    return next(init);
  }) as FetchFn & { urls: URL[] };
  f.urls = urls;
  return f;
}

/** A WebSocket that plays a script once "connected": messages, then a close (or an error). */
export function scriptedSocket(script: { messages: (string | ArrayBuffer)[]; close?: number; error?: string; beforeOpen?: boolean }[]) {
  const made: { url: string; protocols: string[]; closedByClient: boolean; sent: string[] }[] = [];
  class FakeSocket implements WebSocketLike {
    binaryType = 'blob';
    readyState = 0;
    onopen: ((ev: any) => void) | null = null;
    onmessage: ((ev: { data: unknown }) => void) | null = null;
    onerror: ((ev: any) => void) | null = null;
    onclose: ((ev: { code?: number; reason?: string }) => void) | null = null;
    private readonly record: (typeof made)[number];
    constructor(url: string, protocols?: string | string[]) {
      this.record = { url, protocols: [protocols ?? []].flat(), closedByClient: false, sent: [] };
      made.push(this.record);
      const s = script.shift();
      if (!s) throw new Error(`unexpected socket ${url}`);
      setTimeout(() => {
        if (s.beforeOpen) {
          this.readyState = 3;
          this.onerror?.({ message: s.error });
          this.onclose?.({ code: 1006 });
          return;
        }
        this.readyState = 1;
        this.onopen?.({});
        for (const m of s.messages) this.onmessage?.({ data: m });
        if (s.error) this.onerror?.({ message: s.error });
        this.readyState = 3;
        this.onclose?.({ code: s.close ?? 1000, reason: '' });
      }, 0);
    }
    send(data: string): void {
      this.record.sent.push(data);
    }
    close(): void {
      this.record.closedByClient = true;
      this.readyState = 3;
    }
  }
  return { WebSocket: FakeSocket, made };
}

/** A request that never answers until its signal aborts, like a watch on a quiet collection. */
export function hanging(init?: RequestInit): Promise<Response> {
  return new Promise((_resolve, reject) => {
    const signal = init?.signal;
    if (signal?.aborted) return reject(signal.reason);
    signal?.addEventListener('abort', () => reject(signal.reason));
  });
}
