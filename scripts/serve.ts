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
  const gateway = await startGateway({ ...opts, listenerPipe: opts.listenerPipe ?? pipeFromEnv(), scriptPath: bundleWorkerInChild() });
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return gateway;
}

/** READ_WINDOW_MS: the listener's read window (ms; "off": none), for measuring; unset: the default (gateway.ts DEFAULT_PIPE). */
function pipeFromEnv(): GatewayOptions['listenerPipe'] {
  const v = process.env.READ_WINDOW_MS;
  if (v === undefined || v === '') return undefined;
  if (v === 'off') return {};
  const ms = Number(v);
  if (!Number.isFinite(ms) || ms < 0 || ms > 1000) throw new Error(`READ_WINDOW_MS must be "off" or 0 to 1000 ms, not ${JSON.stringify(v)}`);
  return { readWindowMs: ms };
}
