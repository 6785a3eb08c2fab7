// Tooling: builds the deployable bundle exactly as `wrangler deploy` would (`--dry-run --outdir dist/deploy`), and
// fails if it does not build or if its compressed size passes BUNDLE_LIMIT_GZIP_BYTES. Run by .ci/run and by the
// production-settings smoke test (test/e2e/production.test.ts), which starts this very file.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from './build';

export const DEPLOY_DIR = join(ROOT, 'dist', 'deploy');
export const DEPLOY_BUNDLE = join(DEPLOY_DIR, 'index.js');
// Workers' script size limit on the Free plan: 3 MB after compression (Paid: 10 MB). Staying under the Free limit
// keeps edgeplane deployable on any account.
export const BUNDLE_LIMIT_GZIP_BYTES = 3 * 1000 * 1000;

export function buildDeployBundle(): { bytes: number; gzipBytes: number } {
  execFileSync(join(ROOT, 'node_modules', '.bin', 'wrangler'), ['deploy', '--dry-run', '--outdir', DEPLOY_DIR], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  });
  const code = readFileSync(DEPLOY_BUNDLE);
  return { bytes: code.byteLength, gzipBytes: gzipSync(code, { level: 9 }).byteLength };
}

if (process.argv[1]?.endsWith('check-bundle.ts')) {
  const { bytes, gzipBytes } = buildDeployBundle();
  const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(`deploy bundle: ${kib(bytes)} (${kib(gzipBytes)} gzip; limit ${kib(BUNDLE_LIMIT_GZIP_BYTES)} gzip)`);
  if (gzipBytes > BUNDLE_LIMIT_GZIP_BYTES) {
    console.error('the deploy bundle is over the size limit');
    process.exit(1);
  }
}
