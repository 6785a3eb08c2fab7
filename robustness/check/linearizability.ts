// Robustness: a linearizability checker for one partition of a history — the depth-first search of Wing & Gong as
// refined by Lowe ("Testing for linearizability", 2017) and used by porcupine: operations sit in a list of call and
// return entries ordered by time; the search linearizes any operation whose call comes before the first pending
// return, backtracks when a return is reached with its operation still pending, and skips any (set of linearized
// operations, model state) it has been in before. Partitioning by key (Horn & Kroening's P-compositionality) is the
// caller's job. Operations whose outcome is unknown return at Infinity: they may take effect at any point after
// their call, or never. The search is bounded: past its budget it answers "unknown" rather than running on.

export interface Model<S, O> {
  init: S;
  step(state: S, op: O): S | undefined; // undefined: `op` cannot be linearized in `state`
  hash(state: S): string; // equal states, equal strings
}

export interface Timed {
  call: number;
  ret: number;
}

export interface Budget {
  maxSteps: number;
  deadline: number; // Date.now() value
}

export type Verdict =
  | { result: 'ok'; steps: number }
  // longest: the longest sequence that could be linearized (indices into ops); stuck: the operations that could
  // come next there, none of which the model accepts before the first pending return
  | { result: 'illegal'; steps: number; longest: number[]; stuck: number[] }
  | { result: 'unknown'; steps: number };

interface Entry {
  op: number;
  call: boolean;
  time: number;
  match: Entry; // a call's return, a return's call
  prev: Entry | undefined;
  next: Entry | undefined;
}

class Bits {
  readonly words: Uint32Array;
  constructor(n: number) {
    this.words = new Uint32Array(Math.ceil(n / 32) || 1);
  }
  flip(i: number): void {
    this.words[i >>> 5] ^= 1 << (i & 31);
  }
  hash(): number {
    let h = 0x811c9dc5;
    for (const w of this.words) h = Math.imul(h ^ w, 0x01000193);
    return h >>> 0;
  }
  equals(w: Uint32Array): boolean {
    for (let i = 0; i < w.length; i++) if (w[i] !== this.words[i]) return false;
    return true;
  }
}

export function checkOperations<S, O extends Timed>(model: Model<S, O>, ops: readonly O[], budget: Budget): Verdict {
  // The entry list: by time; a call before a return at the same instant (touching operations count as concurrent).
  const entries: Entry[] = [];
  ops.forEach((o, i) => {
    const call = { op: i, call: true, time: o.call } as Entry;
    const ret = { op: i, call: false, time: o.ret, match: call } as Entry;
    call.match = ret;
    entries.push(call, ret);
  });
  entries.sort((a, b) => a.time - b.time || (a.call === b.call ? a.op - b.op : a.call ? -1 : 1));
  const head = { next: undefined } as unknown as Entry;
  let prev = head;
  for (const e of entries) {
    e.prev = prev;
    prev.next = e;
    prev = e;
  }
  const lift = (e: Entry) => {
    for (const x of [e, e.match]) {
      x.prev!.next = x.next;
      if (x.next) x.next.prev = x.prev;
    }
  };
  const unlift = (e: Entry) => {
    for (const x of [e.match, e]) {
      x.prev!.next = x;
      if (x.next) x.next.prev = x;
    }
  };

  let finiteLeft = ops.filter((o) => Number.isFinite(o.ret)).length;
  const bits = new Bits(ops.length);
  const seen = new Map<string, Uint32Array[]>();
  const remember = (state: S): boolean => {
    const k = `${bits.hash()}|${model.hash(state)}`;
    const list = seen.get(k);
    if (list?.some((w) => bits.equals(w))) return false;
    if (list) list.push(bits.words.slice());
    else seen.set(k, [bits.words.slice()]);
    return true;
  };

  const stack: { entry: Entry; state: S }[] = [];
  let longest: number[] = [];
  let stuck: number[] = [];
  let state = model.init;
  let entry = head.next;
  let steps = 0;
  while (entry) {
    if (finiteLeft === 0) return { result: 'ok', steps };
    if (++steps > budget.maxSteps || ((steps & 1023) === 0 && Date.now() > budget.deadline)) return { result: 'unknown', steps };
    if (entry.call) {
      const next = model.step(state, ops[entry.op]);
      if (next !== undefined) {
        bits.flip(entry.op);
        if (remember(next)) {
          stack.push({ entry, state });
          state = next;
          if (Number.isFinite(ops[entry.op].ret)) finiteLeft--;
          lift(entry);
          if (stack.length > longest.length) {
            longest = stack.map((s) => s.entry.op);
            stuck = [];
            for (let e = head.next; e?.call; e = e.next) stuck.push(e.op);
          }
          entry = head.next;
          continue;
        }
        bits.flip(entry.op);
      }
      entry = entry.next;
    } else {
      // A return with its operation still pending: nothing more can be linearized on this path.
      const top = stack.pop();
      if (!top) return { result: 'illegal', steps, longest, stuck };
      state = top.state;
      bits.flip(top.entry.op);
      if (Number.isFinite(ops[top.entry.op].ret)) finiteLeft++;
      unlift(top.entry);
      entry = top.entry.next;
    }
  }
  return { result: 'ok', steps };
}
