// Client: an informer: list, then watch from the list's resourceVersion, keeping a local cache and
// telling handlers about every change. When the watch's version expires (410) it lists again and diffs,
// so changes missed while disconnected still reach the handlers. With a resyncPeriod it also re-delivers
// every cached object to the update handlers now and then (client-go's resync), the backstop that lets a
// handler that missed or mishandled an event correct itself on the next pass.

import { Backoff, DEFAULT_BACKOFF, sleep, type BackoffOptions } from './backoff';
import { diffCache, objectKey } from './cache';
import { listAll } from './list';
import type { ConnectionOptions, KubeObject, Transport, WatchEvent } from './types';
import { watch } from './watcher';

export interface InformerOptions extends ConnectionOptions {
  path: string; // a collection, e.g. /api/v1/namespaces/default/configmaps
  transport?: Transport; // for the watch; lists are always plain requests
  labelSelector?: string;
  fieldSelector?: string;
  pageSize?: number; // list `limit`; default 500 as client-go's pager
  timeoutSeconds?: number; // asked of the server per watch; it closes the stream then and the watch resumes
  allowWatchBookmarks?: boolean; // default true: bookmarks keep a quiet watch's resourceVersion resumable
  backoff?: BackoffOptions;
  // client-go's SetTransform: every listed and watched object passes through it before the cache and the
  // handlers see it (e.g. keep metadata only, so a cache of Secrets does not hold their data).
  transform?: (object: KubeObject) => KubeObject;
  onError?(error: unknown): void; // a failed list or refused watch; the informer retries after a backoff
  // client-go's resyncPeriod: every cached object is handed to the update handlers as update(obj, obj) (the same
  // object twice, as client-go's OnUpdate on a resync), each pass after period × [1, 2) (jittered, as
  // kube-controller-manager randomises its resync period) so informers started together do not resync together.
  // 0 or absent: never. Read when the first list is in.
  resyncPeriodMs?: number;
  resyncBatchSize?: number; // objects per turn of a pass (default 100); the turns of one pass spread over ≤ 30 s
  random?: () => number; // [0, 1), for the resync jitter; injectable for tests
}

export interface InformerHandlers {
  add: (object: KubeObject) => void;
  update: (object: KubeObject, old: KubeObject) => void;
  delete: (object: KubeObject) => void;
}

// A pass hands over RESYNC_BATCH objects per turn of the event loop, and spreads its turns over a tenth of the
// period, at most MAX_RESYNC_SPREAD_MS: a resync of 6,000 pods is 60 short turns over 30 s, never one long burst that
// would hold the isolate's only thread (and every request behind it). Measured on the 2-core dev machine: a turn of
// 100 pods through the ReplicaSet and EndpointSlice controllers' kind of handler work takes about 1 ms.
const RESYNC_BATCH = 100;
const MAX_RESYNC_SPREAD_MS = 30_000;

export interface Informer {
  on<E extends keyof InformerHandlers>(event: E, handler: InformerHandlers[E]): void;
  off<E extends keyof InformerHandlers>(event: E, handler: InformerHandlers[E]): void;
  /** Starts listing and watching; resolves once the first list is in the cache (rejects if stopped first). */
  start(): Promise<void>;
  hasSynced(): boolean;
  list(): KubeObject[];
  get(key: string): KubeObject | undefined; // key: namespace/name, or name for cluster-scoped objects
  resourceVersion(): string | undefined; // the newest seen: of the last list, or of the last watch event
  resyncs(): number; // resync passes completed
  /** Stops watching and resolves when the run loop has ended. */
  stop(): Promise<void>;
}

