// Test fakes for the controllers: a clock whose timers run when told, an informer driven by hand, and an
// API that records every call and keeps objects in memory.
import type { KubeObject } from '../../client/types';
import { ApiError } from '../../client/types';
import { objectKey } from '../../client/cache';
import type { Clock } from '../../controllers/clock';
import type { Api, DeleteOptions, PatchOptions, PatchType, ResourceRef } from '../../controllers/api-client';
import { IndexedCache, type Handlers, type SharedInformer } from '../../controllers/informers';
import type { EventRecorder } from '../../controllers/events';

export class FakeClock implements Clock {
  private t = Date.parse('2026-01-01T00:00:00Z');
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private next = 1;
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => {
    const id = this.next++;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  };
  clearTimeout = (h: unknown) => {
    this.timers = this.timers.filter((x) => x.id !== h);
  };
  /** Moves time forward, running the timers that fall due in order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const due = this.timers[0];
      if (!due || due.at > end) break;
      this.timers.shift();
      this.t = due.at;
      due.fn();
    }
    this.t = end;
  }
}

export class FakeInformer implements SharedInformer {
  private readonly cache = new IndexedCache();
  private readonly handlers: Handlers[] = [];
  get = (key: string) => this.cache.get(key);
  list = () => this.cache.list();
  byNamespace = (ns: string) => this.cache.byNamespace(ns);
  hasSynced = () => true;
  addHandlers(h: Handlers): void {
    this.handlers.push(h);
  }
  add(obj: KubeObject): void {
    const old = this.cache.get(objectKey(obj));
    this.cache.set(obj);
    for (const h of this.handlers) (old ? h.update?.(obj, old) : h.add?.(obj));
  }
  delete(obj: KubeObject): void {
    this.cache.delete(obj);
    for (const h of this.handlers) h.delete?.(obj);
  }
}

export interface Call {
  verb: 'get' | 'create' | 'update' | 'patch' | 'delete';
  resource: string;
  namespace: string;
  name: string;
  body?: unknown;
  subresource?: string;
  options?: DeleteOptions;
  patchOptions?: PatchOptions; // a patch's fieldManager and force, when given
}

let uidCounter = 0;
export const uid = (): string => `uid-${++uidCounter}`;

/** An API over a map of objects; writes are recorded and do not reach informers unless the test says so. */
export class FakeApi implements Api {
  readonly calls: Call[] = [];
  readonly objects = new Map<string, KubeObject>(); // resource/namespace/name
  failCreates = 0; // the next N creates fail with 500
  private rv = 100;
  private suffix = 0;

  private key(r: ResourceRef, ns: string, name: string) {
    return `${r.resource}/${ns}/${name}`;
  }

  put(r: ResourceRef, obj: KubeObject): void {
    this.objects.set(this.key(r, obj.metadata.namespace ?? '', obj.metadata.name!), obj);
  }

  async get(r: ResourceRef, ns: string, name: string): Promise<KubeObject> {
    this.calls.push({ verb: 'get', resource: r.resource, namespace: ns, name });
    const o = this.objects.get(this.key(r, ns, name));
    if (!o) throw new ApiError(404, { kind: 'Status', code: 404, reason: 'NotFound' });
    return structuredClone(o);
  }

  async create(r: ResourceRef, ns: string, obj: KubeObject): Promise<KubeObject> {
    const created = structuredClone(obj);
    created.metadata.name ??= `${created.metadata.generateName}${String(++this.suffix).padStart(5, 'x')}`;
    this.calls.push({ verb: 'create', resource: r.resource, namespace: ns, name: created.metadata.name!, body: obj });
    if (this.failCreates > 0) {
      this.failCreates--;
      throw new ApiError(500, { kind: 'Status', code: 500, message: 'injected failure' });
    }
    created.metadata.namespace = ns;
    created.metadata.uid = uid();
    created.metadata.resourceVersion = String(++this.rv);
    this.put(r, created);
    return structuredClone(created);
  }

  async update(r: ResourceRef, obj: KubeObject, subresource: '' | 'status' | 'approval' = ''): Promise<KubeObject> {
    this.calls.push({ verb: 'update', resource: r.resource, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name!, body: obj, subresource });
    const next = structuredClone(obj);
    next.metadata.resourceVersion = String(++this.rv);
    this.put(r, next);
    return structuredClone(next);
  }

  async patch(r: ResourceRef, ns: string, name: string, _t: PatchType, body: unknown, subresource: '' | 'status' = '', patchOptions?: PatchOptions): Promise<KubeObject> {
    this.calls.push({ verb: 'patch', resource: r.resource, namespace: ns, name, body, subresource, ...(patchOptions ? { patchOptions } : {}) });
    const o = this.objects.get(this.key(r, ns, name));
    if (!o) throw new ApiError(404, { kind: 'Status', code: 404, reason: 'NotFound' });
    return structuredClone(o);
  }

  async delete(r: ResourceRef, ns: string, name: string, options?: DeleteOptions): Promise<void> {
    this.calls.push({ verb: 'delete', resource: r.resource, namespace: ns, name, options });
    if (!this.objects.delete(this.key(r, ns, name))) throw new ApiError(404, { kind: 'Status', code: 404, reason: 'NotFound' });
  }

  writes(verb?: Call['verb'], resource?: string): Call[] {
    return this.calls.filter((c) => c.verb !== 'get' && (!verb || c.verb === verb) && (!resource || c.resource === resource));
  }
}

export class FakeRecorder implements EventRecorder {
  readonly events: { name: string; type: string; reason: string; message: string }[] = [];
  event(obj: KubeObject, type: string, reason: string, message: string): void {
    this.events.push({ name: obj.metadata.name!, type, reason, message });
  }
}
