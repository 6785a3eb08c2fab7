// Robustness: the traffic — seeded clients with one request in flight each (etcd's rule), as etcd's robustness
// traffic is shaped: CRUD clients (creates, updates with and without preconditions, every patch type, deletes with
// preconditions and finalizers, gets and lists at every resourceVersion mode with pages) on a few keys; watch
// clients opening watches over both transports, at the store and at replicas, from random revisions around the
// head (etcd: ±100) or as watch-lists, holding them a while; and a Kubernetes-shaped profile: informers (list and
// watch), spec writers doing optimistic updates from their cache, and a controller updating status.

import { request } from 'node:http';
import type { Op, WatchEvent } from '../check/history';
import { recordWrite, type Recorder, type Target, type TypeSpec } from './recorder';
import type { Rng } from './rng';
import { Informer, openWatch, recordGet, recordList, type WatchConnection } from './watchers';

export interface TrafficContext {
  rec: Recorder;
  targets: Target[];
  namespaces: string[];
  names: string[];
  running: () => boolean;
  windows: { stall: boolean; disconnect: boolean }; // window faults currently on
  oldStarts: boolean; // log.compaction: some watches start far back, near the compaction horizon
  paceMs: [number, number];
  wsPing: boolean; // WebSocket watchers answer events with a ping
  base: Record<string, number>; // each type's revision when traffic began
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The newest revision any answer showed for `type`. */
export function head(rec: Recorder, type: string): number {
  let h = 0;
  for (let i = rec.ops.length - 1, n = 0; i >= 0 && n < 200; i--) {
    const o = rec.ops[i];
    if (o.type !== type || o.outcome !== 'ok') continue;
    n++;
    h = Math.max(h, o.revision ?? o.result?.rv ?? 0);
  }
  return h;
}

const PATCH_TYPES = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** A CRUD client: a closed loop of random operations on `types`' keys; reads at its own target. */
export async function crudClient(ctx: TrafficContext, name: string, types: TypeSpec[], target: Target, rng: Rng): Promise<void> {
  const { rec } = ctx;
  const known = new Map<string, number>(); // key → the last resourceVersion this client saw
  const learn = (op: Op) => {
    if (!op.key) return;
    if (op.outcome === 'ok' && op.result) known.set(op.key, op.result.rv!);
    else if (op.outcome === 'notFound' || (op.outcome === 'ok' && op.result === null)) known.delete(op.key);
  };
  while (ctx.running()) {
    const type = rng.chance(0.75) ? types[0] : rng.pick(types);
    const ns = rng.pick(ctx.namespaces);
    const objName = rng.pick(ctx.names);
    const key = `${ns}/${objName}`;
    const item = `${type.path(ns)}/${objName}`;
    const w = rec.marker(name);
    const rv = known.get(key);
    const useRv = rv !== undefined && rng.chance(0.6);
    const choice = rng.weighted({ create: 10, put: 14, patch: 22, delete: 9, get: 12, list: 28, cut: ctx.windows.disconnect ? 5 : 0 });
    let op: Op | undefined;
    if (choice === 'create') {
      const finalizers = rng.chance(0.3);
      op = await recordWrite(rec, name, type, { op: 'create', key, sets: { w }, finalizers }, 'POST', type.path(ns), type.body(ns, objName, w, { finalizers }));
    } else if (choice === 'put') {
      const finalizers = rng.chance(0.3);
      op = await recordWrite(rec, name, type, { op: 'update', key, sets: { w }, finalizers, precondition: useRv ? rv : undefined, note: 'PUT' }, 'PUT', item,
        type.body(ns, objName, w, { finalizers, resourceVersion: useRv ? String(rv) : undefined }));
    } else if (choice === 'patch') {
      const kinds = type.name === 'core/configmaps' ? (['merge', 'json', 'strategic', 'apply'] as const) : (['merge', 'json', 'apply'] as const);
      const kind = rng.pick(kinds);
      const [outer, field] = type.patchField;
      const dropFinalizers = kind !== 'apply' && rng.chance(0.25);
      const pre = useRv && kind !== 'apply' ? rv : undefined;
      let body: unknown;
      if (kind === 'json') {
        body = [
          { op: 'add', path: `/${outer}/${field}`, value: w },
          ...(pre !== undefined ? [{ op: 'replace', path: '/metadata/resourceVersion', value: String(pre) }] : []),
          ...(dropFinalizers ? [{ op: 'add', path: '/metadata/finalizers', value: [] }] : []),
        ];
      } else if (kind === 'apply') {
        body = { apiVersion: type.apiVersion, kind: type.kind, metadata: { name: objName, namespace: ns }, [outer]: { [field]: w } };
      } else {
        const metadata = { ...(pre !== undefined ? { resourceVersion: String(pre) } : {}), ...(dropFinalizers ? { finalizers: null } : {}) };
        body = { ...(Object.keys(metadata).length ? { metadata } : {}), [outer]: { [field]: w } };
      }
      const query = kind === 'apply' ? `?fieldManager=${name}&force=true` : '';
      op = await recordWrite(rec, name, type, {
        op: 'update', key, sets: { w }, precondition: pre, upsert: kind === 'apply', finalizers: dropFinalizers ? false : undefined, note: `${kind} patch`,
      }, 'PATCH', item + query, body, { 'content-type': PATCH_TYPES[kind] });
    } else if (choice === 'delete') {
      op = await recordWrite(rec, name, type, { op: 'delete', key, precondition: useRv ? rv : undefined }, 'DELETE', item,
        useRv ? { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: String(rv) } } : undefined);
    } else if (choice === 'get') {
      op = await recordGet(rec, name, type, target, key, rng.chance(0.7) ? '' : '0');
    } else if (choice === 'list') {
      const scope = rng.chance(0.7) ? ns : '';
      const mode = rng.weighted({ consistent: 40, any: 25, exact: 15, notOlder: 20 });
      const h = head(rec, type.name);
      const past = Math.max(ctx.base[type.name] ?? 0, h - rng.int(0, 40));
      const limit = rng.chance(0.5) ? rng.int(1, 4) : undefined;
      if (mode === 'consistent') op = await recordList(rec, name, type, target, scope, '', { limit });
      else if (mode === 'any') op = await recordList(rec, name, type, target, scope, '0', { limit });
      else if (mode === 'exact') op = await recordList(rec, name, type, target, scope, past, { match: 'Exact', limit });
      else op = await recordList(rec, name, type, target, scope, past, { match: 'NotOlderThan' });
    } else if (choice === 'cut') {
      await (rng.chance(0.5) ? cutBody(ctx, name, type, ns, objName, w) : cutResponse(ctx, type, ns, target, rng.chance(0.5)));
    }
    if (op) learn(op);
    if (op && !Number.isFinite(op.ret)) await sleep(rng.int(100, 300)); // a transport failure: back off a little
    await sleep(rng.int(...ctx.paceMs));
  }
}

