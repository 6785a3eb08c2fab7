// Durable Objects: a list body (core/list/serve-list.ts serveListBody) as the Response a list RPC answers, encoded
// a piece (~256 KiB, core/list/list-bytes.ts) at a time as the reader pulls it: a list of 10,000 pods (~32 MB) is
// never held as one string nor as one buffer (before: the joined string, its flattening and its UTF-8 copy were
// ~100-240 ms of the isolate per such list in bench/list-probe.ts's profile), and other requests run between pieces.

import { listBytes } from '../core/list/list-bytes';
import type { ListBody } from '../core/list/render';

const JSON_HEADERS = { 'content-type': 'application/json' };

export function listResponse(body: ListBody): Response {
  const pieces = listBytes(body);
  const first = pieces.next();
  if (first.done) return new Response('', { headers: JSON_HEADERS });
  const second = pieces.next();
  // Most lists are one piece: a plain body, no stream.
  if (second.done) return new Response(first.value, { headers: JSON_HEADERS });
  const ahead = [first.value, second.value];
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const piece = ahead.shift() ?? pieces.next().value;
      if (piece) controller.enqueue(piece);
      else controller.close();
    },
    cancel() {
      pieces.return(undefined);
    },
  });
  return new Response(stream, { headers: JSON_HEADERS });
}
