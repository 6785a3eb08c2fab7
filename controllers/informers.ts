// Controllers: one shared informer per resource type for every controller in the manager (client-go's
// SharedInformerFactory), with a namespace index kept by the first handler so every controller handler
// already sees it updated. A type only metadata readers ask for (the garbage collector's ConfigMaps and
// Secrets) is cached as metadata only, as kube's GC uses metadata informers: a tenant's 40 MB of Secrets
// then costs the manager their names, not their data. Whole-object informers resync (client-go's periodic
// re-delivery of the cache to update handlers), so a loop that missed or mishandled an event heals within minutes.

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
  resyncPeriodMs?: number; // default RESYNC_PERIOD_MS; 0: never
  random?: () => number; // the resync jitter (tests)
  /** Fault tests only: whether to lose this event of `groupResource` ("core/pods") on its way to one handler. */
  dropEvent?: (groupResource: string) => boolean;
}

/**
 * kube-controller-manager resyncs every 12–24 h (--min-resync-period 12h, randomised up to 2×); a simulated cluster
 * whose controllers may miss an event across a restart should heal in minutes instead: each informer re-delivers its
 * cache every 5–10 min (client/informer.ts jitters each pass within [period, 2 × period)). A pass is one walk over the
 * cache in turns of 100 objects spread over up to 30 s, and the handlers mostly just enqueue keys the work queues
 * dedupe. Metadata-only informers (the garbage collector's) do not resync, as kube's garbage collector registers its
 * handlers with resync 0.
 */
export const RESYNC_PERIOD_MS = 5 * 60_000;

/**
 * The ObjectMeta fields the garbage collector reads, and nothing else: not labels, annotations (kubectl's
 * last-applied-configuration repeats the whole object) or managedFields. Applied as objects arrive.
 */
export function metadataOnly(obj: KubeObject): KubeObject {
  const m = obj.metadata ?? {};
  const metadata: KubeObject['metadata'] = { name: m.name, uid: m.uid, resourceVersion: m.resourceVersion };
  if (m.namespace !== undefined) metadata.namespace = m.namespace;
  if (m.ownerReferences !== undefined) metadata.ownerReferences = m.ownerReferences;
  if (m.finalizers !== undefined) metadata.finalizers = m.finalizers;
  if (m.deletionTimestamp !== undefined) metadata.deletionTimestamp = m.deletionTimestamp;
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata };
}

// worker/replicas.ts LOCATION_HEADER: a metadata-only informer reads from the canonical store, which holds every
// object anyway, rather than waking a watch-cache replica to hold a second whole copy just for the collector.
const LOCATION_HEADER = 'x-edgeplane-location';

// A metadata-only list costs the manager a page of whole objects while it parses it: smaller pages bound that
// (500 Secrets near the 1.5 MiB object limit would be most of a gigabyte).
const METADATA_PAGE_SIZE = 50;

class ApiInformer implements SharedInformer {
  private readonly cache = new IndexedCache();
  readonly informer: Informer;
  metadataOnly: boolean; // fixed when the informer starts
  private readonly groupResource: string;
  private readonly dropEvent?: (groupResource: string) => boolean;

  constructor(ref: ResourceRef, source: InformerSource, metadata: boolean) {
    this.metadataOnly = metadata;
    this.groupResource = `${ref.group || 'core'}/${ref.resource}`;
    this.dropEvent = source.dropEvent;
    const self = this; // the mode is read as the informer lists, so a later for() can still ask for whole objects
    const fetch: typeof source.fetch = (input, init) => {
      if (!self.metadataOnly) return source.fetch(input, init);
      const headers = new Headers(init?.headers);
      headers.set(LOCATION_HEADER, 'store');
      return source.fetch(input, { ...init, headers });
    };
    this.informer = createInformer({
      server: source.server, token: source.token, fetch, path: collectionPath(ref),
      transform: (o) => (self.metadataOnly ? metadataOnly(o) : o),
      get pageSize() {
        return self.metadataOnly ? METADATA_PAGE_SIZE : undefined;
      },
      get resyncPeriodMs() {
        return self.metadataOnly ? 0 : source.resyncPeriodMs ?? RESYNC_PERIOD_MS;
      },
      random: source.random,
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
    const drop = this.dropEvent;
    const gr = this.groupResource;
    // With a fault hook, each handler may lose an event the cache still took (a controller that missed it): only
    // a resync, or a later event of the same object, tells it again.
    const maybe = <A extends unknown[]>(f: (...a: A) => void) => (drop ? (...a: A) => { if (!drop(gr)) f(...a); } : f);
    if (h.add) this.informer.on('add', maybe(h.add));
    if (h.update) this.informer.on('update', maybe(h.update));
    if (h.delete) this.informer.on('delete', maybe(h.delete));
  }
}

export class InformerFactory {
  private readonly informers = new Map<string, ApiInformer>();
  private started = false;

  constructor(private readonly source: InformerSource) {}

  /** The shared informer of whole objects of `ref`. */
  for(ref: ResourceRef): SharedInformer {
    const i = this.informer(ref, false);
    if (i.metadataOnly) {
      if (this.started) throw new Error(`informer ${ref.resource}: whole objects asked for after it started with metadata only`);
      i.metadataOnly = false;
    }
    return i;
  }

  /**
   * An informer for a reader of metadata only (client-go's metadatainformer): the shared informer of whole
   * objects when another controller asks for one before start(), else one that keeps metadataOnly(obj).
   */
  metadataFor(ref: ResourceRef): SharedInformer {
    return this.informer(ref, true);
  }

  /** Types cached as metadata only (for tests and status). */
  metadataOnlyTypes(): string[] {
    return [...this.informers].filter(([, i]) => i.metadataOnly).map(([n]) => n);
  }

  /** Starts every informer asked for so far; resolves when all have listed once. */
  async start(): Promise<void> {
    this.started = true;
    await Promise.all([...this.informers.values()].map((i) => i.informer.start()));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.informer.stop()));
  }

  /** Resync passes each informer has completed (for status pages and tests). */
  resyncs(): Record<string, number> {
    return Object.fromEntries([...this.informers].map(([n, i]) => [n, i.informer.resyncs()]));
  }

  /** The newest resourceVersion each informer has seen (for status pages and tests). */
  resourceVersions(): Record<string, string | undefined> {
    return Object.fromEntries([...this.informers].map(([n, i]) => [n, i.informer.resourceVersion()]));
  }

  private informer(ref: ResourceRef, metadata: boolean): ApiInformer {
    const name = `${ref.group}/${ref.resource}`;
    let i = this.informers.get(name);
    if (!i) this.informers.set(name, (i = new ApiInformer(ref, this.source, metadata)));
    return i;
  }
}
