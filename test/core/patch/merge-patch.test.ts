import { describe, expect, it } from 'vitest';
import { applyMergePatch } from '../../../core/patch/merge-patch';
import { PatchError } from '../../../core/patch/patch-error';

function failure(doc: unknown, patch: unknown): PatchError {
  try {
    applyMergePatch(doc, patch);
  } catch (e) {
    if (e instanceof PatchError) return e;
    throw e;
  }
  throw new Error('patch applied but was expected to fail');
}

describe('applyMergePatch: RFC 7386 appendix A', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j = %j', (doc, patch, expected) => {
    expect(applyMergePatch(doc, patch)).toEqual(expected);
  });

  // The RFC's remaining examples have a non-object patch, which the RFC applies by returning the
  // patch; kube-apiserver strict-decodes the body into a map first and answers 400 instead.
  it.each([
    [['a', 'b'], ['c', 'd'], 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}'],
    [{ a: 'b' }, ['c'], 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}'],
    [{ a: 'foo' }, 'bar', 'error decoding patch: json: cannot unmarshal string into Go value of type map[string]interface {}'],
    [{ a: 'foo' }, 42, 'error decoding patch: json: cannot unmarshal number into Go value of type map[string]interface {}'],
    [{ a: 'foo' }, null, 'Invalid JSON Patch'],
  ])('%j + %j is a 400 in kube-apiserver', (doc, patch, message) => {
    const err = failure(doc, patch);
    expect(err.code).toBe(400);
    expect(err.message).toBe(message);
    expect(err.toStatus()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
  });
});

describe('applyMergePatch: evanphx null pruning', () => {
  it.each([
    ['nulls inside a new object are dropped', {}, { a: { b: null, c: 1 } }, { a: { c: 1 } }],
    ['null items of an array placed over a non-object are dropped', { a: [] }, { a: [1, null, { x: null, y: 2 }] }, { a: [1, { y: 2 }] }],
    ['an array placed over an object is taken as is', { a: { k: 1 } }, { a: [1, null] }, { a: [1, null] }],
    ['a null target member is replaced by the pruned value', { a: null }, { a: { b: null, c: 2 } }, { a: { c: 2 } }],
    ['deleting a missing member is a no-op', { a: 1 }, { b: null }, { a: 1 }],
  ])('%s', (_name, doc, patch, expected) => {
    expect(applyMergePatch(doc, patch)).toEqual(expected);
  });
});

describe('applyMergePatch: kubectl payloads', () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', labels: { app: 'web', env: 'dev' }, annotations: { note: 'x' } },
    spec: { containers: [{ name: 'app', image: 'app:1' }] },
  };

  it.each([
    ['kubectl label env=prod --overwrite', { metadata: { labels: { env: 'prod' } } }, { labels: { app: 'web', env: 'prod' }, annotations: { note: 'x' } }],
    ['kubectl label env-', { metadata: { labels: { env: null } } }, { labels: { app: 'web' }, annotations: { note: 'x' } }],
    ['kubectl annotate owner=me', { metadata: { annotations: { owner: 'me' } } }, { labels: { app: 'web', env: 'dev' }, annotations: { note: 'x', owner: 'me' } }],
    [
      'kubectl label --resource-version (carries the RV)',
      { metadata: { labels: { tier: 'fe' }, resourceVersion: '42' } },
      { labels: { app: 'web', env: 'dev', tier: 'fe' }, annotations: { note: 'x' }, resourceVersion: '42' },
    ],
  ])('%s', (_name, patch, expectedMeta) => {
    expect(applyMergePatch(pod, patch)).toEqual({ ...pod, metadata: { name: 'web', ...expectedMeta } });
  });

  it("kubectl scale's {spec:{replicas:3}} on a Scale", () => {
    const scale = { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'web' }, spec: { replicas: 1 }, status: { replicas: 1 } };
    expect(applyMergePatch(scale, { spec: { replicas: 3 } })).toEqual({ ...scale, spec: { replicas: 3 } });
  });

  it('replaces lists wholesale (containers are not merged by name)', () => {
    const out = applyMergePatch(pod, { spec: { containers: [{ name: 'side', image: 's:1' }] } });
    expect(out).toEqual({ ...pod, spec: { containers: [{ name: 'side', image: 's:1' }] } });
  });

  it('never mutates its arguments, and the result shares nothing with the patch', () => {
    const doc = structuredClone(pod);
    const patch = { metadata: { labels: { env: null } }, spec: { extra: { deep: [1] } } };
    const before = structuredClone(patch);
    const out = applyMergePatch(doc, patch) as { spec: { extra: { deep: number[] } } };
    expect(doc).toEqual(pod);
    expect(patch).toEqual(before);
    out.spec.extra.deep.push(2);
    expect(patch.spec.extra.deep).toEqual([1]);
  });

  it('keeps a "__proto__" member as data', () => {
    const out = applyMergePatch({}, JSON.parse('{"__proto__":{"polluted":true}}')) as object;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__']);
  });
});
