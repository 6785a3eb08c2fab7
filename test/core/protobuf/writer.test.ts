import { describe, expect, it } from 'vitest';
import { ProtoWriter } from '../../../core/protobuf/writer';
import { ProtoReader } from '../../../core/protobuf/wire';

describe('ProtoWriter', () => {
  it('skips proto3 defaults and writes oneof booleans that are false', () => {
    expect([...new ProtoWriter().string(1, '').bool(2, false).finish()]).toEqual([]);
    expect([...new ProtoWriter().bool(2, false, true).bool(3, true).finish()]).toEqual([0x10, 0, 0x18, 1]);
  });

  it('writes repeated strings, empty ones included', () => {
    expect([...new ProtoWriter().strings(1, ['a', '']).finish()]).toEqual([0x0a, 1, 0x61, 0x0a, 0]);
  });

  // The length byte reserved for a payload must grow in place at 128 and 16384 bytes.
  it.each([0, 1, 127, 128, 129, 16383, 16384, 70000])('frames a %i-byte payload inside nested messages', (n) => {
    const text = 'x'.repeat(n);
    const bytes = new ProtoWriter()
      .string(1, 'before')
      .message(2, (m) => m.message(3, (inner) => inner.strings(4, [text]).bool(5, true)).string(6, 'after'))
      .finish();
    const r = new ProtoReader(bytes);
    expect(r.tag()).toEqual({ field: 1, wire: 2 });
    expect(new TextDecoder().decode(r.bytes())).toBe('before');
    expect(r.tag()).toEqual({ field: 2, wire: 2 });
    const outer = new ProtoReader(r.bytes());
    expect(r.done).toBe(true);
    expect(outer.tag()).toEqual({ field: 3, wire: 2 });
    const inner = new ProtoReader(outer.bytes());
    expect(inner.tag()).toEqual({ field: 4, wire: 2 });
    expect(new TextDecoder().decode(inner.bytes())).toBe(text);
    expect(inner.tag()).toEqual({ field: 5, wire: 0 });
    expect(inner.bool()).toBe(true);
    expect(inner.done).toBe(true);
    expect(outer.tag()).toEqual({ field: 6, wire: 2 });
    expect(new TextDecoder().decode(outer.bytes())).toBe('after');
    expect(outer.done).toBe(true);
  });

  it('encodes non-ASCII text as UTF-8', () => {
    const text = 'a\u00e9\u4e2d\u{1f600}b';
    const r = new ProtoReader(new ProtoWriter().string(1, text).finish());
    r.tag();
    const payload = r.bytes();
    expect(payload).toEqual(new TextEncoder().encode(text));
  });

  it('writes multi-byte field keys', () => {
    expect([...new ProtoWriter().string(31, 'a').finish()]).toEqual([0xfa, 0x01, 1, 0x61]);
  });
});
