// Canonical layer (the etcd role): one Durable Object per resource type. It alone holds each object,
// gives every write the next revision and logs it in the same SQLite transaction, then hands the event
// to its watch cache (its own watchers) and to the replicas subscribed to it.

import { DurableObject } from 'cloudflare:workers';
import { isBuiltInGroupResource, lookupGroupResource, type ResourceType, type Subresource } from '../core/registry';
import { CRD_REVISION_HEADER, knowType, type CrdEnv } from './crd-source';
import { badRequest, internalError, notFound, StatusError, statusResponse, type Result, type Status } from '../core/status';
import { executeWrite, type WriteRequest } from '../core/writes';
import { escalationGuard, SYSTEM_GRANT, type EscalationGrant } from '../core/rbac/escalation';
import type { KubeObject } from '../core/object-meta';
import { objectKey, namespacePrefix } from '../core/object-key';
import type { StateEntry } from '../core/object-state';
import { parseListOptions, parseSelectors } from '../core/list/options';
import { planList, type ListPlan } from '../core/list/plan';
import { entriesAt, readPage } from '../core/list/query';
import { formatRevision } from '../core/revision';
import { renderList, type ListFormat } from '../core/list/render';
import { scaleOf } from '../core/scale';
import { jsonInView } from '../core/views/view';
import { pickDeletePage } from '../core/list/delete-collection-page';
import type { FieldValidation } from '../core/validation/known-fields';
import { WATCH_HEADERS } from '../core/watch/headers';
import { bootstrapWrites } from '../core/bootstrap';
import { CanonicalLog } from './canonical-log';
import { WatchCache, type CacheStats, type ChangeRow } from './watch-cache';
import { AUTHORIZER_PREFIX, Replication, type ReplicaEnv, type SubscribeReply } from './replication';
import { NamespaceFence } from './namespace-fence';
import { namespaceTerminating } from '../core/namespaces/terminating';
import { requireSettings, type Settings } from '../core/settings';
import { isCoreService } from '../core/admission/service-allocation';
import { ServiceAllocations } from '../core/admission/service-ranges';

export type StoreEnv = ReplicaEnv;

export interface GetRequest {
  namespace: string;
  name: string;
  subresource: string;
  crdRevision?: number; // custom types: the CRD store revision the front door knows (worker/crd-sync.ts)
  view?: string; // the apiVersion to answer in, when not the store's (core/views/view.ts)
}

export interface ListRequest {
  namespace: string;
  query: string; // the URL's search string: parsed here so the store owns list semantics
  format: ListFormat;
  crdRevision?: number;
}

export interface StoreStats extends CacheStats {
  compacted: number;
  subscriptions: number;
  replicas: string[];
  writes: number;
  messagesSent: number;
}

export interface StoreReply {
  code: number;
  body: string; // JSON, serialized once in the store
  warnings?: string[]; // for the Warning header (fieldValidation=Warn)
  revision?: number; // the store's revision after this write
  held?: number; // deletecollection: objects kept by finalizers
  continue?: string; // a deletecollection page: where the next one starts
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
  escalation?: EscalationGrant; // required for RBAC role and binding writes (core/rbac/escalation.ts)
  // For creates the front door admitted: the namespace's resourceVersion it saw (see NamespaceFence).
  namespaceRevision?: number;
  crdRevision?: number;
  // deletecollection, one page at a time (core/list/delete-collection-page.ts): the page after this key.
  deletePage?: { after: string };
}

const LOG_BATCH_LIMIT = 1000;

/** One change committed to SQLite, on its way to the watch cache and the replicas. */
interface Committed {
  row: ChangeRow;
  object: KubeObject;
  prev: StateEntry | undefined;
}

export class ResourceStore extends DurableObject<StoreEnv> {
  private readonly log: CanonicalLog;
  private readonly fence: NamespaceFence;
  private type: ResourceType | undefined;
  private compacted: number;
  private eventCount: number;
  private writes = 0;
  private cache!: WatchCache;
  private replication!: Replication;
  // Services only: the clusterIPs and nodePorts stored Services hold, derived from the state at load and kept
  // in step by publish(), so allocation checks an index inside the write's transaction (core/admission).
  private serviceAllocations?: ServiceAllocations;
  private readonly settings: Settings;