/**
 * A create whose body is cut halfway: the connection closes with the JSON incomplete, so the server never has a
 * whole request. Recorded as a refused write: its marker must never show up.
 */
async function cutBody(ctx: TrafficContext, client: string, type: TypeSpec, ns: string, objName: string, w: string): Promise<void> {
  const { rec } = ctx;
  const text = JSON.stringify(type.body(ns, objName, w));
  const op: Op = { id: rec.opId(), client, type: type.name, call: rec.now(), ret: Infinity, op: 'create', key: `${ns}/${objName}`, sets: { w }, outcome: 'failed', note: 'body cut mid-request', target: 'store' };
  rec.ops.push(op);
  await new Promise<void>((resolve) => {
    const req = request(new URL(type.path(ns), rec.url), {
      method: 'POST', headers: { authorization: `Bearer ${rec.token}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) },
    });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.write(text.slice(0, Math.floor(text.length / 2)));
    setTimeout(() => req.destroy(), 50);
  });
  op.ret = rec.now();
}

/** A list or a watch whose response the client abandons after the headers. */
async function cutResponse(ctx: TrafficContext, type: TypeSpec, ns: string, target: Target, watch: boolean): Promise<void> {
  const ac = new AbortController();
  try {
    const res = await fetch(`${ctx.rec.url}${type.path(ns)}${watch ? '?watch=true' : '?limit=2'}`, {
      headers: { authorization: `Bearer ${ctx.rec.token}`, ...target.headers }, signal: AbortSignal.any([ac.signal, AbortSignal.timeout(10_000)]),
    });
    const reader = res.body?.getReader();
    await reader?.read();
    ac.abort();
  } catch {
    // the point is hanging up
  }
}

/**
 * A watch client (etcd's runWatch): a watch from a random revision near the head (or a watch-list), held a while,
 * then closed — sometimes not reading for a while (watch.stall), sometimes cut without a goodbye.
 */
export async function watchClient(ctx: TrafficContext, name: string, types: TypeSpec[], rng: Rng): Promise<void> {
  const { rec } = ctx;
  while (ctx.running()) {
    const type = rng.chance(0.75) ? types[0] : rng.pick(types);
    const base = ctx.base[type.name] ?? 0;
    const h = head(rec, type.name);
    const startKind = rng.weighted({ near: 60, list: 25, old: ctx.oldStarts ? 15 : 0 });
    const start = startKind === 'list' ? 'list' as const : startKind === 'old' ? Math.max(base, h - rng.int(100, 1500)) : Math.max(base, h + rng.int(-60, 3));
    let c: WatchConnection;
    try {
      c = await openWatch(rec, {
        type, namespace: rng.chance(0.6) ? rng.pick(ctx.namespaces) : '', target: rng.pick(ctx.targets), transport: rng.chance(0.5) ? 'http' : 'ws', start, watcher: name, ping: ctx.wsPing,
      });
    } catch {
      await sleep(rng.int(100, 300));
      continue;
    }
    const stall = ctx.windows.stall && rng.chance(0.4);
    if (stall) {
      c.pause(true);
      await Promise.race([c.done, sleep(rng.int(1000, 4000))]);
      c.pause(false);
    }
    await Promise.race([c.done, sleep(rng.int(300, 2500))]);
    c.close('client', rng.chance(0.5));
  }
}

/**
 * The Kubernetes-shaped profile on one custom type: an informer per writer (list and watch, at a replica), spec
 * writers doing optimistic updates (90 update, 5 create, 5 delete — etcd's Kubernetes traffic) from their cache,
 * and a controller that writes status (an optimistic /status update) whenever an object's spec marker changes.
 */
export class KubernetesProfile {
  readonly informers: Informer[] = [];
  private readonly done: Promise<void>[] = [];

  constructor(private readonly ctx: TrafficContext, private readonly type: TypeSpec, private readonly rng: Rng) {}

  async start(): Promise<void> {
    const { ctx, type, rng } = this;
    const replicas = ctx.targets.filter((t) => t.name !== 'store');
    const at = (i: number) => replicas[i % Math.max(1, replicas.length)] ?? ctx.targets[0];
    for (const [i, ns] of ctx.namespaces.entries()) {
      const informer = new Informer(ctx.rec, `informer-${i}`, type, ns, at(i), i % 2 ? 'ws' : 'http', rng.fork(`informer-${i}`), ctx.wsPing);
      await informer.start();
      this.informers.push(informer);
      this.done.push(this.writer(`writer-${i}`, ns, informer, rng.fork(`writer-${i}`)));
    }
    const all = new Informer(ctx.rec, 'informer-all', type, '', at(ctx.namespaces.length), 'ws', rng.fork('informer-all'), ctx.wsPing);
    await all.start();
    this.informers.push(all);
    this.done.push(this.controller(all, rng.fork('status-controller')));
  }

  private async writer(name: string, ns: string, informer: Informer, rng: Rng): Promise<void> {
    const { ctx, type } = this;
    while (ctx.running()) {
      const objName = `w${rng.int(0, 4)}`;
      const key = `${ns}/${objName}`;
      const cached = informer.cache.get(key);
      const w = ctx.rec.marker(name);
      const choice = !cached ? 'create' : rng.weighted({ update: 90, create: 5, delete: 5 });
      if (choice === 'create') {
        await recordWrite(ctx.rec, name, type, { op: 'create', key, sets: { w }, finalizers: false }, 'POST', type.path(ns), type.body(ns, objName, w));
      } else if (choice === 'update') {
        await recordWrite(ctx.rec, name, type, { op: 'update', key, sets: { w }, finalizers: false, precondition: cached!.rv, note: 'PUT' }, 'PUT', `${type.path(ns)}/${objName}`,
          type.body(ns, objName, w, { resourceVersion: String(cached!.rv) }));
      } else {
        await recordWrite(ctx.rec, name, type, { op: 'delete', key, precondition: cached!.rv }, 'DELETE', `${type.path(ns)}/${objName}`,
          { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: String(cached!.rv) } });
      }
      await sleep(rng.int(...ctx.paceMs) * 2);
    }
  }

  private async controller(informer: Informer, rng: Rng): Promise<void> {
    const { ctx, type } = this;
    const queue = new Set<string>();
    const handled = new Map<string, string>(); // key → the spec marker its status reflects
    informer.onChange((key: string, e: WatchEvent) => {
      if (e.type !== 'DELETED' && e.obj?.fields.w !== handled.get(key)) queue.add(key);
    });
    while (ctx.running()) {
      const key = queue.values().next().value as string | undefined;
      if (!key) {
        await sleep(20);
        continue;
      }
      queue.delete(key);
      const o = informer.cache.get(key);
      if (!o || o.deleting || o.fields.w === handled.get(key)) continue;
      const [ns, objName] = key.split('/');
      const s = ctx.rec.marker('status');
      const op = await recordWrite(ctx.rec, 'status-controller', type, { op: 'update', key, sets: { s }, precondition: o.rv, note: 'PUT status' }, 'PUT',
        `${type.path(ns)}/${objName}/status`, { apiVersion: type.apiVersion, kind: type.kind, metadata: { name: objName, namespace: ns, resourceVersion: String(o.rv) }, status: { s } });
      if (op.outcome === 'ok') handled.set(key, o.fields.w ?? '');
      else if (op.outcome === 'conflict') queue.add(key); // the informer will bring the newer object
      await sleep(rng.int(...ctx.paceMs));
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.done);
  }
}
