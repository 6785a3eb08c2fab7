import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { RESOURCES, type ResourceRef } from '../../controllers/api-client';
import { GarbageCollector, gcDecision } from '../../controllers/garbage-collector';
import { FakeApi, FakeClock, FakeInformer } from './fakes';

describe('gcDecision (attemptToDeleteItem)', () => {
  it('does nothing for objects without owners or with only solid owners', () => {
    expect(gcDecision([], false, [])).toEqual({ kind: 'none' });
    expect(gcDecision([{ uid: 'a', state: 'solid' }], true, [])).toEqual({ kind: 'none' });
  });
  it('with a solid owner left, only drops references to dangling and waiting owners', () => {
    expect(gcDecision([{ uid: 'a', state: 'solid' }, { uid: 'b', state: 'dangling' }, { uid: 'c', state: 'waiting' }], false, []))
      .toEqual({ kind: 'removeRefs', uids: ['b', 'c'] });
  });
  it('deletes in the background when every owner is gone', () => {
    expect(gcDecision([{ uid: 'a', state: 'dangling' }], true, [])).toEqual({ kind: 'delete', policy: 'Background' });
  });
  it('deletes in the foreground when an owner waits for it and it has dependents of its own', () => {
    expect(gcDecision([{ uid: 'a', state: 'waiting' }], true, [])).toEqual({ kind: 'delete', policy: 'Foreground' });
    expect(gcDecision([{ uid: 'a', state: 'waiting' }], false, [])).toEqual({ kind: 'delete', policy: 'Background' });
  });
  it('follows the policy its own finalizers ask for', () => {
    expect(gcDecision([{ uid: 'a', state: 'dangling' }], true, ['orphan'])).toEqual({ kind: 'delete', policy: 'Orphan' });
    expect(gcDecision([{ uid: 'a', state: 'dangling' }], true, ['foregroundDeletion'])).toEqual({ kind: 'delete', policy: 'Foreground' });
  });
});

const ref = (o: KubeObject, block = true) => ({ apiVersion: o.apiVersion!, kind: o.kind!, name: o.metadata.name!, uid: o.metadata.uid as string, controller: true, blockOwnerDeletion: block });

function obj(kind: string, apiVersion: string, name: string, owners: KubeObject[] = [], extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion, kind, metadata: { name, namespace: 'ns', uid: `${name}-uid`, resourceVersion: '7', ownerReferences: owners.map((o) => ref(o)), ...extra } };
}

function setup() {
  const clock = new FakeClock();
  const api = new FakeApi();
  const informers = { deployments: new FakeInformer(), replicasets: new FakeInformer(), pods: new FakeInformer() };
  const types = [
    { ref: RESOURCES.deployments, kind: 'Deployment', apiVersion: 'apps/v1', informer: informers.deployments },
    { ref: RESOURCES.replicasets, kind: 'ReplicaSet', apiVersion: 'apps/v1', informer: informers.replicasets },
    { ref: RESOURCES.pods, kind: 'Pod', apiVersion: 'v1', informer: informers.pods },
  ];
  const byKind: Record<string, ResourceRef> = { Deployment: RESOURCES.deployments, ReplicaSet: RESOURCES.replicasets, Pod: RESOURCES.pods };
  const gc = new GarbageCollector({ api, types, clock, resolve: (_v, kind) => byKind[kind] });
  return { api, gc, informers };
}

async function drain(gc: GarbageCollector): Promise<void> {
  for (const q of [gc.attemptToOrphan, gc.attemptToDelete]) {
    while (q.len() > 0) {
      const key = (await q.get())!;
      await (gc as any)[q === gc.attemptToDelete ? 'processDelete' : 'processOrphan'](key);
      q.done(key);
    }
  }
}