  constructor(ctx: DurableObjectState, env: StoreEnv) {
    super(ctx, env);
    this.settings = requireSettings(env);
    this.log = new CanonicalLog(ctx.storage.sql);
    this.fence = new NamespaceFence(ctx.storage.sql);
    this.compacted = this.log.meta('compacted');
    this.eventCount = this.log.eventCount();
    // A store that has served before knows its type: load now, take back watchers whose sockets
    // outlived the object's eviction, and tell replicas where it stands.
    const known = this.log.meta('type');
    if (known && isBuiltInGroupResource(known)) this.typeFor(known);
    // A custom type's definition comes from the CRD store first.
    else if (known) void ctx.blockConcurrencyWhile(async () => {
      await knowType(this.env as CrdEnv, known);
      if (lookupGroupResource(known)) this.typeFor(known);
    });
  }

  async get(groupResource: string, req: GetRequest): Promise<Result<StoreReply>> {
    await knowType(this.env as CrdEnv, groupResource, req.crdRevision);
    return this.guard(groupResource, (type) => {
      if (req.subresource && !type.subresources.includes(req.subresource as Subresource)) {
        throw new StatusError(notFound({ group: type.group, resource: `${type.resource}/${req.subresource}` }, ''));
      }
      const entry = this.cache.state.get(objectKey(req.namespace, req.name));
      if (!entry) throw new StatusError(notFound(type, req.name));
      if (req.subresource === 'scale') return { code: 200, body: JSON.stringify(scaleOf(JSON.parse(entry.json), type.custom?.scale)) };
      return { code: 200, body: jsonInView(type, req.view, entry.json) };
    });
  }

  /** A Response, not a Result: a list can outgrow the 32 MiB limit of an RPC value, a body cannot. */
  async list(groupResource: string, req: ListRequest): Promise<Response> {
    try {
      await knowType(this.env as CrdEnv, groupResource, req.crdRevision);
      const type = this.typeFor(groupResource);
      const opts = parseListOptions(new URLSearchParams(req.query), false);
      const selectors = parseSelectors(opts, type);
      const plan = planList(opts, this.compacted);
      await this.cache.waitFor(typeof plan.revision === 'number' ? Math.max(plan.revision, plan.minRevision) : plan.minRevision);
      const revision = plan.revision === 'latest' ? this.cache.revision : plan.revision;
      const hasSelectors = opts.labelSelector !== '' || opts.fieldSelector !== '';
      const prefix = namespacePrefix(req.namespace);
      const page = readPage(this.entriesFor(plan, prefix, revision), {
        selectors, hasSelectors, limit: plan.limit, revision,
      }, (after) => this.cache.state.countFrom(prefix, after));
      const body = renderList(type, page, formatRevision(revision), req.format, Date.now(), this.cache.onRenderError);
      return new Response(body, { headers: { 'content-type': 'application/json' } });
    } catch (e) {
      return statusResponse(failure(e).status);
    }
  }

  async write(groupResource: string, req: WriteRequest, options: WriteOptions = {}): Promise<Result<StoreReply>> {
    await knowType(this.env as CrdEnv, groupResource, options.crdRevision);
    return this.guard(groupResource, (type) => this.applyWrite(type, req, options));
  }

