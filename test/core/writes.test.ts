// Write semantics over an in-memory store: server-set metadata, generateName, status and scale
// subresources, generation, finalizers, preconditions.
import { describe, expect, it } from 'vitest';
import { executeWrite, type WriteRequest, type WriteStore } from '../../core/writes';
import { lookupGroupResource } from '../../core/registry';
import type { KubeObject } from '../../core/object-meta';
import { parseSelectors } from '../../core/list/options';
import { statusOf as failure } from './status-of';
import { memoryStore } from './memory-store';
import { checkJsonSize } from '../../core/writes/stored';
import { StatusError } from '../../core/status';


const deployments = lookupGroupResource('apps/deployments')!;
const configmaps = lookupGroupResource('core/configmaps')!;
let suffix = 0;
const env = (type = deployments) => ({
  type, now: Date.UTC(2026, 0, 2, 3, 4, 5, 678), newUid: () => 'uid-1', randomSuffix: () => `sfx${++suffix}`.padEnd(5, '0').slice(0, 5),
});

function run(store: WriteStore, req: WriteRequest, type = deployments) {
  return executeWrite(store, env(type), req);
}


const deployment = (extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
  spec: {
    replicas: 1, selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
  },
  status: { replicas: 7 }, ...extra,
});

describe('create', () => {
  it('sets uid, creationTimestamp, generation and namespace, and resets status to its zero value', () => {
    const { store } = memoryStore();
    const res = run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify(deployment()) });
    expect(res.code).toBe(201);
    const obj = res.body as KubeObject;
    expect(obj.metadata).toMatchObject({ name: 'web', namespace: 'ns', uid: 'uid-1', generation: 1, resourceVersion: '1', creationTimestamp: '2026-01-02T03:04:05Z' });
    // DeploymentStatus is a struct: kube answers `status: {}`, never the client's status.
    expect(obj.status).toEqual({});
  });

  it('generates a name from generateName and retries on collision', () => {
    const { store, objects } = memoryStore();
    suffix = 0;
    const body = JSON.stringify({ ...deployment(), metadata: { generateName: 'web-' } });
    const a = run(store, { verb: 'create', namespace: 'ns', body }).body as KubeObject;
    suffix = 0; // the next random suffix collides once
    const b = run(store, { verb: 'create', namespace: 'ns', body }).body as KubeObject;
    expect(a.metadata.name).toMatch(/^web-/);
    expect(b.metadata.name).not.toBe(a.metadata.name);
    expect(objects.size).toBe(2);
  });

  it('rejects a second object with the same name', () => {
    const { store } = memoryStore();
    run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify(deployment()) });
    const s = failure(() => run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify(deployment()) }));
    expect(s).toMatchObject({ code: 409, reason: 'AlreadyExists', message: 'deployments.apps "web" already exists' });
  });
});

