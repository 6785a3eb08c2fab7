// Robustness: the checker's entry point — every check of a recorded history, and on failure the smallest
// violating sub-history the shrinker finds, printed one line per operation, change and watch event.

import type { History, Op, Session, TypeHistory } from './history';
import { checkOperations } from './linearizability';
import { objectModel, partitions } from './object-model';
import { fmt, Replay, type Snapshot, type Violation } from './replay';
import { checkRevisions, resolveUnknown } from './revisions';
import { checkSession, describeSession } from './watch';

export type { Violation } from './replay';
export type Family = 'linearizability' | 'revisions' | 'watch' | 'lists';

const FAMILY: Record<string, Family> = {
  Linearizable: 'linearizability', WriteOrder: 'revisions', ConsistentRead: 'revisions', StaleRead: 'revisions', Durability: 'revisions',
  ReadMatchesHistory: 'revisions', ListMatchesHistory: 'lists', History: 'lists',
};
export const familyOf = (check: string): Family => FAMILY[check] ?? 'watch';

export interface CheckOptions {
  budgetMs?: number; // for the whole linearizability search (default 60 s); past it partitions are "unknown"
  maxSteps?: number; // per partition (default 2,000,000)
  only?: Family[];
}

export interface Report {
  violations: Violation[];
  unknown: string[]; // partitions whose search ran out of budget
  counts: { ops: number; events: number; sessions: number; watchEvents: number; partitions: number; steps: number };
}

export function checkHistory(h: History, opts: CheckOptions = {}): Report {
  const run = (f: Family) => !opts.only || opts.only.includes(f);
  const violations: Violation[] = [];
  const unknown: string[] = [];
  const replays = new Map<string, Replay>();
  for (const [type, t] of Object.entries(h.types)) {
    const r = new Replay(type, t);
    replays.set(type, r);
    if (run('lists')) violations.push(...r.problems);
  }
  const ops = resolveUnknown(h);
  if (run('revisions')) violations.push(...checkRevisions(ops, replays));

  let steps = 0;
  const parts = run('linearizability') ? partitions(ops) : [];
  if (parts.length) {
    const deadline = Date.now() + (opts.budgetMs ?? 60_000);
    for (const p of parts) {
      const model = objectModel(h.types[p.type]?.initial[p.key] ?? null);
      const v = checkOperations(model, p.ops, { maxSteps: opts.maxSteps ?? 2_000_000, deadline });
      steps += v.steps;
      if (v.result === 'unknown') unknown.push(`${p.type} ${p.key}`);
      if (v.result !== 'illegal') continue;
      let state = model.init;
      for (const i of v.longest) state = model.step(state, p.ops[i])!;
      const line = (o: Op) => `#${o.id} ${describeOp(o)}`;
      violations.push({
        check: 'Linearizable', subject: `${p.type} ${p.key}`, ops: [...v.longest, ...v.stuck].map((i) => p.ops[i].id), focus: v.stuck.map((i) => p.ops[i].id),
        message: `${p.type} ${p.key}: no linearization. After ${v.longest.length} operations the object is ${state.map((s) => (s ? `${s.rv ?? '?'} ${fmt(s)}` : 'absent')).join(' or ')}, `
          + `and none of the operations that could come next fits: ${v.stuck.map((i) => line(p.ops[i])).join('; ')}`,
      });
    }
  }

  const snapshots: Snapshot[] = [];
  if (run('lists')) {
    for (const op of ops) {
      if (op.op !== 'list' || op.outcome !== 'ok' || op.revision === undefined) continue;
      snapshots.push({ type: op.type, revision: op.revision, namespace: op.namespace ?? '', items: op.items ?? {}, subject: `${op.type} ${op.client}`, what: `list #${op.id} ${describeOp(op)}`, ops: [op.id] });
    }
  }
  const watchSnapshots: Snapshot[] = [];
  for (const s of run('watch') ? h.sessions : []) {
    const r = replays.get(s.type);
    if (!r) continue;
    const c = checkSession(s, r);
    violations.push(...c.violations);
    watchSnapshots.push(...c.snapshots);
  }
  for (const [type, r] of replays) {
    violations.push(...r.compare(snapshots.filter((s) => s.type === type)));
    violations.push(...r.compare(watchSnapshots.filter((s) => s.type === type), 'InitialEvents'));
  }
  return {
    violations, unknown,
    counts: {
      ops: h.ops.length, events: Object.values(h.types).reduce((n, t) => n + t.events.length, 0), sessions: h.sessions.length,
      watchEvents: h.sessions.reduce((n, s) => n + s.events.length, 0), partitions: parts.length, steps,
    },
  };
}

