// Tooling: the gateway as `npm start` serves it, shared by scripts/start.ts and the benchmarks' `npm start` target
// (bench/targets/gateway-process.ts): the Worker bundled in a child process, then one full collection of the
// start-up garbage (~100 MB of Miniflare's setup that an idle Node process never collects; measured: the serving
// process at 374 → 200 MB RSS). `setFlagsFromString` + a new context is Node's documented way to reach gc without
// a command-line flag.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startGateway, type Gateway, type GatewayOptions } from './gateway';
import { bundleWorkerInChild } from './build-child';

export async function serveAsNpmStart(opts: Omit<GatewayOptions, 'scriptPath'>): Promise<Gateway> {
  const gateway = await startGateway({ ...opts, listenerUpstream: opts.listenerUpstream ?? upstreamFromEnv(), scriptPath: bundleWorkerInChild() });
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return gateway;
}

/** LISTENER_UPSTREAM=direct|entry: where the `npm start` listener sends clients (GatewayOptions.listenerUpstream). */
function upstreamFromEnv(): GatewayOptions['listenerUpstream'] {
  const v = process.env.LISTENER_UPSTREAM;
  if (v === undefined || v === '') return undefined;
  if (v === 'direct' || v === 'entry') return v;
  throw new Error(`LISTENER_UPSTREAM must be "entry" or "direct", not ${JSON.stringify(v)}`);
}
