// Core: regular expressions with Go's regexp (RE2) syntax, semantics and error messages, matched in time
// linear in the input: what kube-apiserver uses for CRD `pattern` (apiextensions schema validation.go,
// regexp.Compile) and CEL matches/find/findAll (cel-go, k8s.io/apiserver pkg/cel/library regex.go).
// The engine is re2js (a JavaScript port of RE2/J, itself a port of Go's regexp: same parser, same error
// texts); this module adds what it does differently from Go 1.23 (kube 1.32's Go), a program-size bound
// checked before compiling, a compile cache bounded in entries and bytes, and a work charge per call
// (core/regex/budget.ts). Strings are matched as Go sees them after JSON decoding: unpaired surrogates
// are U+FFFD.

import { RE2JS, RE2JSSyntaxException } from 're2js';
import { COMPILE_UNITS_PER_INST, POSITIONAL_MATCH_FACTOR, type RegexBudget } from './budget';
import { estimateProgramSize, scan, withoutGroupNames, withSmallCounts } from './scan';
import { GO_UNICODE_CLASSES } from './unicode-names';

/**
 * Largest program a pattern may compile to. Go allows ~3.3 million instructions (parse.go maxSize), which
 * re2js takes seconds to build and whose every match costs as much per character; real patterns stay far
 * below (a full IPv6 address pattern: 967, RFC 5322 e-mail: 95, a 253-character DNS name: ~500). Past
 * this, Go's own "expression too large" error. A deliberate, documented difference from kube.
 */
export const MAX_PROGRAM_INSTS = 10_000;

/** A compiled expression. */
export interface GoRegexp {
  readonly source: string;
  /** Instructions of the compiled program: the per-character cost of a match. */
  readonly insts: number;
  /** @internal */ readonly re: RE2JS;
  /** @internal DFA work since its cache was last cleared, in (chars × insts). */
  dfaUnits: number;
}

export interface GoRegexpError {
  /** Go's error text: `error parsing regexp: <code>: \`<expr>\``. */
  error: string;
}

const ERR_LARGE = 'expression too large';
const ERR_INVALID_NAMED_CAPTURE = 'invalid named capture';
const ERR_INVALID_PERL_OP = 'invalid or unsupported Perl syntax';
const ERR_DUPLICATE_NAME = 'duplicate capture group name';

function goError(code: string, expr: string): GoRegexpError {
  return { error: `error parsing regexp: ${code}: \`${expr}\`` };
}

/** What Go sees for a JavaScript string: invalid UTF-16 (a lone surrogate) decodes to U+FFFD. */
export function goString(s: string): string {
  return LONE_SURROGATE.test(s) ? s.replace(LONE_SURROGATE_G, '\uFFFD') : s;
}
// One code unit with a one-unit look either side: linear.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATE_G = new RegExp(LONE_SURROGATE.source, 'g');

// re2js's error, in Go's words. Go 1.23 reads named groups only when the text is long enough to hold one
// ("(?P<" needs a fifth byte, "(?<" a fourth); otherwise "(?P"/"(?<" is an unknown flag. Go's ErrLarge,
// ErrNestingDepth and ErrTrailingBackslash carry the whole pattern or "" where re2js carries nothing.
function fromRe2js(e: unknown, pattern: string): GoRegexpError {
  if (!(e instanceof RE2JSSyntaxException)) return goError('regexp/syntax: internal error', pattern);
  const code = e.error;
  const expr = e.input ?? '';
  if (code === ERR_INVALID_NAMED_CAPTURE && (expr === '(?P<' || expr === '(?<') && pattern.endsWith(expr)) {
    return goError(ERR_INVALID_PERL_OP, expr.slice(0, 3));
  }
  if (code === ERR_LARGE || code === 'expression nests too deeply') return goError(code, pattern);
  return goError(code, expr);
}