describe('update', () => {
  function created() {
    const m = memoryStore();
    run(m.store, { verb: 'create', namespace: 'ns', body: JSON.stringify(deployment()) });
    return m;
  }

  it('bumps generation on spec changes only and keeps status on the main resource', () => {
    const { store } = created();
    const labelled = run(store, { verb: 'update', namespace: 'ns', name: 'web', subresource: '', body: JSON.stringify({ ...deployment(), metadata: { name: 'web', labels: { a: 'b' } } }) }).body as KubeObject;
    expect(labelled.metadata.generation).toBe(1);
    const scaled = run(store, { verb: 'update', namespace: 'ns', name: 'web', subresource: '', body: JSON.stringify(deployment({ spec: { ...deployment().spec, replicas: 3 } })) }).body as KubeObject;
    expect(scaled.metadata.generation).toBe(2);
    expect(scaled.status).toEqual({});
  });

  it('changes only status through /status', () => {
    const { store } = created();
    const res = run(store, { verb: 'update', namespace: 'ns', name: 'web', subresource: 'status', body: JSON.stringify(deployment({ spec: { replicas: 9 }, status: { replicas: 4 } })) }).body as KubeObject;
    expect(res.status).toEqual({ replicas: 4 });
    expect((res.spec as { replicas: number }).replicas).toBe(1);
    expect(res.metadata.generation).toBe(1);
  });

  it('keeps uid and creationTimestamp whatever the client sends', () => {
    const { store } = created();
    const res = run(store, { verb: 'update', namespace: 'ns', name: 'web', subresource: '', body: JSON.stringify({ ...deployment(), metadata: { name: 'web', uid: 'forged', creationTimestamp: '2000-01-01T00:00:00Z' } }) }).body as KubeObject;
    expect(res.metadata.uid).toBe('uid-1');
    expect(res.metadata.creationTimestamp).toBe('2026-01-02T03:04:05Z');
  });

  it('does not write when nothing changes', () => {
    const { store, events } = created();
    run(store, { verb: 'update', namespace: 'ns', name: 'web', subresource: '', body: JSON.stringify(deployment()) });
    expect(events).toHaveLength(1);
  });

  it('rejects a stale resourceVersion with 409 Conflict', () => {
    const { store } = created();
    run(store, { verb: 'update', namespace: 'ns', name: 'web', subresource: '', body: JSON.stringify(deployment({ spec: { ...deployment().spec, replicas: 2 } })) });
    const s = failure(() => run(store, { verb: 'update', namespace: 'ns', name: 'web', subresource: '', body: JSON.stringify({ ...deployment(), metadata: { name: 'web', resourceVersion: '1' } }) }));
    expect(s.message).toBe('Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again');
  });

  it('returns 404 for a missing object', () => {
    const { store } = memoryStore();
    const s = failure(() => run(store, { verb: 'update', namespace: 'ns', name: 'nope', subresource: '', body: JSON.stringify(deployment()) }));
    expect(s).toMatchObject({ code: 404, message: 'deployments.apps "nope" not found', details: { name: 'nope', group: 'apps', kind: 'deployments' } });
  });
});

describe('scale subresource', () => {
  it('patches spec.replicas through a Scale and answers with a Scale', () => {
    const { store, objects } = memoryStore();
    run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify(deployment()) });
    const res = run(store, { verb: 'patch', namespace: 'ns', name: 'web', subresource: 'scale', patchType: 'application/merge-patch+json', body: '{"spec":{"replicas":4}}' }).body as KubeObject;
    expect(res).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 4 }, status: { selector: 'app=web' } });
    expect((objects.get('ns/web')!.spec as { replicas: number }).replicas).toBe(4);
  });

  it('rejects negative replicas with 422', () => {
    const { store } = memoryStore();
    run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify(deployment()) });
    const s = failure(() => run(store, { verb: 'update', namespace: 'ns', name: 'web', subresource: 'scale', body: '{"spec":{"replicas":-1}}' }));
    expect(s).toMatchObject({ code: 422, reason: 'Invalid' });
  });

  it('is not a subresource of configmaps', () => {
    const { store } = memoryStore();
    run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify({ metadata: { name: 'c' } }) }, configmaps);
    const s = failure(() => run(store, { verb: 'patch', namespace: 'ns', name: 'c', subresource: 'scale', patchType: 'application/merge-patch+json', body: '{}' }, configmaps));
    expect(s.code).toBe(404);
  });
});

