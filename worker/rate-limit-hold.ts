// Front door: where a request past its user's rate limit waits (worker/authz.ts). The authorizer shard's bucket
// (core/rate-limit.ts) either reserves the user's next token, due within RATE_LIMIT_MAX_DELAY_MS, or refuses; the
// request then waits here that long — for its token, or before its 429 — on its own timer, holding no
// flow-control seat. Why wait rather than answer at once: a client answered 429 at once asks again at once, and on
// one thread 64 such loops kept every other user's p50 at ×100 of idle (bench/RESULTS.md, the APF section).
// Bounded as flow control's queues are: beyond APF_MAX_WAITING waiting in this isolate, no wait (429 at once).

import type { Context } from 'hono';
import type { AppEnv } from './env';

const counts = { waiting: 0, waited: 0, full: 0 };

/** This isolate's counts, for /metrics (worker/routes/metrics.ts). */
export function rateLimitHoldCounts(): Readonly<typeof counts> {
  return counts;
}

/** Holds the request `ms`; false when too many already wait (nothing waited) or the client went away. */
export async function holdFor(c: Context<AppEnv>, ms: number): Promise<boolean> {
  if (counts.waiting >= c.get('settings').apfMaxWaiting) {
    counts.full++;
    return false;
  }
  const signal = c.req.raw.signal;
  if (signal?.aborted) return false;
  counts.waiting++;
  counts.waited++;
  let onAbort: (() => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), ms);
      onAbort = () => resolve(false);
      signal?.addEventListener('abort', onAbort);
    });
  } finally {
    counts.waiting--;
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
