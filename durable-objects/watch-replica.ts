// Replicas: a watch-cache replica Durable Object near its clients, one per resource type and placement.
// It holds its own state and event window, fed by exactly one subscription to the canonical store (a
// list at revision R, then every change after R, pushed in order and pulled on any gap), and serves
// watches and RV "0"/NotOlderThan lists, so watcher count never becomes load on the store.

import { DurableObject } from 'cloudflare:workers';
import { groupResource, lookupGroupResource, type ResourceType } from '../core/registry';
import { CRD_REVISION_HEADER, knowType, type CrdEnv } from './crd-source';
import { internalError, StatusError, statusResponse } from '../core/status';
import { parseListOptions, parseSelectors } from '../core/list/options';
import { planList } from '../core/list/plan';
import { readPage } from '../core/list/query';
import { namespacePrefix } from '../core/object-key';
import { formatRevision } from '../core/revision';
import { renderList } from '../core/list/render';
import { WatchCache, type CacheStats, type ChangeRow } from './watch-cache';
import { requireSettings, type Settings } from '../core/settings';
import { WATCH_HEADERS } from '../core/watch/headers';
import type { ListRequest, ResourceStore } from './resource-store';

export interface ReplicaBindings {
  STORE: DurableObjectNamespace<ResourceStore>;
}

export interface ReplicaStats extends CacheStats {
  name: string;
  storeRevision: number;
  lag: number;
  eventsReceived: number;
  pushesReceived: number;
  resyncs: number;
}

const SNAPSHOT_PAGE = 500;
// A replica with no watchers for this long drops its subscription and its memory, so it can be evicted.
const IDLE_UNSUBSCRIBE_MS = 30_000;

export class WatchReplica extends DurableObject<ReplicaBindings> {
  private name = '';
  private type: ResourceType | undefined;
  private cache: WatchCache | undefined;
  private syncing: Promise<WatchCache> | undefined;
  private pulling: Promise<void> | undefined;
  private storeRevision = 0;
  private storeCompacted = 0;
  private eventsReceived = 0;
  private pushesReceived = 0;
  private resyncs = 0;
  private paused = false; // test hook: hold pushes to simulate a lagging replica
  private held: ChangeRow[] = [];

  private readonly settings: Settings;

