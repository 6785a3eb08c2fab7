// Robustness: recorded watches over both transports — chunked HTTP (node:http) and WebSocket (ws, optionally
// answering each event with "ping" as a client keeping under its send budget does) — each connection one recorded
// Session with every event and its
// arrival time; a ResumingWatcher that, like a reflector, resumes each broken session from the last revision it
// reached (event or bookmark) until told to stop; and an informer (list with pages, then watch from the list's
// revision, relist on 410) for the Kubernetes-shaped profile.

import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import type { Op, Session, WatchEvent } from '../check/history';
import { keyOf, objOf, send, type Recorder, type Target, type TypeSpec } from './recorder';
import type { Rng } from './rng';

export interface WatchSpec {
  type: TypeSpec;
  namespace: string;
  target: Target;
  transport: 'http' | 'ws';
  start: number | 'list';
  watcher: string;
  // WebSocket: answer each event with "ping" (the runtime's auto-response answers "pong"), as a client that wants to
  // stay under WATCH_SOCKET_BUDGET_BYTES does. Off by default for now: see robustness/README.md, finding 1.
  ping?: boolean;
}

const OPEN_TIMEOUT_MS = 15_000;

export class WatchConnection {
  readonly session: Session;
  readonly done: Promise<void>;
  private finish!: () => void;
  private closer: (graceful: boolean) => void = () => {};
  private pauser: (paused: boolean) => void = () => {};
  private listeners: ((e: WatchEvent) => void)[] = [];
  private closedByClient: Session['end'] | undefined;

  constructor(private readonly rec: Recorder, readonly spec: WatchSpec) {
    this.session = {
      id: rec.sessionId(), watcher: spec.watcher, transport: spec.transport, target: spec.target.name, type: spec.type.name,
      namespace: spec.namespace, start: spec.start, opened: rec.now(), closed: Infinity, end: 'open', events: [],
    };
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  /** The highest revision this session reached: its start, its last event or bookmark. */
  reached(): number | undefined {
    let r = typeof this.spec.start === 'number' ? this.spec.start : undefined;
    let initial = this.spec.start === 'list';
    for (const e of this.session.events) {
      if (initial) {
        if (e.type === 'BOOKMARK' && e.initialEnd) {
          initial = false;
          r = e.rv;
        }
        continue;
      }
      if (e.type !== 'ERROR') r = Math.max(r ?? 0, e.rv);
    }
    return r;
  }

  get ended(): boolean {
    return this.session.closed !== Infinity;
  }

  onEvent(f: (e: WatchEvent) => void): void {
    this.listeners.push(f);
  }

  /**
   * Closes from the client side, with a goodbye (a WebSocket close frame) or without (the TCP connection cut); `end`
   * is what the record says ('open': the run ended with it open).
   */
  close(end: 'client' | 'open' = 'client', graceful = false): void {
    if (this.ended) return;
    this.closedByClient = end;
    this.closer(graceful);
    this.ended0(end);
  }

  /** Stops reading (the socket fills, as a stalled client's does), or reads again. */
  pause(paused: boolean): void {
    this.pauser(paused);
  }

  url(): URL {
    const q = new URLSearchParams({ watch: 'true', allowWatchBookmarks: 'true' });
    if (this.spec.start === 'list') {
      q.set('sendInitialEvents', 'true');
      q.set('resourceVersionMatch', 'NotOlderThan');
    } else q.set('resourceVersion', String(this.spec.start));
    return new URL(`${this.spec.type.path(this.spec.namespace)}?${q}`, this.rec.url);
  }

  handle(text: string): void {
    if (!text.trim() || text === 'pong') return;
    let msg: { type: WatchEvent['type']; object: any };
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    const at = this.rec.now();
    const o = msg.object;
    let e: WatchEvent;
    if (msg.type === 'ERROR') e = { type: 'ERROR', rv: 0, at, code: o?.code };
    else if (msg.type === 'BOOKMARK') {
      e = { type: 'BOOKMARK', rv: Number(o?.metadata?.resourceVersion), at, ...(o?.metadata?.annotations?.['k8s.io/initial-events-end'] === 'true' ? { initialEnd: true } : {}) };
    } else e = { type: msg.type, rv: Number(o?.metadata?.resourceVersion), key: keyOf(o), obj: objOf(this.spec.type, o), at };
    this.session.events.push(e);
    for (const f of this.listeners) f(e);
  }

  ended0(end: Session['end']): void {
    if (this.ended) return;
    this.session.closed = this.rec.now();
    const expired = this.session.events.some((e) => e.type === 'ERROR' && e.code === 410);
    this.session.end = this.closedByClient ?? (expired ? 'expired' : end);
    this.finish();
  }

  /**
   * Opens the connection: resolves once the server accepted the watch (200 or the WebSocket upgrade); a server that
   * has not answered in OPEN_TIMEOUT_MS gets the connection cut and the open fails, so no client waits forever.
   */
  async open(): Promise<void> {
    this.rec.sessions.push(this.session);
    const headers = { authorization: `Bearer ${this.rec.token}`, ...this.spec.target.headers };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.closer(false);
        this.ended0('error');
        reject(new Error(`watch not answered in ${OPEN_TIMEOUT_MS} ms`));
      }, OPEN_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.spec.transport === 'http' ? this.openHttp(headers) : this.openWs(headers), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private openHttp(headers: Record<string, string>): Promise<void> {
    return new Promise((resolve, reject) => {
      let res: IncomingMessage | undefined;
      const req: ClientRequest = request(this.url(), { headers }, (r) => {
        res = r;
        if (r.statusCode !== 200) {
          r.resume();
          this.ended0('error');
          reject(new Error(`watch answered ${r.statusCode}`));
          return;
        }
        let buffer = '';
        r.setEncoding('utf8');
        r.on('data', (chunk: string) => {
          buffer += chunk;
          let nl: number;
          while ((nl = buffer.indexOf('\n')) >= 0) {
            this.handle(buffer.slice(0, nl));
            buffer = buffer.slice(nl + 1);
          }
        });
        r.on('end', () => this.ended0('server'));
        r.on('error', () => this.ended0('error'));
        r.on('close', () => this.ended0(r.complete ? 'server' : 'error'));
        resolve();
      });
      this.closer = () => req.destroy();
      this.pauser = (p) => (p ? res?.pause() : res?.resume());
      req.on('error', (e) => {
        this.ended0('error');
        reject(e);
      });
      req.end();
    });
  }

  private openWs(headers: Record<string, string>): Promise<void> {
    const url = this.url();
    url.protocol = 'ws:';
    const ws = new WebSocket(url, { headers });
    let paused = false;
    this.closer = (graceful) => (graceful ? ws.close() : ws.terminate());
    this.pauser = (p) => {
      paused = p;
      if (p) ws.pause();
      else {
        ws.resume();
        if (this.spec.ping && ws.readyState === WebSocket.OPEN) ws.send('ping');
      }
    };
    return new Promise((resolve, reject) => {
      ws.on('open', () => resolve());
      ws.on('message', (data) => {
        const text = data.toString();
        if (text === 'pong') return;
        this.handle(text);
        if (!paused && this.spec.ping && ws.readyState === WebSocket.OPEN) ws.send('ping');
      });
      ws.on('close', (code) => this.ended0(code === 1000 ? 'server' : 'error'));
      ws.on('unexpected-response', (_req, res) => {
        this.ended0('error');
        reject(new Error(`websocket upgrade answered ${res.statusCode}`));
        ws.terminate();
      });
      ws.on('error', (e) => {
        this.ended0('error');
        reject(e);
      });
    });
  }
}

export async function openWatch(rec: Recorder, spec: WatchSpec): Promise<WatchConnection> {
  const c = new WatchConnection(rec, spec);
  await c.open();
  return c;
}

/** When each watcher lost its session and when it had a new one open (for the "back within 10 s" rule). */
export interface Gap {
  watcher: string;
  lost: number;
  back?: number;
}

/**
 * A watch that never gives up: each broken session is resumed from the revision it reached, after a short jittered
 * pause (100 ms doubling to 1 s while opens fail); a 410 ends it (or `onExpired` decides, e.g. an informer relists).
 */
export class ResumingWatcher {
  current: WatchConnection | undefined;
  readonly gaps: Gap[] = [];
  private stopped = false;
  readonly running: Promise<void>;

