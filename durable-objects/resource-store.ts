// Canonical layer (the etcd role): one Durable Object per resource type. It alone holds each object,
// gives every write the next revision and logs its event in the same SQLite transaction.

import { DurableObject } from 'cloudflare:workers';
import { lookupGroupResource, type ResourceType, type Subresource } from '../core/registry';
import { internalError, notFound, StatusError, tooLargeResourceVersion, type Result, type Status } from '../core/status';
import { executeWrite, type EventType, type WriteRequest } from '../core/writes';
import type { KubeObject } from '../core/object-meta';
import { objectKey, namespacePrefix } from '../core/object-key';
import { ObjectState, type StateEntry } from '../core/object-state';
import { objectFields } from '../core/selectors/object-fields';
import { parseListOptions, parseSelectors } from '../core/list-options';
import { planList, type ListPlan } from '../core/list-plan';
import { entriesAt, readPage } from '../core/list-query';
import { formatRevision } from '../core/revision';
import { renderList, type ListFormat } from '../core/list-render';
import { SCHEMA, type Counter } from './schema';
import { RevisionWaiters } from '../core/revision-waiters';
import { scaleOf } from '../core/scale';

export interface StoreEnv {
  EVENT_RETENTION_COUNT?: string;
  EVENT_RETENTION_SECONDS?: string;
}

export interface GetRequest {
  namespace: string;
  name: string;
  subresource: string;
}

export interface ListRequest {
  namespace: string;
  query: string; // the URL's search string: parsed here so the store owns list semantics
  format: ListFormat;
}

export interface StoreReply {
  code: number;
  body: string; // JSON, serialized once in the store
}

// apiserver watch_cache.go blockTimeout: how long a read waits for a revision the store has not reached.
const FRESHNESS_WAIT_MS = 3000;
const DEFAULT_RETENTION_COUNT = 10_000;
const NAMESPACES_AT_FIRST_START = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

export class ResourceStore extends DurableObject<StoreEnv> {
  private readonly sql: SqlStorage;
  private readonly state = new ObjectState();
  private readonly waiters = new RevisionWaiters();
  private type: ResourceType | undefined;
  private revision = 0;
  private compacted = 0;
  private eventCount = 0;

