// Test helper: a tiny protobuf writer for hand-built fixtures (field by field, as gogo-protobuf would emit them);
// deliberately schema-free so the tests do not reuse the decoder's own schema.

const enc = new TextEncoder();

export function cat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function varint(value: number | bigint): Uint8Array {
  let x = BigInt.asUintN(64, BigInt(value)); // negative values are sign-extended to 10 bytes, as Go writes them
  const out: number[] = [];
  do {
    let byte = Number(x & 0x7fn);
    x >>= 7n;
    if (x > 0n) byte |= 0x80;
    out.push(byte);
  } while (x > 0n);
  return Uint8Array.from(out);
}

const key = (field: number, wire: number) => varint((field << 3) | wire);

/** A varint field (int32, int64, bool, enum-like). */
export const v = (field: number, value: number | bigint | boolean) =>
  cat(key(field, 0), varint(typeof value === 'boolean' ? (value ? 1 : 0) : value));

/** A length-delimited field holding raw bytes. */
export const b = (field: number, bytes: Uint8Array) => cat(key(field, 2), varint(bytes.length), bytes);

/** A string field. */
export const s = (field: number, str: string) => b(field, enc.encode(str));

/** An embedded message field built from its own fields. */
export const m = (field: number, ...fields: Uint8Array[]) => b(field, cat(...fields));

/** A packed repeated varint field. */
export const packed = (field: number, values: number[]) => b(field, cat(...values.map((x) => varint(x))));

/** A fixed64 field (e.g. double). */
export function f64(field: number, value: number): Uint8Array {
  const buf = new Uint8Array(8);
  new DataView(buf.buffer).setFloat64(0, value, true);
  return cat(key(field, 1), buf);
}

/** One map<string, string> entry. */
export const entry = (field: number, k: string, val: string) => m(field, s(1, k), s(2, val));

/** One map<string, bytes|message> entry whose value is already encoded as field 2. */
export const entryOf = (field: number, k: string, value: Uint8Array) => m(field, s(1, k), value);

/** The Kubernetes envelope: "k8s\0" + runtime.Unknown{typeMeta{apiVersion, kind}, raw}. */
export function envelope(apiVersion: string, kind: string, ...body: Uint8Array[]): Uint8Array {
  return cat(Uint8Array.from([0x6b, 0x38, 0x73, 0x00]), m(1, s(1, apiVersion), s(2, kind)), b(2, cat(...body)));
}

export const utf8 = (str: string) => enc.encode(str);

/** ObjectMeta as client-go sends it for a new object: gogo writes every non-pointer field, zero or not. */
export function newObjectMeta(name: string, namespace = '', ...extra: Uint8Array[]): Uint8Array {
  return m(1, s(1, name), s(2, ''), s(3, namespace), s(4, ''), s(5, ''), s(6, ''), v(7, 0), m(8), ...extra);
}
