// Core: LIST continue tokens in apiserver's wire format (pkg/storage/continue.go): base64url of
// {"v":"meta.k8s.io/v1","rv":N,"start":"<key>"}. Decode failures carry etcd3 store.go's exact 400 text.

import { base64url } from 'jose';
import { MAX_JSON_DEPTH } from './json-depth';

/** message is the whole 400 BadRequest text: `invalid continue token: continue key is not valid...`. */
export class InvalidContinueToken extends Error {
  override readonly name = 'InvalidContinueToken';

  constructor(readonly reason: string) {
    super(`invalid continue token: ${reason}`);
  }
}

/** Where a paged LIST resumes: at `rv` (negative means "latest") from the first key >= `start`. */
export interface ContinuePosition {
  rv: number;
  start: string;
}

const API_VERSION = 'meta.k8s.io/v1';
const NOT_VALID = 'continue key is not valid';

/** `startKey` is the last returned key plus "\u0000", so the next page begins strictly after it. */
export function encodeContinue(rv: number, startKey: string): string {
  const json = JSON.stringify({ v: API_VERSION, rv, start: startKey }).replace(/[<>&\u2028\u2029]/g, goJsonEscape);
  return base64url.encode(json);
}

export function decodeContinue(token: string): ContinuePosition {
  const bytes = base64UrlDecode(new TextEncoder().encode(token));
  const syntaxError = goJsonSyntaxError(bytes);
  if (syntaxError) throw new InvalidContinueToken(`${NOT_VALID}: ${syntaxError}`);
  const { v, rv, start } = readToken(JSON.parse(new TextDecoder().decode(bytes)));
  if (v !== API_VERSION) {
    throw new InvalidContinueToken(`${NOT_VALID}: server does not recognize this encoded version ${v}`);
  }
  if (rv === 0) {
    throw new InvalidContinueToken(`${NOT_VALID}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`);
  }
  if (start === '') throw new InvalidContinueToken(`${NOT_VALID}: encoded start key empty (version meta.k8s.io/v1)`);
  // A key that path.Clean would change could climb out of the listed prefix ("../secrets/...").
  const rooted = start.startsWith('/') ? start : `/${start}`;
  const cleaned = cleanRootedPath(rooted);
  if (cleaned !== rooted) throw new InvalidContinueToken(`${NOT_VALID}: ${start}`);
  return { rv, start: cleaned.slice(1) };
}