  constructor(ctx: DurableObjectState, env: StoreEnv) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(SCHEMA);
    this.revision = this.counter('revision');
    this.compacted = this.counter('compacted');
    this.eventCount = this.sql.exec<{ n: number }>('SELECT count(*) AS n FROM events').one().n;
  }

  async get(groupResource: string, req: GetRequest): Promise<Result<StoreReply>> {
    return this.guard(groupResource, (type) => {
      if (req.subresource && !type.subresources.includes(req.subresource as Subresource)) {
        throw new StatusError(notFound({ group: type.group, resource: `${type.resource}/${req.subresource}` }, ''));
      }
      const entry = this.state.get(objectKey(req.namespace, req.name));
      if (!entry) throw new StatusError(notFound(type, req.name));
      if (req.subresource === 'scale') return { code: 200, body: JSON.stringify(scaleOf(JSON.parse(entry.json))) };
      return { code: 200, body: entry.json };
    });
  }

  async list(groupResource: string, req: ListRequest): Promise<Result<StoreReply>> {
    try {
      const type = this.typeFor(groupResource);
      const opts = parseListOptions(new URLSearchParams(req.query), false);
      const selectors = parseSelectors(opts, type);
      const plan = planList(opts, this.compacted);
      const wanted = typeof plan.revision === 'number' ? Math.max(plan.revision, plan.minRevision) : plan.minRevision;
      if (wanted > this.revision) await this.waitFor(wanted);
      const revision = plan.revision === 'latest' ? this.revision : plan.revision;
      const hasSelectors = opts.labelSelector !== '' || opts.fieldSelector !== '';
      const prefix = namespacePrefix(req.namespace);
      const page = readPage(this.entriesFor(plan, prefix, revision), {
        selectors, hasSelectors, limit: plan.limit, revision,
      }, (after) => this.state.countFrom(prefix, after));
      const body = renderList(type, page, formatRevision(revision), req.format, Date.now());
      return { ok: true, value: { code: 200, body } };
    } catch (e) {
      return failure(e);
    }
  }

  async write(groupResource: string, req: WriteRequest, dryRun = false): Promise<Result<StoreReply>> {
    return this.guard(groupResource, (type) => this.applyWrite(type, req, dryRun));
  }

  /** The newest revision this store has handed out: lets the front door and tests reason about freshness. */
  async currentRevision(): Promise<number> {
    return this.revision;
  }

  private applyWrite(type: ResourceType, req: WriteRequest, dryRun: boolean): StoreReply {
    const changes: { type: EventType; key: string; json: string; prev: StateEntry | undefined; revision: number }[] = [];
    let next = this.revision;
    const reply = this.ctx.storage.transactionSync(() => {
      const result = executeWrite({
        get: (key) => {
          const e = this.state.get(key);
          return e ? (JSON.parse(e.json) as KubeObject) : undefined;
        },
        objects: (namespace) => [...this.state.range(namespacePrefix(namespace))].map((e) => JSON.parse(e.json) as KubeObject),
        commit: (eventType, key, object) => {
          if (dryRun) return object;
          next += 1;
          object.metadata.resourceVersion = formatRevision(next);
          const json = JSON.stringify(object);
          const prev = this.state.get(key);
          this.persist(eventType, key, json, prev, next);
          changes.push({ type: eventType, key, json, prev, revision: next });
          return object;
        },
      }, { type, now: Date.now(), newUid: () => crypto.randomUUID(), randomSuffix }, req);
      if (changes.length) this.setCounter('revision', next);
      return { code: result.code, body: JSON.stringify(result.body) };
    });
    // Memory follows SQLite only once the transaction has committed.
    for (const c of changes) {
      if (c.type === 'DELETED') this.state.delete(c.key);
      else this.state.set(this.entry(type, c.key, c.revision, c.json));
    }
    if (changes.length) {
      this.revision = next;
      this.eventCount += changes.length;
      this.waiters.advance(next);
      this.compactIfNeeded();
    }
    return reply;
  }

  private persist(type: EventType, key: string, json: string, prev: StateEntry | undefined, revision: number): void {
    if (type === 'DELETED') this.sql.exec('DELETE FROM objects WHERE key = ?', key);
    else this.sql.exec('INSERT OR REPLACE INTO objects (key, revision, value) VALUES (?, ?, ?)', key, revision, json);
    this.sql.exec(
      'INSERT INTO events (revision, type, key, value, prev_value, at) VALUES (?, ?, ?, ?, ?, ?)',
      revision, type, key, json, prev?.json ?? null, Date.now(),
    );
  }

  /** Retention by count and/or age; what is compacted answers 410 Expired from then on. */
  private compactIfNeeded(): void {
    const keep = Number(this.env.EVENT_RETENTION_COUNT ?? DEFAULT_RETENTION_COUNT);
    const maxAgeMs = Number(this.env.EVENT_RETENTION_SECONDS ?? 0) * 1000;
    let upTo = this.compacted;
    if (this.eventCount > keep) upTo = Math.max(upTo, this.revision - keep);
    if (maxAgeMs > 0) {
      const row = this.sql.exec<{ r: number | null }>('SELECT max(revision) AS r FROM events WHERE at < ?', Date.now() - maxAgeMs).one();
      if (row.r !== null) upTo = Math.max(upTo, row.r);
    }
    if (upTo <= this.compacted) return;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec('DELETE FROM events WHERE revision <= ?', upTo);
      this.setCounter('compacted', upTo);
    });
    this.compacted = upTo;
    this.eventCount = this.sql.exec<{ n: number }>('SELECT count(*) AS n FROM events').one().n;
  }

  private entriesFor(plan: ListPlan, prefix: string, revision: number): Iterable<StateEntry> {
    const current = this.state.range(prefix, plan.start);
    if (revision >= this.revision) return current;
    // Undo, per key, every change after `revision`: its first later event's prev_value is its value then.
    const overrides = new Map<string, StateEntry | null>();
    const type = this.type!;
    for (const row of this.sql.exec<{ key: string; prev_value: string | null }>(
      'SELECT key, prev_value FROM events WHERE revision > ? ORDER BY revision', revision,
    )) {
      if (overrides.has(row.key) || !row.key.startsWith(prefix) || row.key < plan.start) continue;
      overrides.set(row.key, row.prev_value === null ? null : this.entry(type, row.key, 0, row.prev_value));
    }
    return entriesAt(current, overrides);
  }

  private entry(type: ResourceType, key: string, revision: number, json: string): StateEntry {
    const obj = JSON.parse(json) as KubeObject;
    return { key, revision, json, labels: obj.metadata.labels ?? {}, fields: objectFields(type, obj) };
  }

  private async waitFor(revision: number): Promise<void> {
    if (await this.waiters.wait(revision, FRESHNESS_WAIT_MS)) return;
    throw new StatusError(tooLargeResourceVersion(revision, this.revision, 1));
  }

  private typeFor(groupResource: string): ResourceType {
    if (this.type) return this.type;
    const type = lookupGroupResource(groupResource);
    if (!type) throw new Error(`unknown resource type ${groupResource}`);
    this.type = type;
    this.loadState(type);
    return type;
  }

  private loadState(type: ResourceType): void {
    for (const row of this.sql.exec<{ key: string; revision: number; value: string }>('SELECT key, revision, value FROM objects')) {
      this.state.set(this.entry(type, row.key, row.revision, row.value));
    }
    if (type.kind === 'Namespace' && this.revision === 0) {
      for (const name of NAMESPACES_AT_FIRST_START) {
        this.applyWrite(type, { verb: 'create', namespace: '', body: JSON.stringify({ metadata: { name } }) }, false);
      }
    }
  }

  private guard(groupResource: string, fn: (type: ResourceType) => StoreReply): Result<StoreReply> {
    try {
      return { ok: true, value: fn(this.typeFor(groupResource)) };
    } catch (e) {
      return failure(e);
    }
  }

  private counter(name: Counter): number {
    const rows = this.sql.exec<{ value: number }>('SELECT value FROM counters WHERE name = ?', name).toArray();
    return rows.length ? rows[0].value : 0;
  }

  private setCounter(name: Counter, value: number): void {
    this.sql.exec('INSERT OR REPLACE INTO counters (name, value) VALUES (?, ?)', name, value);
  }
}

function failure(e: unknown): { ok: false; status: Status } {
  if (e instanceof StatusError) return { ok: false, status: e.status };
  console.error('store error', e);
  return { ok: false, status: internalError((e as Error)?.message ?? String(e)) };
}

// apiserver pkg/storage/names/generate.go: 5 characters from an alphabet without vowels or look-alikes.
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
function randomSuffix(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  return [...bytes].map((b) => SUFFIX_ALPHABET[b % SUFFIX_ALPHABET.length]).join('');
}