describe('delete', () => {
  it('marks an object with finalizers and deletes it when the last finalizer goes', () => {
    const { store, objects, events } = memoryStore();
    run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify({ metadata: { name: 'c', finalizers: ['x/y'] } }) }, configmaps);
    const marked = run(store, { verb: 'delete', namespace: 'ns', name: 'c', body: '', query: {} }, configmaps).body as KubeObject;
    expect(marked.metadata.deletionTimestamp).toBe('2026-01-02T03:04:05Z');
    expect(objects.has('ns/c')).toBe(true);
    run(store, { verb: 'patch', namespace: 'ns', name: 'c', subresource: '', patchType: 'application/merge-patch+json', body: '{"metadata":{"finalizers":null}}' }, configmaps);
    expect(objects.has('ns/c')).toBe(false);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
  });

  it('answers with a Success Status for types that do not return the object', () => {
    const { store } = memoryStore();
    run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify({ metadata: { name: 'c' } }) }, configmaps);
    const res = run(store, { verb: 'delete', namespace: 'ns', name: 'c', body: '', query: {} }, configmaps);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'c', kind: 'configmaps', uid: 'uid-1' } });
  });

  it('checks the resourceVersion precondition', () => {
    const { store } = memoryStore();
    run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify({ metadata: { name: 'c' } }) }, configmaps);
    const s = failure(() => run(store, { verb: 'delete', namespace: 'ns', name: 'c', body: '{"preconditions":{"resourceVersion":"9"}}', query: {} }, configmaps));
    expect(s.message).toBe('Operation cannot be fulfilled on ConfigMap "c": the ResourceVersion in the precondition (9) does not match the ResourceVersion in record (1). The object might have been modified');
  });

  it('deletes a collection by label selector within one namespace', () => {
    const { store, objects } = memoryStore();
    for (const [ns, name, app] of [['a', 'x', 'web'], ['a', 'y', 'db'], ['b', 'z', 'web']]) {
      run(store, { verb: 'create', namespace: ns, body: JSON.stringify({ metadata: { name, labels: { app } } }) }, configmaps);
    }
    const res = run(store, { verb: 'deletecollection', namespace: 'a', selectors: parseSelectors({ labelSelector: 'app=web', fieldSelector: '' }), body: '', query: {} }, configmaps);
    expect((res.body as { items: KubeObject[] }).items.map((o) => o.metadata.name)).toEqual(['x']);
    expect([...objects.keys()].sort()).toEqual(['a/y', 'b/z']);
  });
});

describe('admission', () => {
  it('fills defaults kubectl reads back, and keeps them across updates that omit them', () => {
    const { store } = memoryStore();
    const svc = run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify({ metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } }) }, lookupGroupResource('core/services')!).body as KubeObject;
    expect(svc.spec).toMatchObject({ type: 'ClusterIP', sessionAffinity: 'None', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] });
    expect((svc.spec as { clusterIP: string }).clusterIP).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    const again = run(store, { verb: 'update', namespace: 'ns', name: 's', subresource: '', body: JSON.stringify({ metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } }) }, lookupGroupResource('core/services')!).body as KubeObject;
    expect((again.spec as { clusterIP: string }).clusterIP).toBe((svc.spec as { clusterIP: string }).clusterIP);
    expect(again.metadata.resourceVersion).toBe(svc.metadata.resourceVersion);
    const d = run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify(deployment()) }).body as KubeObject;
    expect(d.spec).toMatchObject({ replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600, strategy: { type: 'RollingUpdate' } });
  });

  it('gives every service its own cluster IP', () => {
    const { store } = memoryStore();
    const ips = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const svc = run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify({ metadata: { name: `s${i}` }, spec: { ports: [{ port: 80 }] } }) }, lookupGroupResource('core/services')!).body as KubeObject;
      ips.add((svc.spec as { clusterIP: string }).clusterIP);
    }
    expect(ips.size).toBe(50);
  });

  it.each([
    ['a deployment selector', 'apps/deployments', deployment(), { ...deployment(), spec: { ...deployment().spec, selector: { matchLabels: { app: 'other' } } } }, 'spec.selector'],
    ['the data of an immutable configmap', 'core/configmaps', { metadata: { name: 'web' }, data: { a: '1' }, immutable: true }, { metadata: { name: 'web' }, data: { a: '2' }, immutable: true }, 'data'],
    ['a pod spec beyond images', 'core/pods', { metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'a' }] } }, { metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'a' }], restartPolicy: 'Never' } }, 'spec'],
  ])('rejects a change to %s with 422', (_name, gr, created, updated, field) => {
    const { store } = memoryStore();
    const type = lookupGroupResource(gr)!;
    run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify(created) }, type);
    const s = failure(() => run(store, { verb: 'update', namespace: 'ns', name: 'web', subresource: '', body: JSON.stringify(updated) }, type));
    expect(s).toMatchObject({ code: 422, reason: 'Invalid', details: { causes: [expect.objectContaining({ field })] } });
  });

  it('lets a pod change its container images', () => {
    const { store } = memoryStore();
    const pods = lookupGroupResource('core/pods')!;
    run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'a:1' }] } }) }, pods);
    const res = run(store, { verb: 'patch', namespace: 'ns', name: 'p', subresource: '', patchType: 'application/strategic-merge-patch+json', body: '{"spec":{"containers":[{"name":"c","image":"a:2"}]}}' }, pods);
    expect(res.code).toBe(200);
  });
});

