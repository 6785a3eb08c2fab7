// Tooling: the gateway as `npm start` serves it, shared by scripts/start.ts and the benchmarks' `npm start` target
// (bench/targets/gateway-process.ts): the Worker bundled in a child process, then full collections of the
// start-up garbage (~100 MB of Miniflare's setup that an idle Node process never collects; measured: the serving
// process at 374 → 200 MB RSS). `setFlagsFromString` + a new context is Node's documented way to reach gc without
// a command-line flag.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startGateway, type Gateway, type GatewayOptions } from './gateway';
import { bundleWorkerInChild } from './build-child';

// Past V8's 5 s window of allocation throughput after the start (see below).
const SETTLED_MS = 6000;

export async function serveAsNpmStart(opts: Omit<GatewayOptions, 'scriptPath'>): Promise<Gateway> {
  const gateway = await startGateway({ ...opts, listenerUpstream: opts.listenerUpstream ?? upstreamFromEnv(), scriptPath: bundleWorkerInChild() });
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // Twice: after the first, 7 MB more of the heap (and 8 MB of external memory) was still there in every start
  // measured, 32.9 MB against 25.8 after a second — what the first one only released for the next to take (weak
  // callbacks' second pass) — and an idle process runs no collection of its own to take it.
  gc();
  gc();
  // Once more when the start-up has settled: V8 gives back the young generation's 32 MB (two 16 MB semi-spaces)
  // only in a collection that finds allocation slow (under 1 KB/ms of recent throughput: kLowAllocationThroughput,
  // heap.cc); the two above run right after the start's allocations. Measured: new space 32 → 1 MB in every start (it
  // stayed 32 in about half without this), the process 103–110 MiB RSS 10 s after start.
  setTimeout(gc, SETTLED_MS).unref();
  return gateway;
}

/** LISTENER_UPSTREAM=direct|entry: where the `npm start` listener sends clients (GatewayOptions.listenerUpstream). */
function upstreamFromEnv(): GatewayOptions['listenerUpstream'] {
  const v = process.env.LISTENER_UPSTREAM;
  if (v === undefined || v === '') return undefined;
  if (v === 'direct' || v === 'entry') return v;
  throw new Error(`LISTENER_UPSTREAM must be "entry" or "direct", not ${JSON.stringify(v)}`);
}
