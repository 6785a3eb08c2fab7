// Core: a minimal protobuf wire-format reader (varint, fixed32/64, length-delimited), enough to walk the
// proto2 messages Kubernetes clients send; schema-free, so decode.ts decides what each field means.

import { MalformedProtobuf } from './errors';

/** Protobuf wire types; groups (3, 4) are deprecated and never produced by Kubernetes' gogo-generated code. */
export const WireType = { Varint: 0, Fixed64: 1, Bytes: 2, Fixed32: 5 } as const;

/**
 * A varint as two unsigned 32-bit halves: protobuf int64 needs all 64 bits (negative int32 values are
 * sign-extended to 10 bytes), which a JS number cannot hold, and BigInt on every varint would be slow.
 */
export interface Varint64 {
  lo: number;
  hi: number;
}

export class ProtoReader {
  private pos: number;

  constructor(
    private readonly buf: Uint8Array,
    start = 0,
    private readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  /** Reads a field key; returns the field number and wire type. */
  tag(): { field: number; wire: number } {
    const key = this.uint32();
    const field = key >>> 3;
    const wire = key & 7;
    if (field === 0) throw new MalformedProtobuf('field number 0');
    return { field, wire };
  }

  varint64(): Varint64 {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new MalformedProtobuf('truncated varint');
      const b = this.buf[this.pos++]!;
      if (i < 4) lo |= (b & 0x7f) << (7 * i);
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi |= (b & 0x7f) >>> 4;
      } else hi |= (b & 0x7f) << (7 * i - 32);
      if (b < 0x80) return { lo: lo >>> 0, hi: hi >>> 0 };
    }
    throw new MalformedProtobuf('varint longer than 10 bytes');
  }

  /** uint32 fields and field keys: bits past 32 are dropped, as Go's decoder does for uint32. */
  uint32(): number {
    return this.varint64().lo;
  }

  /** int32 keeps the low 32 bits as signed (negative values arrive sign-extended to 64 bits). */
  int32(): number {
    return this.varint64().lo | 0;
  }

  /** int64 as a JS number: exact up to 2^53, which covers every count, size and timestamp Kubernetes sends. */
  int64(): number {
    const { lo, hi } = this.varint64();
    return Number(BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)));
  }

  uint64(): number {
    const { lo, hi } = this.varint64();
    return hi * 0x1_0000_0000 + lo;
  }

  bool(): boolean {
    const { lo, hi } = this.varint64();
    return lo !== 0 || hi !== 0;
  }

  fixed32(): DataView {
    return this.view(4);
  }

  fixed64(): DataView {
    return this.view(8);
  }

  /** A length-delimited payload (string, bytes, embedded message, packed repeated scalars), without copying. */
  bytes(): Uint8Array {
    const { lo: len, hi } = this.varint64();
    if (hi !== 0 || len > this.end - this.pos) throw new MalformedProtobuf('length-delimited field runs past the end');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  /** Skips a field of the given wire type: unknown fields are legal (newer clients add fields). */
  skip(wire: number): void {
    switch (wire) {
      case WireType.Varint:
        this.varint64();
        return;
      case WireType.Fixed64:
        this.view(8);
        return;
      case WireType.Bytes:
        this.bytes();
        return;
      case WireType.Fixed32:
        this.view(4);
        return;
      default:
        throw new MalformedProtobuf(`unsupported wire type ${wire}`);
    }
  }

  private view(n: number): DataView {
    if (n > this.end - this.pos) throw new MalformedProtobuf('truncated fixed-width field');
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, n);
    this.pos += n;
    return v;
  }
}
