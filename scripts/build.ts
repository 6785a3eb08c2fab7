// Tooling: bundles the Worker (front door + Durable Objects) into one ES module for Miniflare.

import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { buildUi } from './build-ui';
import { BUNDLE, ROOT } from './root';

export { BUNDLE, ROOT };

export async function bundleWorker(): Promise<string> {
  await buildUi();
  await build({
    entryPoints: [join(ROOT, 'worker', 'index.ts')],
    outfile: BUNDLE,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    external: ['cloudflare:*'],
    logLevel: 'warning',
  });
  return BUNDLE;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await bundleWorker();
  console.log(`bundled ${BUNDLE}`);
}
