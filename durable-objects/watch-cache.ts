// Caching and broadcast layers inside a Durable Object: current state, the event window and the
// watcher hub, plus the watch transports and their timers. The canonical store and each watch-cache
// replica own one; they differ only in where events come from (their own writes, or a subscription).

import { apiVersionOf, type ResourceType } from '../core/registry';
import { StatusError, statusResponse, tooLargeResourceVersion, tooManyRequests, internalError } from '../core/status';
import type { KubeObject } from '../core/object-meta';
import { namespacePrefix } from '../core/object-key';
import { ObjectState, type StateEntry } from '../core/object-state';
import { objectFields } from '../core/selectors/object-fields';
import { RevisionWaiters } from '../core/revision-waiters';
import { toTable } from '../core/table';
import { WatchWindow, DEFAULT_WINDOW } from '../core/watch-window';
import { WatchHub, type HubStats, type Sink, type Watcher, type WatchRequest } from '../core/watch-hub';
import { parseWatchRequest, type WatchTarget } from '../core/watch-request';
import type { EventType, WatchEvent } from '../core/watch-event';
import { socketSink, streamSink, StreamFlusher } from './watch-sinks';
import { WATCH_HEADERS } from './watch-headers';
import { API_VERSION_HEADER, convertingSink } from './version-sink';

/** Tunables from wrangler.toml [vars], shared by the store and its replicas. */
export interface WatchSettings {
  WATCH_WINDOW_EVENTS?: string;
  WATCH_BOOKMARK_INTERVAL_SECONDS?: string;
  WATCH_MIN_TIMEOUT_SECONDS?: string;
  WATCH_BUFFER_BYTES?: string;
  WATCH_HEARTBEAT_SECONDS?: string;
  MAX_WATCHERS?: string;
}

/** One change as stored in the log and pushed to replicas: the stored JSON, before and after. */
export type ChangeRow = {
  revision: number;
  type: EventType;
  key: string;
  value: string;
  prev_value: string | null;
};

export interface WatchCacheOptions {
  ctx: DurableObjectState;
  type: ResourceType;
  env: WatchSettings;
  revision: number; // the revision the initial state reflects
  compacted: () => number; // below this, resuming answers 410
  readLog: (after: number, limit: number) => Promise<ChangeRow[]>; // the canonical log
}

export interface CacheStats extends HubStats {
  revision: number;
  objects: number;
  windowEvents: number;
}

// apiserver watch_cache.go blockTimeout: how long a read waits for a revision not reached yet.
export const FRESHNESS_WAIT_MS = 3000;
const REPLAY_BATCH = 500;
// A catching-up client that takes nothing from its full buffer for this long is closed; it may resume.
const DRAIN_WAIT_MS = 30_000;

/** A watcher's identity kept on its hibernatable socket, so it can be rebuilt after eviction. */
interface SocketAttachment {
  target: WatchTarget;
  deadline: number;
  apiVersion?: string; // a CRD version other than the storage one (version-sink.ts)
}

export class WatchCache {
  readonly state = new ObjectState();
  readonly window: WatchWindow;
  readonly hub: WatchHub;
  revision: number;
  private readonly waiters = new RevisionWaiters();
  private readonly sockets = new Map<WebSocket, Watcher>();
  private readonly flusher = new StreamFlusher();
  private alarmAt: number | undefined;

  constructor(private readonly o: WatchCacheOptions) {
    this.revision = o.revision;
    const { type } = o;
    this.window = new WatchWindow({ ...DEFAULT_WINDOW, maxEvents: this.setting('WATCH_WINDOW_EVENTS', DEFAULT_WINDOW.maxEvents) }, o.revision);
    this.hub = new WatchHub({
      kind: type.kind,
      apiVersion: apiVersionOf(type),
      revision: () => this.revision,
      compacted: o.compacted,
      window: this.window,
      entries: (namespace) => this.state.range(namespacePrefix(namespace)),
      readLog: async (after, limit) => (await o.readLog(after, limit)).map((row) => this.event(row, 0)),
      waitFor: (revision, ms) => this.waiters.wait(revision, ms),
      table: (json, headers) => JSON.stringify(toTable(this.o.type, [JSON.parse(json)], { now: Date.now(), noHeaders: !headers })),
      triggerOf: type.watchIndexField ? (fields) => fields[type.watchIndexField!] : undefined,
      yieldTurn: () => new Promise((resolve) => setTimeout(resolve, 0)),
    }, {
      bookmarkIntervalMs: this.setting('WATCH_BOOKMARK_INTERVAL_SECONDS', 60) * 1000,
      heartbeatIntervalMs: this.setting('WATCH_HEARTBEAT_SECONDS', 30) * 1000,
      replayBatch: REPLAY_BATCH,
      freshnessWaitMs: FRESHNESS_WAIT_MS,
      drainWaitMs: DRAIN_WAIT_MS,
    });
  }