function build(pattern: string): GoRegexp | GoRegexpError {
  const tokens = scan(pattern);
  const estimate = estimateProgramSize(tokens);
  if (!estimate.invalidRepeat && estimate.insts > MAX_PROGRAM_INSTS) {
    // Too large to build: report a syntax error elsewhere first, as Go would, else "too large".
    const small = compileRaw(withSmallCounts(pattern, tokens), pattern);
    return 'error' in small ? small : goError(ERR_LARGE, pattern);
  }
  const out = compileRaw(pattern, pattern);
  if ('error' in out && out.error.includes(`: ${ERR_DUPLICATE_NAME}: `)) {
    // Go accepts a name used twice (the first group answers to it); re2js refuses. Names serve nothing here.
    return compileRaw(withoutGroupNames(pattern, tokens), pattern);
  }
  return out;
}

function compileRaw(text: string, pattern: string): GoRegexp | GoRegexpError {
  let re: RE2JS;
  try {
    re = RE2JS.compile(text);
  } catch (e) {
    const err = fromRe2js(e, text);
    // A rewritten pattern reports the original where Go's message quotes the whole expression.
    return text === pattern ? err : { error: err.error.replace(`\`${text}\``, `\`${pattern}\``) };
  }
  const unknown = unknownUnicodeClass(text);
  if (unknown) return goError('invalid character class range', unknown);
  const insts = re.programSize();
  if (insts > MAX_PROGRAM_INSTS) return goError(ERR_LARGE, pattern);
  // re2js gives each expression's lazy DFA 8 MiB of states: filling that on an input whose states explode
  // took ~100–200 ms before it fell back to the NFA, whatever the input's length (and grew the isolate by
  // ~25 MB); with 64 KiB, a few ms. Typical patterns need a few dozen states. The NFA's work after the DFA
  // gives up is what the budget charges.
  const re2 = re.re2();
  const Dfa = re2.dfa.constructor as new (prog: unknown, maxMem: number) => typeof re2.lazyDFA;
  re2.lazyDFA = new Dfa(re2.prog, DFA_MAX_BYTES);
  return { source: pattern, insts, re, dfaUnits: 0 };
}

/** The lazy DFA's state budget per expression (re2js's own accounting). */
const DFA_MAX_BYTES = 64 * 1024;

