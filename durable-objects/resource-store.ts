// Canonical layer (the etcd role) and its watch cache: one Durable Object per resource type. It alone
// holds each object, gives every write the next revision, logs it in the same SQLite transaction, and
// fans the event out to its watchers over HTTP streams and hibernatable WebSockets.

import { DurableObject } from 'cloudflare:workers';
import { apiVersionOf, lookupGroupResource, type ResourceType, type Subresource } from '../core/registry';
import { internalError, notFound, StatusError, statusResponse, tooLargeResourceVersion, tooManyRequests, type Result, type Status } from '../core/status';
import { executeWrite, type WriteRequest } from '../core/writes';
import type { KubeObject } from '../core/object-meta';
import { objectKey, namespacePrefix } from '../core/object-key';
import { ObjectState, type StateEntry } from '../core/object-state';
import { objectFields } from '../core/selectors/object-fields';
import { parseListOptions, parseSelectors } from '../core/list-options';
import { planList, type ListPlan } from '../core/list-plan';
import { entriesAt, readPage } from '../core/list-query';
import { formatRevision } from '../core/revision';
import { renderList, type ListFormat } from '../core/list-render';
import { RevisionWaiters } from '../core/revision-waiters';
import { scaleOf } from '../core/scale';
import { toTable } from '../core/table';
import { WatchWindow, DEFAULT_WINDOW } from '../core/watch-window';
import { WatchHub, type Watcher } from '../core/watch-hub';
import { parseWatchRequest, type WatchTarget } from '../core/watch-request';
import type { EventType, WatchEvent } from '../core/watch-event';
import type { FieldValidation } from '../core/validation/known-fields';
import { CanonicalLog, type LogRow } from './canonical-log';
import { socketSink, streamSink } from './watch-sinks';
import { WATCH_HEADERS } from './watch-headers';

export interface StoreEnv {
  EVENT_RETENTION_COUNT?: string;
  EVENT_RETENTION_SECONDS?: string;
  WATCH_WINDOW_EVENTS?: string;
  WATCH_BOOKMARK_INTERVAL_SECONDS?: string;
  WATCH_MIN_TIMEOUT_SECONDS?: string;
  WATCH_BUFFER_BYTES?: string;
  MAX_WATCHERS?: string;
}

export interface GetRequest {
  namespace: string;
  name: string;
  subresource: string;
}

export interface ListRequest {
  namespace: string;
  query: string; // the URL's search string: parsed here so the store owns list semantics
  format: ListFormat;
}

export interface StoreStats {
  revision: number;
  compacted: number;
  objects: number;
  windowEvents: number;
  watchers: number;
  deliveries: number;
  slowClosed: number;
  expired: number;
}

export interface StoreReply {
  code: number;
  body: string; // JSON, serialized once in the store
  warnings?: string[]; // for the Warning header (fieldValidation=Warn)
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
}

// apiserver watch_cache.go blockTimeout: how long a read waits for a revision the store has not reached.
const FRESHNESS_WAIT_MS = 3000;
const NAMESPACES_AT_FIRST_START = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];
const REPLAY_BATCH = 500;
// A catching-up client that takes nothing from its full buffer for this long is closed; it may resume.
const DRAIN_WAIT_MS = 30_000;

/** A watcher's identity kept on its hibernatable socket, so it can be rebuilt after eviction. */
interface SocketAttachment {
  target: WatchTarget;
  deadline: number;
}

export class ResourceStore extends DurableObject<StoreEnv> {
  private readonly log: CanonicalLog;
  private readonly state = new ObjectState();
  private readonly waiters = new RevisionWaiters();
  private readonly sockets = new Map<WebSocket, Watcher>();
  private type: ResourceType | undefined;
  private revision: number;
  private compacted: number;
  private eventCount: number;
  private window!: WatchWindow;
  private hub!: WatchHub;
  private alarmAt: number | undefined;

  constructor(ctx: DurableObjectState, env: StoreEnv) {
    super(ctx, env);
    this.log = new CanonicalLog(ctx.storage.sql);
    this.revision = this.log.meta('revision');
    this.compacted = this.log.meta('compacted');
    this.eventCount = this.log.eventCount();
    // A store that has served before knows its type: load now, and take back watchers whose
    // sockets outlived the object's eviction (hibernation).
    const known = this.log.meta('type');
    if (known) this.typeFor(known);
  }

