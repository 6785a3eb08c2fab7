// Replicas: a watch-cache replica Durable Object near its clients, one per resource type and placement. It
// holds its own state and event window, fed by exactly one subscription to the canonical store — a store
// follower (core/follow/store-follower.ts): a list at revision R, then every change after R, pushed in order
// and pulled on any gap — and serves watches and RV "0"/NotOlderThan lists, so watcher count never becomes
// load on the store. This file is its RPC surface (contract/rpc.ts ReplicaRpc) and that wiring.

import { DurableObject } from 'cloudflare:workers';
import type { ResourceType } from '../core/registry';
import { serveListBody } from '../core/list/serve-list';
import { listResponse } from './list-response';
import type { ChangeRow } from '../core/follow/change-log';
import { StoreFollower } from '../core/follow/store-follower';
import { requireSettings, type Settings } from '../core/settings';
import type { Bindings } from '../contract/bindings';
import type { ListRequest, ReplicaRpc, ReplicaStats } from '../contract/rpc';
import { CRD_REVISION_HEADER, WATCH_HEADERS } from '../contract/headers';
import { storeStub } from '../contract/names';
import { followedStore } from '../contract/store-source';
import { WatchCache } from './watch-cache';
import { REPLICA_SCHEMA, type ReplicaMetaKey } from './schema';
import { crdRevisionOf, ServedType } from './served-type';

// A replica with no watchers for this long drops its subscription and its memory, so it can be evicted.
const IDLE_UNSUBSCRIBE_MS = 30_000;
const NO_CACHE_STATS = { watchers: 0, deliveries: 0, slowClosed: 0, expired: 0, renderErrors: 0, sinkErrors: 0, socketStalls: 0, quotaRefused: 0, revision: 0, objects: 0, windowEvents: 0 };