describe('delete propagation (garbage-collection finalizers)', () => {
  const create = (store: WriteStore) => run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify(deployment()) });

  it('Orphan and Foreground keep the object, marked deleting with their finalizer; Background deletes it', () => {
    const { store, objects } = memoryStore();
    create(store);
    const orphaned = run(store, { verb: 'delete', namespace: 'ns', name: 'web', body: '{"propagationPolicy":"Orphan"}', query: {} }).body as KubeObject;
    expect(orphaned.metadata).toMatchObject({ finalizers: ['orphan'], deletionTimestamp: '2026-01-02T03:04:05Z', deletionGracePeriodSeconds: 0, generation: 2 });
    // Asked again in the foreground: the finalizer is switched, nothing else.
    const fg = run(store, { verb: 'delete', namespace: 'ns', name: 'web', body: '', query: { propagationPolicy: 'Foreground' } }).body as KubeObject;
    expect(fg.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(fg.metadata.deletionTimestamp).toBe('2026-01-02T03:04:05Z');
    // Background drops both GC finalizers, and with none left the object goes.
    run(store, { verb: 'delete', namespace: 'ns', name: 'web', body: '{"propagationPolicy":"Background"}', query: {} });
    expect(objects.size).toBe(0);
  });

  it('adds no finalizers when the garbage collector is off', () => {
    const { store, objects } = memoryStore();
    create(store);
    executeWrite(store, { ...env(), garbageCollection: false }, { verb: 'delete', namespace: 'ns', name: 'web', body: '{"propagationPolicy":"Orphan"}', query: {} });
    expect(objects.size).toBe(0);
  });

  it('refuses an unknown policy with 422 and changes nothing', () => {
    const { store, objects, events } = memoryStore();
    create(store);
    const before = structuredClone([...objects.values()]);
    const s = failure(() => run(store, { verb: 'delete', namespace: 'ns', name: 'web', body: '', query: { propagationPolicy: 'Later' } }));
    expect(s.code).toBe(422);
    expect(s.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Later": supported values: "Background", "Foreground", "Orphan"');
    expect([...objects.values()]).toEqual(before);
    expect(events).toHaveLength(1);
  });
});

describe('object size limit (core/writes/stored.ts)', () => {
  const pods = lookupGroupResource('core/pods')!;
  // 600,000 three-byte characters: 1.8 MB of UTF-8 in 600,000 UTF-16 code units.
  const wide = JSON.stringify({ metadata: { name: 'wide' }, spec: { containers: [{ name: 'c', image: 'i', env: [{ name: 'V', value: '\u20ac'.repeat(600_000) }] }] } });

  it('refuses an object over 1.5 MiB of UTF-8 with 413, counting bytes, not characters, unless the store measures it', () => {
    expect(failure(() => run(memoryStore().store, { verb: 'create', namespace: 'ns', body: wide }, pods)).code).toBe(413);
    expect(() => checkJsonSize('"' + '\u20ac'.repeat(600_000) + '"')).toThrow(StatusError);
    expect(() => checkJsonSize('"' + 'a'.repeat(1_600_000) + '"')).toThrow(StatusError);
    expect(() => checkJsonSize('"' + 'a'.repeat(1_000_000) + '"')).not.toThrow();
    // A store whose commit measures what it stores (durable-objects/commit-path.ts) is left to do it.
    const measuring: WriteStore = { ...memoryStore().store, checksSize: true };
    expect(run(measuring, { verb: 'create', namespace: 'ns', body: wide }, pods).code).toBe(201);
  });
});
