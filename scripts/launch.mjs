// Tooling: runs a TypeScript entry point (scripts/start.ts for `npm start`) as plain JavaScript in this one Node
// process: esbuild bundles it (npm packages left as imports) into dist/<name>.mjs, then this process imports it.
// tsx, which ran it before, left a launcher process, a module-loader thread and an esbuild service running beside
// the gateway for its whole life: 44.3 + 12.3 MiB of processes and ~100 MiB of the gateway's own RSS (bench/RESULTS.md,
// "`npm start` before any client"; issue 20). The bundling runs in a child process that exits when it is done:
// in this one, esbuild's API left the gateway ~50 MiB bigger for good, measured, even after a full collection.
// Plain JavaScript because it is what loads TypeScript. Usage: node scripts/launch.mjs <entry.ts>.

import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const ROOT = join(dirname(SELF), '..');
// One level below the root, as scripts/ is: the bundled modules find the project from their own location
// (scripts/root.ts, scripts/build-ui.ts), and that holds for a file in dist/ as for one in scripts/.
const OUT_DIR = join(ROOT, 'dist');

/** Bundles `entry` into dist/<name>.mjs (+ .map) and returns its path. */
async function bundle(entry) {
  const { build, stop } = await import('esbuild');
  const outfile = join(OUT_DIR, `${basename(entry, extname(entry))}.mjs`);
  const { outputFiles } = await build({
    entryPoints: [resolve(ROOT, entry)],
    outdir: OUT_DIR,
    entryNames: '[name]',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // A dynamic import stays one, in a chunk of its own (dist/launch-<hash>.mjs): scripts/gateway.ts loads the
    // bundler only when it bundles, and `npm start` bundles in a child (scripts/build-child.ts).
    splitting: true,
    chunkNames: 'launch-[hash]',
    // Imported by Node from dist/, so node_modules resolve as they do for the sources.
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    // Stack traces name the TypeScript sources with NODE_OPTIONS=--enable-source-maps (docs/operations.md); without
    // it Node never reads the map.
    sourcemap: 'linked',
    write: false,
    logLevel: 'warning',
  });
  await stop();
  mkdirSync(OUT_DIR, { recursive: true });
  // Written under a name of this process's, then renamed: two launches at once (tests, benchmarks) never import a
  // half-written file. Chunks are named by their content; the entry, which imports them, goes last.
  for (const file of [...outputFiles].sort((a, b) => Number(a.path === outfile) - Number(b.path === outfile))) {
    const partial = `${file.path}.${process.pid}.partial`;
    writeFileSync(partial, file.contents);
    renameSync(partial, file.path);
  }
  return outfile;
}

const [mode, entry] = process.argv[2] === '--bundle-only' ? ['bundle', process.argv[3]] : ['run', process.argv[2]];
if (!entry) {
  console.error('usage: node scripts/launch.mjs [--bundle-only] <entry.ts>');
  process.exit(2);
}
// package.json's start script runs this process with MALLOC_ARENA_MAX=1, which glibc read when it started: one
// malloc arena instead of one per thread that ever allocated (V8's compiler and GC helpers, libuv's pool), whose
// freed pages stayed resident — 88–96 against 103–110 MiB RSS 10 s after start, measured. Its JavaScript runs on one
// thread, so the arena's lock is not contended. Its children (the bundlers, wrangler's reader, workerd, which runs
// requests beside V8's threads) keep glibc's default.
delete process.env.MALLOC_ARENA_MAX;
if (mode === 'bundle') {
  process.stdout.write(await bundle(entry));
} else {
  const outfile = execFileSync(process.execPath, [SELF, '--bundle-only', entry], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  await import(pathToFileURL(outfile).href);
}
