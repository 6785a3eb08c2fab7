// Tooling: bundles the Worker (front door + Durable Objects) into one ES module for Miniflare.

import { build } from 'esbuild';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { buildUi } from './build-ui';
import { BUNDLE, ROOT } from './root';

export { BUNDLE, ROOT };

export async function bundleWorker(): Promise<string> {
  await buildUi();
  const out = await build({
    entryPoints: [join(ROOT, 'worker', 'index.ts')],
    outfile: BUNDLE,
    write: false,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    external: ['cloudflare:*'],
    logLevel: 'warning',
  });
  // Written under a name of its own, then renamed: tests start gateways in parallel, and another process must never
  // read a bundle half written.
  for (const file of out.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    const tmp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(tmp, latin1Only(file.text));
    renameSync(tmp, file.path);
  }
  return BUNDLE;
}

/**
 * The bundle with every character above U+00FF written as a \u escape. V8 keeps a script's source as one byte per
 * character only when all of it is Latin-1; one em dash in a comment that esbuild keeps (class members' doc comments)
 * or a `μ` in a regex makes the whole 3.7 MB source two bytes per character: workerd measured 130.7–131.7 MiB idle
 * with the escapes vs 134.1–134.7 without. The escape means the same in a string, a regex, an identifier and a
 * template's cooked value, and nothing in a comment; the bundle holds no String.raw of such characters.
 */
export function latin1Only(source: string): string {
  return source.replace(/[\u0100-\uffff]/g, (ch, at: number) => {
    // After a backslash (an identity escape in a regex, `/\—/`) the escape would change what it means: refuse.
    if (source[at - 1] === '\\') throw new Error(`latin1Only: a backslash before U+${ch.charCodeAt(0).toString(16)} at ${at}`);
    return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await bundleWorker();
  console.log(`bundled ${BUNDLE}`);
}
