// Core: a one-pass scan of a Go (RE2) regular expression into coarse tokens, linear in its length. Not a
// parser: it never decides validity (re2js does, with Go's messages). It serves two jobs that must happen
// before or around compiling: an upper estimate of the compiled program's size, with the sizes Go's
// parser charges (regexp/syntax parse.go calcSize: a literal rune 1, x* 2+x, x+ and x? 1+x, x{n,m}
// m·x+(m−n), alternation the sum plus one per bar, a capture 2+x), so that a pattern whose program would
// be huge is refused without building it; and locating named-group openers.

export type TokenKind = 'atom' | 'open' | 'close' | 'alt' | 'repeat' | 'flags';

export interface Token {
  kind: TokenKind;
  start: number;
  end: number;
  /** atom: instructions it compiles to (a quoted run \Q…\E: its rune count). */
  size?: number;
  /** open: a capturing group; named: its name ends before `end` (`(?P<name>` / `(?<name>`). */
  capture?: boolean;
  named?: boolean;
  /** repeat: bounds (max -1: unbounded); counted: written with braces. */
  min?: number;
  max?: number;
  counted?: boolean;
}

// Counts past Go's maxRepeat are invalid anyway; clamping keeps the arithmetic small.
const COUNT_CLAMP = 1001;

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** Index after one code point at i. */
function stepRune(p: string, i: number): number {
  return isHigh(p.charCodeAt(i)) && i + 1 < p.length ? i + 2 : i + 1;
}

/** Index after the escape starting at i (p[i] === '\\'), outside \Q…\E. */
function skipEscape(p: string, i: number): number {
  if (i + 1 >= p.length) return p.length;
  const c = p[i + 1];
  if ((c === 'p' || c === 'P' || c === 'x') && p[i + 2] === '{') {
    const close = p.indexOf('}', i + 3);
    return close < 0 ? p.length : close + 1;
  }
  if (c === 'p' || c === 'P') return i + 2 < p.length ? stepRune(p, i + 2) : p.length;
  if (c === 'x') return Math.min(p.length, i + 4);
  if (c >= '0' && c <= '7') {
    let j = i + 2;
    while (j < p.length && j < i + 4 && p[j] >= '0' && p[j] <= '7') j++;
    return j;
  }
  return stepRune(p, i + 1);
}

/** Index after the character class starting at i (p[i] === '['). */
function skipClass(p: string, i: number): number {
  let j = i + 1;
  if (p[j] === '^') j++;
  let first = true;
  while (j < p.length) {
    const c = p[j];
    if (c === ']' && !first) return j + 1;
    first = false;
    if (c === '[' && p[j + 1] === ':') {
      const close = p.indexOf(':]', j + 2);
      if (close >= 0) {
        j = close + 2;
        continue;
      }
    }
    j = c === '\\' ? skipEscape(p, j) : stepRune(p, j);
  }
  return p.length;
}

/** `{n}`, `{n,}`, `{n,m}` at i: its bounds and end, or undefined (then `{` is a literal). */
function countedRepeat(p: string, i: number): { min: number; max: number; end: number } | undefined {
  const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i, i + 24));
  if (!m) return undefined;
  const num = (s: string) => Math.min(COUNT_CLAMP, s.length > 5 ? COUNT_CLAMP : Number(s));
  const min = num(m[1]);
  const max = m[2] === undefined ? min : m[3] === '' ? -1 : num(m[3]);
  return { min, max, end: i + m[0].length };
}

/** The tokens of `p`, in order. */
export function scan(p: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    const start = i;
    if (c === '\\' && p[i + 1] === 'Q') {
      const close = p.indexOf('\\E', i + 2);
      const end = close < 0 ? p.length : close;
      let runes = 0;
      for (let j = i + 2; j < end; j = stepRune(p, j)) runes++;
      i = close < 0 ? p.length : close + 2;
      if (runes) out.push({ kind: 'atom', start, end: i, size: runes });
      continue;
    }
    if (c === '\\') {
      i = skipEscape(p, i);
      out.push({ kind: 'atom', start, end: i, size: 1 });
    } else if (c === '[') {
      i = skipClass(p, i);
      out.push({ kind: 'atom', start, end: i, size: 1 });
    } else if (c === '(') {
      if (p[i + 1] !== '?') {
        i++;
        out.push({ kind: 'open', start, end: i, capture: true });
        continue;
      }
      const named = p.startsWith('(?P<', i) ? 4 : p.startsWith('(?<', i) ? 3 : 0;
      if (named) {
        const close = p.indexOf('>', i + named);
        i = close < 0 ? p.length : close + 1;
        out.push({ kind: 'open', start, end: i, capture: true, named: close >= 0 });
        continue;
      }
      let j = i + 2;
      while (j < p.length && 'imsU-'.includes(p[j])) j++;
      if (p[j] === ':') {
        i = j + 1;
        out.push({ kind: 'open', start, end: i, capture: false });
      } else if (p[j] === ')') {
        i = j + 1;
        out.push({ kind: 'flags', start, end: i });
      } else {
        i = j;
        out.push({ kind: 'atom', start, end: i, size: 1 });
      }
    } else if (c === ')') {
      i++;
      out.push({ kind: 'close', start, end: i });
    } else if (c === '|') {
      i++;
      out.push({ kind: 'alt', start, end: i });
    } else if (c === '*' || c === '+' || c === '?') {
      i++;
      if (p[i] === '?') i++;
      out.push({ kind: 'repeat', start, end: i, min: c === '+' ? 1 : 0, max: c === '?' ? 1 : -1 });
    } else if (c === '{' && countedRepeat(p, i)) {
      const r = countedRepeat(p, i)!;
      i = r.end;
      if (p[i] === '?') i++;
      out.push({ kind: 'repeat', start, end: i, min: r.min, max: r.max, counted: true });
    } else {
      i = stepRune(p, i);
      out.push({ kind: 'atom', start, end: i, size: 1 });
    }
  }
  return out;
}

