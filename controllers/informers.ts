// Controllers: one shared informer per resource type for every controller in the manager (client-go's
// SharedInformerFactory), with a namespace index kept by the first handler so every controller handler
// already sees it updated.

import { createInformer, type Informer } from '../client/informer';
import type { FetchFn, KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { collectionPath, type ResourceRef } from './api-client';

export interface Handlers {
  add?: (obj: KubeObject) => void;
  update?: (obj: KubeObject, old: KubeObject) => void;
  delete?: (obj: KubeObject) => void;
}

/** What controllers read: the cache of one type and its events. Tests implement it with a fake. */
export interface SharedInformer {
  get(key: string): KubeObject | undefined;
  list(): KubeObject[];
  byNamespace(namespace: string): KubeObject[];
  addHandlers(h: Handlers): void;
  hasSynced(): boolean;
}

export class IndexedCache {
  private readonly objects = new Map<string, KubeObject>();
  private readonly namespaces = new Map<string, Map<string, KubeObject>>();

  set(obj: KubeObject): void {
    const key = objectKey(obj);
    this.objects.set(key, obj);
    const ns = obj.metadata.namespace ?? '';
    let m = this.namespaces.get(ns);
    if (!m) this.namespaces.set(ns, (m = new Map()));
    m.set(key, obj);
  }

  delete(obj: KubeObject): void {
    const key = objectKey(obj);
    this.objects.delete(key);
    const ns = obj.metadata.namespace ?? '';
    const m = this.namespaces.get(ns);
    m?.delete(key);
    if (m?.size === 0) this.namespaces.delete(ns);
  }

  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  list(): KubeObject[] {
    return [...this.objects.values()];
  }

  byNamespace(namespace: string): KubeObject[] {
    return [...(this.namespaces.get(namespace)?.values() ?? [])];
  }
}

export interface InformerSource {
  server: string;
  token: string;
  fetch: FetchFn;
  onError?: (resource: string, e: unknown) => void;
}

class ApiInformer implements SharedInformer {
  private readonly cache = new IndexedCache();
  readonly informer: Informer;

  constructor(ref: ResourceRef, source: InformerSource) {
    this.informer = createInformer({
      server: source.server, token: source.token, fetch: source.fetch, path: collectionPath(ref),
      onError: (e) => source.onError?.(ref.resource, e),
    });
    this.informer.on('add', (o) => this.cache.set(o));
    this.informer.on('update', (o) => this.cache.set(o));
    this.informer.on('delete', (o) => this.cache.delete(o));
  }

  get = (key: string) => this.cache.get(key);
  list = () => this.cache.list();
  byNamespace = (ns: string) => this.cache.byNamespace(ns);
  hasSynced = () => this.informer.hasSynced();

  addHandlers(h: Handlers): void {
    if (h.add) this.informer.on('add', h.add);
    if (h.update) this.informer.on('update', h.update);
    if (h.delete) this.informer.on('delete', h.delete);
  }
}

export class InformerFactory {
  private readonly informers = new Map<string, ApiInformer>();

  constructor(private readonly source: InformerSource) {}

  for(ref: ResourceRef): SharedInformer {
    const name = `${ref.group}/${ref.resource}`;
    let i = this.informers.get(name);
    if (!i) this.informers.set(name, (i = new ApiInformer(ref, this.source)));
    return i;
  }

  /** Starts every informer asked for so far; resolves when all have listed once. */
  async start(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.informer.start()));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.informer.stop()));
  }

  /** The newest resourceVersion each informer has seen (for status pages and tests). */
  resourceVersions(): Record<string, string | undefined> {
    return Object.fromEntries([...this.informers].map(([n, i]) => [n, i.informer.resourceVersion()]));
  }
}
