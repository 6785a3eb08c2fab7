// Caching and broadcast layers inside a Durable Object: current state, the event window and the watcher hub,
// the freshness wait, and the alarm their timers share. The canonical store and each watch-cache replica own
// one; they differ only in where changes come from (their own writes, or a subscription). Watches arrive and
// leave through its WatchServer (watch-server.ts); LISTs read it as a ListSource (core/list/serve-list.ts).

import { apiVersionOf, type ResourceType } from '../core/registry';
import type { KubeObject } from '../core/object-meta';
import { namespacePrefix } from '../core/object-key';
import { ObjectState, type StateEntry } from '../core/object-state';
import { objectFields } from '../core/selectors/object-fields';
import { RevisionWaiters } from '../core/watch/revision-waiters';
import { toTableIsolated } from '../core/tables/isolated';
import { logRenderError } from '../core/list/render';
import type { ListSource } from '../core/list/serve-list';
import { WatchWindow, DEFAULT_WINDOW } from '../core/watch/window';
import { WatchHub } from '../core/watch/hub';
import type { WatchEvent } from '../core/watch/event';
import type { ChangeRow } from '../core/follow/change-log';
import type { Settings } from '../core/settings';
import type { CacheStats } from '../contract/rpc';
import { WatchServer } from './watch-server';
import { readDefaulter, type ReadDefaulter } from '../core/crd/read-defaults';

export interface WatchCacheOptions {
  ctx: DurableObjectState;
  type: ResourceType;
  settings: Settings;
  revision: number; // the revision the initial state reflects
  compacted: () => number; // below this, resuming answers 410
  readLog: (after: number, limit: number) => Promise<ChangeRow[]>; // the canonical log
}

// apiserver watch_cache.go blockTimeout: how long a read waits for a revision not reached yet.
export const FRESHNESS_WAIT_MS = 3000;
const REPLAY_BATCH = 500;
// A catching-up client that takes nothing from its full buffer for this long is closed; it may resume.
const DRAIN_WAIT_MS = 30_000;

export class WatchCache {
  readonly state = new ObjectState();
  readonly window: WatchWindow;
  readonly hub: WatchHub;
  readonly server: WatchServer;
  revision: number;
  private readonly waiters = new RevisionWaiters();
  // Log reads under way, by (after, limit): watchers that open from the same revision behind the window (a
  // thousand from one list's resourceVersion) share one read, one parse, and the frames cached on its events.
  private readonly logReads = new Map<string, Promise<WatchEvent[]>>();
  private alarmAt: number | undefined;
  private tableFallbacks = 0;
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
    const { type } = o;
    this.window = new WatchWindow({ ...DEFAULT_WINDOW, maxEvents: s.watchWindowEvents, maxBytes: s.watchWindowBytes }, o.revision);
    this.hub = new WatchHub({
      kind: type.kind,
      apiVersion: apiVersionOf(type),
      revision: () => this.revision,
      compacted: o.compacted,
      window: this.window,
      entries: (namespace) => this.state.range(namespacePrefix(namespace)),
      readLog: (after, limit) => this.sharedLogRead(after, limit),
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
    this.server = new WatchServer(o.ctx, s, {
      hub: this.hub,
      revision: () => this.revision,
      type: () => this.o.type,
      wakeAt: (at) => this.wakeAt(at),
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

  /**
   * Events after `after` from the canonical log, shared with any read of the same range still under way. Its
   * answer is the log as it was when the read began; the hub reads on from there until it reaches the window.
   */
  private sharedLogRead(after: number, limit: number): Promise<WatchEvent[]> {
    const key = `${after}/${limit}`;
    let read = this.logReads.get(key);
    if (!read) {
      read = this.o.readLog(after, limit).then((rows) => rows.map((row) => this.event(row, 0)));
      this.logReads.set(key, read);
      const done = () => this.logReads.delete(key);
      read.then(done, done);
    }
    return read;
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

  /** True once this cache has reached `revision`, false if it has not within the freshness wait. */
  async reached(revision: number): Promise<boolean> {
    return revision <= this.revision || this.waiters.wait(revision, FRESHNESS_WAIT_MS);
  }

  /** This cache as a LIST reads it; the store adds its history, a replica its consistency check. */
  listSource(extra: Pick<ListSource, 'valuesBefore' | 'consistentRevision'> = {}): ListSource {
    return {
      type: this.o.type,
      state: this.state,
      revision: () => this.revision,
      compacted: this.o.compacted,
      reached: (revision) => this.reached(revision),
      entry: (key, json) => this.entry(key, 0, json),
      onRenderError: this.onRenderError,
      ...extra,
    };
  }

  /** Bookmarks and timeouts: the Durable Object's alarm calls this. */
  alarm(): void {
    this.alarmAt = undefined;
    const next = this.hub.tick(Date.now());
    if (next !== undefined) this.wakeAt(next);
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
    const server = this.server.stats();
    return {
      ...hub, socketStalls: server.socketStalls, quotaRefused: server.quotaRefused, watchers: this.hub.size, revision: this.revision,
      objects: this.state.size, windowEvents: this.window.size,
      renderErrors: hub.renderErrors + this.tableFallbacks, sinkErrors: hub.sinkErrors + server.sinkErrors,
    };
  }
}
