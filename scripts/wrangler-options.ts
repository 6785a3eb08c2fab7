// Tooling: what Miniflare needs of wrangler.toml (vars and .dev.vars, compatibility settings, Durable Object
// classes), read by wrangler itself — in a child process. wrangler's bundle is ~100 MB of heap once loaded (measured
// with `npm start`: importing it took the Node process from ~40 to 383 MB RSS before anything ran), for one call at
// start; a child pays that and exits, and the gateway's own process stays small (issue 20: `npm start` idle RSS).

import { execFileSync } from 'node:child_process';

export interface WranglerWorkerOptions {
  bindings: Record<string, unknown>;
  compatibilityDate?: string;
  compatibilityFlags?: string[];
  durableObjects?: Record<string, { className: string; scriptName?: string; useSQLite?: boolean }>;
}

const MARK = '@@edgeplane-wrangler-options@@';

// CommonJS, run with `node -e`: wrangler's package exports a CommonJS entry.
const CHILD = `
const { unstable_getMiniflareWorkerOptions } = require('wrangler');
const { workerOptions: w } = unstable_getMiniflareWorkerOptions(process.argv[1]);
const out = { bindings: w.bindings ?? {}, compatibilityDate: w.compatibilityDate, compatibilityFlags: w.compatibilityFlags, durableObjects: w.durableObjects };
process.stdout.write('\\n${MARK}' + JSON.stringify(out) + '\\n');
`;

/** wrangler's reading of `configPath` (wrangler.toml beside its .dev.vars), from a child process. */
export function wranglerWorkerOptions(configPath: string, cwd: string): WranglerWorkerOptions {
  const out = execFileSync(process.execPath, ['-e', CHILD, configPath], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 << 20 });
  const at = out.lastIndexOf(MARK);
  if (at < 0) throw new Error(`reading ${configPath} with wrangler printed no options: ${out.slice(0, 500)}`);
  // What wrangler says on the way ("Using secrets defined in .dev.vars") is passed on.
  const said = out.slice(0, at).trim();
  if (said) console.log(said);
  return JSON.parse(out.slice(at + MARK.length)) as WranglerWorkerOptions;
}