export class WatchReplica extends DurableObject<Bindings> implements ReplicaRpc {
  private name = '';
  private cache: WatchCache | undefined; // while following
  private follower: StoreFollower | undefined; // once the type is known
  private readonly served: ServedType;
  private readonly settings: Settings;
  private readonly watchersAtWake: number; // sockets that outlived the previous instance (a wake from hibernation)

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    this.watchersAtWake = ctx.getWebSockets().length;
    this.settings = requireSettings(env);
    this.served = new ServedType(env, { first: (type, gr) => this.identify(type, gr), retype: (type) => this.cache?.retype(type) });
    ctx.storage.sql.exec(REPLICA_SCHEMA);
    const meta = Object.fromEntries(ctx.storage.sql.exec<{ name: ReplicaMetaKey; value: string | number }>('SELECT name, value FROM meta').toArray().map((r) => [r.name, r.value]));
    // Woken with watchers still connected (after hibernation): follow again, then replay to them what
    // they missed since the revision this replica had reached.
    if (meta.name && ctx.getWebSockets().length > 0) {
      ctx.waitUntil(this.restore(String(meta.name), String(meta.type), Number(meta.revision ?? 0)).catch((e) => console.error('replica resync failed', e)));
    }
  }

  /** Watches: the Worker picked this replica for the client's location. */
  override async fetch(request: Request): Promise<Response> {
    const h = request.headers;
    this.name ||= h.get(WATCH_HEADERS.replica) ?? '';
    return this.served.response(h.get(WATCH_HEADERS.type) ?? '', crdRevisionOf(h.get(CRD_REVISION_HEADER)), async () => (await this.ready()).server.watch(request));
  }

  /**
   * Lists of the latest state from this replica: RV "0" and NotOlderThan, and consistent lists (RV unset)
   * once this replica has reached the store's current revision (KEP-2340), else from the store itself.
   * Exact and continued reads go to the store.
   */
  async list(groupResource: string, name: string, req: ListRequest): Promise<Response> {
    this.name ||= name;
    return this.served.response(groupResource, req.crdRevision, async () => {
      const cache = await this.ready();
      const store = storeStub(this.env, groupResource);
      const body = await serveListBody(cache.listSource({ consistentRevision: () => store.currentRevision(groupResource) }), req, Date.now());
      if (body === undefined) return store.list(groupResource, req); // not fresh enough for a consistent read
      return listResponse(body);
    });
  }

  async receive(groupResource: string, name: string, changes: ChangeRow[], head: number, compacted: number): Promise<void> {
    this.name ||= name;
    await this.served.know(groupResource);
    // Applied before this returns; a pull the push calls for (a gap) runs on. waitUntil only then: called on
    // every push it was 5% of the isolate's time in the W=1,000 fan-out profile (bench/profile.ts fanout).
    const pull = this.follower!.receive(changes, head, compacted);
    if (pull) this.ctx.waitUntil(pull.catch((e) => console.error('replica pull failed', e)));
  }

  async stats(groupResource: string, name: string): Promise<ReplicaStats> {
    this.name ||= name;
    await this.served.know(groupResource);
    const f = this.follower!;
    return {
      ...(this.cache?.stats() ?? NO_CACHE_STATS),
      name,
      storeRevision: f.position.head,
      lag: this.cache ? Math.max(0, f.position.head - this.cache.revision) : 0,
      eventsReceived: f.stats.applied,
      pushesReceived: f.stats.pushes,
      resyncs: f.stats.loads,
      watchersAtWake: this.watchersAtWake,
    };
  }

  async setPaused(paused: boolean): Promise<void> {
    await this.follower?.hold(paused);
  }

  async endWatches(groupResource: string, name: string, revision: number): Promise<void> {
    if (!this.served.current) return; // never served: no watchers
    this.name ||= name;
    this.served.resolve(groupResource);
    const cache = this.cache;
    if (!cache) return;
    await cache.reached(revision);
    cache.hub.closeAll();
  }

  async abort(): Promise<void> {
    this.ctx.abort('aborted by test hook');
  }

  override async webSocketMessage(ws: WebSocket): Promise<void> {
    // Like kube-apiserver, what a watch client sends is ignored, except as a sign it is reading.
    this.cache?.server.socketHeard(ws);
  }

  override async webSocketClose(ws: WebSocket): Promise<void> {
    this.cache?.server.socketClosed(ws);
    this.scheduleIdleCheck();
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.cache?.server.socketClosed(ws);
    this.scheduleIdleCheck();
  }

  override async alarm(): Promise<void> {
    if (!this.cache) return;
    this.cache.alarm();
    if (this.cache.hub.size === 0) await this.follower!.stop(); // idle: unsubscribe and let go of the memory
    else this.scheduleIdleCheck();
  }

  /** The first request named the type (and this replica): remember both, and follow the store from then on. */
  private identify(type: ResourceType, groupResource: string): void {
    if (!this.name) throw new Error(`replica needs a name and a known type (got "", "${groupResource}")`);
    this.setMeta('name', this.name);
    this.setMeta('type', groupResource);
    const store = followedStore(this.env, groupResource, this.name);
    // The store's log also feeds watchers resuming from before this replica's window.
    const readLog = async (after: number, limit: number) => (await storeStub(this.env, groupResource).readLog(groupResource, after, limit)).changes ?? [];
    this.follower = new StoreFollower(store, {
      load: (snapshot) => {
        const cache = new WatchCache({ ctx: this.ctx, type: this.served.current ?? type, settings: this.settings, revision: snapshot.revision, compacted: () => this.follower!.position.compacted, readLog });
        for (const item of snapshot.items) cache.state.set(cache.entry(item.key, snapshot.revision, JSON.stringify(item.object)));
        this.cache = cache;
        this.setMeta('revision', snapshot.revision);
      },
      apply: (row) => this.cache!.apply(this.cache!.event(row, Date.now())),
      reached: (revision) => this.setMeta('revision', revision),
      // Compacted past this replica (it starts over from a fresh list; its watchers resume), or idle.
      lost: () => {
        this.cache?.hub.closeAll();
        this.cache = undefined;
      },
    });
  }

  /** After hibernation, with watchers still connected: follow again, then replay what they missed since `seenUpTo`. */
  private async restore(name: string, groupResource: string, seenUpTo: number): Promise<void> {
    this.name = name;
    await this.served.know(groupResource); // a custom type's definition first
    (await this.ready()).server.restoreSockets(seenUpTo);
  }

  /** The watch cache, following the store. */
  private async ready(): Promise<WatchCache> {
    await this.follower!.start();
    return this.cache!;
  }

  private scheduleIdleCheck(): void {
    if (this.cache && this.cache.hub.size === 0) this.cache.wakeAt(Date.now() + IDLE_UNSUBSCRIBE_MS);
  }

  private setMeta(name: ReplicaMetaKey, value: string | number): void {
    this.ctx.storage.sql.exec('INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)', name, value);
  }
}