describe('GarbageCollector', () => {
  it('deletes the dependents of a deleted owner in the background, with a uid precondition', async () => {
    const { api, gc, informers } = setup();
    const d = obj('Deployment', 'apps/v1', 'web');
    const rs = obj('ReplicaSet', 'apps/v1', 'web-abc', [d]);
    informers.deployments.add(d);
    informers.replicasets.add(rs);
    api.put(RESOURCES.replicasets, rs);
    await drain(gc);
    expect(api.writes()).toEqual([]); // the owner is there
    expect(gc.dependentsOf('web-uid')).toEqual(['web-abc-uid']);
    informers.deployments.delete(d);
    await drain(gc);
    expect(api.writes()).toEqual([expect.objectContaining({
      verb: 'delete', resource: 'replicasets', name: 'web-abc', options: { propagationPolicy: 'Background', preconditions: { uid: 'web-abc-uid' } },
    })]);
  });

  it('looks an unseen owner up live: deletes when it is gone or was recreated, keeps when it is there', async () => {
    const { api, gc, informers } = setup();
    const gone = obj('Deployment', 'apps/v1', 'gone');
    const recreated = obj('Deployment', 'apps/v1', 'again');
    const alive = obj('Deployment', 'apps/v1', 'alive');
    api.put(RESOURCES.deployments, { ...recreated, metadata: { ...recreated.metadata, uid: 'new-uid' } });
    api.put(RESOURCES.deployments, alive);
    for (const [name, owner] of [['a', gone], ['b', recreated], ['c', alive]] as const) {
      const rs = obj('ReplicaSet', 'apps/v1', name, [owner]);
      api.put(RESOURCES.replicasets, rs);
      informers.replicasets.add(rs);
    }
    await drain(gc);
    expect(api.writes('delete').map((c) => c.name).sort()).toEqual(['a', 'b']);
  });

  it('orphans: strips the owner reference from every dependent, then removes the orphan finalizer', async () => {
    const { api, gc, informers } = setup();
    const d = obj('Deployment', 'apps/v1', 'web');
    const rs = obj('ReplicaSet', 'apps/v1', 'web-abc', [d]);
    api.put(RESOURCES.replicasets, rs);
    api.put(RESOURCES.deployments, d);
    informers.deployments.add(d);
    informers.replicasets.add(rs);
    informers.deployments.add({ ...d, metadata: { ...d.metadata, resourceVersion: '8', deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['orphan'] } });
    await drain(gc);
    expect(api.writes()).toEqual([
      expect.objectContaining({ verb: 'patch', resource: 'replicasets', name: 'web-abc', body: { metadata: { ownerReferences: [{ $patch: 'delete', uid: 'web-uid' }], uid: 'web-abc-uid' } } }),
      expect.objectContaining({ verb: 'patch', resource: 'deployments', name: 'web', body: { metadata: { finalizers: null, resourceVersion: '8' } } }),
    ]);
  });

  it('foreground: deletes blocking dependents first and lifts the finalizer only when none is left', async () => {
    const { api, gc, informers } = setup();
    const d = obj('Deployment', 'apps/v1', 'web');
    const rs = obj('ReplicaSet', 'apps/v1', 'web-abc', [d]);
    const p = obj('Pod', 'v1', 'web-abc-x', [rs]);
    for (const [r, o] of [[RESOURCES.deployments, d], [RESOURCES.replicasets, rs], [RESOURCES.pods, p]] as const) api.put(r, o);
    informers.deployments.add(d);
    informers.replicasets.add(rs);
    informers.pods.add(p);
    const deleting = { ...d, metadata: { ...d.metadata, resourceVersion: '9', deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] } };
    api.put(RESOURCES.deployments, deleting);
    informers.deployments.add(deleting);
    await drain(gc);
    // The ReplicaSet has dependents of its own: it goes in the foreground too. The owner keeps its finalizer.
    expect(api.writes()).toEqual([expect.objectContaining({ verb: 'delete', name: 'web-abc', options: { propagationPolicy: 'Foreground', preconditions: { uid: 'web-abc-uid' } } })]);
    informers.pods.delete(p);
    informers.replicasets.delete(rs);
    await drain(gc);
    expect(api.writes().at(-1)).toEqual(expect.objectContaining({ verb: 'patch', resource: 'deployments', name: 'web', body: { metadata: { finalizers: null, resourceVersion: '9' } } }));
  });

  it('lifts a foreground finalizer at once when no dependent blocks', async () => {
    const { api, gc, informers } = setup();
    const d = obj('Deployment', 'apps/v1', 'web', [], { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['foregroundDeletion', 'example.com/keep'] });
    const rs = { ...obj('ReplicaSet', 'apps/v1', 'web-abc'), metadata: { ...obj('ReplicaSet', 'apps/v1', 'web-abc').metadata, ownerReferences: [ref(d, false)] } };
    api.put(RESOURCES.deployments, d);
    informers.replicasets.add(rs);
    informers.deployments.add(d);
    await drain(gc);
    expect(api.writes().find((c) => c.resource === 'deployments')).toEqual(expect.objectContaining({
      verb: 'patch', body: { metadata: { finalizers: ['example.com/keep'], resourceVersion: '7' } },
    }));
  });
});
