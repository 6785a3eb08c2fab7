// Caching and broadcast layers inside a Durable Object: current state, the event window and the
// watcher hub, plus the watch transports and their timers. The canonical store and each watch-cache
// replica own one; they differ only in where events come from (their own writes, or a subscription).

import { apiVersionOf, type ResourceType } from '../core/registry';
import { StatusError, statusResponse, tooLargeResourceVersion, tooManyRequests, internalError } from '../core/status';
import type { KubeObject } from '../core/object-meta';
import { namespacePrefix } from '../core/object-key';
import { ObjectState, type StateEntry } from '../core/object-state';
import { objectFields } from '../core/selectors/object-fields';
import { RevisionWaiters } from '../core/watch/revision-waiters';
import { toTableIsolated } from '../core/tables/isolated';
import { logRenderError } from '../core/list/render';
import { WatchWindow, DEFAULT_WINDOW } from '../core/watch/window';
import { WatchHub, type HubStats, type Sink, type Watcher, type WatchRequest } from '../core/watch/hub';
import { parseWatchRequest, type WatchTarget } from '../core/watch/request';
import type { EventType, WatchEvent } from '../core/watch/event';
import { socketSink, streamSink, StreamFlusher, type SocketBudget } from './watch-sinks';
import { WatchQuota, type QuotaHolder } from '../core/watch/quota';
import type { Settings } from '../core/settings';
import { WATCH_HEADERS } from '../core/watch/headers';
import { API_VERSION_HEADER, convertingSink } from './version-sink';
import { readDefaulter, type ReadDefaulter } from '../core/crd/read-defaults';

/** Tunables from wrangler.toml [vars], shared by the store and its replicas. */
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
  settings: Settings;
  revision: number; // the revision the initial state reflects
  compacted: () => number; // below this, resuming answers 410
  readLog: (after: number, limit: number) => Promise<ChangeRow[]>; // the canonical log
}

export interface CacheStats extends HubStats {
  socketStalls: number; // WebSocket watchers closed for sending past their budget unheard
  quotaRefused: number; // watches answered 429 by the watch quota
  revision: number;
  objects: number;
  windowEvents: number;
}

// apiserver watch_cache.go blockTimeout: how long a read waits for a revision not reached yet.
export const FRESHNESS_WAIT_MS = 3000;
const REPLAY_BATCH = 500;
// A catching-up client that takes nothing from its full buffer for this long is closed; it may resume.
const DRAIN_WAIT_MS = 30_000;
// A client proves it is reading by sending this text; the runtime answers it without waking the object.
export const SOCKET_PING = 'ping';
export const SOCKET_PONG = 'pong';

/** A watcher's identity kept on its hibernatable socket, so it can be rebuilt after eviction. */
interface SocketAttachment {
  target: WatchTarget;
  deadline: number;
  user?: string; // counted in the watch quota (with target.namespace); absent: a system component
  apiVersion?: string; // a CRD version other than the storage one (version-sink.ts)
}

const TOO_MANY = 'Too many requests, please try again later.';

export class WatchCache {
  readonly state = new ObjectState();
  readonly window: WatchWindow;
  readonly hub: WatchHub;
  revision: number;
  private readonly waiters = new RevisionWaiters();
  private readonly sockets = new Map<WebSocket, Watcher>();
  private readonly flusher = new StreamFlusher();
  private alarmAt: number | undefined;
  private tableFallbacks = 0;
  private readonly quota: WatchQuota;
  private readonly heard = new Map<WebSocket, number>();
  private readonly goneEarly = new WeakSet<WebSocket>(); // closed by the client before its replay ended
  private socketStalls = 0;
  private readonly budget: SocketBudget;
  /** A custom type's schema defaults, applied where an entry's served JSON is made (core/crd/read-defaults.ts). */
  private defaults: ReadDefaulter | undefined;
  /** For lists and watch frames: an object whose Table row fell back to null cells. */
  readonly onRenderError = (object: object, error: unknown): void => {
    this.tableFallbacks++;
    logRenderError(object, error);
  };