  /** A custom type's new definition (its CRD changed): columns and selectable fields from now on. */
  retype(type: ResourceType): void {
    this.o.type = type;
  }

  entry(key: string, revision: number, json: string, parsed?: KubeObject): StateEntry {
    const obj = parsed ?? (JSON.parse(json) as KubeObject);
    return { key, revision, json, labels: obj.metadata.labels ?? {}, fields: objectFields(this.o.type, obj) };
  }

  /** A logged change as a watch event; `prev` comes from the row, so selector transitions work anywhere. */
  event(row: ChangeRow, at: number, parsed?: KubeObject, prev?: StateEntry): WatchEvent {
    const obj = parsed ?? (JSON.parse(row.value) as KubeObject);
    return {
      revision: row.revision, type: row.type, key: row.key, at,
      namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '',
      object: this.entry(row.key, row.revision, row.value, obj),
      prev: prev ?? (row.prev_value === null ? undefined : this.entry(row.key, 0, row.prev_value)),
    };
  }

  /** Applies the next change: state, window, live watchers, waiting reads, in that order. */
  apply(ev: WatchEvent): void {
    if (ev.type === 'DELETED') this.state.delete(ev.key);
    else this.state.set(ev.object);
    this.revision = ev.revision;
    this.window.append(ev, ev.at || Date.now());
    this.hub.publish(ev);
    ev.frames = undefined;
    this.waiters.advance(this.revision);
  }

  /** Waits (bounded) until this cache has reached `revision`, else 504 Too large resource version. */
  async waitFor(revision: number): Promise<void> {
    if (!(await this.reached(revision))) throw new StatusError(tooLargeResourceVersion(revision, this.revision, 1));
  }

  /** True once this cache has reached `revision`, false if it has not within the freshness wait. */
  async reached(revision: number): Promise<boolean> {
    return revision <= this.revision || this.waiters.wait(revision, FRESHNESS_WAIT_MS);
  }

  /** A watch arriving as a fetch: chunked HTTP, or a WebSocket upgrade accepted here (hibernatable). */
  watch(request: Request): Response {
    const h = request.headers;
    try {
      const target: WatchTarget = {
        namespace: h.get(WATCH_HEADERS.namespace) ?? '',
        name: h.get(WATCH_HEADERS.name) ?? '',
        query: new URL(request.url).search,
        table: h.get(WATCH_HEADERS.table) === '1',
      };
      const now = Date.now();
      const req = parseWatchRequest(this.o.type, target, {
        now, minTimeoutSeconds: this.setting('WATCH_MIN_TIMEOUT_SECONDS', 1800), random: Math.random,
      });
      if (this.hub.size >= this.setting('MAX_WATCHERS', 6000)) {
        throw new StatusError(tooManyRequests('Too many requests, please try again later.', 1));
      }
      const apiVersion = h.get(API_VERSION_HEADER) ?? undefined;
      if (h.get('upgrade')?.toLowerCase() === 'websocket') return this.acceptSocket(target, req, now, h.get(WATCH_HEADERS.protocol), apiVersion);
      let watcher: Watcher | undefined;
      const { sink: stream, body } = streamSink(this.setting('WATCH_BUFFER_BYTES', 1024 * 1024), () => watcher && this.hub.close(watcher), this.flusher);
      const sink = this.inVersion(stream, apiVersion);
      this.hub.start(req, sink, now).then((w) => {
        watcher = w;
        this.wakeAt(w.nextDue());
      }, (e) => console.error('watch failed', e));
      return new Response(body, {
        headers: {
          'content-type': 'application/json',
          // Local dev gzips JSON for clients that accept it, which holds events back until the end.
          'content-encoding': 'identity',
          'cache-control': 'no-cache, private',
        },
      });
    } catch (e) {
      if (e instanceof StatusError) return statusResponse(e.status);
      console.error('watch error', e);
      return statusResponse(internalError(String(e)));
    }
  }

