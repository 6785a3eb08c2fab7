// Canonical and caching layers: a list body (render.ts ListBody) as UTF-8 pieces of about `chunkBytes`, each item
// encoded straight into the piece it lands in (TextEncoder.encodeInto): one copy of the bytes, no joined string.
// A list of 10,000 pods (~32 MB) joined and then encoded was two copies and one 32 MB string plus its 32 MB of
// bytes at once (bench/list-probe.ts: the join and the encoding were ~60 ms of the isolate per such list).

import type { ListBody } from './render';

/** The size of a streamed list's pieces: large enough that per-piece costs vanish, small enough to interleave. */
export const LIST_CHUNK_BYTES = 256 * 1024;

const encoder = new TextEncoder();
const COMMA = ',';

/** The body's bytes in pieces of `chunkBytes` (the last one shorter), made as they are pulled. */
export function* listBytes(body: ListBody, chunkBytes = LIST_CHUNK_BYTES): Generator<Uint8Array<ArrayBuffer>> {
  const out = new Pieces(chunkBytes);
  out.put(body.open);
  for (let i = 0; i < body.count; i++) {
    if (i > 0) out.put(COMMA);
    out.put(body.item(i));
    while (out.full.length > 0) yield out.full.shift()!;
  }
  out.put(body.close);
  yield* out.full;
  if (out.used > 0) yield out.buf.subarray(0, out.used);
}

class Pieces {
  readonly full: Uint8Array<ArrayBuffer>[] = [];
  buf: Uint8Array<ArrayBuffer>;
  used = 0;
  private readonly size: number;

  constructor(chunkBytes: number) {
    // At least 4 bytes, so any one code point fits in an empty piece (encodeInto writes whole code points only).
    this.size = Math.max(4, chunkBytes);
    this.buf = new Uint8Array(this.size);
  }

  put(text: string): void {
    let rest = text;
    for (;;) {
      const { read, written } = encoder.encodeInto(rest, this.used === 0 ? this.buf : this.buf.subarray(this.used));
      this.used += written;
      if (read === rest.length) return;
      rest = rest.slice(read);
      this.full.push(this.buf.subarray(0, this.used));
      this.buf = new Uint8Array(this.size);
      this.used = 0;
    }
  }
}
