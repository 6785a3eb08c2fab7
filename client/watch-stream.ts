// Client: one watch connection, over a chunked HTTP response or a WebSocket, as an async generator of
// events whose return value says how the stream ended. Resuming and retrying are the watcher's job.

import { LineSplitter } from './line-splitter';
import { parseStatus, type ConnectionOptions, type FetchFn, type Status, type Transport, type WatchEvent, type WebSocketConstructor } from './types';
import { apiUrl, bearerProtocol, socketUrl } from './url';

/** Why a stream ended. Only the caller's abort is final by itself; the watcher decides on the rest. */
export type StreamEnd =
  | { kind: 'closed' } // the server ended it cleanly (timeout, shutdown, a slow consumer cut off)
  | { kind: 'error-event'; status: Status } // an ERROR event, e.g. 410 Expired; the server closes after it
  | { kind: 'http-error'; code: number; status?: Status } // the watch request itself was refused
  | { kind: 'failed'; error: unknown } // network failure or an unreadable frame
  | { kind: 'aborted' }; // the caller's signal

export interface WatchStreamOptions extends ConnectionOptions {
  path: string; // collection path, e.g. /api/v1/namespaces/default/configmaps
  transport?: Transport;
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  signal?: AbortSignal;
  /** The server accepted the watch (HTTP 200 or the WebSocket opened): events may follow. */
  onOpen?(): void;
}

// edgeplane closes a WebSocket watcher that has been sent this much without a word from its client (a stalled
// reader must not grow server memory; workerd cannot see a socket's backlog). Any message counts (nothing is
// answered), so a reading client says `ping` well before. kube-apiserver ignores what a watch client sends, so
// this is harmless against it.
const PING_EVERY_BYTES = 4 * 1024 * 1024;

// Offered next to the token protocol: the server echoes one non-token protocol, and browsers fail a
// handshake whose answer names no protocol they offered.
const ECHO_PROTOCOL = 'base64.binary.k8s.io';
// Offered first: edgeplane then sends several events per message when they come together (a burst, a replay),
// which costs its runtime one message instead of one per event. kube-apiserver does not know it and echoes
// ECHO_PROTOCOL; either way each message holds whole newline-ended events. (contract/headers.ts MULTI_EVENT_PROTOCOL)
export const MULTI_EVENT_PROTOCOL = 'multi-event.watch.edgeplane.dev';

export function watchUrl(o: WatchStreamOptions): URL {
  return apiUrl(o.server, o.path, {
    watch: 'true',
    resourceVersion: o.resourceVersion,
    allowWatchBookmarks: o.allowWatchBookmarks ? 'true' : undefined,
    timeoutSeconds: o.timeoutSeconds,
    labelSelector: o.labelSelector,
    fieldSelector: o.fieldSelector,
  });
}

export function openWatchStream(o: WatchStreamOptions): AsyncGenerator<WatchEvent, StreamEnd, void> {
  return (o.transport ?? 'http') === 'websocket' ? socketStream(o) : httpStream(o);
}

type Parsed = { event: WatchEvent } | { end: StreamEnd };

/** One line or message: an event, or the end it implies (ERROR event, garbage). */
export function parseEventLine(line: string): Parsed {
  let v: { type?: unknown; object?: unknown };
  try {
    v = JSON.parse(line);
  } catch (error) {
    // A cut-off or corrupt frame: better to reconnect from the last good resourceVersion than skip an event.
    return { end: { kind: 'failed', error } };
  }
  if (!v || typeof v !== 'object' || typeof v.object !== 'object' || v.object === null) {
    return { end: { kind: 'failed', error: new Error(`not a watch event: ${line.slice(0, 200)}`) } };
  }
  if (v.type === 'ERROR') return { end: { kind: 'error-event', status: v.object as Status } };
  if (v.type === 'ADDED' || v.type === 'MODIFIED' || v.type === 'DELETED' || v.type === 'BOOKMARK') {
    return { event: v as WatchEvent };
  }
  return { end: { kind: 'failed', error: new Error(`unknown watch event type ${String(v.type)}`) } };
}

function failure(error: unknown, signal: AbortSignal | undefined): StreamEnd {
  return signal?.aborted ? { kind: 'aborted' } : { kind: 'failed', error };
}

