import { describe, expect, it } from 'vitest';
import { ApiError, type KubeObject } from '../../client/types';
import { RESOURCES, type Api, type DeleteOptions, type ResourceRef } from '../../controllers/api-client';
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

/**
 * A small apiserver for the collector's writes: deletes honour propagationPolicy (Foreground and Orphan add their
 * finalizer and a deletionTimestamp), patches edit ownerReferences (merged by uid) and finalizers, an object
 * whose last finalizer goes is removed, and every change reaches the informers — so the collector sees the
 * consequences of its own writes, as in the gateway.
 */
class World implements Api {
  readonly writes: { verb: string; name: string; body?: unknown; policy?: string }[] = [];
  readonly informers = new Map<string, FakeInformer>();
  private readonly objects = new Map<string, KubeObject>();
  private rv = 100;

  informer(r: ResourceRef): FakeInformer {
    let i = this.informers.get(r.resource);
    if (!i) this.informers.set(r.resource, (i = new FakeInformer()));
    return i;
  }

  create(r: ResourceRef, ns: string, o: KubeObject): Promise<KubeObject> {
    const made = structuredClone(o);
    made.metadata.namespace = ns;
    made.metadata.uid ??= `${made.metadata.name}-uid`;
    this.store(r, made);
    return Promise.resolve(structuredClone(made));
  }

  own(r: ResourceRef, name: string, owners: KubeObject[], block = true): void {
    const o = this.find(r, 'ns', name)!;
    o.metadata.ownerReferences = owners.map((x) => ref(x, block));
    this.store(r, o);
  }

  find(r: ResourceRef, ns: string, name: string): KubeObject | undefined {
    const o = this.objects.get(`${r.resource}/${ns}/${name}`);
    return o && structuredClone(o);
  }

  async get(r: ResourceRef, ns: string, name: string): Promise<KubeObject> {
    const o = this.find(r, ns, name);
    if (!o) throw new ApiError(404, { kind: 'Status', code: 404, reason: 'NotFound' });
    return o;
  }

  async update(): Promise<KubeObject> {
    throw new Error('the collector does not update');
  }

  async patch(r: ResourceRef, ns: string, name: string, type: 'merge' | 'strategic', body: any): Promise<KubeObject> {
    this.writes.push({ verb: 'patch', name, body });
    const o = await this.get(r, ns, name);
    const m = body.metadata;
    if (m.uid && m.uid !== o.metadata.uid) throw new ApiError(422, { kind: 'Status', code: 422 });
    if (m.resourceVersion && m.resourceVersion !== o.metadata.resourceVersion) throw new ApiError(409, { kind: 'Status', code: 409 });
    if (type === 'strategic' && m.ownerReferences) {
      let refs = (o.metadata.ownerReferences ?? []) as any[];
      for (const p of m.ownerReferences) {
        if (p.$patch === 'delete') refs = refs.filter((x) => x.uid !== p.uid);
        else refs = refs.map((x) => (x.uid === p.uid ? { ...x, ...p } : x));
      }
      o.metadata.ownerReferences = refs;
    }
    if ('finalizers' in m) o.metadata.finalizers = m.finalizers ?? undefined;
    this.store(r, o);
    return o;
  }

  async delete(r: ResourceRef, ns: string, name: string, options?: DeleteOptions): Promise<void> {
    this.writes.push({ verb: 'delete', name, policy: options?.propagationPolicy });
    const o = await this.get(r, ns, name);
    if (options?.preconditions?.uid && options.preconditions.uid !== o.metadata.uid) throw new ApiError(409, { kind: 'Status', code: 409 });
    const add = options?.propagationPolicy === 'Foreground' ? 'foregroundDeletion' : options?.propagationPolicy === 'Orphan' ? 'orphan' : undefined;
    const finalizers = (o.metadata.finalizers ?? []) as string[];
    if (add && !finalizers.includes(add)) o.metadata.finalizers = [...finalizers, add];
    o.metadata.deletionTimestamp ??= '2026-01-01T00:00:00Z';
    this.store(r, o);
  }

