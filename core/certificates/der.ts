// Core: a small ASN.1 DER reader and writer, enough for PKCS#10 requests, PKCS#8 keys and X.509 certificates
// (ITU-T X.690). The reader walks one level at a time over a byte range (no recursion of its own, so a deep
// input costs only what the caller descends into); every length is checked against the bytes left, so a
// hostile request is read in linear time or refused with a DerError.

export class DerError extends Error {}

/** One TLV: its tag byte, its content range, and the whole element's range (tag and length included). */
export interface Tlv {
  tag: number;
  bytes: Uint8Array; // the whole element
  content: Uint8Array; // its value
}

export const TAG = {
  BOOLEAN: 0x01, INTEGER: 0x02, BIT_STRING: 0x03, OCTET_STRING: 0x04, NULL: 0x05, OID: 0x06,
  UTF8_STRING: 0x0c, PRINTABLE_STRING: 0x13, T61_STRING: 0x14, IA5_STRING: 0x16, UTC_TIME: 0x17, GENERALIZED_TIME: 0x18,
  BMP_STRING: 0x1e, SEQUENCE: 0x30, SET: 0x31,
} as const;

/** The elements of `input`, one after another (a SEQUENCE's or SET's content, or a whole document). */
export function readAll(input: Uint8Array): Tlv[] {
  const out: Tlv[] = [];
  let at = 0;
  while (at < input.length) {
    const t = readAt(input, at);
    out.push(t);
    at += t.bytes.length;
  }
  return out;
}

/** Exactly one element filling `input`. */
export function readOne(input: Uint8Array): Tlv {
  const t = readAt(input, 0);
  if (t.bytes.length !== input.length) throw new DerError('trailing data');
  return t;
}

function readAt(input: Uint8Array, start: number): Tlv {
  if (start + 2 > input.length) throw new DerError('truncated element');
  const tag = input[start]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError('high-tag-number form is not supported');
  let len = input[start + 1]!;
  let at = start + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4) throw new DerError('unsupported length');
    if (at + n > input.length) throw new DerError('truncated length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + input[at + i]!;
    if (len < 0x80 || input[at] === 0) throw new DerError('non-minimal length');
    at += n;
  }
  if (at + len > input.length) throw new DerError('truncated element');
  return { tag, bytes: input.subarray(start, at + len), content: input.subarray(at, at + len) };
}

/** The children of a constructed element, checking its tag. */
export function children(t: Tlv, tag: number, what: string): Tlv[] {
  if (t.tag !== tag) throw new DerError(`${what}: unexpected tag 0x${t.tag.toString(16)}`);
  return readAll(t.content);
}

export function oidText(t: Tlv): string {
  if (t.tag !== TAG.OID || t.content.length === 0) throw new DerError('malformed object identifier');
  const parts: number[] = [];
  let v = 0;
  for (let i = 0; i < t.content.length; i++) {
    const b = t.content[i]!;
    if (v > 0x1fffffffffff) throw new DerError('object identifier component too large');
    v = v * 128 + (b & 0x7f);
    if (b & 0x80) continue;
    if (parts.length === 0) parts.push(v < 80 ? Math.floor(v / 40) : 2, v < 80 ? v % 40 : v - 80);
    else parts.push(v);
    v = 0;
  }
  if (t.content[t.content.length - 1]! & 0x80) throw new DerError('truncated object identifier');
  return parts.join('.');
}

/** A BIT STRING's bytes (its unused-bits count must be 0 where whole bytes are meant). */
export function bitStringBytes(t: Tlv): Uint8Array {
  if (t.tag !== TAG.BIT_STRING || t.content.length === 0 || t.content[0] !== 0) throw new DerError('malformed bit string');
  return t.content.subarray(1);
}

export const latin1 = (b: Uint8Array): string => {
  let s = '';
  for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]!);
  return s;
};

/** The text of a directory string (UTF8, Printable, IA5, T61 read as Latin-1, BMP). */
export function stringValue(t: Tlv): string {
  switch (t.tag) {
    case TAG.UTF8_STRING:
      return new TextDecoder('utf-8', { fatal: true }).decode(t.content);
    case TAG.PRINTABLE_STRING:
    case TAG.IA5_STRING:
    case TAG.T61_STRING:
      return latin1(t.content);
    case TAG.BMP_STRING: {
      if (t.content.length % 2) throw new DerError('malformed BMPString');
      let s = '';
      for (let i = 0; i < t.content.length; i += 2) s += String.fromCharCode((t.content[i]! << 8) | t.content[i + 1]!);
      return s;
    }
    default:
      throw new DerError(`unsupported string tag 0x${t.tag.toString(16)}`);
  }
}

// ---- writing ----

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** One element: tag, minimal length, content. */
export function tlv(tag: number, ...content: Uint8Array[]): Uint8Array {
  return tlvOf(tag, content);
}

/** One element over an array of parts (no spread: a request may carry hundreds of thousands of names). */
export function tlvOf(tag: number, content: readonly Uint8Array[]): Uint8Array {
  const body = concat(content);
  const n = body.length;
  let head: number[];
  if (n < 0x80) head = [tag, n];
  else {
    const len: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) len.unshift(v & 0xff);
    head = [tag, 0x80 | len.length, ...len];
  }
  return concat([Uint8Array.from(head), body]);
}

export const seq = (...items: Uint8Array[]): Uint8Array => tlv(TAG.SEQUENCE, ...items);
export const set = (...items: Uint8Array[]): Uint8Array => tlv(TAG.SET, ...items);
export const seqOf = (items: readonly Uint8Array[]): Uint8Array => tlvOf(TAG.SEQUENCE, items);
export const setOf = (items: readonly Uint8Array[]): Uint8Array => tlvOf(TAG.SET, items);
export const nul = (): Uint8Array => Uint8Array.of(TAG.NULL, 0);
export const octets = (b: Uint8Array): Uint8Array => tlv(TAG.OCTET_STRING, b);
export const bool = (v: boolean): Uint8Array => Uint8Array.of(TAG.BOOLEAN, 1, v ? 0xff : 0);
/** [n] EXPLICIT (constructed context tag). */
export const explicit = (n: number, inner: Uint8Array): Uint8Array => tlv(0xa0 | n, inner);

/** A BIT STRING of whole bytes, or of `bits` significant bits (the rest of the last byte unused). */
export function bitString(b: Uint8Array, bits = b.length * 8): Uint8Array {
  return tlv(TAG.BIT_STRING, Uint8Array.of(b.length * 8 - bits), b);
}

/** A non-negative INTEGER from its big-endian magnitude (leading zeros dropped, a 0 added before a high bit). */
export function unsignedInteger(magnitude: Uint8Array): Uint8Array {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  const m = magnitude.subarray(i);
  return m.length && m[0]! & 0x80 ? tlv(TAG.INTEGER, Uint8Array.of(0), m) : tlv(TAG.INTEGER, m.length ? m : Uint8Array.of(0));
}

export const smallInteger = (n: number): Uint8Array => {
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return unsignedInteger(Uint8Array.from(bytes));
};

export function oid(text: string): Uint8Array {
  const parts = text.split('.').map(Number);
  const out: number[] = [];
  const base128 = (v: number) => {
    const b: number[] = [v & 0x7f];
    for (v = Math.floor(v / 128); v > 0; v = Math.floor(v / 128)) b.unshift(0x80 | (v & 0x7f));
    out.push(...b);
  };
  base128(parts[0]! * 40 + parts[1]!);
  for (const p of parts.slice(2)) base128(p);
  return tlv(TAG.OID, Uint8Array.from(out));
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
