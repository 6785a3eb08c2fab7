// Canonical and caching layers: a list body (render.ts ListBody) as text pieces of about `chunkChars` characters,
// whole items each (an item longer than that is a piece of its own), each joined once: a caller streams a list of
// 10,000 pods (~32 MB) without ever holding it as one string. Pieces are text, not bytes: the Durable Objects hand
// each to the runtime to encode (durable-objects/list-response.ts), because bytes made in JavaScript are
// ArrayBuffers, whose 32 MB per list count as V8 external memory and force a full collection of the isolate (every
// object's state) every other list (perf record of workerd, bench/side-by-side.ts --lists).

import type { ListBody } from './render';

/**
 * Large enough that per-piece costs vanish, small enough to interleave other requests; measured in workerd beside
 * 100,000 and 1 Mi characters (bench/.scratch variants, 10,000 items of 3 KB): the fastest of the three.
 */
export const LIST_PIECE_CHARS = 256 * 1024;

export function* listPieces(body: ListBody, chunkChars = LIST_PIECE_CHARS): Generator<string> {
  let parts: string[] = [body.open];
  let size = body.open.length;
  for (let i = 0; i < body.count; i++) {
    const text = body.item(i);
    if (size > 0 && size + text.length + 1 > chunkChars) {
      yield parts.join('');
      parts = [];
      size = 0;
    }
    if (i > 0) parts.push(',');
    parts.push(text);
    size += text.length + 1;
  }
  parts.push(body.close);
  yield parts.join('');
}