  private store(r: ResourceRef, o: KubeObject): void {
    const key = `${r.resource}/${o.metadata.namespace}/${o.metadata.name}`;
    if (o.metadata.deletionTimestamp && !((o.metadata.finalizers ?? []) as string[]).length) {
      this.objects.delete(key);
      this.informer(r).delete(o);
      return;
    }
    o.metadata.resourceVersion = String(++this.rv);
    this.objects.set(key, o);
    this.informer(r).add(structuredClone(o));
  }
}

const CM: ResourceRef = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };

function world() {
  const w = new World();
  const kinds: Record<string, ResourceRef> = { ConfigMap: CM, Deployment: RESOURCES.deployments, ReplicaSet: RESOURCES.replicasets, Pod: RESOURCES.pods };
  const types = [[CM, 'ConfigMap', 'v1'], [RESOURCES.deployments, 'Deployment', 'apps/v1'], [RESOURCES.replicasets, 'ReplicaSet', 'apps/v1'], [RESOURCES.pods, 'Pod', 'v1']] as const;
  const gc = () => new GarbageCollector({
    api: w, clock: new FakeClock(), resolve: (_v, kind) => kinds[kind],
    types: types.map(([r, kind, apiVersion]) => ({ ref: r, kind, apiVersion, informer: w.informer(r) })),
  });
  const cm = async (name: string) => w.create(CM, 'ns', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
  return { w, gc, cm };
}

/** Runs the collector's queues until they are empty; fails if that takes more than `max` syncs (a hot loop). */
async function settle(gc: GarbageCollector, max = 200): Promise<number> {
  let steps = 0;
  while (gc.attemptToDelete.len() + gc.attemptToOrphan.len() > 0) {
    if (++steps > max) throw new Error(`the collector did not settle within ${max} syncs`);
    await drainOne(gc);
  }
  return steps;
}

async function drainOne(gc: GarbageCollector): Promise<void> {
  for (const q of [gc.attemptToOrphan, gc.attemptToDelete]) {
    if (q.len() === 0) continue;
    const key = (await q.get())!;
    await (gc as any)[q === gc.attemptToDelete ? 'processDelete' : 'processOrphan'](key);
    q.done(key);
    return;
  }
}

describe('GarbageCollector with ownership cycles (issue 18)', () => {
  it('a self-owning object deleted in the foreground keeps its finalizer and is not re-queued', async () => {
    const { w, gc: make, cm } = world();
    const gc = make();
    const loop = await cm('loop');
    w.own(CM, 'loop', [loop]);
    await w.delete(CM, 'ns', 'loop', { propagationPolicy: 'Foreground' });
    const steps = await settle(gc);
    expect(steps).toBeLessThanOrEqual(2);
    expect(w.find(CM, 'ns', 'loop')?.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(w.writes.filter((x) => x.name === 'loop' && x.verb !== 'delete')).toEqual([]); // the collector wrote nothing
  });

  it('a collector started on a stuck self-owner (a restart) settles at once', async () => {
    const { w, cm } = world();
    const loop = await cm('loop');
    w.own(CM, 'loop', [loop]);
    await w.delete(CM, 'ns', 'loop', { propagationPolicy: 'Foreground' });
    // A new collector whose informer lists the stuck object first thing, as after a restart.
    const fresh = new GarbageCollector({ api: w, clock: new FakeClock(), resolve: () => CM, types: [{ ref: CM, kind: 'ConfigMap', apiVersion: 'v1', informer: relisted(w.informer(CM)) }] });
    expect(fresh.attemptToDelete.len()).toBe(1);
    expect(await settle(fresh)).toBeLessThanOrEqual(2);
    expect(w.find(CM, 'ns', 'loop')?.metadata.finalizers).toEqual(['foregroundDeletion']);
  });

  it('an A↔B cycle deleted in the foreground comes apart: B stops blocking, then both go', async () => {
    const { w, gc: make, cm } = world();
    const gc = make();
    const a = await cm('a');
    const b = await cm('b');
    w.own(CM, 'a', [b]);
    w.own(CM, 'b', [a]);
    await w.delete(CM, 'ns', 'a', { propagationPolicy: 'Foreground' });
    await settle(gc, 50);
    expect(w.find(CM, 'ns', 'a')).toBeUndefined();
    expect(w.find(CM, 'ns', 'b')).toBeUndefined();
    // attemptToDeleteItem's cycle breaker: B's reference to A stopped blocking before B was deleted in the foreground.
    const onB = w.writes.filter((x) => x.name === 'b');
    expect(onB.map((x) => (x.verb === 'delete' ? `delete ${x.policy}` : (x.body as any).metadata.ownerReferences ? 'unblock' : 'finalizers'))).toEqual(['unblock', 'delete Foreground', 'finalizers']);
    expect(onB[0]!.body).toEqual({ metadata: { ownerReferences: [{ ...ref(a), blockOwnerDeletion: false }], uid: 'b-uid' } });
  });

  it('a three-object cycle deleted in the foreground is collected', async () => {
    const { w, gc: make, cm } = world();
    const gc = make();
    const [a, b, c] = [await cm('a'), await cm('b'), await cm('c')];
    w.own(CM, 'a', [c]);
    w.own(CM, 'b', [a]);
    w.own(CM, 'c', [b]);
    await w.delete(CM, 'ns', 'a', { propagationPolicy: 'Foreground' });
    await settle(gc, 50);
    expect(['a', 'b', 'c'].map((n) => w.find(CM, 'ns', n))).toEqual([undefined, undefined, undefined]);
  });

  it('a self-owner deleted in the foreground still has its other dependents deleted', async () => {
    const { w, gc: make, cm } = world();
    const gc = make();
    const me = await cm('me');
    await cm('mine');
    w.own(CM, 'me', [me]);
    w.own(CM, 'mine', [me]);
    await w.delete(CM, 'ns', 'me', { propagationPolicy: 'Foreground' });
    await settle(gc, 20);
    expect(w.find(CM, 'ns', 'mine')).toBeUndefined();
    expect(w.find(CM, 'ns', 'me')?.metadata.finalizers).toEqual(['foregroundDeletion']);
  });

  it('a Deployment → ReplicaSet → Pod chain deleted in the foreground completes, owner last', async () => {
    const { w, gc: make } = world();
    const gc = make();
    const d = await w.create(RESOURCES.deployments, 'ns', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } });
    const rs = await w.create(RESOURCES.replicasets, 'ns', { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-abc', ownerReferences: [ref(d)] } });
    await w.create(RESOURCES.pods, 'ns', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-abc-x', ownerReferences: [ref(rs)] } });
    await w.create(RESOURCES.pods, 'ns', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-abc-y', ownerReferences: [ref(rs)] } });
    await settle(gc);
    expect(w.writes).toEqual([]);
    await w.delete(RESOURCES.deployments, 'ns', 'web', { propagationPolicy: 'Foreground' });
    await settle(gc, 50);
    expect([w.find(RESOURCES.deployments, 'ns', 'web'), w.find(RESOURCES.replicasets, 'ns', 'web-abc'), w.find(RESOURCES.pods, 'ns', 'web-abc-x')])
      .toEqual([undefined, undefined, undefined]);
    const order = w.writes.map((x) => `${x.verb} ${x.name}${x.policy ? ` ${x.policy}` : ''}`);
    expect(order.slice(0, 2)).toEqual(['delete web Foreground', 'delete web-abc Foreground']);
    expect(order.at(-1)).toBe('patch web'); // the Deployment's finalizer comes off last
  });
});

/** An informer that already holds `source`'s objects and hands them to the first handler added, as a fresh list does. */
function relisted(source: FakeInformer): FakeInformer {
  const fresh = new FakeInformer();
  const objects = source.list();
  const addHandlers = fresh.addHandlers.bind(fresh);
  fresh.addHandlers = (h) => {
    addHandlers(h);
    for (const o of objects) fresh.add(structuredClone(o));
  };
  return fresh;
}
