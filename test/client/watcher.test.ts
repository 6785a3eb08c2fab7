import { describe, expect, it } from 'vitest';
import { watch } from '../../client/watcher';
import { ApiError, type WatchEvent } from '../../client/types';
import type { StreamEnd } from '../../client/watch-stream';
import { line, scriptedFetch, statusLine, streamResponse } from './fakes';

const backoff = { initialMs: 1, maxMs: 4 };

describe('watch', () => {
  it('resumes from the newest resourceVersion, bookmarks included, after each kind of disconnect', async () => {
    const fetch = scriptedFetch([
      () => streamResponse([line('ADDED', '5'), line('BOOKMARK', '8')]), // clean end
      () => Promise.reject(new TypeError('fetch failed')), // network
      () => new Response('busy', { status: 503 }), // server error
      () => streamResponse([line('MODIFIED', '9')], new Error('reset')), // cut mid-stream
      () => streamResponse([statusLine(410, 'Expired')]),
    ]);
    const events: WatchEvent[] = [];
    const ends: StreamEnd['kind'][] = [];
    let expired = 0;
    const result = await watch({
      server: 'http://x', path: '/p', resourceVersion: '3', allowWatchBookmarks: true, timeoutSeconds: 7, fetch, backoff,
      onEvent: (e) => void events.push(e),
      onExpired: () => expired++,
      onDisconnect: (end) => ends.push(end.kind),
    });
    expect(result).toEqual({ reason: 'expired', resourceVersion: '9' });
    expect(expired).toBe(1);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK', 'MODIFIED']);
    expect(ends).toEqual(['closed', 'failed', 'http-error', 'failed']);
    expect(fetch.urls.map((u) => u.searchParams.get('resourceVersion'))).toEqual(['3', '8', '8', '8', '9']);
    for (const u of fetch.urls) {
      expect(u.searchParams.get('allowWatchBookmarks')).toBe('true');
      expect(u.searchParams.get('timeoutSeconds')).toBe('7');
    }
  });

  it('treats an HTTP 410 like the ERROR event', async () => {
    const fetch = scriptedFetch([() => new Response('{"kind":"Status","code":410,"reason":"Expired"}', { status: 410 })]);
    let status: unknown;
    const r = await watch({ server: 'http://x', path: '/p', resourceVersion: '1', fetch, backoff, onEvent: () => {}, onExpired: (s) => (status = s) });
    expect(r.reason).toBe('expired');
    expect(status).toMatchObject({ code: 410 });
  });

  it('rejects on a client error that a retry cannot fix, but retries 429', async () => {
    const fetch = scriptedFetch([
      () => new Response('{}', { status: 429 }),
      () => new Response('{"kind":"Status","code":403,"reason":"Forbidden","message":"no"}', { status: 403 }),
    ]);
    const err = await watch({ server: 'http://x', path: '/p', fetch, backoff, onEvent: () => {} }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe(403);
    expect(fetch.urls).toHaveLength(2);
  });

  it('grows the delay while nothing arrives and resets it after an event', async () => {
    const delays: number[] = [];
    const fail = () => Promise.reject(new TypeError('down'));
    const fetch = scriptedFetch([fail, fail, fail, () => streamResponse([line('ADDED', '2')]), fail, () => streamResponse([statusLine(410, 'Expired')])]);
    await watch({
      server: 'http://x', path: '/p', fetch, backoff: { initialMs: 4, maxMs: 1000 },
      onEvent: () => {},
      onDisconnect: (_e, ms) => delays.push(ms),
    });
    expect(delays).toHaveLength(5);
    expect(delays[1]).toBeGreaterThanOrEqual(4); // step 8: at least half
    expect(delays[2]).toBeGreaterThanOrEqual(8); // step 16
    expect(delays[3]).toBeLessThanOrEqual(4); // reset by the event: back to the first step
  });

  it('stops on abort, also during a backoff wait and from inside a handler', async () => {
    const ac = new AbortController();
    const fetch = scriptedFetch([() => Promise.reject(new TypeError('down'))]);
    const p = watch({ server: 'http://x', path: '/p', fetch, backoff: { initialMs: 60_000, maxMs: 60_000 }, signal: ac.signal, onEvent: () => {}, onDisconnect: () => ac.abort() });
    expect(await p).toEqual({ reason: 'aborted', resourceVersion: undefined });

    const ac2 = new AbortController();
    const fetch2 = scriptedFetch([() => streamResponse([line('ADDED', '4'), line('ADDED', '5')])]);
    const seen: string[] = [];
    const r = await watch({ server: 'http://x', path: '/p', fetch: fetch2, signal: ac2.signal, onEvent: (e) => { seen.push(e.object.metadata.resourceVersion!); ac2.abort(); } });
    expect(r).toEqual({ reason: 'aborted', resourceVersion: '4' });
    expect(seen).toEqual(['4']);
  });
});
