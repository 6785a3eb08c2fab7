// Tooling: the Worker bundled by scripts/build.ts in a child process. Bundling takes the heap of whoever runs it to
// ~180 MB and starts esbuild's service (~100 MB more), measured; a long-running `npm start` would keep both, a child
// gives them back when it exits (issue 20: `npm start` idle RSS).

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { BUNDLE, ROOT } from './root';

export function bundleWorkerInChild(): string {
  execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'build.ts')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return BUNDLE;
}