interface Frame {
  /** Sizes of the finished alternatives and their count. */
  alts: number;
  bars: number;
  cur: number;
  capture: boolean;
  /** Largest product of counted repetitions inside (Go refuses nests whose product passes 1,000). */
  product: number;
}

export interface SizeEstimate {
  /** Instructions the compiled program has at most (about; Go's calcSize). */
  insts: number;
  /** A counted repetition Go refuses (count or nested product over 1,000): leave the verdict to the parser. */
  invalidRepeat: boolean;
}

/** The program size `p` compiles to, estimated from its tokens (Go's calcSize rules). */
export function estimateProgramSize(tokens: Token[]): SizeEstimate {
  const stack: Frame[] = [];
  let f: Frame = { alts: 0, bars: 0, cur: 0, capture: false, product: 1 };
  let last = 0;
  let lastProduct = 1;
  let invalidRepeat = false;
  // An empty alternative still compiles to one instruction (Go's calcSize: at least 1 per node).
  const close = (fr: Frame) => fr.alts + Math.max(1, fr.cur) + fr.bars + (fr.capture ? 2 : 0);
  for (const t of tokens) {
    switch (t.kind) {
      case 'atom':
        last = t.size ?? 1;
        lastProduct = 1;
        f.cur += last;
        break;
      case 'open':
        stack.push(f);
        f = { alts: 0, bars: 0, cur: 0, capture: !!t.capture, product: 1 };
        last = 0;
        break;
      case 'close': {
        const size = close(f);
        const product = f.product;
        f = stack.pop() ?? { alts: 0, bars: 0, cur: 0, capture: false, product: 1 };
        f.cur += size;
        last = size;
        lastProduct = product;
        f.product = Math.max(f.product, product);
        break;
      }
      case 'alt':
        f.alts += Math.max(1, f.cur);
        f.bars++;
        f.cur = 0;
        last = 0;
        break;
      case 'repeat': {
        const min = t.min ?? 0;
        const max = t.max ?? -1;
        let size: number;
        if (max === -1) size = min === 0 ? 2 + last : 1 + min * last;
        else if (!t.counted) size = 1 + last;
        else size = Math.max(1, max * last + (max - min));
        if (t.counted && (min >= 2 || max >= 2)) {
          const n = max === -1 ? min : max;
          if (min > 1000 || max > 1000 || (max >= 0 && min > max)) invalidRepeat = true;
          if (n > 0) {
            lastProduct *= n;
            if (lastProduct > 1000) invalidRepeat = true;
          }
          f.product = Math.max(f.product, lastProduct);
        }
        f.cur += size - last;
        last = size;
        break;
      }
      case 'flags':
        break;
    }
  }
  let insts = close(f);
  while (stack.length) {
    const size = insts;
    f = stack.pop()!;
    f.cur += size;
    insts = close(f);
  }
  // The program's start and match instructions, and the capture around the whole expression.
  return { insts: insts + 4, invalidRepeat };
}

/** `p` with named groups made plain capturing groups (same numbering). */
export function withoutGroupNames(p: string, tokens: Token[]): string {
  let out = '';
  let at = 0;
  for (const t of tokens) {
    if (t.kind !== 'open' || !t.named) continue;
    out += p.slice(at, t.start) + '(';
    at = t.end;
  }
  return out + p.slice(at);
}

/** `p` with every counted repetition made `{1}`: same syntax, a small program. */
export function withSmallCounts(p: string, tokens: Token[]): string {
  let out = '';
  let at = 0;
  for (const t of tokens) {
    if (t.kind !== 'repeat' || !t.counted) continue;
    out += p.slice(at, t.start) + '{1}' + (p[t.end - 1] === '?' ? '?' : '');
    at = t.end;
  }
  return out + p.slice(at);
}
