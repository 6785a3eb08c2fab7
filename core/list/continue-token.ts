// Core: LIST continue tokens in apiserver's wire format (pkg/storage/continue.go): base64url of
// {"v":"meta.k8s.io/v1","rv":N,"start":"<key>"}. Decode failures carry etcd3 store.go's exact 400 text.

import { base64url } from 'jose';
import { MAX_JSON_DEPTH } from '../encoding/json-depth';
import { goJsonSyntaxError } from '../patch/go-json-scanner';

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
  // encoding/json's syntax check runs before decoding and words the error; a token from a URL cannot be valid
  // as deep as Go's 10,000 levels either way, so the JSON depth gate applies.
  const syntaxError = goJsonSyntaxError(bytes, MAX_JSON_DEPTH);
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
