import { describe, expect, it } from 'vitest';
import { openWatchStream, parseEventLine, watchUrl, type StreamEnd } from '../../client/watch-stream';
import { bearerProtocol } from '../../client/url';
import type { WatchEvent } from '../../client/types';
import { line, scriptedFetch, scriptedSocket, statusLine, streamResponse } from './fakes';

async function drain(gen: AsyncGenerator<WatchEvent, StreamEnd, void>): Promise<{ events: WatchEvent[]; end: StreamEnd }> {
  const events: WatchEvent[] = [];
  for (;;) {
    const n = await gen.next();
    if (n.done) return { events, end: n.value };
    events.push(n.value);
  }
}

describe('watchUrl', () => {
  it('keeps a server path prefix and sets only the options given', () => {
    const u = watchUrl({ server: 'https://h:6443/k8s/', path: '/api/v1/pods', resourceVersion: '7', allowWatchBookmarks: true, timeoutSeconds: 5, labelSelector: 'a=b,c in (d)' });
    expect(u.pathname).toBe('/k8s/api/v1/pods');
    expect(Object.fromEntries(u.searchParams)).toEqual({ watch: 'true', resourceVersion: '7', allowWatchBookmarks: 'true', timeoutSeconds: '5', labelSelector: 'a=b,c in (d)' });
    expect(watchUrl({ server: 'http://h', path: '/api/v1/pods' }).search).toBe('?watch=true');
  });
});

describe('bearerProtocol', () => {
  it('is base64url without padding, as the apiserver expects', () => {
    const token = 'abc?>~é';
    const p = bearerProtocol(token);
    expect(p.startsWith('base64url.bearer.authorization.k8s.io.')).toBe(true);
    const enc = p.slice('base64url.bearer.authorization.k8s.io.'.length);
    expect(enc).not.toMatch(/[=+/]/);
    expect(Buffer.from(enc, 'base64url').toString('utf8')).toBe(token);
  });
});

describe('parseEventLine', () => {
  it('parses events, turns ERROR into the end, and garbage into a failure', () => {
    expect(parseEventLine(line('ADDED', '3'))).toMatchObject({ event: { type: 'ADDED', object: { metadata: { resourceVersion: '3' } } } });
    expect(parseEventLine(statusLine(410, 'Expired'))).toMatchObject({ end: { kind: 'error-event', status: { code: 410 } } });
    expect(parseEventLine('{"type":"ADD')).toMatchObject({ end: { kind: 'failed' } });
    expect(parseEventLine('{"type":"WHAT","object":{}}')).toMatchObject({ end: { kind: 'failed' } });
    expect(parseEventLine('[]')).toMatchObject({ end: { kind: 'failed' } });
  });
});