  /**
   * Namespace deletion, for one type: fences `namespace` at `revision` (the namespaces-store revision
   * that marked it Terminating) and deletes its objects, in one call: the fence stands before the first page,
   * so no create slips in between. Answers how many objects finalizers keep (`held`).
   */
  async terminateNamespace(groupResource: string, namespace: string, revision: number, crdRevision?: number): Promise<Result<StoreReply>> {
    await knowType(this.env as CrdEnv, groupResource, crdRevision);
    const fenced = this.guard(groupResource, () => {
      this.fence.raise(namespace, revision);
      return { code: 200, body: '' };
    });
    if (!fenced.ok) return fenced;
    // Page by page, as any deletecollection, so other requests are served in between; the fence keeps creates out.
    let held = 0;
    let after = '';
    for (;;) {
      const page = this.guard(groupResource, (type) => this.applyWrite(type, {
        verb: 'deletecollection', namespace, body: '', query: {}, selectors: parseSelectors({ labelSelector: '', fieldSelector: '' }),
      }, { deletePage: { after } }));
      if (!page.ok) return page;
      held += page.value.held ?? 0;
      if (!page.value.continue) return { ok: true, value: { code: 200, body: JSON.stringify({ held }), held, revision: this.cache.revision } };
      after = page.value.continue;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  /**
   * Namespace deletion with the namespace controller running: fences `namespace` at `revision` only; the
   * controller deletes the contents through the API, and a create admitted before the mark is refused here.
   */
  async fenceNamespace(groupResource: string, namespace: string, revision: number, crdRevision?: number): Promise<Result<true>> {
    await knowType(this.env as CrdEnv, groupResource, crdRevision);
    try {
      this.typeFor(groupResource);
      this.fence.raise(namespace, revision);
      return { ok: true, value: true };
    } catch (e) {
      return failure(e);
    }
  }

  /** Watches arrive as fetches (HTTP streaming or a WebSocket upgrade) with the target in headers. */
  override async fetch(request: Request): Promise<Response> {
    try {
      const gr = request.headers.get(WATCH_HEADERS.type) ?? '';
      const crdRevision = request.headers.get(CRD_REVISION_HEADER);
      await knowType(this.env as CrdEnv, gr, crdRevision ? Number(crdRevision) : undefined);
      this.typeFor(gr);
    } catch (e) {
      return statusResponse(failure(e).status);
    }
    return this.cache.watch(request);
  }

  /** The newest revision: what a consistent read from a replica must have reached. */
  async currentRevision(groupResource: string): Promise<number> {
    await knowType(this.env as CrdEnv, groupResource);
    this.typeFor(groupResource);
    return this.cache.revision;
  }

  /** A replica joins: from `after`, it receives every change by push; the reply holds what it missed. */
  async subscribe(groupResource: string, replica: string, after: number): Promise<SubscribeReply> {
    await knowType(this.env as CrdEnv, groupResource);
    this.typeFor(groupResource);
    return this.replication.subscribe(replica, after);
  }

  async unsubscribe(groupResource: string, replica: string): Promise<void> {
    await knowType(this.env as CrdEnv, groupResource);
    this.typeFor(groupResource);
    this.replication.unsubscribe(replica);
  }

  /** Changes after `after` from the log, for replicas and catching-up watchers; undefined once compacted. */
  async changesSince(groupResource: string, after: number, limit = LOG_BATCH_LIMIT): Promise<ChangeRow[] | undefined> {
    await knowType(this.env as CrdEnv, groupResource);
    this.typeFor(groupResource);
    if (after < this.compacted) return undefined;
    return this.log.since(after, Math.min(limit, LOG_BATCH_LIMIT));
  }

  override async webSocketMessage(ws: WebSocket): Promise<void> {
    // Like kube-apiserver, what a watch client sends is ignored, except as a sign it is reading.
    this.cache?.socketHeard(ws);
  }

  override async webSocketClose(ws: WebSocket): Promise<void> {
    this.cache?.socketClosed(ws);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.cache?.socketClosed(ws);
  }

  override async alarm(): Promise<void> {
    this.cache?.alarm();
  }

  /**
   * Ends every watch of this store, after the events already sent (a custom type whose CRD is being
   * removed: kube ends those watches when the type's storage goes away).
   */
  async endWatches(groupResource: string): Promise<void> {
    if (!this.type) return; // never served: no watchers
    this.typeFor(groupResource);
    this.cache.hub.closeAll();
    // Replicas end theirs once they have delivered everything up to here.
    const revision = this.cache.revision;
    const replicas = this.replication.names().filter((n) => !n.startsWith(AUTHORIZER_PREFIX));
    await Promise.all(replicas.map((name) => this.env.REPLICA?.get(this.env.REPLICA.idFromName(name)).endWatches(groupResource, name, revision)
      .catch((e: unknown) => console.error('replica endWatches failed', name, (e as Error)?.message))));
  }

  /** Test hook (only routed when ENABLE_TEST_HOOKS is set): restart this object as a crash would. */
  async abort(): Promise<void> {
    this.ctx.abort('aborted by test hook');
  }

  /** Counters for /metrics. */
  async stats(groupResource: string): Promise<StoreStats> {
    await knowType(this.env as CrdEnv, groupResource);
    this.typeFor(groupResource);
    return {
      ...this.cache.stats(),
      compacted: this.compacted,
      subscriptions: this.replication.size,
      replicas: this.replication.names(),
      writes: this.writes,
      messagesSent: this.replication.messagesSent,
    };
  }

  private applyWrite(type: ResourceType, req: WriteRequest, { dryRun = false, fieldValidation, escalation, namespaceRevision, deletePage }: WriteOptions): StoreReply {
    if (req.verb === 'deletecollection' && deletePage) {
      const after = deletePage.after ? deletePage.after + '\u0000' : '';
      const picked = pickDeletePage(this.cache.state.range(namespacePrefix(req.namespace), after), req.selectors);
      req = { ...req, page: { ...picked, resourceVersion: formatRevision(this.cache.revision) } };
    }
    const warnings: string[] = [];
    const changes: Committed[] = [];
    let next = this.cache.revision;
    const now = Date.now();
    const state = this.cache.state;
    const reply = this.ctx.storage.transactionSync(() => {
      const result = executeWrite({
        get: (key) => {
          const e = state.get(key);
          return e ? (JSON.parse(e.json) as KubeObject) : undefined;
        },
        objects: (namespace) => [...state.range(namespacePrefix(namespace))].map((e) => JSON.parse(e.json) as KubeObject),
        commit: (kind, key, object) => {
          const namespace = object.metadata.namespace ?? '';
          if (kind === 'ADDED' && namespaceRevision !== undefined && namespace && this.fence.blocks(namespace, namespaceRevision)) {
            throw new StatusError(namespaceTerminating(type, object.metadata.name ?? '', namespace));
          }
          if (dryRun) return object;
          next += 1;
          object.metadata.resourceVersion = formatRevision(next);
          const prev = state.get(key);
          const row: ChangeRow = { revision: next, type: kind, key, value: JSON.stringify(object), prev_value: prev?.json ?? null };
          this.log.append(row, now);
          changes.push({ row, object, prev });
          return object;
        },
        serviceAllocations: this.serviceAllocations,
      }, { type, now, newUid: () => crypto.randomUUID(), randomSuffix, fieldValidation, warnings, guard: escalationGuard(type, escalation), garbageCollection: this.settings.controllers,
        defaultTolerationSeconds: this.settings.defaultTolerationSeconds }, req);
      if (changes.length) this.log.setMeta('revision', next);
      const reply: StoreReply = { code: result.code, body: JSON.stringify(result.body), revision: next };
      if (warnings.length) reply.warnings = warnings;
      if (result.held !== undefined) reply.held = result.held;
      if (req.verb === 'deletecollection' && req.page?.continue) reply.continue = req.page.continue;
      return reply;
    });
    if (changes.length) this.publish(changes, now);
    return reply;
  }

  /**
   * Memory, watchers and replicas follow SQLite only once the transaction has committed. The output
   * gate holds every frame and push sent here until the write is durable. Nothing here may stop the
   * push to replicas: the hub isolates each watcher, and a change that fails to apply is logged.
   */
  private publish(changes: Committed[], now: number): void {
    for (const c of changes) {
      this.serviceAllocations?.track(c.row.key, c.row.type === 'DELETED' ? undefined : c.object);
      try {
        this.cache.apply(this.cache.event(c.row, now, c.object, c.prev));
      } catch (e) {
        console.error(`applying revision ${c.row.revision} to the watch cache failed`, e);
      }
    }
    this.writes++;
    this.eventCount += changes.length;
    // Compact first, so the push tells replicas the compaction point this write produced.
    this.compactIfNeeded(now);
    this.replication.push(changes.map((c) => c.row), changes[changes.length - 1].row.revision);
  }

  /**
   * Test hook (only routed when ENABLE_TEST_HOOKS is set): commits `object` as it is, without admission,
   * defaulting or validation, as ADDED or MODIFIED through the same log, watch cache and replica push as
   * any write, so tests can plant objects the API would refuse. Only metadata.name is required.
   */
  async rawWrite(groupResource: string, object: KubeObject): Promise<Result<StoreReply>> {
    return this.guard(groupResource, (type) => {
      const name = object?.metadata?.name;
      if (typeof name !== 'string' || !name) throw new StatusError(badRequest('raw write: metadata.name is required'));
      const namespace = type.namespaced ? String(object.metadata.namespace ?? '') : '';
      if (type.namespaced && !namespace) throw new StatusError(badRequest('raw write: metadata.namespace is required'));
      const key = objectKey(namespace, name);
      const now = Date.now();
      const prev = this.cache.state.get(key);
      const revision = this.cache.revision + 1;
      object.metadata.resourceVersion = formatRevision(revision);
      const row: ChangeRow = { revision, type: prev ? 'MODIFIED' : 'ADDED', key, value: JSON.stringify(object), prev_value: prev?.json ?? null };
      this.ctx.storage.transactionSync(() => {
        this.log.append(row, now);
        this.log.setMeta('revision', revision);
      });
      this.publish([{ row, object, prev }], now);
      return { code: prev ? 200 : 201, body: row.value, revision };
    });
  }

  /** Retention by count and/or age; what is compacted answers 410 Expired from then on. */
  private compactIfNeeded(now: number): void {
    const keep = this.settings.eventRetentionCount;
    const maxAgeMs = this.settings.eventRetentionSeconds * 1000;
    let upTo = this.compacted;
    if (this.eventCount > keep) upTo = Math.max(upTo, this.cache.revision - keep);
    if (maxAgeMs > 0) upTo = Math.max(upTo, this.log.newestBefore(now - maxAgeMs) ?? 0);
    if (upTo <= this.compacted) return;
    this.ctx.storage.transactionSync(() => this.log.compact(upTo));
    this.compacted = upTo;
    this.eventCount = this.log.eventCount();
  }

  private entriesFor(plan: ListPlan, prefix: string, revision: number): Iterable<StateEntry> {
    const current = this.cache.state.range(prefix, plan.start);
    if (revision >= this.cache.revision) return current;
    // Undo, per key, every change after `revision`: its first later event's previous value is its value then.
    const before = this.log.valuesBefore(revision, (key) => key.startsWith(prefix) && key >= plan.start);
    const overrides = new Map<string, StateEntry | null>();
    for (const [key, value] of before) overrides.set(key, value === null ? null : this.cache.entry(key, 0, value));
    return entriesAt(current, overrides);
  }

  private typeFor(groupResource: string): ResourceType {
    if (this.type && !this.type.custom) return this.type;
    if (this.type) {
      // A custom type follows its CRD: a changed schema or columns apply from the next request on.
      const now = lookupGroupResource(groupResource);
      if (now && now !== this.type) {
        this.type = now;
        this.cache.retype(now);
      }
      return this.type;
    }
    const type = lookupGroupResource(groupResource);
    if (!type) throw new Error(`unknown resource type ${groupResource}`);
    this.type = type;
    if (this.log.meta('type') !== groupResource) this.log.setMeta('type', groupResource);
    this.cache = new WatchCache({
      ctx: this.ctx,
      type,
      settings: this.settings,
      revision: this.log.meta('revision'),
      compacted: () => this.compacted,
      readLog: async (after, limit) => this.log.since(after, limit),
    });
    for (const row of this.log.objects()) this.cache.state.set(this.cache.entry(row.key, row.revision, row.value));
    if (isCoreService(type)) {
      this.serviceAllocations = ServiceAllocations.fromState(this.cache.state.range(''));
    }
    this.replication = new Replication(this.ctx, this.env, groupResource, this.log, () => this.cache.revision, () => this.compacted);
    this.bootstrap(type, groupResource);
    this.cache.restoreSockets();
    this.replication.announce();
    return type;
  }

  /**
   * The store's bootstrap objects brought to this version's at every start (core/bootstrap.ts): created when missing,
   * reconciled as kube-apiserver's post-start hooks do. They are kube-apiserver's own writes (its managedFields
   * manager); one that fails is logged and skipped, never stopping the store from loading.
   */
  private bootstrap(type: ResourceType, groupResource: string): void {
    const read = (namespace: string, name: string) => {
      const e = this.cache.state.get(objectKey(namespace, name));
      return e ? JSON.parse(e.json) as unknown : undefined;
    };
    for (const w of bootstrapWrites(groupResource, read)) {
      const req: WriteRequest = w.verb === 'create' ? { ...w, fieldManager: 'kube-apiserver' }
        : w.verb === 'update' ? { ...w, subresource: '', fieldManager: 'kube-apiserver' }
        : { ...w, body: '', query: {} };
      try {
        const reply = this.applyWrite(type, req, { escalation: SYSTEM_GRANT });
        if (reply.code >= 300) console.error(`bootstrap ${w.verb} ${groupResource} ${'name' in w ? w.name : ''}: ${reply.code} ${reply.body.slice(0, 300)}`);
      } catch (e) {
        console.error(`bootstrap ${w.verb} ${groupResource}: ${(e as Error)?.message ?? e}`);
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