  constructor(private readonly rec: Recorder, readonly spec: WatchSpec, private readonly rng: Rng,
    private readonly hooks: { onEvent?: (e: WatchEvent) => void; onExpired?: () => Promise<number | 'list' | undefined> } = {}) {
    this.running = this.run();
  }

  private async run(): Promise<void> {
    let start = this.spec.start;
    let failures = 0;
    let gap: Gap | undefined;
    while (!this.stopped) {
      const c = new WatchConnection(this.rec, { ...this.spec, start });
      if (this.hooks.onEvent) c.onEvent(this.hooks.onEvent);
      this.current = c;
      try {
        await c.open();
        failures = 0;
        if (gap) gap.back = this.rec.now();
        gap = undefined;
      } catch {
        failures++;
      }
      await c.done;
      if (this.stopped) break;
      if (!gap) this.gaps.push((gap = { watcher: this.spec.watcher, lost: this.rec.now() }));
      if (c.session.end === 'expired') {
        const next = await this.hooks.onExpired?.();
        if (next === undefined) break;
        start = next;
      } else start = c.reached() ?? start;
      await new Promise((r) => setTimeout(r, Math.min(1000, 100 * 2 ** Math.min(failures, 4)) * (0.5 + this.rng.next() / 2)));
    }
  }

  reached(): number | undefined {
    return this.current?.reached();
  }