async function* httpStream(o: WatchStreamOptions): AsyncGenerator<WatchEvent, StreamEnd, void> {
  const fetchFn: FetchFn = o.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const headers: Record<string, string> = { accept: 'application/json' };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  let res: Response;
  try {
    res = await fetchFn(watchUrl(o).toString(), { headers, signal: o.signal });
  } catch (e) {
    return failure(e, o.signal);
  }
  if (res.status !== 200) {
    const text = await res.text().catch(() => '');
    return { kind: 'http-error', code: res.status, status: parseStatus(text) };
  }
  if (!res.body) return { kind: 'failed', error: new Error('watch response has no body') };
  o.onOpen?.();
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const lines = new LineSplitter();
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        return failure(e, o.signal);
      }
      const batch = chunk.done
        ? [...lines.push(decoder.decode()), ...lines.end()]
        : lines.push(decoder.decode(chunk.value, { stream: true }));
      for (const line of batch) {
        const parsed = parseEventLine(line);
        if ('end' in parsed) return parsed.end;
        yield parsed.event;
      }
      if (chunk.done) return o.signal?.aborted ? { kind: 'aborted' } : { kind: 'closed' };
    }
  } finally {
    // Also runs when the consumer stops early: release the connection rather than leave it to the GC.
    reader.cancel().catch(() => {});
  }
}

/** What `ws` (Node) reports for a refused handshake; browsers hide the status, leaving a plain failure. */
function handshakeStatus(ev: unknown): number | undefined {
  const message = (ev as { message?: unknown; error?: { message?: unknown } })?.message
    ?? (ev as { error?: { message?: unknown } })?.error?.message;
  const m = typeof message === 'string' ? /Unexpected server response: (\d{3})/.exec(message) : null;
  return m ? Number(m[1]) : undefined;
}

function messageText(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return new TextDecoder().decode(data as ArrayBuffer);
  return String(data);
}

async function* socketStream(o: WatchStreamOptions): AsyncGenerator<WatchEvent, StreamEnd, void> {
  const Ctor: WebSocketConstructor | undefined = o.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!Ctor) return { kind: 'failed', error: new Error('no WebSocket implementation: pass options.WebSocket') };
  if (o.signal?.aborted) return { kind: 'aborted' };

  // Socket callbacks push; the generator pulls. The first end wins and everything after it is dropped.
  const queue: WatchEvent[] = [];
  let end: StreamEnd | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const finish = (e: StreamEnd) => {
    end ??= e;
    notify();
  };

  let ws: ReturnType<typeof construct>;
  function construct(C: WebSocketConstructor) {
    const protocols = o.token ? [bearerProtocol(o.token), MULTI_EVENT_PROTOCOL, ECHO_PROTOCOL] : [MULTI_EVENT_PROTOCOL, ECHO_PROTOCOL];
    return new C(socketUrl(watchUrl(o)), protocols);
  }
  try {
    ws = construct(Ctor);
  } catch (e) {
    return { kind: 'failed', error: e };
  }
  let opened = false;
  ws.binaryType = 'arraybuffer';
  ws.onopen = () => {
    opened = true;
    o.onOpen?.();
  };
  let sinceHeard = 0;
  ws.onmessage = (m: { data: unknown }) => {
    if (end) return;
    const text = messageText(m.data);
    sinceHeard += text.length;
    if (sinceHeard >= PING_EVERY_BYTES) {
      sinceHeard = 0;
      try {
        ws.send?.('ping');
      } catch {
        // closing: the close handler ends the stream
      }
    }
    // Each message holds whole events, one per line: one (kube-apiserver) or several (MULTI_EVENT_PROTOCOL).
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const parsed = parseEventLine(line);
      if ('end' in parsed) return finish(parsed.end);
      queue.push(parsed.event);
    }
    notify();
  };
  ws.onerror = (ev: unknown) => {
    const code = opened ? undefined : handshakeStatus(ev);
    finish(code !== undefined ? { kind: 'http-error', code } : failure(ev, o.signal));
  };
  ws.onclose = (ev: { code?: number; reason?: string }) => {
    const clean = ev.code === 1000 || ev.code === 1001 || ev.code === 1005;
    if (o.signal?.aborted) finish({ kind: 'aborted' });
    else if (opened && clean) finish({ kind: 'closed' });
    else finish({ kind: 'failed', error: new Error(`WebSocket closed (${ev.code ?? '?'} ${ev.reason ?? ''})${opened ? '' : ' before opening'}`) });
  };
  const onAbort = () => finish({ kind: 'aborted' });
  o.signal?.addEventListener('abort', onAbort);

  try {
    for (;;) {
      // Queued events go out before the end, so an event followed at once by a close is not lost.
      if (queue.length) {
        yield queue.shift()!;
        continue;
      }
      if (end) return end;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    ws.onmessage = null;
    if (ws.readyState <= 1) {
      try {
        ws.close(1000);
      } catch {
        // already closing
      }
    }
  }
}