// Go's json.Marshal escapes these for safe embedding in HTML; matching it keeps tokens byte-identical.
function goJsonEscape(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** path.Clean for a path that starts with "/": drop "" and ".", let ".." pop, never above the root. */
function cleanRootedPath(path: string): string {
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return `/${out.join('/')}`;
}

// ---- json.Unmarshal into continueToken: field names match case-insensitively, type errors name the field ----

interface RawToken {
  v: string;
  rv: number;
  start: string;
}

function readToken(data: unknown): RawToken {
  const token: RawToken = { v: '', rv: 0, start: '' };
  if (data === null) return token;
  if (typeof data !== 'object' || Array.isArray(data)) {
    const what = jsonKind(data);
    throw new InvalidContinueToken(`${NOT_VALID}: json: cannot unmarshal ${what} into Go value of type storage.continueToken`);
  }
  let firstError: string | undefined;
  for (const [key, value] of Object.entries(data)) {
    const field = TOKEN_FIELDS.get(key.toLowerCase());
    if (!field || value === null) continue;
    if (field === 'rv') {
      if (isInt64(value)) token.rv = value;
      else firstError ??= typeError(typeof value === 'number' ? `number ${value}` : jsonKind(value), 'rv', 'int64');
    } else if (typeof value === 'string') {
      token[field] = value;
    } else {
      firstError ??= typeError(jsonKind(value), field, 'string');
    }
  }
  // Go keeps decoding after a type mismatch and reports the first one at the end.
  if (firstError) throw new InvalidContinueToken(`${NOT_VALID}: ${firstError}`);
  return token;
}

// Go's decoder falls back to a case-insensitive match when no field name matches exactly.
const TOKEN_FIELDS = new Map<string, keyof RawToken>([['v', 'v'], ['rv', 'rv'], ['start', 'start']]);

function isInt64(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 2 ** 63;
}

function typeError(what: string, field: string, goType: string): string {
  return `json: cannot unmarshal ${what} into Go struct field continueToken.${field} of type ${goType}`;
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value; // 'string' | 'number' | 'object'
}

// ---- base64.RawURLEncoding: encoding is jose's; decoding stays here because it must fail like Go's ----

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const DECODE = new Map([...ALPHABET].map((c, i) => [c.charCodeAt(0), i]));

/** Decodes quantum by quantum like Go, so a bad token reports the same input byte offset. */
function base64UrlDecode(src: Uint8Array): Uint8Array {
  const out: number[] = [];
  let si = 0;
  while (si < src.length) {
    const quantum: number[] = [];
    while (quantum.length < 4 && si < src.length) {
      const c = src[si++];
      const d = DECODE.get(c);
      if (d !== undefined) quantum.push(d);
      else if (c !== 0x0a && c !== 0x0d) throw corruptInput(si - 1); // Go skips CR and LF
    }
    if (quantum.length === 0) break;
    if (quantum.length === 1) throw corruptInput(si - 1);
    const n = (quantum[0] << 18) | (quantum[1] << 12) | ((quantum[2] ?? 0) << 6) | (quantum[3] ?? 0);
    out.push(...[(n >> 16) & 255, (n >> 8) & 255, n & 255].slice(0, quantum.length - 1));
  }
  return Uint8Array.from(out);
}

function corruptInput(offset: number): InvalidContinueToken {
  return new InvalidContinueToken(`${NOT_VALID}: illegal base64 data at input byte ${offset}`);
}

// ---- encoding/json's syntax check (scanner.go), which runs before decoding and words its errors so ----

class JsonEnd extends Error {}

/** Go's json syntax error for `bytes`, or undefined when they are valid JSON. */
function goJsonSyntaxError(bytes: Uint8Array): string | undefined {
  try {
    new JsonScanner(bytes).document();
    return undefined;
  } catch (e) {
    if (e instanceof JsonEnd) return 'unexpected end of JSON input';
    return (e as Error).message;
  }
}

class JsonScanner {
  private i = 0;
  private depth = 0;

  constructor(private readonly b: Uint8Array) {}

  document(): void {
    this.value();
    this.skipSpace();
    if (this.i < this.b.length) this.fail('after top-level value');
  }

  private value(): void {
    this.skipSpace();
    const c = this.peek();
    if (c === 0x7b || c === 0x5b) this.nested(c);
    else if (c === 0x22) this.string();
    else if (c === 0x2d || isDigit(c)) this.number();
    else if (c === 0x74) this.literal('true');
    else if (c === 0x66) this.literal('false');
    else if (c === 0x6e) this.literal('null');
    else this.fail('looking for beginning of value');
  }

  // This scanner recurses, so it stops at the JSON depth limit (Go's scanner stops at 10000 with the
  // same words; a token from a URL cannot be valid that deep either way).
  private nested(c: number): void {
    if (++this.depth > MAX_JSON_DEPTH) this.fail('exceeded max depth');
    if (c === 0x7b) this.object();
    else this.array();
    this.depth--;
  }

  private object(): void {
    this.i++;
    this.skipSpace();
    if (this.peek() === 0x7d) return void this.i++;
    for (;;) {
      this.skipSpace();
      if (this.peek() !== 0x22) this.fail('looking for beginning of object key string');
      this.string();
      this.skipSpace();
      if (this.peek() !== 0x3a) this.fail('after object key');
      this.i++;
      this.value();
      this.skipSpace();
      const c = this.peek();
      if (c === 0x7d) return void this.i++;
      if (c !== 0x2c) this.fail('after object key:value pair');
      this.i++;
    }
  }

  private array(): void {
    this.i++;
    this.skipSpace();
    if (this.peek() === 0x5d) return void this.i++;
    for (;;) {
      this.value();
      this.skipSpace();
      const c = this.peek();
      if (c === 0x5d) return void this.i++;
      if (c !== 0x2c) this.fail('after array element');
      this.i++;
    }
  }

  private string(): void {
    this.i++;
    for (;;) {
      const c = this.peek();
      if (c === 0x22) return void this.i++;
      if (c < 0x20) this.fail('in string literal');
      this.i++;
      if (c !== 0x5c) continue;
      const e = this.peek();
      if (e === 0x75) {
        this.i++;
        for (let k = 0; k < 4; k++) {
          if (!isHex(this.peek())) this.fail('in \\u hexadecimal character escape');
          this.i++;
        }
      } else if ('"\\/bfnrt'.includes(String.fromCharCode(e))) {
        this.i++;
      } else {
        this.fail('in string escape code');
      }
    }
  }

  private number(): void {
    if (this.peek() === 0x2d) this.i++;
    const first = this.peek();
    if (first === 0x30) this.i++;
    else if (isDigit(first)) this.digits();
    else this.fail('in numeric literal');
    if (this.peekOrEnd() === 0x2e) {
      this.i++;
      if (!isDigit(this.peek())) this.fail('after decimal point in numeric literal');
      this.digits();
    }
    const e = this.peekOrEnd();
    if (e === 0x65 || e === 0x45) {
      this.i++;
      const sign = this.peek();
      if (sign === 0x2b || sign === 0x2d) this.i++;
      if (!isDigit(this.peek())) this.fail('in exponent of numeric literal');
      this.digits();
    }
  }

  private digits(): void {
    while (isDigit(this.peekOrEnd())) this.i++;
  }

  private literal(word: string): void {
    this.i++;
    for (let k = 1; k < word.length; k++) {
      if (this.peek() !== word.charCodeAt(k)) this.fail(`in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
      this.i++;
    }
  }

  private skipSpace(): void {
    while ([0x20, 0x09, 0x0a, 0x0d].includes(this.peekOrEnd())) this.i++;
  }

  /** The current byte; running out of input here is Go's "unexpected end of JSON input". */
  private peek(): number {
    if (this.i >= this.b.length) throw new JsonEnd();
    return this.b[this.i];
  }

  private peekOrEnd(): number {
    return this.i < this.b.length ? this.b[this.i] : -1;
  }

  private fail(context: string): never {
    throw new Error(`invalid character ${quoteChar(this.peek())} ${context}`);
  }
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** scanner.go quoteChar: the byte as a Go-quoted rune in single quotes. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  const ch = String.fromCharCode(c);
  if (c >= 0x20 && c < 0x7f) return `'${ch === '\\' ? '\\\\' : ch}'`;
  const short: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };
  if (short[c]) return `'${short[c]}'`;
  // Bytes 0xa1-0xff become printable Latin-1 runes in Go's string(c); the rest are escaped.
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  if (c >= 0xa1 && c !== 0xad) return `'${ch}'`;
  return `'\\u${c.toString(16).padStart(4, '0')}'`;
}
