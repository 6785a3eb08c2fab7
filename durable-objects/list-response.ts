// Durable Objects: a list body (core/list/serve-list.ts serveListBody) as the Response a list RPC answers, streamed
// a piece (~256 Ki characters, core/list/list-pieces.ts) at a time as the reader takes it: a list of 10,000 pods
// (~32 MB) is never held as one string nor as one buffer, and other requests run between its pieces.
// Each piece is handed to the runtime as text (`new Response(piece)`) and piped natively into the body: bytes made
// in JavaScript (TextEncoder) would be ArrayBuffers, 32 MB of V8 external memory per such list, which forces a full
// collection of this isolate (every store's state) every other list. Measured in workerd with a large heap (10,000
// items of 3 KB, read whole in the front door): p50 29-37 ms piped vs 420-430 ms enqueuing encoded pieces.

import { listPieces } from '../core/list/list-pieces';
import type { ListBody } from '../core/list/render';
import { BODY_NEWLINE_HEADER } from '../contract/headers';

// Compact JSON ends with a newline (worker/response-encoding.ts): a list's is its last piece's, so the front door
// does not pipe the body once more to append it.
const JSON_HEADERS = { 'content-type': 'application/json', [BODY_NEWLINE_HEADER]: '1' };

export function listResponse(body: ListBody): Response {
  const pieces = listPieces({ ...body, close: `${body.close}\n` });
  const first = pieces.next() as IteratorYieldResult<string>; // never done: there is always a piece
  const second = pieces.next();
  // Most lists are one piece: a plain body, no stream.
  if (second.done) return new Response(first.value, { headers: JSON_HEADERS });
  const { readable, writable } = new IdentityTransformStream();
  const send = (piece: string) => new Response(piece).body!.pipeTo(writable, { preventClose: true });
  void (async () => {
    await send(first.value);
    await send(second.value);
    for (let next = pieces.next(); !next.done; next = pieces.next()) await send(next.value);
    await writable.close();
  })().catch((e: unknown) => writable.abort(e).catch(() => undefined)); // the reader left, or a piece failed
  return new Response(readable, { headers: JSON_HEADERS });
}