  async get(groupResource: string, req: GetRequest): Promise<Result<StoreReply>> {
    return this.guard(groupResource, (type) => {
      if (req.subresource && !type.subresources.includes(req.subresource as Subresource)) {
        throw new StatusError(notFound({ group: type.group, resource: `${type.resource}/${req.subresource}` }, ''));
      }
      const entry = this.state.get(objectKey(req.namespace, req.name));
      if (!entry) throw new StatusError(notFound(type, req.name));
      if (req.subresource === 'scale') return { code: 200, body: JSON.stringify(scaleOf(JSON.parse(entry.json))) };
      return { code: 200, body: entry.json };
    });
  }

  /** A Response, not a Result: a list can outgrow the 32 MiB limit of an RPC value, a body cannot. */
  async list(groupResource: string, req: ListRequest): Promise<Response> {
    try {
      const type = this.typeFor(groupResource);
      const opts = parseListOptions(new URLSearchParams(req.query), false);
      const selectors = parseSelectors(opts, type);
      const plan = planList(opts, this.compacted);
      const wanted = typeof plan.revision === 'number' ? Math.max(plan.revision, plan.minRevision) : plan.minRevision;
      if (wanted > this.revision) await this.waitFor(wanted);
      const revision = plan.revision === 'latest' ? this.revision : plan.revision;
      const hasSelectors = opts.labelSelector !== '' || opts.fieldSelector !== '';
      const prefix = namespacePrefix(req.namespace);
      const page = readPage(this.entriesFor(type, plan, prefix, revision), {
        selectors, hasSelectors, limit: plan.limit, revision,
      }, (after) => this.state.countFrom(prefix, after));
      const body = renderList(type, page, formatRevision(revision), req.format, Date.now());
      return new Response(body, { headers: { 'content-type': 'application/json' } });
    } catch (e) {
      return statusResponse(failure(e).status);
    }
  }

  async write(groupResource: string, req: WriteRequest, options: WriteOptions = {}): Promise<Result<StoreReply>> {
    return this.guard(groupResource, (type) => this.applyWrite(type, req, options));
  }

