// scripts/static-pod-folder.ts: a folder of manifests as the stream the simulated kubelets read.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { folderManifests, serveStaticPodFolder } from '../../scripts/static-pod-folder';
import { parseManifests } from '../../core/static-pods/manifests';

const dir = mkdtempSync(join(tmpdir(), 'static-pods-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pod = (name: string) => `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec: {containers: [{name: c, image: x}]}`;

describe('static pod folder', () => {
  it('serves the manifests in name order as one stream, skipping hidden, other and oversized files', async () => {
    writeFileSync(join(dir, 'b.yaml'), `---\n${pod('b')}\n---\n${pod('b2')}\n`);
    writeFileSync(join(dir, 'a.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'x' }] } }));
    writeFileSync(join(dir, '.hidden.yaml'), pod('hidden'));
    writeFileSync(join(dir, 'notes.txt'), pod('txt'));
    writeFileSync(join(dir, 'huge.yml'), `# ${'x'.repeat(1024 * 1024)}`);
    mkdirSync(join(dir, 'sub.yaml'));
    const warnings: string[] = [];
    const text = folderManifests(dir, (w) => warnings.push(w));
    expect((await parseManifests(text))).toEqual({ pods: expect.any(Array), problems: [] });
    expect((await parseManifests(text)).pods.map((p: any) => p.metadata.name)).toEqual(['a', 'b', 'b2']);
    expect(warnings).toEqual([expect.stringContaining('huge.yml is larger than 1048576 bytes: skipped')]);
    expect(folderManifests(join(dir, 'missing'))).toBe('');

    const served = await serveStaticPodFolder(dir);
    try {
      writeFileSync(join(dir, 'c.yaml'), pod('c')); // read afresh on every request
      const body = await (await fetch(served.url)).text();
      expect((await parseManifests(body)).pods.map((p: any) => p.metadata.name)).toEqual(['a', 'b', 'b2', 'c']);
    } finally {
      await served.close();
    }
  });
});
