// Robustness: the watch guarantees, checked per watch session against the replayed history as etcd's
// validate/watch.go checks every client's watch (its error wording kept where it applies):
//   Ordered       events are ordered by revision; an event never precedes, in time, one already posted;
//   Unique        an event never appears on a watch twice;
//   Atomic        a revision arrives whole: the event at revision r is the history's change at r (type, object, its
//                 resourceVersion), never part of it or another change;
//   Bookmarkable  a bookmark at r means every event up to r has been delivered: none ≤ r follows it, bookmarks
//                 never go back, and never below the watch's start;
//   Reliable      no event in scope is skipped between the start and the last revision the watch reached (event or
//                 bookmark), and a watch still open when the run ended reached the run's last change in its scope;
//   Resumable     a watch from revision S begins with the first change in scope after S;
//   InitialEvents a watch-list's events before its initial-events-end bookmark at R — the initial ADDED objects,
//                 then any changes that came meanwhile (kube-apiserver sends the bookmark on its next bookmark tick,
//                 and client-go's reflector applies whatever came before it) — make the state at R (compared in
//                 the replay's sweep, as a list is), each object the history's at its revision.

import { inScope, sameObj, type Session } from './history';
import { fmt, type Replay, type Snapshot, type Violation } from './replay';

const MESSAGES = {
  Ordered: 'broke Ordered - events are ordered by revision; an event will never appear on a watch if it precedes an event in time that has already been posted',
  Unique: 'broke Unique - an event will never appear on a watch twice',
  Atomic: 'broke Atomic - a revision is delivered whole, as the history has it',
  Bookmarkable: 'broke Bookmarkable - progress notification events guarantee that all events up to a revision have already been delivered',
  Reliable: 'broke Reliable - a sequence of events will never drop any subsequence of events',
  Resumable: 'broke Resumable - a watch resumed from a revision starts with the first event after it',
};

export function describeSession(s: Session): string {
  return `watch ${s.id} (${s.transport} at ${s.target}, ${s.type}${s.namespace ? ` in ${s.namespace}` : ''}, ${s.start === 'list' ? 'watch-list' : `from ${s.start}`})`;
}

export function checkSession(s: Session, replay: Replay): { violations: Violation[]; snapshots: Snapshot[] } {
  const violations: Violation[] = [];
  const snapshots: Snapshot[] = [];
  const fail = (check: keyof typeof MESSAGES | 'InitialEvents' | 'WatchError', detail: string) => {
    if (violations.some((v) => v.check === check)) return; // the first of each kind per session
    violations.push({ check, subject: `watch ${s.id}`, sessions: [s.id], message: `${describeSession(s)}: ${check in MESSAGES ? `${MESSAGES[check as keyof typeof MESSAGES]}: ` : ''}${detail}` });
  };
  let events = s.events;
  let from: number | undefined = typeof s.start === 'number' ? s.start : undefined;
  if (s.start === 'list') {
    const end = events.findIndex((e) => e.type === 'BOOKMARK' && e.initialEnd);
    const initial = end < 0 ? events : events.slice(0, end);
    const items: Record<string, NonNullable<(typeof events)[number]['obj']>> = {};
    const seen = new Set<number>();
    for (const e of initial) {
      if (e.type === 'BOOKMARK' || e.type === 'ERROR' || !e.key || !e.obj) continue;
      if (seen.has(e.rv)) fail('Unique', `${e.key}@${e.rv} delivered twice before the initial-events-end bookmark`);
      seen.add(e.rv);
      const h = replay.at(e.rv);
      if (e.rv > replay.h.base && (!h || h.key !== e.key || (e.type === 'DELETED') !== (h.type === 'DELETED') || !sameObj(h.obj, e.obj))) {
        fail('Atomic', `${e.type} ${e.key}@${e.rv} ${fmt(e.obj)} before the initial-events-end bookmark; the history has ${h ? `${h.type} ${h.key}@${h.rv} ${fmt(h.obj)}` : 'no change'} at ${e.rv}`);
      }
      if (e.type === 'DELETED') delete items[e.key];
      else items[e.key] = e.obj;
    }
    if (end < 0) return { violations, snapshots }; // ended before the initial state was complete
    from = events[end].rv;
    snapshots.push({ type: s.type, revision: from, namespace: s.namespace, items, subject: `watch ${s.id}`, what: `the initial events of ${describeSession(s)}`, sessions: [s.id] });
    events = events.slice(end + 1);
  }
  const start = from!;
  let lastEvent = start;
  let lastBookmark = -Infinity;
  let reached = start;
  const received = new Set<number>();
  let first = true;
  for (const e of events) {
    if (e.type === 'ERROR') {
      if (e.code !== 410) fail('WatchError', `an ERROR event (code ${e.code}) on a healthy history`);
      continue;
    }
    if (e.type === 'BOOKMARK') {
      if (e.rv < lastBookmark) fail('Bookmarkable', `bookmark at ${e.rv} after a bookmark at ${lastBookmark}`);
      else if (e.rv < lastEvent) fail('Bookmarkable', `bookmark at ${e.rv} behind ${received.size ? `an event at ${lastEvent}` : `the start revision ${start}`}`);
      lastBookmark = Math.max(lastBookmark, e.rv);
      reached = Math.max(reached, e.rv);
      continue;
    }
    if (e.rv <= lastBookmark) fail('Bookmarkable', `event ${e.type} ${e.key}@${e.rv} after a bookmark at ${lastBookmark}`);
    if (received.has(e.rv)) fail('Unique', `${e.type} ${e.key}@${e.rv} delivered twice`);
    else if (e.rv < lastEvent) fail('Ordered', `${e.type} ${e.key}@${e.rv} after an event at ${lastEvent}`);
    if (first && s.start !== 'list') {
      const expected = replay.range(s.namespace, start, Infinity).next().value;
      if (e.rv <= start) fail('Resumable', `the first event is at ${e.rv}, not after the start revision ${start}`);
      else if (expected && expected.rv !== e.rv) fail('Resumable', `the first event is ${e.type} ${e.key}@${e.rv}; the first change after ${start} is ${expected.type} ${expected.key}@${expected.rv}`);
    }
    first = false;
    received.add(e.rv);
    lastEvent = Math.max(lastEvent, e.rv);
    reached = Math.max(reached, e.rv);
    const h = replay.at(e.rv);
    if (!h || h.key !== e.key || h.type !== e.type || !e.obj || !sameObj(h.obj, e.obj)) {
      if (e.rv > replay.h.base) fail('Atomic', `${e.type} ${e.key}@${e.rv} ${fmt(e.obj)}; the history has ${h ? `${h.type} ${h.key}@${h.rv} ${fmt(h.obj)}` : 'no change'} at ${e.rv}`);
    }
    if (!inScope(e.key ?? '', s.namespace)) fail('Atomic', `${e.key}@${e.rv} is outside the watch's namespace`);
  }
  if (start >= replay.h.base) {
    const missing: string[] = [];
    for (const h of replay.range(s.namespace, start, reached)) if (!received.has(h.rv)) missing.push(`${h.type} ${h.key}@${h.rv}`);
    if (missing.length) fail('Reliable', `missed ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''} (reached ${reached})`);
  }
  const last = replay.lastInScope(s.namespace, replay.h.final);
  if (s.end === 'open' && reached < last) fail('Reliable', `still open when the run ended, but it reached only revision ${reached} of ${last}`);
  return { violations, snapshots };
}