  /** Watches arrive as fetches (HTTP streaming or a WebSocket upgrade) with the target in headers. */
  override async fetch(request: Request): Promise<Response> {
    const h = request.headers;
    try {
      const type = this.typeFor(h.get(WATCH_HEADERS.type) ?? '');
      const target: WatchTarget = {
        namespace: h.get(WATCH_HEADERS.namespace) ?? '',
        name: h.get(WATCH_HEADERS.name) ?? '',
        query: new URL(request.url).search,
        table: h.get(WATCH_HEADERS.table) === '1',
      };
      const now = Date.now();
      const req = parseWatchRequest(type, target, {
        now, minTimeoutSeconds: this.setting('WATCH_MIN_TIMEOUT_SECONDS', 1800), random: Math.random,
      });
      if (this.hub.size >= this.setting('MAX_WATCHERS', 6000)) {
        throw new StatusError(tooManyRequests('Too many requests, please try again later.', 1));
      }
      if (h.get('upgrade')?.toLowerCase() === 'websocket') return this.acceptSocket(target, req, now, h.get(WATCH_HEADERS.protocol));
      let watcher: Watcher | undefined;
      const { sink, body } = streamSink(this.setting('WATCH_BUFFER_BYTES', 1024 * 1024), () => watcher && this.hub.close(watcher));
      this.hub.start(req, sink, now).then((w) => {
        watcher = w;
        this.scheduleTimers(w.nextDue());
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
      return statusResponse(failure(e).status);
    }
  }

  override async webSocketMessage(): Promise<void> {
    // Like kube-apiserver, anything a watch client sends is ignored.
  }

  override async webSocketClose(ws: WebSocket): Promise<void> {
    this.dropSocket(ws);
    try {
      // Completes the close handshake even where the runtime does not answer a client's close itself.
      ws.close(1000, 'closed');
    } catch {
      // already closed
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.dropSocket(ws);
  }

  override async alarm(): Promise<void> {
    this.alarmAt = undefined;
    if (!this.type) return;
    const next = this.hub.tick(Date.now());
    if (next !== undefined) this.scheduleTimers(next);
  }

  /** Counters for /metrics. A store never used is not woken up for them by the caller. */
  async stats(groupResource: string): Promise<StoreStats> {
    this.typeFor(groupResource);
    return {
      revision: this.revision,
      compacted: this.compacted,
      objects: this.state.size,
      windowEvents: this.window.size,
      ...this.hub.stats,
      watchers: this.hub.size,
    };
  }

  private acceptSocket(target: WatchTarget, req: ReturnType<typeof parseWatchRequest>, now: number, protocol: string | null): Response {
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ target, deadline: req.deadline } satisfies SocketAttachment);
    this.hub.start(req, socketSink(server), now).then((w) => {
      if (w.closed) return;
      this.sockets.set(server, w);
      this.scheduleTimers(w.nextDue());
    }, (e) => console.error('watch failed', e));
    const headers: Record<string, string> = {};
    if (protocol) headers['sec-websocket-protocol'] = protocol;
    return new Response(null, { status: 101, webSocket: client, headers });
  }

  private dropSocket(ws: WebSocket): void {
    const w = this.sockets.get(ws);
    this.sockets.delete(ws);
    if (w) this.hub.close(w);
  }

  private applyWrite(type: ResourceType, req: WriteRequest, { dryRun = false, fieldValidation }: WriteOptions): StoreReply {
    const warnings: string[] = [];
    const changes: { type: EventType; key: string; json: string; prev: StateEntry | undefined; revision: number; object: KubeObject }[] = [];
    let next = this.revision;
    const now = Date.now();
    const reply = this.ctx.storage.transactionSync(() => {
      const result = executeWrite({
        get: (key) => {
          const e = this.state.get(key);
          return e ? (JSON.parse(e.json) as KubeObject) : undefined;
        },
        objects: (namespace) => [...this.state.range(namespacePrefix(namespace))].map((e) => JSON.parse(e.json) as KubeObject),
        commit: (eventType, key, object) => {
          if (dryRun) return object;
          next += 1;
          object.metadata.resourceVersion = formatRevision(next);
          const json = JSON.stringify(object);
          const prev = this.state.get(key);
          this.log.append(eventType, key, json, prev?.json, next, now);
          changes.push({ type: eventType, key, json, prev, revision: next, object });
          return object;
        },
      }, { type, now, newUid: () => crypto.randomUUID(), randomSuffix, fieldValidation, warnings }, req);
      if (changes.length) this.log.setMeta('revision', next);
      const reply: StoreReply = { code: result.code, body: JSON.stringify(result.body) };
      if (warnings.length) reply.warnings = warnings;
      return reply;
    });
    // Memory and watchers follow SQLite only once the transaction has committed. The output gate
    // holds every frame sent here until the write is durable, so no watcher sees a lost write.
    for (const c of changes) {
      const entry = this.entry(type, c.key, c.revision, c.json, c.object);
      if (c.type === 'DELETED') this.state.delete(c.key);
      else this.state.set(entry);
      this.revision = c.revision;
      const ev: WatchEvent = {
        revision: c.revision, type: c.type, key: c.key, object: entry, prev: c.prev, at: now,
        namespace: c.object.metadata.namespace ?? '', name: c.object.metadata.name ?? '',
      };
      this.window.append(ev, now);
      this.hub.publish(ev);
      ev.frames = undefined;
    }
    if (changes.length) {
      this.eventCount += changes.length;
      this.waiters.advance(this.revision);
      this.compactIfNeeded(now);
    }
    return reply;
  }

  /** Retention by count and/or age; what is compacted answers 410 Expired from then on. */
  private compactIfNeeded(now: number): void {
    const keep = this.setting('EVENT_RETENTION_COUNT', 10_000);
    const maxAgeMs = this.setting('EVENT_RETENTION_SECONDS', 0) * 1000;
    let upTo = this.compacted;
    if (this.eventCount > keep) upTo = Math.max(upTo, this.revision - keep);
    if (maxAgeMs > 0) upTo = Math.max(upTo, this.log.newestBefore(now - maxAgeMs) ?? 0);
    if (upTo <= this.compacted) return;
    this.ctx.storage.transactionSync(() => this.log.compact(upTo));
    this.compacted = upTo;
    this.eventCount = this.log.eventCount();
  }

  private entriesFor(type: ResourceType, plan: ListPlan, prefix: string, revision: number): Iterable<StateEntry> {
    const current = this.state.range(prefix, plan.start);
    if (revision >= this.revision) return current;
    const before = this.log.valuesBefore(revision, (key) => key.startsWith(prefix) && key >= plan.start);
    const overrides = new Map<string, StateEntry | null>();
    for (const [key, value] of before) overrides.set(key, value === null ? null : this.entry(type, key, 0, value));
    return entriesAt(current, overrides);
  }

  private entry(type: ResourceType, key: string, revision: number, json: string, parsed?: KubeObject): StateEntry {
    const obj = parsed ?? (JSON.parse(json) as KubeObject);
    return { key, revision, json, labels: obj.metadata.labels ?? {}, fields: objectFields(type, obj) };
  }

  private eventFromLog(type: ResourceType, row: LogRow): WatchEvent {
    const obj = JSON.parse(row.value) as KubeObject;
    return {
      revision: row.revision, type: row.type, key: row.key, at: 0,
      namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '',
      object: this.entry(type, row.key, row.revision, row.value, obj),
      prev: row.prev_value === null ? undefined : this.entry(type, row.key, 0, row.prev_value),
    };
  }

  private async waitFor(revision: number): Promise<void> {
    if (await this.waiters.wait(revision, FRESHNESS_WAIT_MS)) return;
    throw new StatusError(tooLargeResourceVersion(revision, this.revision, 1));
  }

  private scheduleTimers(due: number): void {
    const at = Math.max(due, Date.now() + 1000);
    if (this.alarmAt !== undefined && this.alarmAt <= at) return;
    this.alarmAt = at;
    void this.ctx.storage.setAlarm(at);
  }

  private setting(name: keyof StoreEnv, fallback: number): number {
    const v = Number(this.env[name]);
    return Number.isFinite(v) && this.env[name] !== undefined && this.env[name] !== '' ? v : fallback;
  }

  private typeFor(groupResource: string): ResourceType {
    if (this.type) return this.type;
    const type = lookupGroupResource(groupResource);
    if (!type) throw new Error(`unknown resource type ${groupResource}`);
    this.type = type;
    if (this.log.meta('type') !== groupResource) this.log.setMeta('type', groupResource);
    this.start(type);
    return type;
  }

  private start(type: ResourceType): void {
    for (const row of this.log.objects()) this.state.set(this.entry(type, row.key, row.revision, row.value));
    this.window = new WatchWindow({ ...DEFAULT_WINDOW, maxEvents: this.setting('WATCH_WINDOW_EVENTS', DEFAULT_WINDOW.maxEvents) }, this.revision);
    const apiVersion = apiVersionOf(type);
    this.hub = new WatchHub({
      kind: type.kind,
      apiVersion,
      revision: () => this.revision,
      compacted: () => this.compacted,
      window: this.window,
      entries: (namespace) => this.state.range(namespacePrefix(namespace)),
      readLog: (after, limit) => this.log.since(after, limit).map((row) => this.eventFromLog(type, row)),
      waitFor: (revision, ms) => this.waiters.wait(revision, ms),
      table: (json, headers) => JSON.stringify(toTable(type, [JSON.parse(json)], { now: Date.now(), noHeaders: !headers })),
      triggerOf: type.watchIndexField ? (fields) => fields[type.watchIndexField!] : undefined,
      yieldTurn: () => new Promise((resolve) => setTimeout(resolve, 0)),
    }, {
      bookmarkIntervalMs: this.setting('WATCH_BOOKMARK_INTERVAL_SECONDS', 60) * 1000,
      replayBatch: REPLAY_BATCH,
      freshnessWaitMs: FRESHNESS_WAIT_MS,
      drainWaitMs: DRAIN_WAIT_MS,
    });
    if (type.kind === 'Namespace' && this.revision === 0) {
      for (const name of NAMESPACES_AT_FIRST_START) {
        this.applyWrite(type, { verb: 'create', namespace: '', body: JSON.stringify({ metadata: { name } }) }, {});
      }
    }
    this.restoreSockets(type);
  }

  /** After eviction, every socket's watcher had seen every event: it rejoins at the current revision. */
  private restoreSockets(type: ResourceType): void {
    const now = Date.now();
    for (const ws of this.ctx.getWebSockets()) {
      const a = ws.deserializeAttachment() as SocketAttachment | null;
      if (!a) continue;
      try {
        const req = parseWatchRequest(type, a.target, { now, minTimeoutSeconds: 0, random: () => 0 });
        const w = this.hub.restore({ ...req, deadline: a.deadline }, socketSink(ws), now);
        this.sockets.set(ws, w);
        this.scheduleTimers(w.nextDue());
      } catch (e) {
        console.error('could not restore watcher', e);
        ws.close(1011, 'watch lost');
      }
    }
  }

  private guard(groupResource: string, fn: (type: ResourceType) => StoreReply): Result<StoreReply> {
    try {
      return { ok: true, value: fn(this.typeFor(groupResource)) };
    } catch (e) {
      return failure(e);
    }
  }
}

function failure(e: unknown): { ok: false; status: Status } {
  if (e instanceof StatusError) return { ok: false, status: e.status };
  console.error('store error', e);
  return { ok: false, status: internalError((e as Error)?.message ?? String(e)) };
}

// apiserver pkg/storage/names/generate.go: 5 characters from an alphabet without vowels or look-alikes.
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
function randomSuffix(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  return [...bytes].map((b) => SUFFIX_ALPHABET[b % SUFFIX_ALPHABET.length]).join('');
}
