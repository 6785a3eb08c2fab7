// Robustness: what a run records and how it talks to the gateway — the resource types traffic uses (ConfigMaps, and
// a custom resource with a status subresource for the Kubernetes-shaped profile), where a read is served (the
// store or one replica, chosen with worker/replicas.ts's override headers), and a client that records every request
// as an operation with its call and return times: a write that timed out or failed at the transport returns at
// Infinity (it may or may not have taken effect).

import type { Fields, Obj, Op, Session } from '../check/history';

export const ROBUST_GROUP = 'robust.edgeplane.dev';
export const FINALIZER = 'robust.edgeplane.dev/hold';

export interface TypeSpec {
  name: string; // the store's group/resource, as the checker and the debug hooks name it
  path(namespace: string): string; // the collection ('' = all namespaces)
  markers(o: any): Fields; // the marker fields of an object (see check/history.ts)
  body(namespace: string, name: string, w: string, extra?: { resourceVersion?: string; finalizers?: boolean }): object;
  patchField: string[]; // where the marker sits: ['data', 'w'] or ['spec', 'w']
  kind: string;
  apiVersion: string;
  statusMarker?: boolean; // has a status subresource whose status.s is a marker
}

const meta = (namespace: string, name: string, extra: { resourceVersion?: string; finalizers?: boolean } = {}) => ({
  name, namespace, ...(extra.resourceVersion ? { resourceVersion: extra.resourceVersion } : {}), ...(extra.finalizers ? { finalizers: [FINALIZER] } : {}),
});

export const CONFIGMAPS: TypeSpec = {
  name: 'core/configmaps', kind: 'ConfigMap', apiVersion: 'v1',
  path: (ns) => (ns ? `/api/v1/namespaces/${ns}/configmaps` : '/api/v1/configmaps'),
  markers: (o): Fields => (typeof o?.data?.w === 'string' ? { w: o.data.w } : {}),
  body: (ns, name, w, extra) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(ns, name, extra), data: { w } }),
  patchField: ['data', 'w'],
};

export const WIDGETS: TypeSpec = {
  name: `${ROBUST_GROUP}/widgets`, kind: 'Widget', apiVersion: `${ROBUST_GROUP}/v1`, statusMarker: true,
  path: (ns) => (ns ? `/apis/${ROBUST_GROUP}/v1/namespaces/${ns}/widgets` : `/apis/${ROBUST_GROUP}/v1/widgets`),
  markers: (o) => ({ ...(typeof o?.spec?.w === 'string' ? { w: o.spec.w } : {}), ...(typeof o?.status?.s === 'string' ? { s: o.status.s } : {}) }),
  body: (ns, name, w, extra) => ({ apiVersion: `${ROBUST_GROUP}/v1`, kind: 'Widget', metadata: meta(ns, name, extra), spec: { w } }),
  patchField: ['spec', 'w'],
};

export const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${ROBUST_GROUP}` },
  spec: {
    group: ROBUST_GROUP, scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{
      name: 'v1', served: true, storage: true, subresources: { status: {} },
      schema: { openAPIV3Schema: { type: 'object', properties: {
        spec: { type: 'object', properties: { w: { type: 'string' } } },
        status: { type: 'object', properties: { s: { type: 'string' } } },
      } } },
    }],
  },
};

export function objOf(type: TypeSpec, o: any): Obj {
  return {
    rv: Number(o?.metadata?.resourceVersion),
    fields: type.markers(o),
    finalizers: Array.isArray(o?.metadata?.finalizers) && o.metadata.finalizers.length > 0,
    deleting: !!o?.metadata?.deletionTimestamp,
  };
}

export const keyOf = (o: any): string => `${o?.metadata?.namespace ?? ''}/${o?.metadata?.name}`;

/** Where reads and watches are served: the canonical store, or one replica (worker/replicas.ts overrides). */
export interface Target {
  name: string; // 'store' or 'location#index'
  headers: Record<string, string>;
}

export function targets(locations: string[], perLocation: number): Target[] {
  const out: Target[] = [{ name: 'store', headers: { 'x-edgeplane-location': 'store' } }];
  for (const l of locations) {
    for (let i = 0; i < perLocation; i++) out.push({ name: `${l}#${i}`, headers: { 'x-edgeplane-location': l, 'x-edgeplane-replica-index': String(i) } });
  }
  return out;
}

/** The shared state of a run: the clock every time is read from, ids, and what was recorded. */
export class Recorder {
  readonly ops: Op[] = [];
  readonly sessions: Session[] = [];
  readonly faults: { name: string; at: number; until?: number; detail?: string }[] = [];
  private readonly t0 = performance.now();
  private nextId = 1;
  private nextSession = 1;
  private markerSeq = 0;

  constructor(readonly url: string, readonly token: string) {}

  now(): number {
    return performance.now() - this.t0;
  }

  opId(): number {
    return this.nextId++;
  }

  sessionId(): string {
    return `s${this.nextSession++}`;
  }

  /** A marker no other write in the run uses. */
  marker(client: string): string {
    return `${client}.${++this.markerSeq}`;
  }
}

export interface Reply {
  status: number;
  json: any;
}

/** One request, given up after `timeoutMs`; a transport failure or timeout throws. */
export async function send(rec: Recorder, method: string, path: string, body?: unknown, headers: Record<string, string> = {}, timeoutMs = 10_000): Promise<Reply> {
  const res = await fetch(`${rec.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${rec.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}

/**
 * Sends a write and records it. `op` carries what the write asks (key, sets, precondition, …). The outcome follows
 * kube-apiserver's answers: 2xx ok (a delete's Status Success: the object is gone); 404, 409 AlreadyExists and
 * 409 Conflict tell the state; other 4xx are definite refusals; 5xx, timeouts and transport errors are unknown.
 */
export async function recordWrite(rec: Recorder, client: string, type: TypeSpec, op: Omit<Op, 'id' | 'client' | 'type' | 'call' | 'ret' | 'outcome'>,
  method: string, path: string, body: unknown, headers: Record<string, string> = {}, timeoutMs = 10_000): Promise<Op> {
  const rec0: Op = { ...op, id: rec.opId(), client, type: type.name, call: rec.now(), ret: Infinity, outcome: 'unknown', target: 'store' };
  rec.ops.push(rec0);
  try {
    const r = await send(rec, method, path, body, headers, timeoutMs);
    rec0.ret = rec.now();
    if (r.status >= 200 && r.status < 300) {
      rec0.outcome = 'ok';
      rec0.result = r.json?.kind === 'Status' ? null : objOf(type, r.json);
    } else if (r.status === 404) rec0.outcome = 'notFound';
    else if (r.status === 409) rec0.outcome = r.json?.reason === 'AlreadyExists' ? 'alreadyExists' : 'conflict';
    else if (r.status >= 500) {
      rec0.outcome = 'unknown';
      rec0.ret = Infinity;
      rec0.note = `${rec0.note ?? ''} ${r.status} ${r.json?.message ?? ''}`.trim().slice(0, 200);
    } else {
      rec0.outcome = 'failed';
      rec0.note = `${rec0.note ?? ''} ${r.status} ${r.json?.reason ?? ''}`.trim();
    }
  } catch (e) {
    rec0.note = `${rec0.note ?? ''} transport: ${String((e as { cause?: unknown }).cause ?? e).slice(0, 120)}`.trim();
  }
  return rec0;
}
