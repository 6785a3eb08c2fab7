// Tests: the local listener's pure parts: where a request's headers end (however the bytes are split), and the
// limits it derives from the descriptor limit (scripts/dual-listener.ts).
import { describe, expect, it } from 'vitest';
import { defaultLimits, HeaderEnd } from '../../scripts/dual-listener';

/** The offset (in the whole input) just past the headers when `parts` arrive one after another, or -1. */
function endOf(parts: string[]): number {
  const end = new HeaderEnd();
  let offset = 0;
  for (const p of parts) {
    const at = end.scan(Buffer.from(p, 'latin1'));
    if (at >= 0) return offset + at;
    offset += p.length;
  }
  return -1;
}

describe('HeaderEnd', () => {
  const request = 'GET /api HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\n\r\n';

  it('finds the blank line after the headers however the bytes are split, body bytes after it untouched', () => {
    const withBody = `${request}{"body":"\\r\\n\\r\\n"}`;
    for (let cut = 0; cut <= withBody.length; cut++) expect(endOf([withBody.slice(0, cut), withBody.slice(cut)])).toBe(request.length);
    expect(endOf(request.split(''))).toBe(request.length);
  });

  it('accepts bare line feeds, as Go does, and nothing short of a blank line', () => {
    expect(endOf(['GET / HTTP/1.1\nHost: x\n\n'])).toBe('GET / HTTP/1.1\nHost: x\n\n'.length);
    expect(endOf(['GET / HTTP/1.1\r\nHost: x\r\n'])).toBe(-1);
    expect(endOf(['GET / HTTP/1.1\r\nX: a\rb\r\n', 'Y: \r\r\n'])).toBe(-1);
    expect(endOf(['GET / HTTP/1.1\r\nX: a\r\n\r', '\n'])).toBe('GET / HTTP/1.1\r\nX: a\r\n\r\n'.length);
  });

  it('never ends without a blank line, over a megabyte of header lines', () => {
    const end = new HeaderEnd();
    const chunk = Buffer.alloc(64 * 1024, 'a\r\n');
    for (let i = 0; i < 16; i++) expect(end.scan(chunk)).toBe(-1);
  });
});

describe('defaultLimits', () => {
  it('fits two descriptors per open connection and one per opening connection under the limit', () => {
    for (const fds of [1024, 4096, 20_000, 1_048_576]) {
      const l = defaultLimits(fds);
      expect(2 * l.maxConnections + l.maxOpening).toBeLessThanOrEqual(fds - 512);
      expect(l.maxOpening).toBeGreaterThan(0);
      expect(l.headerTimeoutMs).toBe(32_000);
    }
    expect(defaultLimits(20_000)).toMatchObject({ maxConnections: 8770, maxOpening: 1948 });
  });
});
