// Front door: reads a request body with kube-apiserver's 3 MiB cap (413 beyond it), counting bytes
// as they stream so a missing or lying Content-Length cannot get around it.

import { requestEntityTooLarge, StatusError } from '../core/status';
import { readKept } from '../core/bounded-read';
export { readCapped } from '../core/bounded-read';

// apiserver pkg/server/config.go MaxRequestBodyBytes.
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

// An oversized body is still read (and dropped, never kept) up to this much, so the client, which is still
// sending, gets to read the 413 instead of a reset connection — and can send its next request on the same
// keep-alive connection. Whatever is left unread past the answer, workerd reads only 64 KiB of (kj HttpServer's
// canceledUploadGraceBytes) before closing the connection, and it never says `Connection: close` (it drops that
// header from a Worker's response; Go's net/http, kube-apiserver's server, does say it): a client that had
// already sent its next request on the connection met "other side closed" (robustness item 5, fuzzer seed 99:
// a DELETE right after a 7 MB POST). 100 MB is the smallest Cloudflare plan's request body limit: the edge
// refuses a larger body before the Worker sees it, so only local runs can still meet the close, past it.
const DRAIN_LIMIT_BYTES = 100 * 1000 * 1000;

// The body each request's handler read, for the audit log's request object and the name a create asks for
// (worker/audit.ts), so the audit filter needs no tap on the stream: a TransformStream per request, a copy and
// a second parse of the bytes cost more CPU than the rest of the front door (measured: bench/profile.ts writes-64).
// Keyed weakly by the request: it lives exactly as long as the request does.
const readBodies = new WeakMap<Request, Uint8Array>();

/** The bytes readBodyBytes read from `req`, if it did (and the body was within the limit). */
export function bodyRead(req: Request): Uint8Array | undefined {
  return readBodies.get(req);
}

export async function readBodyBytes(req: Request): Promise<Uint8Array> {
  if (!req.body) return new Uint8Array();
  // A body whose Content-Length is within the limit: one read (the runtime frames the body by that length, so
  // it cannot run past it; the length is checked again all the same). Cheaper than a read per chunk
  // (bench/profile.ts writes-64: reading the body was ~4% of a create's CPU).
  const declared = req.headers.get('content-length');
  if (declared !== null && /^\d{1,8}$/.test(declared) && Number(declared) <= MAX_REQUEST_BODY_BYTES) {
    const all = new Uint8Array(await req.arrayBuffer());
    if (all.byteLength > MAX_REQUEST_BODY_BYTES) throw tooLarge();
    readBodies.set(req, all);
    return all;
  }
  // Kept up to the limit; past it, read and dropped up to the drain limit (see DRAIN_LIMIT_BYTES).
  const { bytes, total } = await readKept(req.body, MAX_REQUEST_BODY_BYTES, DRAIN_LIMIT_BYTES);
  if (total > MAX_REQUEST_BODY_BYTES) throw tooLarge();
  readBodies.set(req, bytes);
  return bytes;
}


function tooLarge(): StatusError {
  return new StatusError(requestEntityTooLarge(`limit is ${MAX_REQUEST_BODY_BYTES}`));
}

/**
 * Reads and drops a body nobody read (up to the drain limit): an answer given before the body was read — 401,
 * 403, 404, 429 — must still reach a client that is busy sending, instead of a connection closed under it.
 */
export async function drainUnread(req: Request): Promise<void> {
  if (!req.body || req.bodyUsed) return;
  const reader = req.body.getReader();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      total += value.byteLength;
      if (total > DRAIN_LIMIT_BYTES) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // the client went away: nothing left to protect
  }
}
