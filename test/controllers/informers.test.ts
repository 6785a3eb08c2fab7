import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FetchFn, KubeObject } from '../../client/types';
import { InformerFactory, metadataOnly, RESYNC_PERIOD_MS } from '../../controllers/informers';
import { RESOURCES } from '../../controllers/api-client';
import { ReplicaSetController } from '../../controllers/replicaset';
import { FakeApi, FakeClock, FakeRecorder } from './fakes';
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

describe('resync (client-go resyncPeriod) as the backstop', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('whole-object informers resync every 5–10 min by default; metadata-only ones (the collector\'s) never', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { fetch } = server([secret('a', '5')], []);
    const factory = new InformerFactory({ server: 'http://x', token: 't', fetch, random: () => 0.99 });
    const full = factory.for(CONFIGMAPS);
    const meta = factory.metadataFor(SECRETS);
    const updates: string[] = [];
    full.addHandlers({ update: (o, old) => updates.push(`configmap ${o.metadata.name} same=${o === old}`) });
    meta.addHandlers({ update: (o) => updates.push(`secret ${o.metadata.name}`) });
    await factory.start();
    await vi.advanceTimersByTimeAsync(RESYNC_PERIOD_MS * 1.98);
    expect(updates).toEqual([]);
    await vi.advanceTimersByTimeAsync(RESYNC_PERIOD_MS * 0.02);
    expect(updates).toEqual(['configmap a same=true']);
    expect(factory.resyncs()).toEqual({ '/configmaps': 1, '/secrets': 0 });
    await factory.stop();
  });

  it('a ReplicaSet controller that missed a pod deletion creates the missing pod on the next resync', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const rs: KubeObject = {
      apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'ns', uid: 'rs-uid', resourceVersion: '3', generation: 1 },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
      status: { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1 },
    };
    const pod = (name: string, rv: string): KubeObject => ({
      apiVersion: 'v1', kind: 'Pod', spec: {}, status: { phase: 'Pending' },
      metadata: { name, namespace: 'ns', uid: `${name}-uid`, resourceVersion: rv, labels: { app: 'web' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs-uid', controller: true }] },
    });
    const watched = new Set<string>();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const fetch: FetchFn = async (input, init) => {
      const url = new URL(input);
      const pods = url.pathname.endsWith('/pods');
      if (url.searchParams.get('watch')) {
        if (!pods || watched.has(url.pathname)) return hanging(init);
        watched.add(url.pathname);
        await gate; // the deletion comes after the controller's first sync
        return streamResponse([`${JSON.stringify({ type: 'DELETED', object: pod('a', '5') })}\n`]);
      }
      return new Response(JSON.stringify({ metadata: { resourceVersion: '4' }, items: pods ? [pod('a', '1'), pod('b', '2')] : [rs] }));
    };
    // The failpoint informer.drop-event (the source's dropEvent hook): once armed, the next pod event is lost on its
    // way to the controller's handler; the informer's cache still takes it.
    let armed = false;
    let dropped = 0;
    const dropEvent = (gr: string) => {
      if (!armed || gr !== 'core/pods') return false;
      armed = false;
      dropped++;
      return true;
    };
    const factory = new InformerFactory({ server: 'http://x', token: 't', fetch, resyncPeriodMs: 60_000, random: () => 0, dropEvent });
    const pods = factory.for(RESOURCES.pods);
    const api = new FakeApi();
    const controller = new ReplicaSetController({ api, replicaSets: factory.for(RESOURCES.replicasets), pods, clock: new FakeClock(), recorder: new FakeRecorder() });
    await factory.start();
    const workers = controller.run(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(api.writes('create', 'pods')).toEqual([]); // two pods for two replicas
    armed = true;
    release();
    await vi.advanceTimersByTimeAsync(1000);
    expect(pods.list().map((p) => p.metadata.name)).toEqual(['b']); // the cache saw the deletion
    expect(dropped).toBe(1);
    expect(api.writes('create', 'pods')).toEqual([]); // the controller did not
    await vi.advanceTimersByTimeAsync(60_000);
    expect(api.writes('create', 'pods')).toHaveLength(1); // the resync brought the ReplicaSet back to its loop
    controller.queue.shutDown();
    await factory.stop();
    await Promise.all(workers);
  });
});
