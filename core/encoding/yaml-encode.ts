// Core: JSON to YAML as kube-apiserver writes it: sigs.k8s.io/yaml JSONToYAML, which reads the JSON with go-yaml v2
// and writes it back with go-yaml v2's emitter (goyaml.v2 encode.go, emitterc.go, resolve.go, sorter.go): keys in
// go-yaml's natural order, sequences not indented under their key, strings plain when they would read back as
// strings (else double-quoted), literal blocks for multi-line text, single or double quotes where plain text
// is not allowed, and lines folded at spaces past column 80.
//
// Iterative and linear: an explicit stack instead of recursion, so any depth the request gate admits
// (core/encoding/json-depth.ts) is written (the yaml package overflowed the stack near 700 levels), and no regular
// expression that can backtrack touches the data (its folded-block regex took 2.3 s for a 32 KB string).

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const BEST_WIDTH = 80;
const BEST_INDENT = 2;
const MAX_SIMPLE_KEY_BYTES = 128;

type Style = 'plain' | 'single' | 'double' | 'literal';

interface NodeContext {
  mapping: boolean;
  simpleKey: boolean;
}

/** JSON text (or a parsed value) to YAML text. */
export function jsonToYaml(json: string | Json): string {
  let out = '';
  for (const chunk of yamlChunks(json)) out += chunk;
  return out;
}

/**
 * The same text in pieces of about `chunkChars`, made as they are read: YAML indents two spaces per level, so a
 * deeply nested object is far larger in YAML than in JSON (a 1.5 MB object can take hundreds of MB), and an
 * answer is streamed rather than held.
 */
export function* yamlChunks(json: string | Json, chunkChars = 64 * 1024): Generator<string> {
  const value = typeof json === 'string' ? (JSON.parse(json) as Json) : json;
  const e = new Emitter();
  for (const _ of e.document(value)) if (e.pending >= chunkChars) yield e.take();
  const rest = e.take();
  if (rest) yield rest;
}

// ---- scalars: what the encoder asks for (encode.go stringv/intv/floatv/boolv/nilv) ----

interface Scalar {
  chars: number[]; // code points (lone surrogates read as U+FFFD, as Go's JSON decoder makes them)
  bytes: number; // UTF-8 length
  style: Style; // requested
}

function scalarOf(value: null | boolean | number | string): Scalar {
  if (value === null) return plain('null');
  if (typeof value === 'boolean') return plain(value ? 'true' : 'false');
  if (typeof value === 'number') return plain(formatNumber(value));
  // Keys are strings too: JSONToYAML reads JSON keys as quoted (string) scalars.
  const s = codePoints(value);
  const style: Style = s.chars.includes(0x0a) ? 'literal' : resolvesToString(value) && !isBase60Float(value) ? 'plain' : 'double';
  return { ...s, style };
}

function plain(text: string): Scalar {
  return { ...codePoints(text), style: 'plain' };
}

function codePoints(s: string): { chars: number[]; bytes: number } {
  const chars: number[] = [];
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      } else c = 0xfffd;
    } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    chars.push(c);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return { chars, bytes };
}

/**
 * How go-yaml wrote a JSON number it had read back: integers as themselves (int64, else uint64), anything
 * else as a float64 in strconv.FormatFloat(f, 'g', -1, 64).
 */
