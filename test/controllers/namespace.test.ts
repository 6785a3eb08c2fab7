import { describe, expect, it } from 'vitest';
import { ApiError } from '../../client/types';
import { mergeConditions, NamespaceController, terminatingConditions, type RawApi } from '../../controllers/namespace';
import { FakeClock, FakeInformer } from './fakes';

/** Discovery with two types; configmaps left over as the test says; every call recorded. */
class FakeRaw implements RawApi {
  calls: string[] = [];
  left: Record<string, unknown[]> = {};
  async request(method: string, path: string, body?: any): Promise<any> {
    this.calls.push(`${method} ${path}`);
    if (path === '/apis') return { groups: [{ name: 'example.com', preferredVersion: { version: 'v1' }, versions: [{ version: 'v1' }] }] };
    if (path === '/api/v1') return { resources: [
      { name: 'configmaps', namespaced: true, verbs: ['create', 'delete', 'deletecollection', 'get', 'list'] },
      { name: 'namespaces', namespaced: false, verbs: ['delete', 'list'] },
      { name: 'pods/status', namespaced: true, verbs: ['get'] },
    ] };
    if (path === '/apis/example.com/v1') return { resources: [{ name: 'widgets', namespaced: true, verbs: ['delete', 'get', 'list'] }] };
    if (method === 'GET' && path.endsWith('/configmaps')) return { items: this.left.configmaps ?? [] };
    if (method === 'GET' && path.endsWith('/widgets')) return { items: this.left.widgets ?? [] };
    if (method === 'GET' && path === '/api/v1/namespaces/team') return { metadata: { name: 'team' }, spec: { finalizers: ['kubernetes'] } };
    if (method === 'PUT') return body;
    if (method === 'DELETE') return {};
    throw new ApiError(404, { kind: 'Status', code: 404, reason: 'NotFound' } as any);
  }
}

const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', deletionTimestamp: '2026-01-01T00:00:00Z' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Terminating' } };

describe('namespace controller', () => {
  it('words the conditions as kube (GroupResource "configmaps." for core)', () => {
    const c = terminatingConditions({ discoveryErrors: [], deleteErrors: [], remaining: new Map([['pods.', 3], ['widgets.example.com', 1]]), finalizers: new Map([['example.com/hold', 1]]) });
    expect(c.map((x) => [x.type, x.status, x.reason, x.message])).toEqual([
      ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'],
      ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
      ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
      ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain', 'Some resources are remaining: pods. has 3 resource instances, widgets.example.com has 1 resource instances'],
      ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain', 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances'],
    ]);
    const merged = mergeConditions([{ ...c[0], lastTransitionTime: 'then' }, { ...c[3], status: 'False', lastTransitionTime: 'then' }], [c[0], c[3]], 'now');
    expect(merged.map((x) => x.lastTransitionTime)).toEqual(['then', 'now']);
  });

  it('deletes collections (or item by item without deletecollection), requeues while content remains, then finalizes', async () => {
    const clock = new FakeClock();
    const informer = new FakeInformer();
    const api = new FakeRaw();
    const c = new NamespaceController(api, informer, clock);
    informer.add(ns as any);
    expect(c.queue.len()).toBe(0); // 5 s grace first
    clock.advance(5_000);
    expect(c.queue.len()).toBe(1);

    api.left = { configmaps: [{ metadata: { name: 'held', finalizers: ['example.com/hold'], deletionTimestamp: 'x' } }], widgets: [{ metadata: { name: 'w1' } }] };
    await c.sync('team');
    expect(api.calls).toContain('DELETE /api/v1/namespaces/team/configmaps');
    expect(api.calls).toContain('DELETE /apis/example.com/v1/namespaces/team/widgets/w1');
    expect(api.calls.some((x) => x.includes('/namespaces/team/namespaces'))).toBe(false);
    expect(api.calls).toContain('PUT /api/v1/namespaces/team/status');
    expect(api.calls).not.toContain('PUT /api/v1/namespaces/team/finalize');

    api.left = {};
    api.calls = [];
    await c.sync('team');
    expect(api.calls.at(-1)).toBe('PUT /api/v1/namespaces/team/finalize');
  });
});
