// Broadcast layer inside a Durable Object: how a watch arrives and leaves (apiserver's WatchServer, HandleHTTP
// and HandleWS). A watch comes as a fetch from the Worker with its target in the contract's headers; the watch
// quota admits it; it is served over a chunked HTTP stream, or a WebSocket accepted here (hibernatable, its
// identity kept on the socket, so it is taken back after an eviction); the liveness budget closes a socket
// whose client stopped reading. The hub (core/watch/hub.ts) does the rest.

import { apiVersionOf, groupResource, type ResourceType } from '../core/registry';
import { StatusError, statusResponse, tooManyRequests } from '../core/status';
import { parseWatchRequest, type WatchTarget } from '../core/watch/request';
import { WatchQuota, type QuotaHolder } from '../core/watch/quota';
import type { Sink, Watcher, WatchHub, WatchRequest } from '../core/watch/hub';
import type { Settings } from '../core/settings';
import { API_VERSION_HEADER, MULTI_EVENT_PROTOCOL, WATCH_HEADERS } from '../contract/headers';
import { delayableSink, socketSink, streamSink, StreamFlusher, type SocketBudget } from './watch-sinks';
import { convertingSink } from './version-sink';
import { failed } from './served-type';

// A client proves it is reading by sending anything (clients say "ping"); nothing is answered. No
// setWebSocketAutoResponse: workerd's auto-response writes to the socket outside the object's own send queue,
// and a client that pings and cuts its TCP connection while events are being sent made the runtime abort
// (`expected !currentlySending`, then `KJ async object being destroyed`), taking every object down with it
// (robustness/README.md, finding 1; test/e2e/ws-ping-hangup.test.ts). The price: a ping on an idle,
// hibernated socket wakes the object, as any other message always did.
const TOO_MANY = 'Too many requests, please try again later.';

/** What the server needs of the watch cache it serves. */
export interface WatchedCache {
  readonly hub: WatchHub;
  revision(): number;
  type(): ResourceType;
  /** Sets the object's alarm for `at` unless one is already due sooner. */
  wakeAt(at: number): void;
}

/** A watcher's identity kept on its hibernatable socket, so it can be rebuilt after eviction. */
interface SocketAttachment {
  target: WatchTarget;
  deadline: number;
  user?: string; // counted in the watch quota (with target.namespace); absent: a system component
  apiVersion?: string; // a CRD version other than the storage one (version-sink.ts)
  multi?: true; // the client chose MULTI_EVENT_PROTOCOL: several events per message
}

export class WatchServer {
  private readonly sockets = new Map<WebSocket, Watcher>();
  private readonly heard = new Map<WebSocket, number>();
  private readonly goneEarly = new WeakSet<WebSocket>(); // closed by the client before its replay ended
  private readonly flusher = new StreamFlusher();
  private readonly quota: WatchQuota;
  private readonly budget: SocketBudget;
  private socketStalls = 0;

