// Static pod manifests: decoding (YAML, JSON, lists, several documents), the bounds, the hash and the mirror pod.
import { describe, expect, it } from 'vitest';
import {
  MAX_MANIFEST_BYTES, MAX_STATIC_PODS, mirrorPodFor, mirrorPodName, nestingBound, parseManifests, podDigest, seenTimestamp, staticPodHash,
} from '../../../core/static-pods/manifests';

const POD_YAML = `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: kube-system
  labels: {tier: control-plane}
spec:
  containers:
  - name: web
    image: nginx
`;

describe('parseManifests', () => {
  it('reads one pod in YAML or JSON', async () => {
    const yaml = (await parseManifests(POD_YAML));
    expect(yaml.problems).toEqual([]);
    expect(yaml.pods).toHaveLength(1);
    expect(yaml.pods[0]).toMatchObject({ kind: 'Pod', metadata: { name: 'web', namespace: 'kube-system' } });
    const json = (await parseManifests(JSON.stringify(yaml.pods[0])));
    expect(json).toEqual(yaml);
  });

  it('reads a PodList, a v1 List of pods and several documents', async () => {
    const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    expect((await parseManifests(JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [pod('a'), pod('b')] }))).pods.map((p: any) => p.metadata.name)).toEqual(['a', 'b']);
    expect((await parseManifests(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod('c')] }))).pods).toHaveLength(1);
    const multi = (await parseManifests(`${POD_YAML}---\n---\n${POD_YAML.replace('name: web\n', 'name: api\n')}`));
    expect(multi.problems).toEqual([]);
    expect(multi.pods.map((p: any) => p.metadata.name)).toEqual(['web', 'api']);
    expect((await parseManifests('')).pods).toEqual([]);
  });

  it('skips bad documents with a problem each and keeps the good ones', async () => {
    const text = [
      'apiVersion: v1\nkind: Service\nmetadata: {name: s}',
      'apiVersion: v1\nkind: Pod\nmetadata: {}',
      '- just\n- a list',
      'key: [unclosed',
      POD_YAML,
    ].join('\n---\n');
    const r = (await parseManifests(text));
    expect(r.pods.map((p: any) => p.metadata.name)).toEqual(['web']);
    expect(r.problems).toHaveLength(4);
    expect(r.problems[0]).toBe('document 1: not a v1 Pod (v1, Kind=Service)');
    expect(r.problems[1]).toBe('document 2: metadata.name: Required value');
    expect(r.problems[2]).toBe('document 3: not an object');
    expect(r.problems[3]).toMatch(/^document 4: /);
  });

  it('is bounded: text size, pod count, document count, aliases and nesting', async () => {
    expect((await parseManifests('#'.repeat(MAX_MANIFEST_BYTES + 1)))).toEqual({ pods: [], problems: [`manifest larger than ${MAX_MANIFEST_BYTES} bytes: not read`] });
    const many = Array.from({ length: MAX_STATIC_PODS + 5 }, (_, i) => POD_YAML.replace('name: web\n', `name: p${i}\n`)).join('---\n');
    const r = (await parseManifests(many));
    expect(r.pods).toHaveLength(MAX_STATIC_PODS);
    expect(r.problems).toEqual([`more than ${MAX_STATIC_PODS} pods: the rest are skipped`]);
    const empties = (await parseManifests('---\n'.repeat(200_000)));
    expect(empties.pods).toEqual([]);
    expect(empties.problems).toEqual(['more than 200 documents: the rest are skipped']);
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 8; i++) bomb.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10).fill(`*${String.fromCharCode(97 + i)}`).join(',')}]`);
    expect((await parseManifests(`${bomb.join('\n')}\n---\n${POD_YAML}`)).problems[0]).toBe('document 1: excessive aliasing or size');
    const deep = (await parseManifests(`${'['.repeat(100)}${']'.repeat(100)}\n---\n${POD_YAML}`));
    expect(deep.problems).toEqual(['document 1: nested deeper than 64 levels']);
    expect(deep.pods).toHaveLength(1);
    const cyclic = await parseManifests(`a: &a [*a]\n---\n${POD_YAML}`);
    expect(cyclic.pods).toHaveLength(1);
    expect(cyclic.problems).toHaveLength(1);
  });

  it('refuses text nested beyond its bound before the yaml package recurses into it, whatever the quoting', async () => {
    for (const text of ['['.repeat(MAX_MANIFEST_BYTES - 1), '{a: '.repeat(100_000), `${' '.repeat(300)}a: b`, '- '.repeat(200), `a: "x\n${'['.repeat(300)}`, `a: b # "\n${'['.repeat(300)}`]) {
      expect(await parseManifests(text)).toEqual({ pods: [], problems: ['manifest nested deeper than 256 levels: not read'] });
    }
    // Brackets inside quoted scalars and comments do not count.
    expect(nestingBound(`a: "${'['.repeat(300)}"\nb: '${'{'.repeat(300)}' # ${'['.repeat(300)}`)).toBe(0);
    expect(nestingBound(POD_YAML)).toBeLessThan(10);
  });

  it('skips a document larger than 64 KiB without composing it, and pauses between slices and documents', async () => {
    const big = `apiVersion: v1\nkind: Pod\nmetadata: {name: big}\nspec:\n  containers:\n${Array.from({ length: 3000 }, (_, i) => `  - {name: c${i}, image: "${'x'.repeat(40)}"}`).join('\n')}`;
    let pauses = 0;
    const r = await parseManifests(`${big}\n---\n${POD_YAML}`, async () => { pauses++; });
    expect(r.pods.map((p: any) => p.metadata.name)).toEqual(['web']);
    expect(r.problems).toEqual(['document 1: larger than 65536 bytes']);
    expect(pauses).toBeGreaterThan(10);
  });
});

