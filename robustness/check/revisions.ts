// Robustness: the checks on resourceVersions that need no search, each O(n log n) — etcd's serializable-read and
// persisted-request checks, and the RV/real-time rules one single-writer store per type makes possible:
//   WriteOrder      a write acknowledged before another was sent has the lower resourceVersion;
//   ConsistentRead  a list with resourceVersion "" is at or after every write acknowledged, and every consistent
//                   read answered, before it was sent (kube-apiserver: a consistent read is at the current revision);
//   StaleRead       reads at "0" may be stale but never go back for one client; NotOlderThan and Exact keep their word;
//   Durability      every acknowledged write is in the history, as answered; a refused write never is;
//   ReadMatchesHistory  an object a read returns at revision r is the history's object at r.
// resolveUnknown first settles what it can of writes whose outcome was unknown, as etcd's patch_history.go does: a
// write whose marker shows up in the history took effect by the time the recorder saw that event; one whose
// marker never does took no effect.

import { sameContent, sameObj, type History, type Op } from './history';
import { fmt, type Replay, type Violation } from './replay';

const writesNewRevision = (o: Op) => o.outcome === 'ok' && (o.op === 'create' || o.op === 'update') && o.result?.rv !== undefined;

export function resolveUnknown(h: History): Op[] {
  const firstSeen = new Map<string, { rv: number; at?: number; obj: import('./history').Obj; type: string }>();
  for (const [type, t] of Object.entries(h.types)) {
    for (const e of t.events) {
      for (const v of Object.values(e.obj.fields)) {
        const k = `${type}\u0000${v}`;
        if (!firstSeen.has(k)) firstSeen.set(k, { rv: e.rv, at: e.at, obj: e.obj, type });
      }
    }
  }
  return h.ops.map((op) => {
    if (op.outcome !== 'unknown' || !op.sets || !(op.type in h.types)) return op;
    const seen = Object.values(op.sets).map((v) => firstSeen.get(`${op.type}\u0000${v}`)).find(Boolean);
    if (!seen) return { ...op, outcome: 'failed' as const, note: `${op.note ?? ''} (unknown outcome: never took effect)`.trim() };
    return { ...op, outcome: 'ok' as const, result: seen.obj, ret: seen.at ?? Infinity, note: `${op.note ?? ''} (unknown outcome: took effect at ${seen.rv})`.trim() };
  });
}

/** For each query time, the op with the highest revision among `sources` answered before it (by `ret`). */
function ackedBefore(sources: { op: Op; rv: number }[], queries: Op[], each: (q: Op, best: { op: Op; rv: number } | undefined) => void): void {
  const byRet = [...sources].sort((a, b) => a.op.ret - b.op.ret);
  const byCall = [...queries].sort((a, b) => a.call - b.call);
  let i = 0;
  let best: { op: Op; rv: number } | undefined;
  for (const q of byCall) {
    for (; i < byRet.length && byRet[i].op.ret < q.call; i++) if (!best || byRet[i].rv > best.rv) best = byRet[i];
    each(q, best);
  }
}