/** One line: what was asked and what came back. */
export function describeOp(o: Op): string {
  const t = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '∞');
  const ask = o.op === 'list'
    ? `list ${o.namespace || '(all)'} rv=${JSON.stringify(o.rv ?? '')}${o.match ? ` ${o.match}` : ''}`
    : `${o.op} ${o.key}${o.rv !== undefined ? ` rv=${JSON.stringify(o.rv)}` : ''}${o.precondition !== undefined ? ` if rv=${o.precondition}` : ''}`
      + `${o.sets ? ` set ${Object.entries(o.sets).map(([k, v]) => `${k}=${v}`).join(',')}` : ''}${o.finalizers !== undefined ? ` fin=${o.finalizers}` : ''}${o.upsert ? ' upsert' : ''}`;
  const got = o.op === 'list' && o.outcome === 'ok'
    ? `ok rv=${o.revision} [${Object.entries(o.items ?? {}).map(([k, v]) => `${k}@${v.rv}`).join(' ')}]`
    : o.outcome === 'ok' ? `ok ${o.result ? `${o.result.rv} ${fmt(o.result)}` : 'gone'}` : o.outcome;
  return `${o.client} [${t(o.call)}, ${t(o.ret)}] ${ask}${o.target && o.target !== 'store' ? ` @${o.target}` : ''}${o.note ? ` (${o.note})` : ''} → ${got}`;
}

export function formatHistory(h: History): string {
  const lines: string[] = [];
  for (const o of [...h.ops].sort((a, b) => a.call - b.call)) lines.push(`  op #${o.id} ${describeOp(o)}`);
  for (const [type, t] of Object.entries(h.types)) {
    const init = Object.entries(t.initial);
    if (init.length) lines.push(`  ${type} at ${t.base}: ${init.map(([k, o]) => `${k}@${o.rv} ${fmt(o)}`).join(', ')}`);
    for (const e of t.events) lines.push(`  ${type} ${e.rv} ${e.type} ${e.key} ${fmt(e.obj)}`);
  }
  for (const s of h.sessions) {
    lines.push(`  ${describeSession(s)} ended ${s.end}:`);
    for (const e of s.events) lines.push(`    ${e.type}${e.initialEnd ? ' (initial-events-end)' : ''} ${e.key ?? ''}@${e.rv}${e.obj ? ` ${fmt(e.obj)}` : ''}${e.code ? ` code ${e.code}` : ''}`);
  }
  return lines.join('\n');
}

type Part = { op: Op } | { type: string; event: TypeHistory['events'][number] } | { watchEvent: Session['events'][number] };

/**
 * The smallest sub-history that still shows `v` (same check, same subject, one of the same stuck operations) that
 * a bounded delta-debugging pass finds: operations, history changes and the violating watch's events are dropped in
 * halves, then quarters, … while the violation persists. The state at the history's base is kept.
 */
