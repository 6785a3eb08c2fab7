// Console: one live feed per resource type: list, then one WebSocket watch resuming from the newest
// resourceVersion with jittered backoff (the project's watch client), relisting when the server answers 410.
// Panels read its rows and subscribe to its events; its state says how live the data is.

import { listAll, watch, type KubeObject, type WatchEvent } from '../client/index';
import type { Session } from './session';

export type FeedState = 'connecting' | 'syncing' | 'live' | 'resuming' | 'error';

export interface FeedEvent {
  type: WatchEvent['type'];
  object: KubeObject;
  receivedAt: number; // performance.now()
  replica: string; // where the page asked to be served from
}

export interface FeedStatus {
  state: FeedState;
  resourceVersion: string;
  reconnects: number;
  relists: number;
  last410At: number | undefined;
  lastMessageAt: number | undefined; // performance.now() of the last event or bookmark
  openedAt: number | undefined;
  error: string | undefined;
}

export interface FeedOptions {
  session: Session;
  label: string; // Pods, Deployments, ...
  path: string; // collection path, e.g. /api/v1/pods
  replica: { location: string; index: number } | 'store';
}

export function replicaQuery(replica: FeedOptions['replica']): string {
  return replica === 'store' ? '?edgeplaneLocation=store' : `?edgeplaneLocation=${replica.location}&edgeplaneReplica=${replica.index}`;
}

export function replicaLabel(replica: FeedOptions['replica']): string {
  return replica === 'store' ? 'store' : `${replica.location}#${replica.index}`;
}

export class Feed {
  readonly rows = new Map<string, KubeObject>(); // by uid
  readonly status: FeedStatus = {
    state: 'connecting', resourceVersion: '', reconnects: 0, relists: 0, last410At: undefined, lastMessageAt: undefined,
    openedAt: undefined, error: undefined,
  };
  private readonly listeners = new Set<(e: FeedEvent) => void>();
  private readonly relistListeners = new Set<() => void>();
  private abort = new AbortController();
  private running: Promise<void> | undefined;

  constructor(readonly opts: FeedOptions) {}

  onEvent(f: (e: FeedEvent) => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }

  onRelist(f: () => void): () => void {
    this.relistListeners.add(f);
    return () => this.relistListeners.delete(f);
  }

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  private async run(): Promise<void> {
    const { session, path, replica } = this.opts;
    const signal = this.abort.signal;
    const conn = { server: session.server, token: session.token };
    while (!signal.aborted) {
      try {
        this.status.state = 'syncing';
        const list = await listAll({ ...conn, path, limit: 500, signal });
        this.rows.clear();
        for (const o of list.items) this.rows.set(key(o), o);
        this.status.resourceVersion = list.resourceVersion;
        this.status.relists++;
        this.status.error = undefined;
        for (const f of this.relistListeners) f();
        const result = await watch({
          ...conn, path: path + replicaQuery(replica), transport: 'websocket', resourceVersion: list.resourceVersion,
          allowWatchBookmarks: true, signal,
          onOpen: () => {
            this.status.state = 'live';
            this.status.openedAt = performance.now();
          },
          onDisconnect: () => {
            this.status.state = 'resuming';
            this.status.reconnects++;
          },
          onEvent: (e) => this.apply(e),
          backoff: { initialMs: 250, maxMs: 5000 },
        });
        if (result.reason === 'expired') {
          this.status.last410At = Date.now();
          this.status.state = 'resuming';
          continue; // relist
        }
        return;
      } catch (e) {
        if (signal.aborted) return;
        this.status.state = 'error';
        this.status.error = (e as Error).message;
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
  }

  private apply(e: WatchEvent): void {
    this.status.lastMessageAt = performance.now();
    const rv = e.object.metadata?.resourceVersion;
    if (e.type === 'BOOKMARK') {
      if (rv) this.status.resourceVersion = rv;
      return;
    }
    // Headlamp's rule: nothing at or below what the page already has (a replayed event after a reconnect).
    if (rv && this.status.resourceVersion && Number(rv) <= Number(this.status.resourceVersion)) return;
    if (rv) this.status.resourceVersion = rv;
    const k = key(e.object);
    if (e.type === 'DELETED') this.rows.delete(k);
    else this.rows.set(k, e.object);
    const event: FeedEvent = { type: e.type, object: e.object, receivedAt: performance.now(), replica: replicaLabel(this.opts.replica) };
    for (const f of this.listeners) f(event);
  }
}

export function key(o: KubeObject): string {
  return String(o.metadata.uid ?? `${o.metadata.namespace ?? ''}/${o.metadata.name}`);
}
