// kube-apiserver's crdRegistrationController and autoregister (controllers/apiservice-crd.ts) with fakes: a CRD's
// served versions get local APIServices (group priority 1000, version 100, automanaged "true"), an unserved
// version none, a version that stops being served and the last CRD of a group take theirs away, a built-in group
// version is left alone, and an APIService without the automanaged label is never touched.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { autoregister, CrdRegistrationController, desiredCrdApiService } from '../../controllers/apiservice-crd';
import { APISERVICES } from '../../controllers/apiservice';
import { FakeApi, FakeClock, FakeInformer } from './fakes';

type Obj = Record<string, any>;

const crd = (name: string, group: string, versions: [string, boolean][]): KubeObject => ({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${name}.${group}` },
  spec: { group, names: { plural: name, kind: 'X' }, scope: 'Namespaced', versions: versions.map(([v, served]) => ({ name: v, served, storage: v === versions[0]![0] })) },
} as KubeObject);

function setup() {
  const api = new FakeApi();
  const crds = new FakeInformer(), apiServices = new FakeInformer();
  const clock = new FakeClock();
  const c = new CrdRegistrationController({ api, crds, apiServices, clock });
  // Drain the queue, feeding writes back into the APIService informer as a watch would.
  const drain = async () => {
    for (let round = 0; round < 1000; round++) { // bounded: a loop that never settles fails the test
      // A key synced a moment ago waits a little (the queue's hot-key pacing): let its timer fire.
      if (!c.queue.len()) {
        if (!c.queue.stats().delayed) break;
        clock.advance(60_000);
        continue;
      }
      const key = (await c.queue.get())!;
      await c.sync(key);
      c.queue.done(key);
      const stored = api.objects.get(`apiservices//${key}`);
      const cached = apiServices.get(key);
      if (stored && stored.metadata.resourceVersion !== cached?.metadata.resourceVersion) apiServices.add(stored);
      else if (!stored && cached) apiServices.delete(cached);
    }
  };
  const names = () => [...api.objects.keys()].filter((k) => k.startsWith('apiservices/')).map((k) => k.slice('apiservices//'.length)).sort();
  return { api, crds, apiServices, c, drain, names };
}

describe('CRD APIServices (crdRegistrationController)', () => {
  it('registers each served version of a CRD group, as kube does', async () => {
    const { crds, drain, api, names } = setup();
    crds.add(crd('widgets', 'example.com', [['v1', true], ['v1beta1', true], ['v1alpha1', false]]));
    await drain();
    expect(names()).toEqual(['v1.example.com', 'v1beta1.example.com']);
    expect(api.objects.get('apiservices//v1.example.com')).toMatchObject({
      metadata: { name: 'v1.example.com', labels: { 'kube-aggregator.kubernetes.io/automanaged': 'true' } },
      spec: { group: 'example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 },
    });
    expect((api.objects.get('apiservices//v1.example.com') as Obj).spec.service).toBeUndefined();
  });

  it('keeps a group version while any CRD of the group serves it, and deletes it with the last', async () => {
    const { crds, drain, names } = setup();
    const a = crd('widgets', 'example.com', [['v1', true], ['v1beta1', true]]);
    const b = crd('gadgets', 'example.com', [['v1', true]]);
    crds.add(a);
    crds.add(b);
    await drain();
    crds.add(crd('widgets', 'example.com', [['v1', true], ['v1beta1', false]])); // v1beta1 no longer served
    await drain();
    expect(names()).toEqual(['v1.example.com']);
    crds.delete(a);
    await drain();
    expect(names()).toEqual(['v1.example.com']);
    crds.delete(b);
    await drain();
    expect(names()).toEqual([]);
  });

  it('leaves built-in group versions and APIServices it does not manage alone', async () => {
    const { crds, drain, api, apiServices, names } = setup();
    const mine = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.example.com' },
      spec: { group: 'example.com', version: 'v1', service: { namespace: 'x', name: 'y' }, groupPriorityMinimum: 5, versionPriority: 5 } } as KubeObject;
    api.put(APISERVICES, mine);
    apiServices.add(mine);
    crds.add(crd('widgets', 'example.com', [['v1', true]]));
    crds.add(crd('things', 'apps', [['v1', true]]));
    await drain();
    expect(names()).toEqual(['v1.example.com']);
    expect(api.calls.filter((c) => c.verb !== 'get')).toEqual([]);
    expect(desiredCrdApiService('apps', 'v1', [crd('things', 'apps', [['v1', true]]) as Obj])).toBeUndefined();
    // autoregister: an onstart APIService is not deleted when nothing wants it; a changed spec is put back.
    expect(autoregister({ metadata: { labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } }, spec: {} }, undefined)).toBeUndefined();
    expect(autoregister({ metadata: { labels: { 'kube-aggregator.kubernetes.io/automanaged': 'true' } }, spec: { versionPriority: 1 } }, { spec: { versionPriority: 100 } }))
      .toMatchObject({ verb: 'update', object: { spec: { versionPriority: 100 } } });
  });
});