describe('staticPodHash', () => {
  it('is 32 hex digits, independent of key order, and changes with the pod, the source and (files) the node', async () => {
    const pod = (await parseManifests(POD_YAML)).pods[0];
    const h = staticPodHash(podDigest(pod), 'node-1', 'http', 'http://x/');
    expect(h).toMatch(/^[0-9a-f]{32}$/);
    const reordered = JSON.parse(JSON.stringify({ spec: pod.spec, metadata: pod.metadata, kind: pod.kind, apiVersion: pod.apiVersion }));
    expect(staticPodHash(podDigest(reordered), 'node-1', 'http', 'http://x/')).toBe(h);
    expect(staticPodHash(podDigest(pod), 'node-2', 'http', 'http://x/')).toBe(h); // url:<url> only, as kube's
    expect(staticPodHash(podDigest(pod), 'node-1', 'http', 'http://y/')).not.toBe(h);
    expect(staticPodHash(podDigest(pod), 'node-1', 'file', '/m')).not.toBe(staticPodHash(podDigest(pod), 'node-2', 'file', '/m'));
    const changed = structuredClone(pod) as any;
    changed.spec.containers[0].image = 'nginx:2';
    expect(staticPodHash(podDigest(changed), 'node-1', 'http', 'http://x/')).not.toBe(h);
  });
});

describe('mirrorPodFor', () => {
  it('names, binds, annotates and owns the pod as kube\'s kubelet does, dropping server-set fields', async () => {
    const pod = (await parseManifests(POD_YAML)).pods[0] as any;
    pod.metadata.uid = 'stale';
    pod.metadata.resourceVersion = '5';
    pod.status = { phase: 'Running' };
    const m = mirrorPodFor(pod, { node: 'Node-1', nodeUid: 'n-uid', source: 'http', hash: 'h', seen: '2026-01-01T00:00:00.5Z' }) as any;
    expect(m.metadata).toEqual({
      name: 'web-node-1', namespace: 'kube-system', labels: { tier: 'control-plane' },
      annotations: {
        'kubernetes.io/config.hash': 'h', 'kubernetes.io/config.mirror': 'h', 'kubernetes.io/config.seen': '2026-01-01T00:00:00.5Z', 'kubernetes.io/config.source': 'http',
      },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'Node-1', uid: 'n-uid', controller: true }],
    });
    expect(m.spec.nodeName).toBe('Node-1');
    expect(m.spec.tolerations).toBeUndefined();
    expect(m.status).toBeUndefined();
    expect(pod.metadata.name).toBe('web'); // the manifest is not changed
    const file = mirrorPodFor((await parseManifests(POD_YAML.replace('  namespace: kube-system\n', ''))).pods[0], { node: 'n', nodeUid: 'u', source: 'file', hash: 'h', seen: 's' }) as any;
    expect(file.metadata.namespace).toBe('default');
    expect(file.spec.tolerations).toEqual([{ operator: 'Exists', effect: 'NoExecute' }]);
  });

  it('names as generatePodName and stamps config.seen as Go\'s RFC3339Nano', async () => {
    expect(mirrorPodName('etcd', 'Node-A')).toBe('etcd-node-a');
    expect(seenTimestamp(Date.parse('2026-01-01T00:00:00.500Z'))).toBe('2026-01-01T00:00:00.5Z');
    expect(seenTimestamp(Date.parse('2026-01-01T00:00:50.000Z'))).toBe('2026-01-01T00:00:50Z');
    expect(seenTimestamp(Date.parse('2026-01-01T00:00:00.123Z'))).toBe('2026-01-01T00:00:00.123Z');
  });
});
