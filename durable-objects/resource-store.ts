// Canonical layer (the etcd role): one Durable Object per resource type. It alone holds each object, gives
// every write the next revision and logs it in the same SQLite transaction (commit-path.ts), then hands the
// event to its watch cache (its own watchers) and to the followers subscribed to it (replication.ts). This
// file is its RPC surface (contract/rpc.ts StoreRpc) and the wiring of those parts.

import { DurableObject } from 'cloudflare:workers';
import { isBuiltInGroupResource, lookupGroupResource, type ResourceType, type Subresource } from '../core/registry';
import { badRequest, notFound, StatusError, type Result } from '../core/status';
import type { KubeObject } from '../core/object-meta';
import type { WriteRequest } from '../core/writes';
import { objectKey } from '../core/object-key';
import { parseSelectors } from '../core/list/options';
import { serveListBody } from '../core/list/serve-list';
import { scaleOf } from '../core/scale';
import { jsonInView } from '../core/views/view';
import type { LogReply } from '../core/follow/change-log';
import { requireSettings, type Settings } from '../core/settings';
import { isCoreService } from '../core/admission/service-allocation';
import { ServiceAllocations } from '../core/admission/service-ranges';
import type { Bindings } from '../contract/bindings';
import type { GetRequest, ListRequest, StoreReply, StoreRpc, StoreStats, WriteOptions } from '../contract/rpc';
import { CRD_REVISION_HEADER, WATCH_HEADERS } from '../contract/headers';
import { isAuthorizerName, replicaStub } from '../contract/names';
import { knowType } from '../contract/crd-types';
import { CanonicalLog } from './canonical-log';
import { listResponse } from './list-response';
import { CommitPath } from './commit-path';
import { WatchCache } from './watch-cache';
import { Replication } from './replication';
import { NamespaceFence } from './namespace-fence';
import { StoreWrites } from './store-writes';
import { crdRevisionOf, ServedType } from './served-type';

const LOG_BATCH_LIMIT = 1000;

