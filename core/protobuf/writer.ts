// Core: a minimal protobuf wire-format writer, the inverse of wire.ts's reader: varints (64-bit, negative
// int32/int64 sign-extended to ten bytes as Go writes them), fixed-width numbers and length-delimited fields.

import { WireType } from './wire';

export class ProtoWriter {
  private buf = new Uint8Array(256);
  private len = 0;

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  tag(field: number, wire: number): void {
    this.uvarint(field * 8 + wire);
  }

  /** An unsigned varint of a non-negative safe integer. */
  uvarint(n: number): void {
    this.reserve(10);
    while (n >= 0x80) {
      this.buf[this.len++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.len++] = n;
  }

  /** A signed integer as int32/int64 write it: negative values take all 64 bits. */
  svarint(n: number): void {
    if (n >= 0) return this.uvarint(n);
    let x = BigInt.asUintN(64, BigInt(n));
    this.reserve(10);
    while (x >= 0x80n) {
      this.buf[this.len++] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    this.buf[this.len++] = Number(x);
  }

  fixed(bytes: 4 | 8, set: (view: DataView) => void): void {
    this.reserve(bytes);
    set(new DataView(this.buf.buffer, this.buf.byteOffset + this.len, bytes));
    this.len += bytes;
  }

  raw(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }

  /** A length-delimited field: its tag, its length, its bytes. */
  field(field: number, bytes: Uint8Array): void {
    this.tag(field, WireType.Bytes);
    this.uvarint(bytes.length);
    this.raw(bytes);
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}
