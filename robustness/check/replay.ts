// Robustness: the replay of a type's history — the state at every revision, as etcd's model.NewReplay builds it from
// the WAL — and the check that every list at revision R equals it ("ListMatchesHistory"). Snapshots are compared in
// one sweep over the events in revision order, so the cost is events + lists × their size, not events × lists.

import { inScope, sameObj, type HistoryEvent, type Obj, type TypeHistory } from './history';

export interface Violation {
  check: string; // the guarantee, by etcd's name where it has one
  subject: string; // what the shrinker keeps failing: an object, a client, a watch session
  message: string;
  ops?: number[];
  focus?: number[]; // the operations it is about (the search's stuck ones), for the shrinker to keep in view
  sessions?: string[];
}

export interface Snapshot {
  type: string;
  revision: number;
  namespace: string;
  items: Record<string, Obj>;
  subject: string;
  what: string; // for the message: "list #12 (rv="") at the replica enam#0"
  ops?: number[];
  sessions?: string[];
}

export class Replay {
  readonly events: HistoryEvent[]; // strictly increasing revisions
  readonly problems: Violation[] = [];

  constructor(readonly type: string, readonly h: TypeHistory) {
    const ok: HistoryEvent[] = [];
    for (const e of h.events) {
      const last = ok.at(-1)?.rv ?? h.base;
      if (e.rv <= last) {
        this.problems.push({ check: 'History', subject: type, message: `${type}: the history goes from revision ${last} to ${e.rv} (${e.type} ${e.key}): not strictly increasing` });
        continue;
      }
      ok.push(e);
    }
    this.events = ok;
  }

  /** Index of the first event with revision > rv. */
  after(rv: number): number {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid].rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  at(rv: number): HistoryEvent | undefined {
    const i = this.after(rv) - 1;
    return i >= 0 && this.events[i].rv === rv ? this.events[i] : undefined;
  }

  /** The events in scope with base < after < rv ≤ upTo. */
  *range(namespace: string, after: number, upTo: number): Generator<HistoryEvent> {
    for (let i = this.after(after); i < this.events.length && this.events[i].rv <= upTo; i++) {
      if (inScope(this.events[i].key, namespace)) yield this.events[i];
    }
  }

  /** The last revision ≤ upTo with a change in scope (the base if none). */
  lastInScope(namespace: string, upTo: number): number {
    for (let i = this.after(upTo) - 1; i >= 0; i--) if (inScope(this.events[i].key, namespace)) return this.events[i].rv;
    return this.h.base;
  }

  /** Every snapshot compared with the replayed state at its revision. */
  compare(snapshots: Snapshot[], check = 'ListMatchesHistory'): Violation[] {
    const out: Violation[] = [];
    const sorted = [...snapshots].sort((a, b) => a.revision - b.revision);
    const state = new Map(Object.entries(this.h.initial));
    let i = 0;
    for (const s of sorted) {
      if (s.revision < this.h.base || s.revision > Math.max(this.h.final, this.events.at(-1)?.rv ?? 0)) {
        out.push({ check, subject: s.subject, message: `${s.what}: revision ${s.revision} is outside the recorded history (${this.h.base}..${this.h.final})`, ops: s.ops, sessions: s.sessions });
        continue;
      }
      for (; i < this.events.length && this.events[i].rv <= s.revision; i++) {
        const e = this.events[i];
        if (e.type === 'DELETED') state.delete(e.key);
        else state.set(e.key, e.obj);
      }
      const diffs: string[] = [];
      for (const [k, o] of state) {
        if (!inScope(k, s.namespace)) continue;
        const got = s.items[k];
        if (!got) diffs.push(`missing ${k}@${o.rv}`);
        else if (!sameObj(got, o)) diffs.push(`${k}@${got.rv} ${fmt(got)} where the history has ${k}@${o.rv} ${fmt(o)}`);
      }
      for (const [k, o] of Object.entries(s.items)) if (!state.has(k) && inScope(k, s.namespace)) diffs.push(`extra ${k}@${o.rv} ${fmt(o)}`);
      if (diffs.length) {
        out.push({ check, subject: s.subject, message: `${s.what} at revision ${s.revision} differs from the history there: ${diffs.slice(0, 5).join('; ')}${diffs.length > 5 ? ` (+${diffs.length - 5})` : ''}`, ops: s.ops, sessions: s.sessions });
      }
    }
    return out;
  }
}

export function fmt(o: Obj | null | undefined): string {
  if (!o) return '∅';
  const f = Object.entries(o.fields).map(([k, v]) => `${k}=${v}`).join(',');
  return `{${f}${o.finalizers ? ' fin' : ''}${o.deleting ? ' deleting' : ''}}`;
}