export function checkRevisions(ops: Op[], replays: Map<string, Replay>): Violation[] {
  const out: Violation[] = [];
  const byType = new Map<string, Op[]>();
  for (const op of ops) {
    let l = byType.get(op.type);
    if (!l) byType.set(op.type, (l = []));
    l.push(op);
  }
  for (const [type, tops] of byType) {
    const writes = tops.filter(writesNewRevision).map((op) => ({ op, rv: op.result!.rv! }));
    ackedBefore(writes, writes.map((w) => w.op), (q, best) => {
      if (best && best.rv >= q.result!.rv!) {
        out.push({ check: 'WriteOrder', subject: type, ops: [best.op.id, q.id],
          message: `write #${q.id} got revision ${q.result!.rv} though write #${best.op.id} had been acknowledged at revision ${best.rv} before it was sent` });
      }
    });
    const consistent = tops.filter((o) => o.op === 'list' && o.rv === '' && o.outcome === 'ok' && o.revision !== undefined);
    const seen = [...writes, ...consistent.map((op) => ({ op, rv: op.revision! }))];
    ackedBefore(seen, consistent, (q, best) => {
      if (best && best.rv > q.revision!) {
        out.push({ check: 'ConsistentRead', subject: `${type} ${q.client}`, ops: [best.op.id, q.id],
          message: `consistent list #${q.id}${at(q)} is at revision ${q.revision}, behind revision ${best.rv} of #${best.op.id} (${best.op.op}), answered before it was sent` });
      }
    });
    // Per client, in the order sent: "0" reads never go back; exact and NotOlderThan reads keep their word.
    const last = new Map<string, Op>();
    for (const q of [...tops].sort((a, b) => a.call - b.call)) {
      if (q.outcome !== 'ok' || (q.op !== 'list' && q.op !== 'get')) continue;
      const rv = q.op === 'list' ? q.revision : q.result?.rv;
      if (rv === undefined) continue;
      if (q.rv === '0') {
        const k = `${q.client}\u0000${q.op === 'get' ? q.key : ''}`;
        const prev = last.get(k);
        const prevRv = prev && (prev.op === 'list' ? prev.revision! : prev.result!.rv!);
        if (prev && prevRv! > rv) {
          out.push({ check: 'StaleRead', subject: `${type} ${q.client}`, ops: [prev.id, q.id],
            message: `client ${q.client} read ${q.op === 'get' ? q.key : 'the list'} at revision ${rv} (#${q.id}${at(q)}, resourceVersion="0") after reading it at ${prevRv} (#${prev.id}${at(prev)})` });
        }
        last.set(k, q);
      } else if (typeof q.rv === 'number' && q.op === 'list') {
        if (q.match === 'Exact' ? rv !== q.rv : rv < q.rv) {
          out.push({ check: 'StaleRead', subject: `${type} ${q.client}`, ops: [q.id], message: `list #${q.id}${at(q)} asked for resourceVersion ${q.rv} (${q.match ?? 'legacy'}) and got revision ${rv}` });
        }
      }
    }
    const replay = replays.get(type);
    if (!replay) continue;
    // Durability: every acknowledged write is in the history as answered; no refused write ever is.
    for (const { op, rv } of writes) {
      const e = replay.at(rv);
      if (!e) {
        if (rv > replay.h.base) out.push({ check: 'Durability', subject: `${type} ${op.key}`, ops: [op.id], message: `acknowledged write #${op.id} (${op.op} ${op.key} → revision ${rv}) is not in the history: lost` });
      } else if (e.key !== op.key || !sameContent(e.obj, op.result!)) {
        out.push({ check: 'Durability', subject: `${type} ${op.key}`, ops: [op.id],
          message: `acknowledged write #${op.id} answered ${op.key}@${rv} ${fmt(op.result)}, but the history has ${e.type} ${e.key} ${fmt(e.obj)} at ${rv}` });
      }
    }
    const refused = new Map<string, Op>();
    for (const op of tops) if (op.outcome === 'failed' && op.sets) for (const v of Object.values(op.sets)) refused.set(v, op);
    if (refused.size) {
      for (const e of replay.events) {
        for (const v of Object.values(e.obj.fields)) {
          const op = refused.get(v);
          if (op) {
            out.push({ check: 'Durability', subject: `${type} ${op.key}`, ops: [op.id], message: `refused write #${op.id} (${op.note ?? op.op}) shows in the history: ${e.type} ${e.key}@${e.rv} ${fmt(e.obj)}` });
            refused.delete(v);
          }
        }
      }
    }
    // An object a read returns is the history's object at its revision.
    for (const q of tops) {
      const objs = q.outcome !== 'ok' ? [] : q.op === 'get' && q.result ? [[q.key!, q.result] as const] : q.op === 'list' ? Object.entries(q.items ?? {}) : [];
      for (const [key, o] of objs) {
        if (o.rv === undefined || o.rv <= replay.h.base) continue;
        const e = replay.at(o.rv);
        if (!e || e.key !== key || !sameObj(e.obj, o)) {
          out.push({ check: 'ReadMatchesHistory', subject: `${type} ${key}`, ops: [q.id],
            message: `${q.op} #${q.id}${at(q)} returned ${key}@${o.rv} ${fmt(o)}; the history has ${e ? `${e.type} ${e.key} ${fmt(e.obj)}` : 'no change'} at ${o.rv}` });
          break;
        }
      }
    }
  }
  return out;
}

const at = (o: Op) => (o.target && o.target !== 'store' ? ` at ${o.target}` : '');