  constructor(private readonly ctx: DurableObjectState, private readonly settings: Settings, private readonly cache: WatchedCache) {
    const s = settings;
    this.quota = new WatchQuota({ tenants: s.maxWatchers, perUser: s.maxWatchesPerUser, perNamespace: s.maxWatchesPerNamespace });
    this.budget = {
      // Bytes a WebSocket watcher may be sent without the client being heard from: a stalled socket holds at
      // most this much in the runtime; a client that never sends resumes after each budget's worth.
      budgetBytes: s.watchSocketBudgetBytes,
      lastHeard: (ws) => this.heard.get(ws) ?? 0,
      stalled: () => this.socketStalls++,
      closed: (ws) => {
        this.heard.delete(ws);
        this.sockets.delete(ws);
      },
    };
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
      const req = parseWatchRequest(this.cache.type(), target, { now, minTimeoutSeconds: this.settings.watchMinTimeoutSeconds, random: Math.random });
      const user = h.get(WATCH_HEADERS.user) || undefined;
      const holder: QuotaHolder = { probe: () => undefined };
      const admission = this.quota.admit(user, target.namespace, holder, now);
      if (!admission.admitted) throw new StatusError(tooManyRequests(TOO_MANY, 1));
      try {
        const apiVersion = h.get(API_VERSION_HEADER) ?? undefined;
        if (h.get('upgrade')?.toLowerCase() === 'websocket') {
          return this.acceptSocket({ target, deadline: req.deadline, user, apiVersion }, req, now, h.get(WATCH_HEADERS.protocol), admission.release);
        }
        return this.stream(request, req, now, apiVersion, admission.release, holder);
      } catch (e) {
        admission.release();
        throw e;
      }
    } catch (e) {
      return statusResponse(failed(e).status);
    }
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
    if (w) this.cache.hub.close(w);
    else this.goneEarly.add(ws);
    try {
      // Completes the close handshake even where the runtime does not answer a client's close itself.
      ws.close(1000, 'closed');
    } catch {
      // already closed
    }
  }

  /**
   * After eviction (hibernation), takes back the watchers whose sockets stayed open. Each had seen
   * every event up to `seenUpTo` (default: the cache's revision, when it was reloaded from its own
   * log); anything after that is replayed to it before it rejoins the live broadcast.
   */
  restoreSockets(seenUpTo?: number): void {
    const now = Date.now();
    for (const ws of this.ctx.getWebSockets()) {
      const a = ws.deserializeAttachment() as SocketAttachment | null;
      if (!a) continue;
      try {
        const parsed = parseWatchRequest(this.cache.type(), a.target, { now, minTimeoutSeconds: 0, random: () => 0 });
        const req: WatchRequest = { ...parsed, deadline: a.deadline, initialEvents: false, watchList: false, after: seenUpTo ?? this.cache.revision() };
        // A WebSocket's close reaches the object by itself: nothing to probe.
        const sink = releasing(this.inVersion(this.faulty(socketSink(ws, this.budget, a.multi === true)), a.apiVersion), this.quota.restore(a.user, a.target.namespace, { probe: () => undefined }));
        this.track(ws, this.cache.hub.start(req, sink, now));
      } catch (e) {
        console.error('could not restore watcher', e);
        ws.close(1011, 'watch lost');
      }
    }
  }

  stats(): { socketStalls: number; quotaRefused: number; sinkErrors: number } {
    return { socketStalls: this.socketStalls, quotaRefused: this.quota.refused, sinkErrors: this.flusher.errors };
  }

  private stream(request: Request, req: WatchRequest, now: number, apiVersion: string | undefined, release: () => void, holder: QuotaHolder): Response {
    const hub = this.cache.hub;
    let watcher: Watcher | undefined;
    let cancelled = false;
    const onCancel = () => {
      cancelled = true;
      if (watcher) hub.close(watcher);
    };
    const stream = streamSink(this.settings.watchBufferBytes, onCancel, this.flusher);
    const sink = releasing(this.inVersion(this.faulty(stream.sink), apiVersion), release);
    // The client went away: the runtime aborts the request (enable_request_signal; on Cloudflare as soon as
    // the client disconnects, locally at the first write that fails) or cancels the body. Either frees the slot
    // now, as kube-apiserver ends a watch when its request context is cancelled.
    request.signal?.addEventListener('abort', onCancel, { once: true });
    // A full quota bound asks its holders to write, which is how a gone client is noticed locally.
    holder.probe = () => stream.sink.heartbeat?.();
    hub.start(req, sink, now).then((w) => {
      watcher = w;
      // A client gone during the replay: drop the watcher (and its quota) now, not at its deadline.
      if (cancelled) hub.close(w);
      else this.cache.wakeAt(w.nextDue());
    }, (e) => console.error('watch failed', e));
    return new Response(stream.body, {
      headers: {
        'content-type': 'application/json',
        // Local dev gzips JSON for clients that accept it, which holds events back until the end.
        'content-encoding': 'identity',
        'cache-control': 'no-cache, private',
      },
    });
  }

  private acceptSocket(attachment: SocketAttachment, req: WatchRequest, now: number, protocol: string | null, release: () => void): Response {
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.ctx.acceptWebSocket(server);
    const kept: SocketAttachment = { target: attachment.target, deadline: attachment.deadline };
    if (attachment.user !== undefined) kept.user = attachment.user;
    if (attachment.apiVersion) kept.apiVersion = attachment.apiVersion;
    // The Worker echoes the first protocol the client offered besides its token; offering this one first
    // asks for several events per message (kube clients never offer it, so they keep one per message).
    const multi = protocol === MULTI_EVENT_PROTOCOL;
    if (multi) kept.multi = true;
    server.serializeAttachment(kept);
    this.track(server, this.cache.hub.start(req, releasing(this.inVersion(this.faulty(socketSink(server, this.budget, multi)), attachment.apiVersion), release), now));
    const headers: Record<string, string> = {};
    if (protocol) headers['sec-websocket-protocol'] = protocol;
    return new Response(null, { status: 101, webSocket: client, headers });
  }

  private track(ws: WebSocket, started: Promise<Watcher>): void {
    started.then((w) => {
      if (w.closed) return;
      if (this.goneEarly.has(ws)) return this.cache.hub.close(w);
      this.sockets.set(ws, w);
      this.cache.wakeAt(w.nextDue());
    }, (e) => console.error('watch failed', e));
  }

  /** With ENABLE_TEST_HOOKS, the transport behind the watch.before-send/-bookmark failpoints; as it is otherwise. */
  private faulty(sink: Sink): Sink {
    return this.settings.enableTestHooks ? delayableSink(sink, groupResource(this.cache.type()), this.settings.watchBufferBytes) : sink;
  }

  /** The sink as a watcher of `apiVersion` sees it, when that is not the stored objects' version. */
  private inVersion(sink: Sink, apiVersion: string | undefined): Sink {
    const stored = apiVersionOf(this.cache.type());
    return apiVersion && apiVersion !== stored ? convertingSink(sink, stored, apiVersion) : sink;
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