  constructor(ctx: DurableObjectState, env: ReplicaBindings) {
    super(ctx, env);
    this.settings = requireSettings(env);
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value)');
    const meta = Object.fromEntries(ctx.storage.sql.exec<{ name: string; value: string | number }>('SELECT name, value FROM meta').toArray().map((r) => [r.name, r.value]));
    // Woken with watchers still connected (after hibernation): sync again, then replay to them what
    // they missed since the revision this replica had reached.
    if (meta.name && ctx.getWebSockets().length > 0) {
      ctx.waitUntil((async () => {
        await knowType(env as CrdEnv, String(meta.type)); // a custom type's definition first
        this.identify(String(meta.name), String(meta.type));
        await this.sync(Number(meta.revision ?? 0));
      })().catch((e) => console.error('replica resync failed', e)));
    }
  }

  /** Watches: the Worker picked this replica for the client's location. */
  override async fetch(request: Request): Promise<Response> {
    try {
      const crdRevision = request.headers.get(CRD_REVISION_HEADER);
      await knowType(this.env as CrdEnv, request.headers.get(WATCH_HEADERS.type) ?? '', crdRevision ? Number(crdRevision) : undefined);
      this.identify(request.headers.get(WATCH_HEADERS.replica) ?? '', request.headers.get(WATCH_HEADERS.type) ?? '');
      const cache = await this.sync();
      return cache.watch(request);
    } catch (e) {
      return errorResponse(e);
    }
  }

  /**
   * Lists of the latest state from this replica: RV "0" and NotOlderThan, and consistent lists (RV unset)
   * once this replica has reached the store's current revision (KEP-2340), else from the store itself.
   * Exact and continued reads go to the store.
   */
  async list(groupResource: string, name: string, req: ListRequest): Promise<Response> {
    try {
      await knowType(this.env as CrdEnv, groupResource, req.crdRevision);
      this.identify(name, groupResource);
      const type = this.type!;
      const cache = await this.sync();
      const opts = parseListOptions(new URLSearchParams(req.query), false);
      const selectors = parseSelectors(opts, type);
      const plan = planList(opts, this.storeCompacted);
      if (plan.revision !== 'latest') throw new Error('replicas serve only lists of the latest state');
      if (opts.resourceVersion === '') {
        // Consistent: everything written before this request, which the store's revision bounds.
        const head = await this.store().currentRevision(groupResource);
        if (!(await cache.reached(head))) return this.store().list(groupResource, req);
      }
      // Never an older state as if it were newer: wait (bounded) until this replica has reached it.
      await cache.waitFor(plan.minRevision);
      const prefix = namespacePrefix(req.namespace);
      const page = readPage(cache.state.range(prefix, plan.start), {
        selectors, hasSelectors: opts.labelSelector !== '' || opts.fieldSelector !== '', limit: plan.limit, revision: cache.revision,
      }, (after) => cache.state.countFrom(prefix, after));
      return new Response(renderList(type, page, formatRevision(cache.revision), req.format, Date.now(), cache.onRenderError), {
        headers: { 'content-type': 'application/json' },
      });
    } catch (e) {
      return errorResponse(e);
    }
  }

  /**
   * A push from the store: the changes of one write, the store's newest revision, and how far its log
   * is compacted (resuming below that answers 410 here too, as at the store: revisions are canonical).
   */
  async receive(groupResource: string, name: string, changes: ChangeRow[], head: number, compacted: number): Promise<void> {
    await knowType(this.env as CrdEnv, groupResource);
    this.identify(name, groupResource);
    this.pushesReceived++;
    this.storeRevision = Math.max(this.storeRevision, head);
    this.storeCompacted = Math.max(this.storeCompacted, compacted);
    if (!this.cache) {
      // Not serving (restarted, or idle): drop the subscription rather than be pushed to for nothing.
      if (!this.syncing) this.ctx.waitUntil(this.store().unsubscribe(groupResource, name).catch(() => undefined));
      return;
    }
    if (this.paused) {
      this.held.push(...changes);
      return;
    }
    this.applyChanges(changes);
    if (this.cache.revision < head) this.pullMissing();
  }

  async stats(groupResource: string, name: string): Promise<ReplicaStats> {
    await knowType(this.env as CrdEnv, groupResource);
    this.identify(name, groupResource);
    const cache = this.cache?.stats() ?? { watchers: 0, deliveries: 0, slowClosed: 0, expired: 0, renderErrors: 0, sinkErrors: 0, socketStalls: 0, quotaRefused: 0, revision: 0, objects: 0, windowEvents: 0 };
    return {
      ...cache,
      name,
      storeRevision: this.storeRevision,
      lag: this.cache ? Math.max(0, this.storeRevision - this.cache.revision) : 0,
      eventsReceived: this.eventsReceived,
      pushesReceived: this.pushesReceived,
      resyncs: this.resyncs,
    };
  }

  /** Test hook (only routed when ENABLE_TEST_HOOKS is set): hold pushes, to make this replica lag. */
  async setPaused(paused: boolean): Promise<void> {
    this.paused = paused;
    if (!paused && this.cache) {
      const held = this.held;
      this.held = [];
      this.applyChanges(held);
      this.pullMissing();
    }
  }

  /** The store's type is going away (its CRD is deleted): end every watch after events up to `revision`. */
  async endWatches(groupResource: string, name: string, revision: number): Promise<void> {
    if (!this.type) return; // never served: no watchers
    this.identify(name, groupResource);
    const cache = this.cache;
    if (!cache) return;
    await cache.reached(revision);
    cache.hub.closeAll();
  }

  /** Test hook: restart this object as a crash would. */
  async abort(): Promise<void> {
    this.ctx.abort('aborted by test hook');
  }

  override async webSocketMessage(ws: WebSocket): Promise<void> {
    // Like kube-apiserver, what a watch client sends is ignored, except as a sign it is reading.
    this.cache?.socketHeard(ws);
  }

  override async webSocketClose(ws: WebSocket): Promise<void> {
    this.cache?.socketClosed(ws);
    this.scheduleIdleCheck();
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.cache?.socketClosed(ws);
    this.scheduleIdleCheck();
  }

  override async alarm(): Promise<void> {
    if (!this.cache) return;
    this.cache.alarm();
    if (this.cache.hub.size === 0) await this.unsubscribe();
    else this.scheduleIdleCheck();
  }

  private identify(name: string, groupResource: string): void {
    if (this.type?.custom) {
      // A custom type follows its CRD (columns, selectable fields), as the store does.
      const now = lookupGroupResource(groupResource);
      if (now && now !== this.type) {
        this.type = now;
        this.cache?.retype(now);
      }
    }
    if (this.type) return;
    const type = lookupGroupResource(groupResource);
    if (!type || !name) throw new Error(`replica needs a name and a known type (got "${name}", "${groupResource}")`);
    this.type = type;
    this.name = name;
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO meta (name, value) VALUES ('name', ?), ('type', ?)", name, groupResource);
  }

  private store() {
    return this.env.STORE.get(this.env.STORE.idFromName(groupResource(this.type!)));
  }

  /**
   * The subscription: a consistent paged list at revision R, then "everything after R" from the store,
   * which from then on pushes each write. `restoreFrom`: watchers left from before an eviction, which
   * have seen everything up to that revision.
   */
  private sync(restoreFrom?: number): Promise<WatchCache> {
    if (this.cache) return Promise.resolve(this.cache);
    this.syncing ??= this.loadAndSubscribe(restoreFrom).finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  private async loadAndSubscribe(restoreFrom?: number): Promise<WatchCache> {
    const gr = groupResource(this.type!);
    const store = this.store();
    const items: { key: string; json: string }[] = [];
    let revision = 0;
    let cont = '';
    do {
      const res = await store.list(gr, { namespace: '', query: `?limit=${SNAPSHOT_PAGE}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`, format: { as: 'List' } });
      const page = (await res.json()) as { metadata: { resourceVersion: string; continue?: string }; items: { metadata: { namespace?: string; name: string } }[] };
      if (!res.ok) throw new Error(`snapshot list failed: ${JSON.stringify(page)}`);
      revision = Number(page.metadata.resourceVersion);
      for (const obj of page.items) {
        const key = obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name;
        items.push({ key, json: JSON.stringify(obj) });
      }
      cont = page.metadata.continue ?? '';
    } while (cont);
    const cache = new WatchCache({
      ctx: this.ctx,
      type: this.type!,
      settings: this.settings,
      revision,
      compacted: () => this.storeCompacted,
      readLog: async (after, limit) => (await store.changesSince(gr, after, limit)) ?? [],
    });
    for (const item of items) cache.state.set(cache.entry(item.key, revision, item.json));
    const reply = await store.subscribe(gr, this.name, revision);
    this.storeRevision = Math.max(this.storeRevision, reply.revision);
    this.storeCompacted = reply.compacted;
    this.cache = cache;
    this.resyncs++;
    if (reply.changes) this.applyChanges(reply.changes);
    // Watchers from before an eviction replay what they missed through the hub's catch-up.
    if (restoreFrom !== undefined) cache.restoreSockets(restoreFrom);
    if (cache.revision < this.storeRevision) this.pullMissing();
    return cache;
  }


  /** Applies changes in revision order; anything after a gap waits for the pull that fills it. */
  private applyChanges(changes: ChangeRow[]): void {
    const cache = this.cache!;
    for (const row of changes) {
      if (row.revision <= cache.revision) continue;
      if (row.revision !== cache.revision + 1) {
        this.storeRevision = Math.max(this.storeRevision, row.revision);
        break;
      }
      cache.apply(cache.event(row, Date.now()));
      this.eventsReceived++;
    }
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO meta (name, value) VALUES ('revision', ?)", cache.revision);
  }

  /** Pulls revisions between this replica and the store's newest, one pull at a time. */
  private pullMissing(): void {
    if (this.pulling || !this.cache) return;
    const gr = groupResource(this.type!);
    this.pulling = (async () => {
      while (this.cache && !this.paused && this.cache.revision < this.storeRevision) {
        const rows = await this.store().changesSince(gr, this.cache.revision);
        if (!rows) {
          // The store compacted past this replica: start over from a fresh list. Its watchers resume.
          this.cache.hub.closeAll();
          this.cache = undefined;
          await this.sync();
          return;
        }
        if (rows.length === 0) return;
        this.applyChanges(rows);
      }
    })().catch((e) => console.error('replica pull failed', e)).finally(() => {
      this.pulling = undefined;
    });
  }

  private scheduleIdleCheck(): void {
    if (this.cache && this.cache.hub.size === 0) this.cache.wakeAt(Date.now() + IDLE_UNSUBSCRIBE_MS);
  }

  private async unsubscribe(): Promise<void> {
    const gr = groupResource(this.type!);
    this.cache = undefined;
    await this.store().unsubscribe(gr, this.name);
  }
}

function errorResponse(e: unknown): Response {
  if (e instanceof StatusError) return statusResponse(e.status);
  console.error('replica error', e);
  return statusResponse(internalError(String(e)));
}
