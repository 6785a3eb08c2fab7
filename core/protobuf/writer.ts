// Core: a minimal protobuf wire-format writer (varints, strings, booleans, embedded messages), the counterpart of
// wire.ts's reader. Proto3 rules: fields holding their default value (empty string, false) are not written.
//
// One growing buffer. A length-delimited field reserves one byte for its length, writes its payload in place, and
// only when the payload turns out to be 128 bytes or longer moves it right by the extra length bytes (one native
// copyWithin per nesting level), so encoding costs O(size × depth) byte moves and no per-field allocation.

import { WireType } from './wire';

const utf8 = new TextEncoder();

export class ProtoWriter {
  private buf = new Uint8Array(4096);
  private pos = 0;

  /** A string field; '' is the default and is skipped. */
  string(field: number, value: string | undefined): this {
    if (value) this.stringAlways(field, value);
    return this;
  }

  /** Each value as its own field occurrence (repeated string), empty strings included. */
  strings(field: number, values: readonly string[] | undefined): this {
    for (const v of values ?? []) this.stringAlways(field, v);
    return this;
  }

  /** A bool field; false is skipped unless `present` (a oneof member, whose presence is the information). */
  bool(field: number, value: boolean | undefined, present = false): this {
    if (!value && !present) return this;
    this.key(field, WireType.Varint);
    this.varint(value ? 1 : 0);
    return this;
  }

  /** An embedded message whose fields `body` writes; written even when empty (message fields have presence). */
  message(field: number, body: (w: this) => void): this {
    this.key(field, WireType.Bytes);
    this.delimited(() => body(this));
    return this;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  // ---- the low-level form, for encoders that walk their own schema (core/protobuf/encode.ts) ----

  tag(field: number, wire: number): void {
    this.key(field, wire);
  }

  /** An unsigned varint of a non-negative safe integer. */
  uvarint(n: number): void {
    this.varint(n);
  }

  /** A signed integer as int32/int64 write it: negative values take all 64 bits (ten bytes), as Go writes them. */
  svarint(n: number): void {
    if (n >= 0) return this.varint(n);
    let x = BigInt.asUintN(64, BigInt(n));
    this.ensure(10);
    while (x >= 0x80n) {
      this.buf[this.pos++] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    this.buf[this.pos++] = Number(x);
  }

  fixed(bytes: 4 | 8, set: (view: DataView) => void): void {
    this.ensure(bytes);
    set(new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, bytes));
    this.pos += bytes;
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** A length-delimited field of ready bytes: its tag, its length, its bytes. */
  field(field: number, bytes: Uint8Array): void {
    this.key(field, WireType.Bytes);
    this.varint(bytes.length);
    this.raw(bytes);
  }

  private stringAlways(field: number, value: string): void {
    this.key(field, WireType.Bytes);
    this.delimited(() => this.utf8(value));
  }

  private delimited(payload: () => void): void {
    this.ensure(1);
    const start = ++this.pos;
    payload();
    const len = this.pos - start;
    if (len < 0x80) {
      this.buf[start - 1] = len;
      return;
    }
    let size = 1;
    for (let n = len; n >= 0x80; n = Math.floor(n / 0x80)) size++;
    this.ensure(size - 1);
    this.buf.copyWithin(start - 1 + size, start, this.pos);
    const end = this.pos + size - 1;
    this.pos = start - 1;
    this.varint(len);
    this.pos = end;
  }

  /** Short ASCII strings byte by byte (cheaper than a subarray and a native call); the rest through TextEncoder. */
  private utf8(s: string): void {
    this.ensure(s.length * 3);
    const buf = this.buf;
    if (s.length > 24) {
      this.pos += utf8.encodeInto(s, buf.subarray(this.pos)).written;
      return;
    }
    let pos = this.pos;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        pos += utf8.encodeInto(s.slice(i), buf.subarray(pos)).written;
        break;
      }
      buf[pos++] = c;
    }
    this.pos = pos;
  }

  private key(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  /** Unsigned varint of a non-negative safe integer. */
  private varint(n: number): void {
    this.ensure(10);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.pos++] = n;
  }

  private ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }
}