function formatNumber(n: number): string {
  const text = JSON.stringify(n); // the JSON text JSONToYAML would have read
  if (/^-?[0-9]+$/.test(text)) {
    const big = BigInt(text);
    if (big >= -(2n ** 63n) && big < 2n ** 64n) return big.toString();
  }
  if (!Number.isFinite(n)) return Number.isNaN(n) ? '.nan' : n < 0 ? '-.inf' : '.inf';
  const [mantissa, exponent] = n.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) {
    const e = Math.abs(exp);
    return `${mantissa}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  return String(n); // JavaScript writes the same shortest digits, in fixed notation in this range
}

// resolve.go resolve(""): would this text, written plain, read back as something other than a string?
const BOOL_NULL_SPECIAL = new Set([
  'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON',
  'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF',
  '', '~', 'null', 'Null', 'NULL', '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF',
  '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF',
]); // "<<" is in go-yaml's map too, but its first character is no hint, so it is never looked up
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

export function resolvesToString(s: string): boolean {
  if (BOOL_NULL_SPECIAL.has(s)) return false;
  const c = s[0];
  if (c === '.') return !isGoFloat(s);
  if (!(c === '+' || c === '-' || (c >= '0' && c <= '9'))) return true;
  if (isTimestamp(s)) return false;
  const p = s.replaceAll('_', '');
  if (isGoInt(p)) return false;
  if (YAML_STYLE_FLOAT.test(p) && isGoFloat(p)) return false;
  if (p.startsWith('0b') && /^[01]+$/.test(p.slice(2)) && p.length > 2) return false;
  if (p.startsWith('-0b') && /^[01]+$/.test(p.slice(3)) && p.length > 3 && BigInt(`-0b${p.slice(3)}`) >= -(2n ** 63n)) return false;
  return true;
}

function isBase60Float(s: string): boolean {
  const c = s[0];
  if (!(c === '+' || c === '-' || (c >= '0' && c <= '9')) || !s.includes(':')) return false;
  return BASE60_FLOAT.test(s);
}

/** strconv.ParseInt(s, 0, 64) or ParseUint(s, 0, 64) succeeds on text without underscores (resolve strips them). */
function isGoInt(s: string): boolean {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return false;
  const digits = m[2];
  const body = digits.slice(2);
  let v: bigint;
  if (/^0[xX]/.test(digits)) v = BigInt(`0x${body}`);
  else if (/^0[oO]/.test(digits)) v = BigInt(`0o${body}`);
  else if (/^0[bB]/.test(digits)) v = BigInt(`0b${body}`);
  else if (digits.length > 1 && digits[0] === '0') v = BigInt(`0o${digits.slice(1)}`);
  else v = BigInt(digits);
  if (m[1] === '-') return v <= 2n ** 63n;
  if (m[1] === '+') return v < 2n ** 63n; // ParseUint takes no sign
  return v < 2n ** 64n;
}

/** strconv underscoreOK: '_' only between digits (or after a base prefix), never first, last or doubled. */
function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s[0] === '+' || s[0] === '-') s = s.slice(1);
  if (s.length >= 2 && s[0] === '0' && /[bBoOxX]/.test(s[1])) {
    i = 2;
    saw = '0';
  }
  for (; i < s.length; i++) {
    const c = s[i];
    if (c >= '0' && c <= '9') saw = '0';
    else if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
    } else {
      if (saw === '_') return false;
      saw = '!';
    }
  }
  return saw !== '_';
}

/** strconv.ParseFloat(s, 64) without error, for the decimal forms resolve can hand it (overflow is an error). */
function isGoFloat(s: string): boolean {
  if (!/^[+-]?([0-9_]+(\.[0-9_]*)?|\.[0-9_]+)([eE][+-]?[0-9_]+)?$/.test(s)) return false;
  if (s.includes('_') && !underscoreOK(s)) return false;
  const t = s.replaceAll('_', '');
  if (!/[0-9]/.test(t.replace(/[eE].*$/, ''))) return false;
  return Number.isFinite(Number(t));
}

// resolve.go parseTimestamp: four digits and '-', then one of go-yaml's layouts (time.Parse, fields checked).
const TIMESTAMP = /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:([Tt ])([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$/;

function isTimestamp(s: string): boolean {
  const m = TIMESTAMP.exec(s);
  if (!m) return false;
  const [, y, mo, d, sep, h, mi, se, zone] = m;
  if (sep && (sep === ' ') !== (zone === undefined)) return false; // T/t layouts need a zone, ' ' has none
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return false;
  if (sep && (Number(h) > 23 || Number(mi) > 59 || Number(se) > 59)) return false;
  if (zone && zone !== 'Z' && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4, 6)) > 59)) return false;
  return true;
}

// ---- key order (sorter.go keyList.Less, for string keys) ----

const LETTER = /^\p{L}$/u;
const DIGIT = /^\p{Nd}$/u;
const isLetter = (c: number) => LETTER.test(String.fromCodePoint(c));
const isDigit = (c: number) => (c >= 0x30 && c <= 0x39) || (c > 0x7f && DIGIT.test(String.fromCodePoint(c)));

export function goKeyLess(x: string, y: string): boolean {
  return keyLess([...x].map((ch) => ch.codePointAt(0)!), [...y].map((ch) => ch.codePointAt(0)!));
}

function keyLess(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length && i < b.length; i++) {
    if (a[i] === b[i]) continue;
    const al = isLetter(a[i]);
    const bl = isLetter(b[i]);
    if (al && bl) return a[i] < b[i];
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (a[i] === 0x30 || b[i] === 0x30) {
      for (let j = i - 1; j >= 0 && isDigit(a[j]); j--) {
        if (a[j] !== 0x30) {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < a.length && isDigit(a[ai]); ai++) an = BigInt.asIntN(64, an * 10n + BigInt(a[ai] - 0x30));
    for (; bi < b.length && isDigit(b[bi]); bi++) bn = BigInt.asIntN(64, bn * 10n + BigInt(b[bi] - 0x30));
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return a[i] < b[i];
  }
  return a.length < b.length;
}

function sortedKeys(obj: Record<string, Json>): string[] {
  const keys = Object.keys(obj).map((k) => ({ k, cps: [...k].map((ch) => ch.codePointAt(0)!) }));
  keys.sort((p, q) => (p.k === q.k ? 0 : keyLess(p.cps, q.cps) ? -1 : 1));
  return keys.map((x) => x.k);
}

// ---- the emitter (emitterc.go), block style only, as the encoder asks for ----

const isBreak = (c: number) => c === 0x0d || c === 0x0a || c === 0x85 || c === 0x2028 || c === 0x2029;
const isBlank = (c: number | undefined) => c === 0x20 || c === 0x09;
const isBlankOrBreak = (c: number | undefined) => c === undefined || isBlank(c) || isBreak(c) || c === 0;
const isPrintable = (c: number) => c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);

interface Analysis {
  multiline: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
  block: boolean;
}

function analyze(v: number[]): Analysis {
  if (v.length === 0) return { multiline: false, blockPlain: true, singleQuoted: true, block: false };
  let blockIndicators = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWhitespace = true;
  let previousSpace = false;
  let previousBreak = false;
  if (v.length >= 3 && ((v[0] === 0x2d && v[1] === 0x2d && v[2] === 0x2d) || (v[0] === 0x2e && v[1] === 0x2e && v[2] === 0x2e))) blockIndicators = true;
  for (let i = 0; i < v.length; i++) {
    const c = v[i];
    const followedByWhitespace = i + 1 >= v.length || isBlank(v[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(String.fromCharCode(c)) && c < 0x80) blockIndicators = true;
      else if ((c === 0x3f || c === 0x3a) && followedByWhitespace) blockIndicators = true; // ? :
      else if (c === 0x2d && followedByWhitespace) blockIndicators = true; // -
    } else if (c === 0x3a && followedByWhitespace) blockIndicators = true;
    else if (c === 0x23 && precededByWhitespace) blockIndicators = true; // ' #'
    if (!isPrintable(c)) special = true;
    if (c === 0x20) {
      if (i === 0) leadingSpace = true;
      if (i === v.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === v.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankOrBreak(c);
  }
  const a: Analysis = { multiline: lineBreaks, blockPlain: true, singleQuoted: true, block: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) a.blockPlain = false;
  if (trailingSpace) a.block = false;
  if (breakSpace) a.blockPlain = a.singleQuoted = false;
  if (spaceBreak || special) a.blockPlain = a.singleQuoted = a.block = false;
  if (lineBreaks) a.blockPlain = false;
  if (blockIndicators) a.blockPlain = false;
  return a;
}

type Frame =
  | { kind: 'map'; obj: Record<string, Json>; keys: string[]; i: number; ctx: NodeContext; pendingValue?: 'simple' | 'complex' }
  | { kind: 'seq'; items: Json[]; i: number; ctx: NodeContext };

class Emitter {
  private out: string[] = [];
  private outChars = 0;
  private line = '';
  private column = 0;
  private whitespace = true;
  private indention = true;
  private indent = -1;
  private readonly indents: number[] = [];

  /** Characters written and not yet taken. */
  get pending(): number {
    return this.outChars + this.line.length;
  }

  take(): string {
    const text = this.out.join('') + this.line;
    this.out = [];
    this.outChars = 0;
    this.line = '';
    return text;
  }

  /** Writes the document, one node at a time; the caller may take what is written between steps. */
  *document(root: Json): Generator<void> {
    const stack: Frame[] = [];
    this.node(root, { mapping: false, simpleKey: false }, stack);
    while (stack.length) {
      yield;
      const f = stack[stack.length - 1];
      if (f.kind === 'map') {
        if (f.pendingValue) {
          // yaml_emitter_emit_block_mapping_value
          if (f.pendingValue === 'simple') this.indicator(':', false, false, false);
          else {
            this.writeIndent();
            this.indicator(':', true, false, true);
          }
          f.pendingValue = undefined;
          this.node(f.obj[f.keys[f.i++]], { mapping: true, simpleKey: false }, stack);
          continue;
        }
        if (f.i === f.keys.length) {
          this.popIndent();
          stack.pop();
          continue;
        }
        this.writeIndent();
        const key = scalarOf(f.keys[f.i]);
        const analysis = analyze(key.chars);
        if (!analysis.multiline && key.bytes <= MAX_SIMPLE_KEY_BYTES) {
          this.scalar(key, analysis, { mapping: true, simpleKey: true });
          f.pendingValue = 'simple';
        } else {
          this.indicator('?', true, false, true);
          this.scalar(key, analysis, { mapping: true, simpleKey: false });
          f.pendingValue = 'complex';
        }
      } else {
        if (f.i === f.items.length) {
          this.popIndent();
          stack.pop();
          continue;
        }
        this.writeIndent();
        this.indicator('-', true, false, true);
        this.node(f.items[f.i++], { mapping: false, simpleKey: false }, stack);
      }
    }
    // Document end (implicit): a final line break.
    this.writeIndent();
  }

  /** yaml_emitter_emit_node: scalars are written now, collections pushed (their first item comes next). */
  private node(value: Json, ctx: NodeContext, stack: Frame[]): void {
    if (Array.isArray(value)) {
      if (value.length === 0) return this.emptyFlow('[', ']');
      // Block sequence: indentless under a mapping key (the '-' counts as indentation).
      this.pushIndent(false, ctx.mapping && !this.indention);
      stack.push({ kind: 'seq', items: value, i: 0, ctx });
      return;
    }
    if (value !== null && typeof value === 'object') {
      const keys = sortedKeys(value);
      if (keys.length === 0) return this.emptyFlow('{', '}');
      this.pushIndent(false, false);
      stack.push({ kind: 'map', obj: value, keys, i: 0, ctx });
      return;
    }
    const s = scalarOf(value);
    this.scalar(s, analyze(s.chars), ctx);
  }

  private emptyFlow(open: string, close: string): void {
    this.indicator(open, true, true, false);
    this.indicator(close, false, false, false);
  }

  private scalar(s: Scalar, a: Analysis, ctx: NodeContext): void {
    // yaml_emitter_select_scalar_style
    let style = s.style;
    if (ctx.simpleKey && a.multiline) style = 'double';
    if (style === 'plain') {
      if (!a.blockPlain) style = 'single';
      if (s.chars.length === 0 && ctx.simpleKey) style = 'single';
    }
    if (style === 'single' && !a.singleQuoted) style = 'double';
    if (style === 'literal' && (!a.block || ctx.simpleKey)) style = 'double';
    this.pushIndent(true, false);
    const breaks = !ctx.simpleKey;
    if (style === 'plain') this.plainScalar(s.chars, breaks);
    else if (style === 'single') this.singleQuoted(s.chars, breaks);
    else if (style === 'double') this.doubleQuoted(s.chars, breaks);
    else this.literal(s.chars);
    this.popIndent();
  }

  // ---- low-level writing (put, put_break, write, write_indent, write_indicator) ----

  private put(text: string): void {
    this.line += text;
    this.column += 1;
  }

  private putChar(c: number): void {
    this.line += String.fromCodePoint(c);
    this.column += 1;
  }

  private putBreak(): void {
    this.line += '\n';
    // Lines are handed over at each break, so the text is built in pieces rather than one growing string.
    this.out.push(this.line);
    this.outChars += this.line.length;
    this.line = '';
    this.column = 0;
  }

  private writeBreak(c: number): void {
    if (c === 0x0a) this.putBreak();
    else {
      this.putChar(c);
      this.column = 0;
    }
  }

  private writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    if (this.column < indent) {
      this.line += ' '.repeat(indent - this.column);
      this.column = indent;
    }
    this.whitespace = true;
    this.indention = true;
  }

  private indicator(text: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.line += text;
    this.column += text.length;
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private pushIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  private popIndent(): void {
    this.indent = this.indents.pop()!;
  }

  // ---- scalar writers ----

  private plainScalar(v: number[], allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < v.length; i++) {
      const c = v[i];
      if (c === 0x20) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && v[i + 1] !== 0x20) this.writeIndent();
        else this.putChar(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === 0x0a) this.putBreak();
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.putChar(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private singleQuoted(v: number[], allowBreaks: boolean): void {
    this.indicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < v.length; i++) {
      const c = v[i];
      if (c === 0x20) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < v.length - 1 && v[i + 1] !== 0x20) this.writeIndent();
        else this.putChar(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === 0x0a) this.putBreak();
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (c === 0x27) this.put("'");
        this.putChar(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.indicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private doubleQuoted(v: number[], allowBreaks: boolean): void {
    this.indicator('"', true, false, false);
    // is_bom looks at the value's first character whatever the position: a value starting with U+FEFF has
    // every character escaped.
    const bom = v[0] === 0xfeff;
    let spaces = false;
    for (let i = 0; i < v.length; i++) {
      const c = v[i];
      if (!isPrintable(c) || bom || isBreak(c) || c === 0x22 || c === 0x5c) {
        this.put('\\');
        const short = DOUBLE_ESCAPES.get(c);
        if (short) this.put(short);
        else {
          const [letter, digits] = c <= 0xff ? ['x', 2] : c <= 0xffff ? ['u', 4] : ['U', 8];
          this.put(letter);
          for (const d of c.toString(16).toUpperCase().padStart(digits, '0')) this.put(d);
        }
        spaces = false;
      } else if (c === 0x20) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < v.length - 1) {
          this.writeIndent();
          if (v[i + 1] === 0x20) this.put('\\');
        } else this.putChar(c);
        spaces = true;
      } else {
        this.putChar(c);
        spaces = false;
      }
    }
    this.indicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private literal(v: number[]): void {
    this.indicator('|', true, false, false);
    // yaml_emitter_write_block_scalar_hints
    if (v[0] === 0x20 || isBreak(v[0])) this.indicator(String(BEST_INDENT), false, false, false);
    const last = v.length - 1;
    let chomp = '';
    if (v.length === 0 || !isBreak(v[last])) chomp = '-';
    else if (last === 0 || isBreak(v[last - 1])) chomp = '+';
    if (chomp) this.indicator(chomp, false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of v) {
      if (isBreak(c)) {
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.putChar(c);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

const DOUBLE_ESCAPES = new Map<number, string>([
  [0x00, '0'], [0x07, 'a'], [0x08, 'b'], [0x09, 't'], [0x0a, 'n'], [0x0b, 'v'], [0x0c, 'f'], [0x0d, 'r'], [0x1b, 'e'],
  [0x22, '"'], [0x5c, '\\'], [0x85, 'N'], [0xa0, '_'], [0x2028, 'L'], [0x2029, 'P'],
]);
