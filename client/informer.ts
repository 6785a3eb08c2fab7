// Client: an informer: list, then watch from the list's resourceVersion, keeping a local cache and
// telling handlers about every change. When the watch's version expires (410) it lists again and diffs,
// so changes missed while disconnected still reach the handlers.

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
}

export interface InformerHandlers {
  add: (object: KubeObject) => void;
  update: (object: KubeObject, old: KubeObject) => void;
  delete: (object: KubeObject) => void;
}

export interface Informer {
  on<E extends keyof InformerHandlers>(event: E, handler: InformerHandlers[E]): void;
  off<E extends keyof InformerHandlers>(event: E, handler: InformerHandlers[E]): void;
  /** Starts listing and watching; resolves once the first list is in the cache (rejects if stopped first). */
  start(): Promise<void>;
  hasSynced(): boolean;
  list(): KubeObject[];
  get(key: string): KubeObject | undefined; // key: namespace/name, or name for cluster-scoped objects
  resourceVersion(): string | undefined; // the newest seen: of the last list, or of the last watch event
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

  return {
    on(event, handler) {
      handlers[event].add(handler);
    },
    off(event, handler) {
      handlers[event].delete(handler);
    },
    start() {
      if (abort.signal.aborted && !synced) return Promise.reject(new Error('informer stopped'));
      running ??= run();
      return firstSync;
    },
    hasSynced: () => synced,
    list: () => [...cache.values()],
    get: (key) => cache.get(key),
    resourceVersion: () => rv,
    async stop() {
      abort.abort();
      if (!synced) settle.reject(new Error('informer stopped before it synced'));
      await running;
    },
  };
}
