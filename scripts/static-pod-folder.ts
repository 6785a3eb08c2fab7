// Tooling: a local folder of static pod manifests as the URL the simulated kubelets read (STATIC_POD_URL). The
// Worker cannot read the disk, so `STATIC_POD_DIR=./manifests npm start` serves the folder on a loopback port:
// every GET answers the folder's *.yaml, *.yml and *.json files (hidden ones skipped, as kube's file source does),
// in name order, as one multi-document YAML stream, read afresh each time so edits show at the next check.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

// The kubelet reads at most 1 MiB from the URL (core/static-pods/manifests.ts); a larger file is left out here
// with a warning rather than making the whole stream unreadable.
const MAX_FILE_BYTES = 1024 * 1024;
const MANIFEST = /\.(ya?ml|json)$/i;

/** The folder's manifests as one stream ('' when the folder is missing or empty: no static pods). */
export function folderManifests(dir: string, warn: (line: string) => void = console.warn): string {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => !n.startsWith('.') && MANIFEST.test(n)).sort();
  } catch {
    return '';
  }
  const docs: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const st = statSync(path);
      if (!st.isFile()) continue;
      if (st.size > MAX_FILE_BYTES) {
        warn(`static pods: ${path} is larger than ${MAX_FILE_BYTES} bytes: skipped`);
        continue;
      }
      docs.push(readFileSync(path, 'utf8'));
    } catch (e) {
      warn(`static pods: ${path}: ${(e as Error).message}`);
    }
  }
  return docs.map((d) => d.replace(/^---\s*\n/, '')).join('\n---\n');
}

/** Serves `dir` on 127.0.0.1 (a free port); the URL to set as STATIC_POD_URL. */
export async function serveStaticPodFolder(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET') {
      res.writeHead(405).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/yaml' });
    res.end(folderManifests(dir));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/manifests`, close: () => new Promise((ok) => server.close(() => ok())) };
}
