// Client: a watch that survives disconnects. It remembers the newest resourceVersion it has seen and
// resumes from it with backoff, until the caller aborts, the server says the version expired (410), or
// the server refuses the request for a reason retrying cannot fix.

import { Backoff, DEFAULT_BACKOFF, sleep, type BackoffOptions } from './backoff';
import { openWatchStream, type StreamEnd, type WatchStreamOptions } from './watch-stream';
import { ApiError, type Status, type WatchEvent } from './types';

export interface WatchOptions extends Omit<WatchStreamOptions, 'signal'> {
  /** Awaited before the next event is read, so a slow handler slows the stream instead of queueing. */
  onEvent(event: WatchEvent): void | Promise<void>;
  /** The resourceVersion is gone from the server's history: the caller must relist. The watch then ends. */
  onExpired?(status: Status | undefined): void;
  /** Each end that will be retried, with the delay before the retry (for logging and tests). */
  onDisconnect?(end: StreamEnd, retryInMs: number): void;
  signal?: AbortSignal;
  backoff?: BackoffOptions;
}

export interface WatchResult {
  reason: 'aborted' | 'expired';
  resourceVersion: string | undefined; // the last one seen: where a later watch could resume
}

/**
 * Runs until aborted or expired. Rejects with ApiError when the server refuses the watch with a client
 * error (400, 401, 403, 404, 422...), which a retry would only repeat; 429 and 5xx are retried.
 */
export async function watch(opts: WatchOptions): Promise<WatchResult> {
  const backoff = new Backoff(opts.backoff ?? DEFAULT_BACKOFF);
  let resourceVersion = opts.resourceVersion;
  const { onEvent, onExpired, onDisconnect, signal, backoff: _b, ...streamOpts } = opts;
  for (;;) {
    if (signal?.aborted) return { reason: 'aborted', resourceVersion };
    const stream = openWatchStream({ ...streamOpts, resourceVersion, signal });
    let end: StreamEnd;
    for (;;) {
      const next = await stream.next();
      if (next.done) {
        end = next.value;
        break;
      }
      // Every event moves the resume point, bookmarks included: that is what bookmarks are for.
      const rv = next.value.object.metadata?.resourceVersion;
      if (rv) resourceVersion = rv;
      backoff.reset();
      await onEvent(next.value);
      if (signal?.aborted) {
        await stream.return({ kind: 'aborted' });
        return { reason: 'aborted', resourceVersion };
      }
    }
    if (end.kind === 'aborted' || signal?.aborted) return { reason: 'aborted', resourceVersion };
    const code = end.kind === 'error-event' ? end.status.code : end.kind === 'http-error' ? end.code : undefined;
    const status = end.kind === 'error-event' || end.kind === 'http-error' ? end.status : undefined;
    // "Gone" is what servers before 1.16 called it; client-go accepts both.
    if (code === 410 || status?.reason === 'Expired' || status?.reason === 'Gone') {
      onExpired?.(status);
      return { reason: 'expired', resourceVersion };
    }
    if (code !== undefined && code >= 400 && code < 500 && code !== 429 && code !== 408) {
      throw new ApiError(code, status);
    }
    const delay = backoff.next();
    onDisconnect?.(end, delay);
    await sleep(delay, signal);
  }
}