// The first \p{Name} / \P{Name} / \pN whose name Go 1.23 does not know, as Go quotes it. A backslash
// escapes the next character inside classes too, so one pass over escapes finds them all.
function unknownUnicodeClass(p: string): string | undefined {
  for (let i = p.indexOf('\\'); i >= 0 && i < p.length; i = p.indexOf('\\', i)) {
    const c = p[i + 1];
    if (c === 'Q') {
      const end = p.indexOf('\\E', i + 2);
      if (end < 0) return undefined;
      i = end + 2;
      continue;
    }
    if ((c === 'p' || c === 'P') && p[i + 2] === '{') {
      const end = p.indexOf('}', i + 3);
      if (end < 0) return undefined;
      const name = p.slice(p[i + 3] === '^' ? i + 4 : i + 3, end);
      if (!GO_UNICODE_CLASSES.has(name)) return p.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    i += 2;
  }
  return undefined;
}

// Compiled expressions, least recently used first, bounded in entries and in bytes: a program takes
// ~160 bytes per instruction, and a DFA's state cache grows with the work it does (re2js allows 8 MiB
// per expression), so each entry is charged for its work since its cache was last cleared.
const CACHE_ENTRIES = 512;
const CACHE_BYTES = 32 * 1024 * 1024;
const BYTES_PER_INST = 160;
const BYTES_PER_DFA_UNIT = 24;
/** DFA work after which an expression's state cache is dropped (≤ ~1.5 MiB retained per entry). */
const DFA_UNITS_BEFORE_CLEAR = 65_536;
const cache = new Map<string, GoRegexp | GoRegexpError>();
let cacheBytes = 0;

function entryBytes(pattern: string, v: GoRegexp | GoRegexpError): number {
  return 96 + pattern.length * 2 + ('error' in v ? v.error.length * 2 : v.insts * BYTES_PER_INST + v.dfaUnits * BYTES_PER_DFA_UNIT);
}

function remember(pattern: string, v: GoRegexp | GoRegexpError): void {
  const bytes = entryBytes(pattern, v);
  if (bytes > CACHE_BYTES) return;
  while (cache.size && (cache.size >= CACHE_ENTRIES || cacheBytes + bytes > CACHE_BYTES)) {
    const [oldest, entry] = cache.entries().next().value!;
    cache.delete(oldest);
    cacheBytes -= entryBytes(oldest, entry);
  }
  cache.set(pattern, v);
  cacheBytes += bytes;
}

/** Cache occupancy, for tests and metrics. */
export function regexCacheStats(): { entries: number; bytes: number } {
  return { entries: cache.size, bytes: cacheBytes };
}

/** Empties the compile cache (tests). */
export function clearRegexCache(): void {
  cache.clear();
  cacheBytes = 0;
}

/**
 * `pattern` compiled as Go's regexp.Compile would, or Go's error text. Compiling an expression not
 * cached is charged to `budget` by its estimated size.
 */
export function compileGoRegexp(pattern: string, budget?: RegexBudget): GoRegexp | GoRegexpError {
  pattern = goString(pattern);
  const hit = cache.get(pattern);
  if (hit) {
    cache.delete(pattern);
    cache.set(pattern, hit);
    return hit;
  }
  budget?.charge(Math.min(MAX_PROGRAM_INSTS, estimateProgramSize(scan(pattern)).insts) * COMPILE_UNITS_PER_INST);
  const v = build(pattern);
  remember(pattern, v);
  return v;
}

/** Go's error text for `pattern`, or undefined when it compiles (regexp.Compile's err). */
export function goRegexpError(pattern: string, budget?: RegexBudget): string | undefined {
  const v = compileGoRegexp(pattern, budget);
  return 'error' in v ? v.error : undefined;
}

function charge(re: GoRegexp, s: string, factor: number, budget: RegexBudget): void {
  budget.charge(Math.ceil((s.length + 1) * re.insts * factor));
}

// After a match: account the DFA's growth to the cache, dropping its states past the bound.
function settle(re: GoRegexp, s: string): void {
  const units = (s.length + 1) * re.insts;
  const before = entryBytes(re.source, re);
  re.dfaUnits += units;
  if (re.dfaUnits > DFA_UNITS_BEFORE_CLEAR) {
    re.re.re2().lazyDFA?.clearCache();
    re.dfaUnits = 0;
  }
  if (cache.get(re.source) === re) cacheBytes += entryBytes(re.source, re) - before;
}

/** Whether `re` matches anywhere in `s` (Go's MatchString). */
export function goMatch(re: GoRegexp, s: string, budget: RegexBudget): boolean {
  s = goString(s);
  charge(re, s, 1, budget);
  try {
    return re.re.test(s);
  } finally {
    settle(re, s);
  }
}

/** The leftmost-first match in `s`, or '' (Go's FindString). */
export function goFind(re: GoRegexp, s: string, budget: RegexBudget): string {
  s = goString(s);
  charge(re, s, POSITIONAL_MATCH_FACTOR, budget);
  try {
    return (re.re.re2().find(s) as string | null) ?? '';
  } finally {
    settle(re, s);
  }
}

/** Successive non-overlapping matches, at most n of them when n ≥ 0 (Go's FindAllString). */
export function goFindAll(re: GoRegexp, s: string, n: number, budget: RegexBudget): string[] {
  s = goString(s);
  if (n === 0) return [];
  charge(re, s, POSITIONAL_MATCH_FACTOR, budget);
  try {
    return (re.re.re2().findAll(s, n < 0 ? -1 : n) as string[] | null) ?? [];
  } finally {
    settle(re, s);
  }
}
