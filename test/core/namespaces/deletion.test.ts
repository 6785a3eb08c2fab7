// Two-phase namespace deletion in the write path (CONTROLLERS on) and the in-request shortcut (off).
import { describe, expect, it } from 'vitest';
import { executeWrite } from '../../../core/writes';
import { lookupGroupResource } from '../../../core/registry';
import type { KubeObject } from '../../../core/object-meta';
import { memoryStore } from '../memory-store';


const namespaces = lookupGroupResource('core/namespaces')!;
const env = (garbageCollection: boolean) => ({ type: namespaces, now: Date.UTC(2026, 0, 2, 3, 4, 5), newUid: () => 'uid-ns', randomSuffix: () => 'abcde', garbageCollection });
const del = { verb: 'delete' as const, namespace: '', name: 'team', body: '', query: {} };

function created(on: boolean) {
  const m = memoryStore();
  executeWrite(m.store, env(on), { verb: 'create', namespace: '', body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }) });
  return m;
}

describe('namespace deletion with the namespace controller', () => {
  it('marks on DELETE, answers the object on a second DELETE, deletes after finalize empties spec.finalizers', () => {
    const m = created(true);
    const first = executeWrite(m.store, env(true), del);
    expect(first.code).toBe(200);
    const marked = first.body as KubeObject;
    expect(marked.metadata.deletionTimestamp).toBe('2026-01-02T03:04:05Z');
    expect(marked.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(marked.status).toEqual({ phase: 'Terminating' });
    const again = executeWrite(m.store, env(true), del);
    expect((again.body as KubeObject).metadata.resourceVersion).toBe(marked.metadata.resourceVersion);
    expect(m.types()).toEqual(['ADDED', 'MODIFIED']);

    // A status write (the controller's conditions) keeps it: spec.finalizers still holds it.
    const withStatus = { ...structuredClone(marked), status: { phase: 'Terminating', conditions: [{ type: 'NamespaceContentRemaining', status: 'False' }] } };
    expect(executeWrite(m.store, env(true), { verb: 'update', namespace: '', name: 'team', subresource: 'status', body: JSON.stringify(withStatus) }).code).toBe(200);
    expect(m.types().at(-1)).toBe('MODIFIED');

    // finalize changes spec.finalizers alone (a label in the body is ignored) and, emptied, deletes the namespace.
    const current = m.objects.get('team') ?? [...m.objects.values()][0];
    const body = { ...structuredClone(current), metadata: { ...current.metadata, labels: { sneaky: 'yes' } }, spec: { finalizers: [] } };
    executeWrite(m.store, env(true), { verb: 'update', namespace: '', name: 'team', subresource: 'finalize', body: JSON.stringify(body) });
    expect(m.types().at(-1)).toBe('DELETED');
    expect(m.objects.size).toBe(0);
  });

  it('finalize keeping another finalizer keeps the namespace, with only spec.finalizers changed', () => {
    const m = created(true);
    executeWrite(m.store, env(true), del);
    const current = [...m.objects.values()][0];
    const body = { ...structuredClone(current), metadata: { ...current.metadata, labels: { sneaky: 'yes' } }, spec: { finalizers: ['example.com/other'] } };
    const res = executeWrite(m.store, env(true), { verb: 'update', namespace: '', name: 'team', subresource: 'finalize', body: JSON.stringify(body) });
    const out = res.body as KubeObject;
    expect(out.spec).toEqual({ finalizers: ['example.com/other'] });
    expect(out.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'team' });
    expect(m.objects.size).toBe(1);
  });

  it('without the controller (CONTROLLERS off) DELETE removes the namespace at once, as the in-request path expects', () => {
    const m = created(false);
    executeWrite(m.store, env(false), del);
    expect(m.types()).toEqual(['ADDED', 'DELETED']);
  });
});