describe('openWatchStream over http', () => {
  it('splits events across arbitrary chunk boundaries, including inside a UTF-8 character', async () => {
    const body = line('ADDED', '1', 'a', { data: { k: 'ü名' } }) + line('BOOKMARK', '5');
    const bytes = new TextEncoder().encode(body);
    const chunks = Array.from(bytes, (b) => new Uint8Array([b]));
    const fetch = scriptedFetch([() => streamResponse(chunks)]);
    const { events, end } = await drain(openWatchStream({ server: 'http://x', path: '/api/v1/configmaps', token: 't', fetch }));
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect((events[0].object as any).data.k).toBe('ü名');
    expect(end).toEqual({ kind: 'closed' });
  });

  it('ends with the ERROR event, the HTTP status, or the failure', async () => {
    const expired = await drain(openWatchStream({ server: 'http://x', path: '/p', fetch: scriptedFetch([() => streamResponse([line('ADDED', '1'), statusLine(410, 'Expired')])]) }));
    expect(expired.events).toHaveLength(1);
    expect(expired.end).toMatchObject({ kind: 'error-event', status: { code: 410, reason: 'Expired' } });

    const refused = await drain(openWatchStream({ server: 'http://x', path: '/p', fetch: scriptedFetch([() => new Response('{"kind":"Status","code":403,"reason":"Forbidden"}', { status: 403 })]) }));
    expect(refused.end).toEqual({ kind: 'http-error', code: 403, status: { kind: 'Status', code: 403, reason: 'Forbidden' } });

    const cut = await drain(openWatchStream({ server: 'http://x', path: '/p', fetch: scriptedFetch([() => streamResponse([line('ADDED', '1'), '{"type":"MODI'])]) }));
    expect(cut.events).toHaveLength(1);
    expect(cut.end.kind).toBe('failed');

    const reset = await drain(openWatchStream({ server: 'http://x', path: '/p', fetch: scriptedFetch([() => streamResponse([line('ADDED', '1')], new Error('ECONNRESET'))]) }));
    expect(reset.end).toMatchObject({ kind: 'failed', error: new Error('ECONNRESET') });
  });

  it('sends the token as a bearer header', async () => {
    let seen: Headers | undefined;
    const fetch = async (_u: string, init?: RequestInit) => {
      seen = new Headers(init?.headers);
      return streamResponse([]);
    };
    await drain(openWatchStream({ server: 'http://x', path: '/p', token: 'tok', fetch }));
    expect(seen?.get('authorization')).toBe('Bearer tok');
  });

  it('reports an abort as aborted, not as a failure', async () => {
    const ac = new AbortController();
    const fetch = async (_u: string, init?: RequestInit) => {
      ac.abort();
      throw init?.signal?.reason ?? new Error('aborted');
    };
    expect((await drain(openWatchStream({ server: 'http://x', path: '/p', fetch, signal: ac.signal }))).end).toEqual({ kind: 'aborted' });
  });
});

describe('openWatchStream over a WebSocket', () => {
  it('says ping every 4 MiB received, so the server knows it is reading', async () => {
    const big = (rv: number) => `${JSON.stringify({ type: 'ADDED', object: { metadata: { resourceVersion: String(rv) }, data: 'x'.repeat(1024 * 1024) } })}\n`;
    const fake = scriptedSocket([{ messages: Array.from({ length: 9 }, (_, i) => big(i + 1)) }]);
    const { events } = await drain(openWatchStream({ server: 'http://x', path: '/p', transport: 'websocket', WebSocket: fake.WebSocket }));
    expect(events).toHaveLength(9);
    expect(fake.made[0].sent).toEqual(['ping', 'ping']);
  });

  it('offers the token protocol plus one to echo, and parses one event per message', async () => {
    const ab = new TextEncoder().encode(line('MODIFIED', '2')).buffer as ArrayBuffer;
    const fake = scriptedSocket([{ messages: [line('ADDED', '1'), ab, line('BOOKMARK', '3')] }]);
    const { events, end } = await drain(openWatchStream({ server: 'https://x:1', path: '/p', token: 'tok', transport: 'websocket', WebSocket: fake.WebSocket }));
    expect(events.map((e) => [e.type, e.object.metadata.resourceVersion])).toEqual([['ADDED', '1'], ['MODIFIED', '2'], ['BOOKMARK', '3']]);
    expect(end).toEqual({ kind: 'closed' });
    expect(fake.made[0].url).toBe('wss://x:1/p?watch=true');
    expect(fake.made[0].protocols).toEqual([bearerProtocol('tok'), 'multi-event.watch.edgeplane.dev', 'base64.binary.k8s.io']);
  });

  it('distinguishes ERROR events, refused handshakes and abnormal closes', async () => {
    const ws = (s: Parameters<typeof scriptedSocket>[0][number]) => drain(openWatchStream({ server: 'http://x', path: '/p', transport: 'websocket', WebSocket: scriptedSocket([s]).WebSocket }));
    expect((await ws({ messages: [statusLine(410, 'Expired')] })).end).toMatchObject({ kind: 'error-event', status: { code: 410 } });
    expect((await ws({ messages: [], beforeOpen: true, error: 'Unexpected server response: 401' })).end).toEqual({ kind: 'http-error', code: 401 });
    expect((await ws({ messages: [], beforeOpen: true })).end.kind).toBe('failed');
    expect((await ws({ messages: [line('ADDED', '1')], close: 1006 })).end.kind).toBe('failed');
  });
});
