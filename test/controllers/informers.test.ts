import { describe, expect, it } from 'vitest';
import type { FetchFn, KubeObject } from '../../client/types';
import { InformerFactory, metadataOnly } from '../../controllers/informers';
import { hanging, streamResponse } from '../client/fakes';

const SECRETS = { group: '', version: 'v1', resource: 'secrets', namespaced: true };
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };

const secret = (name: string, rv: string): KubeObject => ({
  metadata: {
    name, namespace: 'ns', uid: `${name}-uid`, resourceVersion: rv, labels: { a: 'b' },
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': 'x'.repeat(10_000) },
    managedFields: [{ manager: 'kubectl' }], ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'o-uid' }],
    finalizers: ['example.com/f'],
  },
  type: 'Opaque',
  data: { big: 'eA=='.repeat(50_000) },
});

/** A server for one collection: a list of `items`, then a watch that sends `events` and stays open. */
function server(items: KubeObject[], events: { type: string; object: KubeObject }[]) {
  const requests: { url: URL; headers: Headers }[] = [];
  const fetch: FetchFn = async (input, init) => {
    const url = new URL(input);
    requests.push({ url, headers: new Headers(init?.headers) });
    if (url.searchParams.get('watch')) {
      if (requests.filter((r) => r.url.searchParams.get('watch')).length > 1) return hanging(init);
      return streamResponse(events.map((e) => `${JSON.stringify(e)}\n`));
    }
    return new Response(JSON.stringify({ kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: '10' }, items }));
  };
  return { fetch, requests };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('metadata-only informers (kube GC metadata informers)', () => {
  it('metadataOnly keeps what the collector reads and drops data, labels, annotations and managedFields', () => {
    const s = secret('a', '5');
    expect(metadataOnly({ ...s, metadata: { ...s.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } })).toEqual({
      apiVersion: undefined, kind: undefined,
      metadata: {
        name: 'a', namespace: 'ns', uid: 'a-uid', resourceVersion: '5', deletionTimestamp: '2026-01-01T00:00:00Z',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'o-uid' }], finalizers: ['example.com/f'],
      },
    });
  });

  it('a type only a metadata reader asks for is cached as metadata, listed and watched from the canonical store in small pages', async () => {
    const { fetch, requests } = server([secret('a', '5')], [{ type: 'ADDED', object: { apiVersion: 'v1', kind: 'Secret', ...secret('b', '11') } }]);
    const factory = new InformerFactory({ server: 'http://x', token: 't', fetch });
    const inf = factory.metadataFor(SECRETS);
    const seen: KubeObject[] = [];
    inf.addHandlers({ add: (o) => seen.push(o) });
    await factory.start();
    await until(() => seen.length === 2, 'the watched Secret');
    expect(factory.metadataOnlyTypes()).toEqual(['/secrets']);
    for (const o of [...inf.list(), ...seen]) {
      expect(Object.keys(o).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
      expect(Object.keys(o.metadata).sort()).toEqual(['finalizers', 'name', 'namespace', 'ownerReferences', 'resourceVersion', 'uid']);
    }
    expect(inf.get('ns/a')?.kind).toBe('Secret'); // restored from the list's kind
    expect(JSON.stringify(inf.list()).length).toBeLessThan(1000);
    expect(requests.every((r) => r.headers.get('x-edgeplane-location') === 'store')).toBe(true);
    expect(requests[0]!.url.searchParams.get('limit')).toBe('50');
    await factory.stop();
  });

  it('shares the whole-object informer when another controller asks for the type before start', async () => {
    const { fetch, requests } = server([secret('a', '5')], []);
    const factory = new InformerFactory({ server: 'http://x', token: 't', fetch });
    const meta = factory.metadataFor(CONFIGMAPS);
    const full = factory.for(CONFIGMAPS);
    expect(meta).toBe(full);
    await factory.start();
    expect((full.get('ns/a') as { data?: unknown }).data).toBeDefined();
    expect(factory.metadataOnlyTypes()).toEqual([]);
    expect(requests[0]!.headers.get('x-edgeplane-location')).toBeNull();
    expect(() => factory.for(CONFIGMAPS)).not.toThrow();
    await factory.stop();
  });

  it('refuses whole objects of a type already started with metadata only', async () => {
    const { fetch } = server([], []);
    const factory = new InformerFactory({ server: 'http://x', token: 't', fetch });
    factory.metadataFor(SECRETS);
    await factory.start();
    expect(() => factory.for(SECRETS)).toThrow(/metadata only/);
    await factory.stop();
  });
});
