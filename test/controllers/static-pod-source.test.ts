// The static pod URL source: 200 only, bodies bounded in bytes (cancelled past the bound), http(s) only.
import { describe, expect, it } from 'vitest';
import { urlSource } from '../../controllers/kubelet/static-pod-source';

/** A body of `chunks` chunks of `size` bytes; counts how many were pulled. */
function streamed(chunks: number, size: number) {
  let pulled = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (pulled++ >= chunks) return c.close();
      c.enqueue(new Uint8Array(size).fill(0x61));
    },
    cancel() { cancelled = true; },
  });
  return { body, pulled: () => pulled, cancelled: () => cancelled };
}

describe('urlSource', () => {
  it('reads a 200 body as text', async () => {
    const s = urlSource('https://m.example/pods.yaml', async () => new Response('kind: Pod'));
    expect(s.kind).toBe('http');
    expect(s.location).toBe('https://m.example/pods.yaml');
    expect(await s.read()).toBe('kind: Pod');
    // A local folder served as the URL is a file source named by its path.
    const folder = urlSource('http://127.0.0.1:9/manifests', async () => new Response(''), '/etc/kubernetes/manifests');
    expect([folder.kind, folder.location]).toEqual(['file', '/etc/kubernetes/manifests']);
  });

  it('refuses other statuses, with the URL and status in the error', async () => {
    const s = urlSource('http://m/', async () => new Response('nope', { status: 404, statusText: 'Not Found' }));
    await expect(s.read()).rejects.toThrow('http://m/: 404 Not Found');
  });

  it('stops reading past the byte bound and cancels the body', async () => {
    const big = streamed(1000, 1024);
    const s = urlSource('http://m/', async () => new Response(big.body), '', 10 * 1024);
    await expect(s.read()).rejects.toThrow('http://m/: manifest larger than 10240 bytes');
    expect(big.pulled()).toBeLessThan(15);
    expect(big.cancelled()).toBe(true);
    const small = streamed(3, 1024);
    expect((await urlSource('http://m/', async () => new Response(small.body), '', 10 * 1024).read()).length).toBe(3072);
  });

  it('accepts only http and https URLs', () => {
    expect(() => urlSource('file:///etc/kubernetes/manifests', async () => new Response(''))).toThrow('not an http or https URL');
    expect(() => urlSource('not a url', async () => new Response(''))).toThrow();
  });
});
