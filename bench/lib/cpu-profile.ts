// Measurement: what a V8 CPU profile (.cpuprofile, from workerd's inspector) says: time per function,
// self (samples in the function itself) and total (in it or what it called), and the share that was idle,
// native runtime work outside JavaScript ("(program)": workerd's C++, e.g. the WebSocket send path) or GC.

import type { CpuProfile, CpuProfileNode } from './inspector';

export interface FunctionTime {
  name: string; // "function (file:line)"
  selfMs: number;
  totalMs: number;
}

export interface ProfileSummary {
  sampledMs: number;
  idleMs: number;
  programMs: number; // native work outside JavaScript
  gcMs: number;
  jsMs: number;
  top: FunctionTime[]; // by self time
  topTotal: FunctionTime[]; // by total time
}

const SPECIAL = new Set(['(root)', '(idle)', '(program)', '(garbage collector)']);

function label(n: CpuProfileNode): string {
  const f = n.callFrame;
  const file = f.url ? f.url.slice(f.url.lastIndexOf('/') + 1) : '';
  return `${f.functionName || '(anonymous)'}${file ? ` (${file}:${f.lineNumber + 1})` : ''}`;
}

export function summarizeProfile(p: CpuProfile, top = 25): ProfileSummary {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  // Self time per node from the samples and their time deltas (µs).
  const self = new Map<number, number>();
  const samples = p.samples ?? [];
  const deltas = p.timeDeltas ?? [];
  // A gap far longer than the sampling interval is the thread descheduled (this machine runs other work), not time
  // spent in the function sampled after it: one 7.7 s gap once made a 1 µs function the top of a writes-64 profile.
  // Such a gap counts as the median interval.
  const sortedDeltas = deltas.slice().sort((a, b) => a - b);
  const median = sortedDeltas[sortedDeltas.length >> 1] ?? 0;
  const capped = (d: number) => (median > 0 && d > 20 * median ? median : d);
  for (let i = 0; i < samples.length; i++) self.set(samples[i], (self.get(samples[i]) ?? 0) + capped(deltas[i + 1] ?? deltas[i] ?? 0) / 1000);
  // Total time per node: its self time plus its subtree's, children before parents.
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const order: number[] = [];
  const root = p.nodes.find((n) => !parent.has(n.id));
  const stack = root ? [root.id] : [];
  while (stack.length) {
    const id = stack.pop()!;
    order.push(id);
    for (const c of byId.get(id)?.children ?? []) stack.push(c);
  }
  const total = new Map<number, number>();
  for (let i = order.length - 1; i >= 0; i--) {
    const id = order[i];
    let t = self.get(id) ?? 0;
    for (const c of byId.get(id)?.children ?? []) t += total.get(c) ?? 0;
    total.set(id, t);
  }
  const fnSelf = new Map<string, number>();
  const fnTotal = new Map<string, number>();
  let idleMs = 0;
  let programMs = 0;
  let gcMs = 0;
  let sampledMs = 0;
  for (const n of p.nodes) {
    const s = self.get(n.id) ?? 0;
    sampledMs += s;
    const name = n.callFrame.functionName;
    if (name === '(idle)') idleMs += s;
    else if (name === '(program)') programMs += s;
    else if (name === '(garbage collector)') gcMs += s;
    if (SPECIAL.has(name)) continue;
    const l = label(n);
    fnSelf.set(l, (fnSelf.get(l) ?? 0) + s);
  }
  // Total per function, counting a function once per call stack (recursion would count it twice otherwise).
  const visit = (id: number, onStack: Set<string>) => {
    const n = byId.get(id)!;
    const l = label(n);
    const special = SPECIAL.has(n.callFrame.functionName);
    const first = !special && !onStack.has(l);
    if (first) {
      fnTotal.set(l, (fnTotal.get(l) ?? 0) + (total.get(id) ?? 0));
      onStack.add(l);
    }
    for (const c of n.children ?? []) visit(c, onStack);
    if (first) onStack.delete(l);
  };
  if (root) visit(root.id, new Set());
  const r1 = (x: number) => Math.round(x * 10) / 10;
  const list = (m: Map<string, number>, other: Map<string, number>, key: 'selfMs' | 'totalMs') =>
    [...m].map(([name, v]) => ({ name, selfMs: r1(key === 'selfMs' ? v : other.get(name) ?? 0), totalMs: r1(key === 'totalMs' ? v : other.get(name) ?? 0) }))
      .sort((a, b) => b[key] - a[key]).slice(0, top);
  return {
    sampledMs: r1(sampledMs), idleMs: r1(idleMs), programMs: r1(programMs), gcMs: r1(gcMs), jsMs: r1(sampledMs - idleMs - programMs - gcMs),
    top: list(fnSelf, fnTotal, 'selfMs'), topTotal: list(fnTotal, fnSelf, 'totalMs'),
  };
}
