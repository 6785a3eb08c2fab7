// Robustness: the model of one Kubernetes object for the linearizability search, and the partition of a history
// into one search per (resource type, object). The model is nondeterministic, as etcd's robustness model is: a
// state is the set of objects the history so far allows (a write of unknown outcome forks it: taken effect, with an
// unknown resourceVersion, or not), and a read that shows one of them narrows it again.
//
// The object semantics are kube-apiserver's: create answers AlreadyExists for a present object; update and patch
// answer NotFound for a missing one (server-side apply creates it) and Conflict when a resourceVersion precondition
// does not hold; delete removes an object without finalizers and only marks one with finalizers (deletionTimestamp,
// a new resourceVersion; a second delete changes nothing); the update that removes the last finalizer of an object
// being deleted removes it. Every change gets a resourceVersion above the object's previous one.
//
// Consistent reads are linearizable: GETs with resourceVersion "" and lists with resourceVersion "" (every page of a
// list is one read at the first page's revision), projected onto each object in the list's scope.

import type { Model } from './linearizability';
import { inScope, sameContent, type Obj, type Op } from './history';

type State = (Obj | null)[]; // the possible states of the object; never empty

const objHash = (o: Obj | null) => (o ? `${o.rv ?? '?'}${o.finalizers ? 'F' : ''}${o.deleting ? 'D' : ''}:${Object.entries(o.fields).sort().join(';')}` : '-');

/** The object a successful write leaves, before the server gives it a resourceVersion. */
function written(op: Op, s: Obj | null): Obj {
  const fields = op.op === 'create' || !s ? { ...op.sets } : { ...s.fields, ...op.sets };
  return { fields, finalizers: op.finalizers ?? s?.finalizers ?? false, deleting: s?.deleting ?? false };
}

const preconditionHolds = (op: Op, s: Obj) => op.precondition === undefined || s.rv === undefined || s.rv === op.precondition;

/** What a successful `op` may leave after `s` (no entry: it cannot succeed there). null: the object is gone. */
function effects(op: Op, s: Obj | null): (Obj | null)[] {
  switch (op.op) {
    case 'create':
      return s ? [] : [written(op, null)];
    case 'update':
      if (!s) return op.upsert ? [written(op, null)] : [];
      if (!preconditionHolds(op, s)) return [];
      return [written(op, s)];
    case 'delete':
      if (!s || !preconditionHolds(op, s)) return [];
      if (!s.finalizers) return [null];
      return [s.deleting ? s : { ...s, rv: undefined, deleting: true }];
    default:
      return [];
  }
}

/** A successful answer `r` agrees with the effect `e` of the write on `s`; returns the state it leaves. */
function answered(op: Op, s: Obj | null, e: Obj | null, r: Obj | null | undefined): Obj | null | undefined {
  if (e === null) return r === null || (op.op === 'delete' && r === undefined) ? null : undefined;
  if (!r) return undefined;
  if (!sameContent(e, r) || r.rv === undefined) return undefined;
  if (e === s) return s.rv === undefined || s.rv === r.rv ? r : undefined; // a delete that changed nothing
  if (s?.rv !== undefined && !(r.rv > s.rv)) return undefined;
  // The update that removes the last finalizer of an object being deleted removes it (the answer shows it).
  return r.deleting && !r.finalizers ? null : r;
}

function stepOne(s: Obj | null, op: Op): (Obj | null)[] {
  switch (op.outcome) {
    case 'unknown':
      // Took effect (resourceVersion unknown; gone if its effect removes it) — or never did.
      return [s, ...effects(op, s).map((e) => (e && e.deleting && !e.finalizers ? null : e && { ...e, rv: e === s ? e.rv : undefined }))];
    case 'ok': {
      if (op.op === 'get') {
        const r = op.result;
        if (!s || !r || !sameContent(s, r)) return [];
        return s.rv === undefined || s.rv === r.rv ? [r] : [];
      }
      const out: (Obj | null)[] = [];
      for (const e of effects(op, s)) {
        const next = answered(op, s, e, op.result);
        if (next !== undefined) out.push(next);
      }
      return out;
    }
    case 'notFound':
      return s || op.upsert ? [] : [s];
    case 'alreadyExists':
      return op.op === 'create' && s ? [s] : [];
    case 'conflict':
      return s && op.precondition !== undefined && s.rv !== op.precondition ? [s] : [];
    default:
      return [];
  }
}

export function objectModel(initial: Obj | null): Model<State, Op> {
  return {
    init: [initial],
    step(state, op) {
      const next = new Map<string, Obj | null>();
      for (const s of state) for (const n of stepOne(s, op)) next.set(objHash(n), n);
      return next.size ? [...next.values()] : undefined;
    },
    hash: (state) => state.map(objHash).sort().join('|'),
  };
}

export interface Partition {
  type: string;
  key: string;
  ops: Op[]; // the object's own operations, and consistent reads of it (a list's projection keeps the list's id)
}

/** Consistent reads only: a read at "0" or at a given revision may be stale and is checked against the replay. */
export const isLinearizableRead = (op: Op) => (op.op === 'get' || op.op === 'list') && op.rv === '' && op.outcome !== 'unknown' && op.outcome !== 'failed';

/** The searches: one per object, with every consistent list that covers it projected onto it as a read. */
export function partitions(ops: readonly Op[]): Partition[] {
  const byKey = new Map<string, Partition>();
  const part = (type: string, key: string) => {
    const id = `${type} ${key}`;
    let p = byKey.get(id);
    if (!p) byKey.set(id, (p = { type, key, ops: [] }));
    return p;
  };
  for (const op of ops) {
    if (op.op === 'list' || op.outcome === 'failed' || !op.key) continue;
    if (op.op === 'get' && !isLinearizableRead(op)) continue;
    part(op.type, op.key).ops.push(op);
  }
  for (const op of ops) {
    if (op.op === 'list' && op.outcome === 'ok') for (const k of Object.keys(op.items ?? {})) part(op.type, k);
  }
  for (const op of ops) {
    if (op.op !== 'list' || !isLinearizableRead(op) || op.outcome !== 'ok') continue;
    for (const p of byKey.values()) {
      if (p.type !== op.type || !inScope(p.key, op.namespace ?? '')) continue;
      const item = op.items?.[p.key];
      p.ops.push({ ...op, op: 'get', key: p.key, outcome: item ? 'ok' : 'notFound', result: item, items: undefined });
    }
  }
  return [...byKey.values()];
}