export class ResourceStore extends DurableObject<Bindings> implements StoreRpc {
  private readonly settings: Settings;
  private readonly log: CanonicalLog;
  private readonly fence: NamespaceFence;
  private readonly served: ServedType;
  // Built when the type is first known (load):
  private cache!: WatchCache;
  private replication!: Replication;
  private commits!: CommitPath;
  private writes!: StoreWrites;
  private serviceAllocations?: ServiceAllocations; // Services only (core/admission/service-ranges.ts)
  // Sockets that outlived the previous instance: this one woke from hibernation with them (load restores them).
  private readonly watchersAtWake: number;

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    this.watchersAtWake = ctx.getWebSockets().length;
    this.settings = requireSettings(env);
    this.log = new CanonicalLog(ctx.storage.sql);
    this.fence = new NamespaceFence(ctx.storage.sql);
    this.served = new ServedType(env, { first: (type, gr) => this.load(type, gr), retype: (type) => this.cache.retype(type) });
    // A store that has served before knows its type: load now, take back watchers whose sockets
    // outlived the object's eviction, and tell replicas where it stands.
    const known = this.log.meta('type');
    if (known && isBuiltInGroupResource(known)) this.served.resolve(known);
    // A custom type's definition comes from the CRD store first.
    else if (known) void ctx.blockConcurrencyWhile(async () => {
      await knowType(env, known);
      if (lookupGroupResource(known)) this.served.resolve(known);
    });
  }

  async get(groupResource: string, req: GetRequest): Promise<Result<StoreReply>> {
    return this.served.result(groupResource, req.crdRevision, (type) => {
      if (req.subresource && !type.subresources.includes(req.subresource as Subresource)) {
        throw new StatusError(notFound({ group: type.group, resource: `${type.resource}/${req.subresource}` }, ''));
      }
      const entry = this.cache.state.get(objectKey(req.namespace, req.name));
      if (!entry) throw new StatusError(notFound(type, req.name));
      if (req.subresource === 'scale') return { code: 200, body: JSON.stringify(scaleOf(JSON.parse(entry.json), type.custom?.scale)) };
      return { code: 200, body: jsonInView(type, req.view, entry.json) };
    });
  }

  async list(groupResource: string, req: ListRequest): Promise<Response> {
    return this.served.response(groupResource, req.crdRevision, async () => {
      const source = this.cache.listSource({ valuesBefore: (revision, keep) => this.log.valuesBefore(revision, keep) });
      // Never undefined here: only a source that may lag (a replica's) declines a consistent read.
      return listResponse((await serveListBody(source, req, Date.now()))!);
    });
  }

  async write(groupResource: string, req: WriteRequest, options: WriteOptions = {}): Promise<Result<StoreReply>> {
    // Group commit (commit-path.ts): writes arriving while the store's last ones are not yet durable share a commit.
    return this.served.result(groupResource, options.crdRevision, (type) => this.commits.queued(() => this.writes.apply(type, req, options)));
  }

  /**
   * Namespace deletion, for one type: fences `namespace` at `revision` (the namespaces-store revision
   * that marked it Terminating) and deletes its objects, in one call: the fence stands before the first page,
   * so no create slips in between. Answers how many objects finalizers keep (`held`).
   */
  async terminateNamespace(groupResource: string, namespace: string, revision: number, crdRevision?: number): Promise<Result<StoreReply>> {
    const fenced = await this.fenceNamespace(groupResource, namespace, revision, crdRevision);
    if (!fenced.ok) return fenced;
    // Page by page, as any deletecollection, so other requests are served in between; the fence keeps creates out.
    let held = 0;
    let after = '';
    for (;;) {
      const page = await this.served.result(groupResource, undefined, (type) => this.writes.apply(type, {
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
    return this.served.result(groupResource, crdRevision, () => {
      this.fence.raise(namespace, revision);
      return true as const;
    });
  }

  /** Watches arrive as fetches (HTTP streaming or a WebSocket upgrade) with the target in headers. */
  override async fetch(request: Request): Promise<Response> {
    const h = request.headers;
    return this.served.response(h.get(WATCH_HEADERS.type) ?? '', crdRevisionOf(h.get(CRD_REVISION_HEADER)), () => this.cache.server.watch(request));
  }

  async currentRevision(groupResource: string): Promise<number> {
    await this.served.know(groupResource);
    return this.cache.revision;
  }

  async subscribe(groupResource: string, subscriber: string, after: number): Promise<LogReply> {
    await this.served.know(groupResource);
    return this.replication.subscribe(subscriber, after);
  }

  async unsubscribe(groupResource: string, subscriber: string): Promise<void> {
    await this.served.know(groupResource);
    this.replication.unsubscribe(subscriber);
  }

  async readLog(groupResource: string, after: number, limit = LOG_BATCH_LIMIT): Promise<LogReply> {
    await this.served.know(groupResource);
    return this.logAfter(after, limit);
  }

  override async webSocketMessage(ws: WebSocket): Promise<void> {
    // Like kube-apiserver, what a watch client sends is ignored, except as a sign it is reading.
    this.cache?.server.socketHeard(ws);
  }

  override async webSocketClose(ws: WebSocket): Promise<void> {
    this.cache?.server.socketClosed(ws);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.cache?.server.socketClosed(ws);
  }

  override async alarm(): Promise<void> {
    this.cache?.alarm();
  }

  /**
   * Ends every watch of this store, after the events already sent (a custom type whose CRD is being
   * removed: kube ends those watches when the type's storage goes away).
   */
  async endWatches(groupResource: string): Promise<void> {
    if (!this.served.current) return; // never served: no watchers
    this.served.resolve(groupResource);
    this.cache.hub.closeAll();
    // Replicas end theirs once they have delivered everything up to here.
    const revision = this.cache.revision;
    const replicas = this.replication.names().filter((name) => !isAuthorizerName(name));
    await Promise.all(replicas.map((name) => replicaStub(this.env, name).endWatches(groupResource, name, revision)
      .catch((e: unknown) => console.error('replica endWatches failed', name, (e as Error)?.message))));
  }

  async abort(): Promise<void> {
    this.ctx.abort('aborted by test hook');
  }

  async stats(groupResource: string): Promise<StoreStats> {
    await this.served.know(groupResource);
    return {
      ...this.cache.stats(),
      compacted: this.commits.compacted,
      subscriptions: this.replication.size,
      replicas: this.replication.names(),
      writes: this.commits.writes,
      messagesSent: this.replication.messagesSent,
      watchersAtWake: this.watchersAtWake,
    };
  }

  /**
   * Test hook: commits `object` as it is, without admission, defaulting or validation, as ADDED or MODIFIED
   * through the commit path every write takes, so tests can plant objects the API would refuse. Only
   * metadata.name (and for a namespaced type metadata.namespace) is required.
   */
  async rawWrite(groupResource: string, object: KubeObject): Promise<Result<StoreReply>> {
    return this.served.result(groupResource, undefined, (type) => {
      const name = object?.metadata?.name;
      if (typeof name !== 'string' || !name) throw new StatusError(badRequest('raw write: metadata.name is required'));
      const namespace = type.namespaced ? String(object.metadata.namespace ?? '') : '';
      if (type.namespaced && !namespace) throw new StatusError(badRequest('raw write: metadata.namespace is required'));
      const key = objectKey(namespace, name);
      const existed = this.cache.state.get(key) !== undefined;
      const stored = this.commits.run(Date.now(), (tx) => tx.commit(existed ? 'MODIFIED' : 'ADDED', key, object));
      return { code: existed ? 200 : 201, body: JSON.stringify(stored), revision: this.cache.revision };
    });
  }

  /** The log after `after` (at most `limit` rows), with this store's head and compaction point. */
  private logAfter(after: number, limit = LOG_BATCH_LIMIT): LogReply {
    const reply: LogReply = { revision: this.cache.revision, compacted: this.commits.compacted };
    if (after >= this.commits.compacted) reply.changes = this.log.since(after, Math.min(limit, LOG_BATCH_LIMIT));
    return reply;
  }

  /** The type is first known: its state from SQLite, watchers kept over an eviction, followers, bootstrap objects. */
  private load(type: ResourceType, groupResource: string): void {
    const { ctx, env, log, settings } = this;
    if (log.meta('type') !== groupResource) log.setMeta('type', groupResource);
    const cache = new WatchCache({
      ctx, type, settings, revision: log.meta('revision'), compacted: () => this.commits.compacted, readLog: async (after, limit) => log.since(after, limit),
    });
    for (const row of log.objects()) cache.state.set(cache.entry(row.key, row.revision, row.value));
    if (isCoreService(type)) this.serviceAllocations = ServiceAllocations.fromState(cache.state.range(''));
    const replication = new Replication({
      ctx, env, groupResource, readLog: (after) => this.logAfter(after), revision: () => cache.revision, compacted: () => this.commits.compacted,
    });
    this.cache = cache;
    this.replication = replication;
    this.commits = new CommitPath({ ctx, log, settings, cache, replication, serviceAllocations: this.serviceAllocations });
    this.writes = new StoreWrites({ cache, commits: this.commits, fence: this.fence, settings, serviceAllocations: this.serviceAllocations });
    this.writes.bootstrap(type, groupResource);
    cache.server.restoreSockets();
    replication.announce();
  }
}