export function shrink(h: History, v: Violation, opts: { deadlineMs?: number; maxEvals?: number } = {}): History {
  const family = familyOf(v.check);
  const session = v.sessions?.length ? h.sessions.find((s) => s.id === v.sessions![0]) : undefined;
  const opIds = new Set(v.ops);
  const type = session?.type ?? h.ops.find((o) => opIds.has(o.id))?.type ?? v.subject.split(' ')[0];
  const key = family === 'linearizability' ? v.subject.slice(type.length + 1) : undefined;
  const relevant = (o: Op) => o.type === type && (!key || o.key === key || (o.op === 'list' && (o.items?.[key] !== undefined || (o.namespace ?? '') === '' || key.startsWith(`${o.namespace}/`))));
  const t = h.types[type];
  const parts: Part[] = [
    ...h.ops.filter(relevant).map((op) => ({ op })),
    ...(t?.events ?? []).filter((e) => !key || e.key === key).map((event) => ({ type, event })),
    ...(session?.events ?? []).map((watchEvent) => ({ watchEvent })),
  ];
  const build = (ps: Part[]): History => ({
    ops: ps.flatMap((p) => ('op' in p ? [p.op] : [])),
    types: t ? { [type]: { ...t, events: ps.flatMap((p) => ('event' in p ? [p.event] : [])) } } : {},
    sessions: session ? [{ ...session, events: ps.flatMap((p) => ('watchEvent' in p ? [p.watchEvent] : [])) }] : [],
  });
  // A candidate must still explain what it shows: every marker a read, an answer or a watch event shows that the
  // whole sub-history could explain (by a write for the search, by a change otherwise) keeps a part that made it.
  // Without this, dropping the writes a read saw would "shrink" a stale read into a read of nothing.
  const makes = (p: Part): string[] => ('op' in p ? (family === 'linearizability' || family === 'revisions' ? Object.values(p.op.sets ?? {}) : [])
    : 'event' in p && family !== 'linearizability' ? Object.values(p.event.obj.fields) : []);
  const shows = (p: Part): string[] => ('op' in p ? [p.op.result, ...Object.values(p.op.items ?? {})].flatMap((o) => (o ? Object.values(o.fields) : []))
    : 'watchEvent' in p ? Object.values(p.watchEvent.obj?.fields ?? {}) : []);
  const explainable = new Set(parts.flatMap(makes));
  const closed = (ps: Part[]) => {
    const made = new Set(ps.flatMap(makes));
    return ps.every((p) => shows(p).every((m) => made.has(m) || !explainable.has(m)));
  };
  const deadline = Date.now() + (opts.deadlineMs ?? 30_000);
  let evals = 0;
  const fails = (ps: Part[]) => {
    if (!closed(ps)) return false;
    evals++;
    const r = checkHistory(build(ps), { only: [family], budgetMs: Math.max(1000, deadline - Date.now()), maxSteps: 200_000 });
    return r.violations.some((x) => x.check === v.check && x.subject === v.subject && (!v.focus || !!x.focus?.some((id) => v.focus!.includes(id))));
  };
  if (!fails(parts)) return h;
  let cur = parts;
  let n = 2;
  while (cur.length > 1 && Date.now() < deadline && evals < (opts.maxEvals ?? 500)) {
    const chunk = Math.ceil(cur.length / n);
    let reduced = false;
    for (let i = 0; i < cur.length && Date.now() < deadline; i += chunk) {
      const candidate = [...cur.slice(0, i), ...cur.slice(i + chunk)];
      if (fails(candidate)) {
        cur = candidate;
        n = Math.max(2, n - 1);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (chunk === 1) break;
      n = Math.min(cur.length, n * 2);
    }
  }
  return build(cur);
}

/** Every violation (the first few per check), each with its shrunk sub-history. */
export function explain(h: History, report: Report, opts: { perCheck?: number; deadlineMs?: number } = {}): string {
  const out: string[] = [];
  const shown = new Map<string, number>();
  for (const v of report.violations) {
    const n = shown.get(v.check) ?? 0;
    shown.set(v.check, n + 1);
    if (n >= (opts.perCheck ?? 3)) continue;
    const small = shrink(h, v, { deadlineMs: opts.deadlineMs ?? 20_000 });
    const size = `${small.ops.length} operations, ${Object.values(small.types).reduce((k, x) => k + x.events.length, 0)} changes, ${small.sessions.reduce((k, s) => k + s.events.length, 0)} watch events`;
    out.push(`${v.check}: ${v.message}\n  smallest violating sub-history found (${size}):\n${formatHistory(small)}`);
  }
  for (const [check, n] of shown) if (n > (opts.perCheck ?? 3)) out.push(`${check}: ${n - (opts.perCheck ?? 3)} more not shown`);
  if (report.unknown.length) out.push(`unknown (search budget spent): ${report.unknown.join(', ')}`);
  return out.join('\n\n');
}
