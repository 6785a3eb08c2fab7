// Simulated kubelets: where static pod manifests come from — a URL read with the platform's fetch, as kube's
// kubelet reads --manifest-url (pkg/kubelet/config/http.go: a 10 s client timeout, 200 only). The body is read
// in chunks up to a byte bound; a larger one is cancelled and refused, so a huge or endless answer costs
// at most that many bytes.

import { MAX_MANIFEST_BYTES, type SourceKind } from '../../core/static-pods/manifests';

export interface StaticPodSource {
  kind: SourceKind; // config.source, and which parts the hash covers
  location: string; // the URL (or path) the hash covers
  /** The manifest text, or throws why it could not be read. */
  read(): Promise<string>;
}

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

const READ_TIMEOUT_MS = 10_000; // http.go: &http.Client{Timeout: 10 * time.Second}

/**
 * STATIC_POD_URL: http or https only; anything else is a configuration error (thrown). `folder` (STATIC_POD_PATH)
 * says the URL serves that local folder (scripts/static-pod-folder.ts): the pods are then a file source's.
 */
export function urlSource(url: string, fetchFn: FetchLike, folder = '', maxBytes = MAX_MANIFEST_BYTES, timeoutMs = READ_TIMEOUT_MS): StaticPodSource {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`not an http or https URL: ${url}`);
  return {
    kind: folder ? 'file' : 'http', location: folder || url,
    async read() {
      const res = await fetchFn(url, { signal: AbortSignal.timeout(timeoutMs) });
      if (res.status !== 200) {
        await res.body?.cancel().catch(() => undefined);
        throw new Error(`${url}: ${res.status} ${res.statusText}`.trimEnd());
      }
      return readBounded(res, maxBytes, url);
    },
  };
}

async function readBounded(res: Response, maxBytes: number, url: string): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`${url}: manifest larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}
