// Test helper: the STORE binding of the Worker (durable-objects/resource-store.ts) in memory, one fake store per
// group/resource behind `idFromName`, running the same core logic as the real one (executeWrite inside a
// "transaction", the LIST pipeline over state entries, objects serialized once per commit), so front-door handlers
// run under `app.request` in plain Node. Each call is recorded; `calls` shows what the front door asked for.
import { executeWrite, type WriteRequest } from '../../core/writes';
import { lookupGroupResource, type ResourceType } from '../../core/registry';
import { notFound, StatusError, internalError, statusResponse, type Result, type Status } from '../../core/status';
import type { KubeObject } from '../../core/object-meta';
import { namespacePrefix, objectKey } from '../../core/object-key';
import { ObjectState, type StateEntry } from '../../core/object-state';
import { parseListOptions, parseSelectors } from '../../core/list/options';
import { readPage } from '../../core/list/query';
import { renderList } from '../../core/list/render';
import { formatRevision } from '../../core/revision';
import { objectFields } from '../../core/selectors/object-fields';
import { pickDeletePage } from '../../core/list/delete-collection-page';
import { namespaceTerminating } from '../../core/namespaces/terminating';
import { scaleOf } from '../../core/scale';
import { jsonInView } from '../../core/views/view';
import type { GetRequest, ListRequest, StoreReply, WriteOptions } from '../../contract/rpc';

export interface StoreCall {
  store: string;
  method: string;
  args: unknown[];
}

export class FakeStore {
  readonly state = new ObjectState();
  revision = 0;
  /** Namespace → the revision fenceNamespace raised it to (durable-objects/namespace-fence.ts). */
  readonly fences = new Map<string, number>();
  private suffix = 0;

  constructor(readonly groupResource: string, private readonly calls: StoreCall[]) {}

  private type(): ResourceType {
    const t = lookupGroupResource(this.groupResource);
    if (!t) throw new Error(`fake store: unknown type ${this.groupResource}`);
    return t;
  }

  private entry(key: string, revision: number, json: string, obj: KubeObject): StateEntry {
    return { key, revision, json, labels: obj.metadata?.labels ?? {}, fields: objectFields(this.type(), obj) };
  }

  /** Plants an object as the store would hold it after a create (no admission), for a test's starting state. */
  seed(object: KubeObject): void {
    const namespace = object.metadata.namespace ?? '';
    object.metadata.resourceVersion = formatRevision(++this.revision);
    this.state.set(this.entry(objectKey(namespace, object.metadata.name!), this.revision, JSON.stringify(object), object));
  }

  async get(gr: string, req: GetRequest): Promise<Result<StoreReply>> {
    this.calls.push({ store: this.groupResource, method: 'get', args: [gr, req] });
    return guard(() => {
      const type = this.type();
      const e = this.state.get(objectKey(req.namespace, req.name));
      if (!e) throw new StatusError(notFound(type, req.name));
      if (req.subresource === 'scale') return { code: 200, body: JSON.stringify(scaleOf(JSON.parse(e.json), type.custom?.scale)) };
      return { code: 200, body: jsonInView(type, req.view, e.json) };
    });
  }

  async list(gr: string, req: ListRequest): Promise<Response> {
    this.calls.push({ store: this.groupResource, method: 'list', args: [gr, req] });
    try {
      const type = this.type();
      const opts = parseListOptions(new URLSearchParams(req.query), false);
      const selectors = parseSelectors(opts, type);
      const prefix = namespacePrefix(req.namespace);
      const page = readPage(this.state.range(prefix), {
        selectors, hasSelectors: opts.labelSelector !== '' || opts.fieldSelector !== '', limit: opts.limit ?? 0, revision: this.revision,
      }, (after) => this.state.countFrom(prefix, after));
      return new Response(renderList(type, page, formatRevision(this.revision), req.format, Date.now()), { headers: { 'content-type': 'application/json' } });
    } catch (e) {
      return statusResponse(failure(e).status);
    }
  }

  async write(gr: string, req: WriteRequest, options: WriteOptions = {}): Promise<Result<StoreReply>> {
    this.calls.push({ store: this.groupResource, method: 'write', args: [gr, req, options] });
    return guard(() => {
      const type = this.type();
      if (req.verb === 'deletecollection' && options.deletePage) {
        const after = options.deletePage.after ? options.deletePage.after + '\u0000' : '';
        const picked = pickDeletePage(this.state.range(namespacePrefix(req.namespace), after), req.selectors);
        req = { ...req, page: { ...picked, resourceVersion: formatRevision(this.revision) } };
      }
      const warnings: string[] = [];
      const pending: [string, StateEntry | null][] = [];
      let next = this.revision;
      const result = executeWrite({
        get: (key) => {
          const e = this.state.get(key);
          return e ? (JSON.parse(e.json) as KubeObject) : undefined;
        },
        objects: (namespace) => [...this.state.range(namespacePrefix(namespace))].map((e) => JSON.parse(e.json) as KubeObject),
        commit: (kind, key, object) => {
          const namespace = object.metadata.namespace ?? '';
          if (kind === 'ADDED' && options.namespaceRevision !== undefined && options.namespaceRevision < (this.fences.get(namespace) ?? 0)) {
            throw new StatusError(namespaceTerminating(type, object.metadata.name ?? '', namespace));
          }
          if (options.dryRun) return object;
          object.metadata.resourceVersion = formatRevision(++next);
          pending.push([key, kind === 'DELETED' ? null : this.entry(key, next, JSON.stringify(object), object)]);
          return object;
        },
      }, {
        type, now: Date.now(), newUid: () => crypto.randomUUID(), randomSuffix: () => `x${(this.suffix++).toString().padStart(4, '0')}`,
        fieldValidation: options.fieldValidation, warnings,
      }, req);
      // Committed only once the write succeeded, as the real store's transaction.
      for (const [key, e] of pending) {
        if (e) this.state.set(e);
        else this.state.delete(key);
      }
      this.revision = next;
      const reply: StoreReply = { code: result.code, body: JSON.stringify(result.body), revision: next };
      if (warnings.length) reply.warnings = warnings;
      if (result.held !== undefined) reply.held = result.held;
      if (req.verb === 'deletecollection' && req.page?.continue) reply.continue = req.page.continue;
      return reply;
    });
  }

  async currentRevision(): Promise<number> {
    return this.revision;
  }

  async endWatches(): Promise<void> {}

  async fenceNamespace(gr: string, namespace: string, revision: number): Promise<Result<true>> {
    this.calls.push({ store: this.groupResource, method: 'fenceNamespace', args: [gr, namespace, revision] });
    this.fences.set(namespace, Math.max(this.fences.get(namespace) ?? 0, revision));
    return { ok: true, value: true };
  }
}

function failure(e: unknown): { ok: false; status: Status } {
  if (e instanceof StatusError) return { ok: false, status: e.status };
  return { ok: false, status: internalError((e as Error)?.message ?? String(e)) };
}

function guard(fn: () => StoreReply): Result<StoreReply> {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    return failure(e);
  }
}

/** The STORE namespace: `idFromName(groupResource)` then `get(id)` gives that type's fake store. */
export function fakeStores() {
  const calls: StoreCall[] = [];
  const stores = new Map<string, FakeStore>();
  const storeOf = (gr: string) => {
    let s = stores.get(gr);
    if (!s) stores.set(gr, (s = new FakeStore(gr, calls)));
    return s;
  };
  const namespace = {
    idFromName: (name: string) => name,
    get: (id: string) => storeOf(id),
  };
  return { STORE: namespace, storeOf, calls };
}
