// No new finalizers on an object being deleted (apimachinery ValidateNoNewFinalizers, run first by
// ValidateObjectMetaAccessorUpdate): robustness finding 2. The rule alone, then through every kind of write.
import { describe, expect, it } from 'vitest';
import { noNewFinalizers } from '../../../core/validation/meta';
import { executeWrite, type WriteRequest, type WriteStore } from '../../../core/writes';
import { lookupGroupResource } from '../../../core/registry';
import type { KubeObject } from '../../../core/object-meta';
import { statusOf } from '../status-of';
import { memoryStore } from '../memory-store';

const configmaps = lookupGroupResource('core/configmaps')!;
const env = { type: configmaps, now: Date.UTC(2026, 0, 2, 3, 4, 5), newUid: () => 'uid-1', randomSuffix: () => 'abcde' };
const run = (store: WriteStore, req: WriteRequest) => executeWrite(store, env, req);
const MESSAGE = 'no new finalizers can be added if the object is being deleted, found new finalizers';

describe('noNewFinalizers', () => {
  it('names the added finalizers as a sorted Go []string, each once', () => {
    expect(noNewFinalizers(['a/x', 'z/b', 'a/x', 'm/c'], ['m/c'])).toEqual([{
      reason: 'FieldValueForbidden', field: 'metadata.finalizers',
      message: `Forbidden: ${MESSAGE} []string{"a/x", "z/b"}`,
    }]);
  });

  it('allows keeping, reordering and removing finalizers', () => {
    expect(noNewFinalizers(['b/y', 'a/x'], ['a/x', 'b/y'])).toEqual([]);
    expect(noNewFinalizers([], ['a/x'])).toEqual([]);
    expect(noNewFinalizers(undefined, ['a/x'])).toEqual([]);
  });

  it('quotes as Go does', () => {
    expect(noNewFinalizers(['a"b', 'é/x'], undefined)[0].message).toBe(`Forbidden: ${MESSAGE} []string{"a\\"b", "é/x"}`);
  });
});

describe('writes to an object being deleted', () => {
  function deleting() {
    const m = memoryStore();
    run(m.store, { verb: 'create', namespace: 'ns', body: JSON.stringify({ metadata: { name: 'c', finalizers: ['keep/a'] } }) });
    run(m.store, { verb: 'delete', namespace: 'ns', name: 'c', body: '', query: {} });
    return m;
  }
  const current = (objects: Map<string, unknown>) => objects.get('ns/c') as KubeObject;

  it('refuses a patch, an update or an apply that adds a finalizer, and changes nothing', () => {
    const { store, objects } = deleting();
    const before = structuredClone(current(objects));
    const patch = statusOf(() => run(store, { verb: 'patch', namespace: 'ns', name: 'c', subresource: '', patchType: 'application/merge-patch+json', body: '{"metadata":{"finalizers":["keep/a","x/y"]}}' }));
    expect(patch).toMatchObject({
      code: 422, reason: 'Invalid',
      message: `ConfigMap "c" is invalid: metadata.finalizers: Forbidden: ${MESSAGE} []string{"x/y"}`,
      details: { causes: [{ reason: 'FieldValueForbidden', field: 'metadata.finalizers' }] },
    });
    const put = { ...before, metadata: { ...before.metadata, finalizers: ['keep/a', 'new/b'] } };
    expect(statusOf(() => run(store, { verb: 'update', namespace: 'ns', name: 'c', subresource: '', body: JSON.stringify(put) })).code).toBe(422);
    expect(current(objects)).toEqual(before);
  });

  it('still lets finalizers be removed, which completes the deletion', () => {
    const { store, objects } = deleting();
    run(store, { verb: 'patch', namespace: 'ns', name: 'c', subresource: '', patchType: 'application/merge-patch+json', body: '{"metadata":{"finalizers":null,"labels":{"a":"b"}}}' });
    expect(objects.has('ns/c')).toBe(false);
  });
});