export function createInformer(opts: InformerOptions): Informer {
  const handlers: { [E in keyof InformerHandlers]: Set<InformerHandlers[E]> } = {
    add: new Set(),
    update: new Set(),
    delete: new Set(),
  };
  let cache = new Map<string, KubeObject>();
  let synced = false;
  let rv: string | undefined;
  let resyncs = 0;
  const abort = new AbortController();
  let running: Promise<void> | undefined;
  // One promise for every start() caller; settled by the first list, or rejected by an earlier stop().
  let settle!: { resolve: () => void; reject: (e: unknown) => void };
  const firstSync = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  firstSync.catch(() => {}); // stop() without anyone waiting is not an unhandled rejection

  // A throwing handler must not kill the informer: report it and carry on with the others.
  const fire = <E extends keyof InformerHandlers>(event: E, ...args: Parameters<InformerHandlers[E]>) => {
    for (const h of handlers[event]) {
      try {
        (h as (...a: Parameters<InformerHandlers[E]>) => void)(...args);
      } catch (e) {
        opts.onError?.(e);
      }
    }
  };

  const apply = (event: WatchEvent) => {
    if (event.type === 'BOOKMARK') return; // the watcher already took its resourceVersion
    const key = objectKey(event.object);
    const old = cache.get(key);
    if (event.type === 'DELETED') {
      if (!old) return;
      cache.delete(key);
      fire('delete', event.object);
    } else {
      cache.set(key, event.object);
      if (old) fire('update', event.object, old);
      else fire('add', event.object);
    }
  };

  const relist = async (): Promise<string> => {
    const list = await listAll({ ...opts, path: opts.path, limit: opts.pageSize ?? 500, signal: abort.signal });
    const diff = diffCache(cache, list.items);
    cache = diff.next;
    for (const o of diff.deleted) fire('delete', o);
    for (const o of diff.added) fire('add', o);
    for (const u of diff.updated) fire('update', u.object, u.old);
    return list.resourceVersion;
  };

  const run = async () => {
    const backoff = new Backoff(opts.backoff ?? DEFAULT_BACKOFF);
    while (!abort.signal.aborted) {
      try {
        rv = await relist();
      } catch (e) {
        if (abort.signal.aborted) break;
        opts.onError?.(e);
        await sleep(backoff.next(), abort.signal);
        continue;
      }
      if (!synced) {
        synced = true;
        settle.resolve();
      }
      try {
        // Resolves on abort or expiry (410); in both cases the loop decides: stop, or list again.
        await watch({
          ...opts,
          resourceVersion: rv,
          allowWatchBookmarks: opts.allowWatchBookmarks ?? true,
          signal: abort.signal,
          onEvent: (event) => {
            rv = event.object.metadata?.resourceVersion || rv;
            backoff.reset();
            apply(opts.transform && event.type !== 'BOOKMARK' ? { ...event, object: opts.transform(event.object) } : event);
          },
        });
        // Expired: list again, after a pause that stays short while events flow but grows if every
        // fresh list's version expires at once, so a confused server does not get a list storm.
        if (!abort.signal.aborted) await sleep(backoff.next(), abort.signal);
      } catch (e) {
        // A refused watch (e.g. 403): like client-go, back off and start over with a list.
        opts.onError?.(e);
        await sleep(backoff.next(), abort.signal);
      }
    }
  };

  const resyncLoop = async () => {
    const period = opts.resyncPeriodMs ?? 0;
    if (!(period > 0)) return;
    const random = opts.random ?? Math.random;
    const batch = Math.max(1, opts.resyncBatchSize ?? RESYNC_BATCH);
    while (!abort.signal.aborted) {
      await sleep(period * (1 + random()), abort.signal);
      const keys = [...cache.keys()];
      const turns = Math.ceil(keys.length / batch);
      const pause = turns > 1 ? Math.min(period / 10, MAX_RESYNC_SPREAD_MS) / turns : 0;
      for (let i = 0; i < keys.length && !abort.signal.aborted; i += batch) {
        if (i > 0) await sleep(pause, abort.signal); // sleep(0) is still a turn of the event loop
        for (const key of keys.slice(i, i + batch)) {
          const o = cache.get(key); // the object as cached now; one deleted meanwhile is skipped
          if (o && !abort.signal.aborted) fire('update', o, o);
        }
      }
      if (!abort.signal.aborted) resyncs++;
    }
  };

  return {
    on(event, handler) {
      handlers[event].add(handler);
    },
    off(event, handler) {
      handlers[event].delete(handler);
    },
    start() {
      if (abort.signal.aborted && !synced) return Promise.reject(new Error('informer stopped'));
      running ??= Promise.all([run(), firstSync.then(resyncLoop, () => undefined)]).then(() => undefined);
      return firstSync;
    },
    hasSynced: () => synced,
    list: () => [...cache.values()],
    get: (key) => cache.get(key),
    resourceVersion: () => rv,
    resyncs: () => resyncs,
    async stop() {
      abort.abort();
      if (!synced) settle.reject(new Error('informer stopped before it synced'));
      await running;
    },
  };
}