  async stop(end: 'client' | 'open' = 'open'): Promise<void> {
    this.stopped = true;
    this.current?.close(end);
    await this.running;
  }
}

/**
 * A consistent list with pages, recorded as one read at the first page's revision (later pages are served at that
 * revision). A page that fails (410 for a compacted continue, a transport error) makes the whole read a failed one.
 */
export async function recordList(rec: Recorder, client: string, type: TypeSpec, target: Target, namespace: string,
  rv: Op['rv'], opts: { match?: 'Exact' | 'NotOlderThan'; limit?: number; timeoutMs?: number } = {}): Promise<Op> {
  const op: Op = {
    id: rec.opId(), client, type: type.name, call: rec.now(), ret: Infinity, op: 'list', namespace, rv, match: opts.match, target: target.name,
    outcome: 'failed', items: {}, note: opts.limit ? `limit=${opts.limit}` : undefined,
  };
  rec.ops.push(op);
  let cont = '';
  let pages = 0;
  try {
    do {
      const q = new URLSearchParams();
      if (cont) q.set('continue', cont);
      else {
        if (rv !== undefined && rv !== '') q.set('resourceVersion', String(rv));
        if (opts.match) q.set('resourceVersionMatch', opts.match);
      }
      if (opts.limit) q.set('limit', String(opts.limit));
      const r = await send(rec, 'GET', `${type.path(namespace)}${q.size ? `?${q}` : ''}`, undefined, target.headers, opts.timeoutMs ?? 10_000);
      if (pages === 0) op.ret = rec.now();
      if (r.status !== 200) {
        op.outcome = 'failed';
        op.note = `${op.note ?? ''} page ${pages + 1}: ${r.status} ${r.json?.reason ?? ''}`.trim();
        op.items = undefined;
        return op;
      }
      const revision = Number(r.json.metadata.resourceVersion);
      if (pages === 0) op.revision = revision;
      else if (revision !== op.revision) op.note = `${op.note ?? ''} page ${pages + 1} at revision ${revision}`.trim();
      for (const item of r.json.items ?? []) op.items![keyOf(item)] = objOf(type, item);
      cont = r.json.metadata.continue ?? '';
      pages++;
    } while (cont);
    op.outcome = 'ok';
    if (pages > 1) op.note = `${op.note ?? ''} ${pages} pages`.trim();
  } catch (e) {
    op.outcome = 'failed';
    op.items = undefined;
    if (!Number.isFinite(op.ret)) op.ret = rec.now();
    op.note = `${op.note ?? ''} transport: ${String((e as { cause?: unknown }).cause ?? e).slice(0, 100)}`.trim();
  }
  return op;
}

/** A recorded GET of one object. */
export async function recordGet(rec: Recorder, client: string, type: TypeSpec, target: Target, key: string, rv: '' | '0'): Promise<Op> {
  const [ns, name] = key.split('/');
  const op: Op = { id: rec.opId(), client, type: type.name, call: rec.now(), ret: Infinity, op: 'get', key, rv, target: target.name, outcome: 'failed' };
  rec.ops.push(op);
  try {
    const r = await send(rec, 'GET', `${type.path(ns)}/${name}${rv ? `?resourceVersion=${rv}` : ''}`, undefined, target.headers);
    op.ret = rec.now();
    if (r.status === 200) {
      op.outcome = 'ok';
      op.result = objOf(type, r.json);
    } else if (r.status === 404) op.outcome = 'notFound';
    else op.note = `${r.status}`;
  } catch {
    op.ret = rec.now();
  }
  return op;
}

/** An informer: list (pages), then a resuming watch from the list's revision; relists on 410. Keeps a cache. */
export class Informer {
  readonly cache = new Map<string, import('../check/history').Obj>();
  private watcher: ResumingWatcher | undefined;
  private stopped = false;
  private readonly handlers: ((key: string, e: WatchEvent) => void)[] = [];

  constructor(private readonly rec: Recorder, readonly name: string, readonly type: TypeSpec, readonly namespace: string,
    private readonly target: Target, private readonly transport: 'http' | 'ws', private readonly rng: Rng, private readonly ping = false) {}

  onChange(f: (key: string, e: WatchEvent) => void): void {
    this.handlers.push(f);
  }

  private async list(): Promise<number | undefined> {
    while (!this.stopped) {
      const op = await recordList(this.rec, this.name, this.type, this.target, this.namespace, '', { limit: this.rng.int(2, 6) });
      if (op.outcome === 'ok') {
        this.cache.clear();
        for (const [k, o] of Object.entries(op.items!)) this.cache.set(k, o);
        return op.revision!;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    return undefined;
  }

  async start(): Promise<void> {
    const rv = await this.list();
    if (rv === undefined) return;
    this.watcher = new ResumingWatcher(this.rec, { type: this.type, namespace: this.namespace, target: this.target, transport: this.transport, start: rv, watcher: this.name, ping: this.ping }, this.rng, {
      onEvent: (e) => {
        if (!e.key || !e.obj) return;
        if (e.type === 'DELETED') this.cache.delete(e.key);
        else this.cache.set(e.key, e.obj);
        for (const f of this.handlers) f(e.key, e);
      },
      onExpired: () => this.list(),
    });
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.watcher?.stop('open') ?? Promise.resolve();
  }

  reached(): number | undefined {
    return this.watcher?.reached();
  }

  get gaps(): Gap[] {
    return this.watcher?.gaps ?? [];
  }
}