  /** The client closed its socket (or it failed): drop its watcher and finish the close handshake. */
  socketClosed(ws: WebSocket): void {
    const w = this.sockets.get(ws);
    this.sockets.delete(ws);
    if (w) this.hub.close(w);
    try {
      // Completes the close handshake even where the runtime does not answer a client's close itself.
      ws.close(1000, 'closed');
    } catch {
      // already closed
    }
  }

  /** Bookmarks and timeouts: the Durable Object's alarm calls this. */
  alarm(): void {
    this.alarmAt = undefined;
    const next = this.hub.tick(Date.now());
    if (next !== undefined) this.wakeAt(next);
  }

  /**
   * After eviction (hibernation), takes back the watchers whose sockets stayed open. Each had seen
   * every event up to `seenUpTo` (default: this cache's revision, when it was reloaded from its own
   * log); anything after that is replayed to it before it rejoins the live broadcast.
   */
  restoreSockets(seenUpTo?: number): void {
    const now = Date.now();
    for (const ws of this.o.ctx.getWebSockets()) {
      const a = ws.deserializeAttachment() as SocketAttachment | null;
      if (!a) continue;
      try {
        const parsed = parseWatchRequest(this.o.type, a.target, { now, minTimeoutSeconds: 0, random: () => 0 });
        const req: WatchRequest = { ...parsed, deadline: a.deadline, initialEvents: false, watchList: false, after: seenUpTo ?? this.revision };
        this.track(ws, this.hub.start(req, this.inVersion(socketSink(ws), a.apiVersion), now));
      } catch (e) {
        console.error('could not restore watcher', e);
        ws.close(1011, 'watch lost');
      }
    }
  }

  /** Sets the object's alarm for `at` unless one is already due sooner. */
  wakeAt(at: number): void {
    const when = Math.max(at, Date.now() + 1000);
    if (this.alarmAt !== undefined && this.alarmAt <= when) return;
    this.alarmAt = when;
    void this.o.ctx.storage.setAlarm(when);
  }

  stats(): CacheStats {
    return { ...this.hub.stats, watchers: this.hub.size, revision: this.revision, objects: this.state.size, windowEvents: this.window.size };
  }

  /** The sink as a watcher of `apiVersion` sees it, when that is not the stored objects' version. */
  private inVersion(sink: Sink, apiVersion: string | undefined): Sink {
    const stored = apiVersionOf(this.o.type);
    return apiVersion && apiVersion !== stored ? convertingSink(sink, stored, apiVersion) : sink;
  }

  private acceptSocket(target: WatchTarget, req: WatchRequest, now: number, protocol: string | null, apiVersion?: string): Response {
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.o.ctx.acceptWebSocket(server);
    const attachment: SocketAttachment = { target, deadline: req.deadline };
    if (apiVersion) attachment.apiVersion = apiVersion;
    server.serializeAttachment(attachment);
    this.track(server, this.hub.start(req, this.inVersion(socketSink(server), apiVersion), now));
    const headers: Record<string, string> = {};
    if (protocol) headers['sec-websocket-protocol'] = protocol;
    return new Response(null, { status: 101, webSocket: client, headers });
  }

  private track(ws: WebSocket, started: Promise<Watcher>): void {
    started.then((w) => {
      if (w.closed) return;
      this.sockets.set(ws, w);
      this.wakeAt(w.nextDue());
    }, (e) => console.error('watch failed', e));
  }

  private setting(name: keyof WatchSettings, fallback: number): number {
    const raw = this.o.env[name];
    const v = Number(raw);
    return raw !== undefined && raw !== '' && Number.isFinite(v) ? v : fallback;
  }
}
