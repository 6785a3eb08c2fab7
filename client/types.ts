// Client: the shapes the watch client shares: Kubernetes objects and Status as they arrive on the wire,
// watch events, and the connection options every module takes (server, token, injected fetch/WebSocket).

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  [field: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** A metav1.Status, as sent in ERROR events and error responses. */
export interface Status {
  kind?: 'Status';
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: unknown;
  metadata?: { resourceVersion?: string };
}

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/** A delivered watch event. ERROR events never reach callers: they end the stream (see StreamEnd). */
export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: EventType;
  object: T;
}

export type Transport = 'http' | 'websocket';

/**
 * The subset of the WHATWG WebSocket the client uses, so browsers, Workers and Node's `ws` package all fit.
 * Handlers take `any` because each implementation has its own event classes, which would not be
 * assignable to one another; watch-stream reads only `data`, `code`, `reason` and `message` from them.
 */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  onopen: ((ev: any) => void) | null;
  onmessage: ((ev: any) => void) | null;
  onerror: ((ev: any) => void) | null;
  onclose: ((ev: any) => void) | null;
  close(code?: number, reason?: string): void;
  send?(data: string): void;
}

export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

export type FetchFn = (input: string, init?: RequestInit) => Promise<Response>;

/** What every request needs. `fetch` and `WebSocket` default to globalThis (Node 20 has no global WebSocket). */
export interface ConnectionOptions {
  server: string; // e.g. https://127.0.0.1:6443, optionally with a path prefix
  token?: string;
  fetch?: FetchFn;
  WebSocket?: WebSocketConstructor;
}

/** An API answer that was not a success: the HTTP code (or the ERROR event's code) and the Status if one came. */
export class ApiError extends Error {
  constructor(readonly code: number, readonly status?: Status) {
    super(status?.message ? `${code}: ${status.message}` : `HTTP ${code}`);
    this.name = 'ApiError';
  }
}

/** A Status body if `text` is one; anything else (HTML from a proxy, nothing) gives undefined. */
export function parseStatus(text: string): Status | undefined {
  try {
    const v = JSON.parse(text) as Status;
    return v && typeof v === 'object' && v.kind === 'Status' ? v : undefined;
  } catch {
    return undefined;
  }
}