  constructor(private readonly o: WatchCacheOptions) {
    this.revision = o.revision;
    this.defaults = readDefaulter(o.type);
    const s = o.settings;
    this.quota = new WatchQuota({ tenants: s.maxWatchers, perUser: s.maxWatchesPerUser, perNamespace: s.maxWatchesPerNamespace });
    o.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(SOCKET_PING, SOCKET_PONG));
    this.budget = {
      // Bytes a WebSocket watcher may be sent without the client being heard from: a stalled socket holds at
      // most this much in the runtime; a client that never sends resumes after each budget's worth.
      budgetBytes: s.watchSocketBudgetBytes,
      lastHeard: (ws) => Math.max(this.heard.get(ws) ?? 0, o.ctx.getWebSocketAutoResponseTimestamp(ws)?.getTime() ?? 0),
      stalled: () => this.socketStalls++,
      closed: (ws) => {
        this.heard.delete(ws);
        this.sockets.delete(ws);
      },
    };
    const { type } = o;
    this.window = new WatchWindow({
      ...DEFAULT_WINDOW,
      maxEvents: s.watchWindowEvents,
      maxBytes: s.watchWindowBytes,
    }, o.revision);
    this.hub = new WatchHub({
      kind: type.kind,
      apiVersion: apiVersionOf(type),
      revision: () => this.revision,
      compacted: o.compacted,
      window: this.window,
      entries: (namespace) => this.state.range(namespacePrefix(namespace)),
      readLog: async (after, limit) => (await o.readLog(after, limit)).map((row) => this.event(row, 0)),
      waitFor: (revision, ms) => this.waiters.wait(revision, ms),
      table: (json, headers) => JSON.stringify(toTableIsolated(this.o.type, [JSON.parse(json)], { now: Date.now(), noHeaders: !headers }, this.onRenderError)),
      triggerOf: type.watchIndexField ? (fields) => fields[type.watchIndexField!] : undefined,
      yieldTurn: () => new Promise((resolve) => setTimeout(resolve, 0)),
    }, {
      bookmarkIntervalMs: s.watchBookmarkIntervalSeconds * 1000,
      heartbeatIntervalMs: s.watchHeartbeatSeconds * 1000,
      replayBatch: REPLAY_BATCH,
      freshnessWaitMs: FRESHNESS_WAIT_MS,
      drainWaitMs: DRAIN_WAIT_MS,
    });
  }

  /**
   * A custom type's new definition (its CRD changed): columns and selectable fields from now on, and its
   * defaults on the objects held (kube defaults on every read with the current schema). Defaults a previous
   * schema added stay until the object is next written.
   */
  retype(type: ResourceType): void {
    this.o.type = type;
    const defaults = readDefaulter(type);
    const changed = defaults !== this.defaults;
    this.defaults = defaults;
    if (!changed || !defaults) return;
    for (const e of [...this.state.range('')]) {
      const obj = JSON.parse(e.json) as KubeObject;
      if (defaults(obj)) this.state.set({ ...e, json: JSON.stringify(obj) });
    }
  }

  /**
   * The object as readers get it, from its stored form: a custom type's schema defaults filled in `obj`
   * (in place). Returns the served JSON: `json` itself when nothing was added.
   */
  serve(obj: KubeObject, json: string): string {
    return this.defaults?.(obj) ? JSON.stringify(obj) : json;
  }

  /**
   * The state entry of a stored revision: `json` is the stored text (or, with `served`, the served one,
   * `parsed` already defaulted). Serialized here once, for every reader and watcher.
   */
  entry(key: string, revision: number, json: string, parsed?: KubeObject, served = false): StateEntry {
    const obj = parsed ?? (JSON.parse(json) as KubeObject);
    const text = served ? json : this.serve(obj, json);
    const labels = obj.metadata?.labels;
    // An object stored with odd metadata still becomes an entry: nothing after a commit may throw.
    return { key, revision, json: text, labels: labels && typeof labels === 'object' ? labels : {}, fields: objectFields(this.o.type, obj) };
  }

  /**
   * A logged change as a watch event; `prev` comes from the row, so selector transitions work anywhere.
   * `servedJson` is the served text of `parsed` when the writer has made it already.
   */
  event(row: ChangeRow, at: number, parsed?: KubeObject, prev?: StateEntry, servedJson?: string): WatchEvent {
    const obj = parsed ?? (JSON.parse(row.value) as KubeObject);
    return {
      revision: row.revision, type: row.type, key: row.key, at,
      namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '',
      object: this.entry(row.key, row.revision, servedJson ?? row.value, obj, servedJson !== undefined),
      prev: prev ?? (row.prev_value === null ? undefined : this.entry(row.key, 0, row.prev_value)),
    };
  }

  /** Applies the next change: state, window, live watchers, waiting reads, in that order. */
  apply(ev: WatchEvent): void {
    if (ev.type === 'DELETED') this.state.delete(ev.key);
    else this.state.set(ev.object);
    this.revision = ev.revision;
    this.window.append(ev, ev.at || Date.now());
    try {
      this.hub.publish(ev); // isolates each watcher; this guards what remains (waiters, replicas)
    } catch (e) {
      console.error('publish failed', e);
    }
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
        now, minTimeoutSeconds: this.o.settings.watchMinTimeoutSeconds, random: Math.random,
      });
      const user = h.get(WATCH_HEADERS.user) || undefined;
      const holder: QuotaHolder = { probe: () => undefined };
      const admission = this.quota.admit(user, target.namespace, holder, now);
      if (!admission.admitted) throw new StatusError(tooManyRequests(TOO_MANY, 1));
      try {
        return this.startWatch(request, target, req, now, user, admission.release, holder);
      } catch (e) {
        admission.release();
        throw e;
      }
    } catch (e) {
      if (e instanceof StatusError) return statusResponse(e.status);
      console.error('watch error', e);
      return statusResponse(internalError(String(e)));
    }
  }

  private startWatch(request: Request, target: WatchTarget, req: WatchRequest, now: number, user: string | undefined, release: () => void, holder: QuotaHolder): Response {
    const h = request.headers;
    const apiVersion = h.get(API_VERSION_HEADER) ?? undefined;
    if (h.get('upgrade')?.toLowerCase() === 'websocket') return this.acceptSocket(target, req, now, h.get(WATCH_HEADERS.protocol), user, release, apiVersion);
    let watcher: Watcher | undefined;
    let cancelled = false;
    const onCancel = () => {
      cancelled = true;
      if (watcher) this.hub.close(watcher);
    };
    const stream = streamSink(this.o.settings.watchBufferBytes, onCancel, this.flusher);
    const { body } = stream;
    const sink = releasing(this.inVersion(stream.sink, apiVersion), release);
    // The client went away: the runtime aborts the request (enable_request_signal; on Cloudflare as soon as
    // the client disconnects, locally at the first write that fails) or cancels the body. Either frees the slot
    // now, as kube-apiserver ends a watch when its request context is cancelled.
    request.signal?.addEventListener('abort', onCancel, { once: true });
    // A full quota bound asks its holders to write, which is how a gone client is noticed locally.
    holder.probe = () => stream.sink.heartbeat?.();
    this.hub.start(req, sink, now).then((w) => {
      watcher = w;
      // A client gone during the replay: drop the watcher (and its quota) now, not at its deadline.
      if (cancelled) this.hub.close(w);
      else this.wakeAt(w.nextDue());
    }, (e) => console.error('watch failed', e));
    return new Response(body, {
      headers: {
        'content-type': 'application/json',
        // Local dev gzips JSON for clients that accept it, which holds events back until the end.
        'content-encoding': 'identity',
        'cache-control': 'no-cache, private',
      },
    });
  }

  /** The client sent a message: it is reading (see SocketBudget). Its content is ignored, as in kube. */
  socketHeard(ws: WebSocket): void {
    this.heard.set(ws, Date.now());
  }

  /** The client closed its socket (or it failed): drop its watcher and finish the close handshake. */
  socketClosed(ws: WebSocket): void {
    const w = this.sockets.get(ws);
    this.sockets.delete(ws);
    this.heard.delete(ws);
    if (w) this.hub.close(w);
    else this.goneEarly.add(ws);
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
        // A WebSocket's close reaches the object by itself: nothing to probe.
        const sink = releasing(this.inVersion(socketSink(ws, this.budget), a.apiVersion), this.quota.restore(a.user, a.target.namespace, { probe: () => undefined }));
        this.track(ws, this.hub.start(req, sink, now));
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
    const hub = this.hub.stats;
    return {
      ...hub, socketStalls: this.socketStalls, quotaRefused: this.quota.refused, watchers: this.hub.size, revision: this.revision, objects: this.state.size, windowEvents: this.window.size,
      renderErrors: hub.renderErrors + this.tableFallbacks, sinkErrors: hub.sinkErrors + this.flusher.errors,
    };
  }

  /** The sink as a watcher of `apiVersion` sees it, when that is not the stored objects' version. */
  private inVersion(sink: Sink, apiVersion: string | undefined): Sink {
    const stored = apiVersionOf(this.o.type);
    return apiVersion && apiVersion !== stored ? convertingSink(sink, stored, apiVersion) : sink;
  }

  private acceptSocket(target: WatchTarget, req: WatchRequest, now: number, protocol: string | null, user: string | undefined, release: () => void, apiVersion?: string): Response {
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.o.ctx.acceptWebSocket(server);
    const attachment: SocketAttachment = { target, deadline: req.deadline };
    if (user !== undefined) attachment.user = user;
    if (apiVersion) attachment.apiVersion = apiVersion;
    server.serializeAttachment(attachment);
    this.track(server, this.hub.start(req, releasing(this.inVersion(socketSink(server, this.budget), apiVersion), release), now));
    const headers: Record<string, string> = {};
    if (protocol) headers['sec-websocket-protocol'] = protocol;
    return new Response(null, { status: 101, webSocket: client, headers });
  }

  private track(ws: WebSocket, started: Promise<Watcher>): void {
    started.then((w) => {
      if (w.closed) return;
      if (this.goneEarly.has(ws)) return this.hub.close(w);
      this.sockets.set(ws, w);
      this.wakeAt(w.nextDue());
    }, (e) => console.error('watch failed', e));
  }
}

/** `sink`, giving its watcher's quota back when the hub closes it. */
function releasing(sink: Sink, release: () => void): Sink {
  const close = sink.close.bind(sink);
  sink.close = () => {
    release();
    close();
  };
  return sink;
}
