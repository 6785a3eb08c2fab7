// Core: reading a body stream up to a bound in bytes — the one chunk loop of request bodies (worker/body.ts),
// capped response reads (admission lists, webhook answers) and fetched documents (static pod manifests): past the
// bound the stream is cancelled, never buffered.

/**
 * Reads `body`, keeping its bytes while they are at most `keep` (`bytes` is empty beyond), and cancelling it once more
 * than `stopAfter` have come; `total` counts what was read. The one chunk loop of request and response bodies.
 */
export async function readKept(body: ReadableStream<Uint8Array>, keep: number, stopAfter: number): Promise<{ bytes: Uint8Array; total: number }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > stopAfter) {
      await reader.cancel().catch(() => undefined);
      break;
    }
    if (total <= keep) chunks.push(value);
  }
  if (total > keep) return { bytes: new Uint8Array(), total };
  if (chunks.length === 1) return { bytes: chunks[0]!, total };
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { bytes, total };
}

/** A response body's text when it is at most `cap` bytes; undefined (and the rest not read) beyond. */
export async function readCapped(res: Response, cap: number): Promise<string | undefined> {
  if (!res.body) return '';
  const { bytes, total } = await readKept(res.body, cap, cap);
  return total > cap ? undefined : new TextDecoder().decode(bytes);
}
