import { describe, expect, it } from 'vitest';
import { applyJsonPatch } from '../../../core/patch/json-patch';
import { GENERIC_422_MESSAGE, PatchError } from '../../../core/patch/patch-error';

function failure(doc: unknown, patch: unknown): PatchError {
  try {
    applyJsonPatch(doc, patch);
  } catch (e) {
    if (e instanceof PatchError) return e;
    throw e;
  }
  throw new Error('patch applied but was expected to fail');
}

describe('applyJsonPatch: RFC 6902 appendix A', () => {
  it.each([
    ['A.1 add an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
    ['A.2 add an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
    ['A.3 remove an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
    ['A.4 remove an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
    ['A.5 replace a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
    [
      'A.6 move a value',
      { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
      [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
    ],
    [
      'A.7 move an array element',
      { foo: ['all', 'grass', 'cows', 'eat'] },
      [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
      { foo: ['all', 'cows', 'eat', 'grass'] },
    ],
    [
      'A.8 test a value: success',
      { baz: 'qux', foo: ['a', 2, 'c'] },
      [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }],
      { baz: 'qux', foo: ['a', 2, 'c'] },
    ],
    [
      'A.10 add a nested member object',
      { foo: 'bar' },
      [{ op: 'add', path: '/child', value: { grandchild: {} } }],
      { foo: 'bar', child: { grandchild: {} } },
    ],
    [
      'A.11 ignore unrecognized elements',
      { foo: 'bar' },
      [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }],
      { foo: 'bar', baz: 'qux' },
    ],
    ['A.14 ~ escape ordering', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
    ['A.16 add an array value', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
    ['copy a value', { a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/c' }], { a: { b: 1 }, c: { b: 1 } }],
  ])('%s', (_name, doc, patch, expected) => {
    expect(applyJsonPatch(doc, patch)).toEqual(expected);
  });

  it.each([
    ['A.9 test a value: error', { baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }], 'testing value /baz failed: test failed'],
    [
      'A.12 add to a nonexistent target',
      { foo: 'bar' },
      [{ op: 'add', path: '/baz/bat', value: 'qux' }],
      'add operation does not apply: doc is missing path: "/baz/bat": missing value',
    ],
    ['A.15 compare strings and numbers', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }], 'testing value /~01 failed: test failed'],
  ])('%s is a 422', (_name, doc, patch, detail) => {
    const err = failure(doc, patch);
    expect(err.code).toBe(422);
    expect(err.message).toBe(GENERIC_422_MESSAGE);
    expect(err.detail).toBe(detail);
  });
});

describe('applyJsonPatch: JSON pointer (RFC 6901)', () => {
  const doc = { 'a/b': 1, 'm~n': 2, '': 3, ' ': 4, arr: [10, 20, 30] };
  it.each([
    ['/a~1b', 1],
    ['/m~0n', 2],
    ['/', 3],
    ['/ ', 4],
    ['/arr/0', 10],
    ['/arr/-1', 30],
  ])('%s resolves for test', (path, value) => {
    expect(applyJsonPatch(doc, [{ op: 'test', path, value }])).toEqual(doc);
  });

  it('decodes ~01 as the literal "~1", not "/"', () => {
    expect(applyJsonPatch({ '~1': 'x' }, [{ op: 'replace', path: '/~01', value: 'y' }])).toEqual({ '~1': 'y' });
  });

  it('appends with "-" and counts negative indices from the end, as evanphx does', () => {
    expect(applyJsonPatch({ a: [1, 2] }, [{ op: 'add', path: '/a/-', value: 3 }])).toEqual({ a: [1, 2, 3] });
    expect(applyJsonPatch({ a: [1, 2, 3] }, [{ op: 'remove', path: '/a/-1' }])).toEqual({ a: [1, 2] });
    // For add, -1 counts against the grown array, so it appends.
    expect(applyJsonPatch({ a: [1, 2] }, [{ op: 'add', path: '/a/-1', value: 9 }])).toEqual({ a: [1, 2, 9] });
    expect(applyJsonPatch({ a: [1, 2] }, [{ op: 'add', path: '/a/-2', value: 9 }])).toEqual({ a: [1, 9, 2] });
  });
});

describe('applyJsonPatch: kube-apiserver (evanphx/json-patch v4) leniencies', () => {
  it.each([
    [
      'replace of a missing object member adds it',
      { spec: { replicas: 1 } },
      [{ op: 'replace', path: '/spec/foo', value: 'bar' }],
      { spec: { replicas: 1, foo: 'bar' } },
    ],
    [
      'replace of the whole document with path ""',
      { a: 1 },
      [{ op: 'replace', path: '', value: { b: 2 } }],
      { b: 2 },
    ],
    ['test of the whole document with path ""', { a: 1 }, [{ op: 'test', path: '', value: { a: 1 } }], { a: 1 }],
    ['test of a missing member against null passes', { a: 1 }, [{ op: 'test', path: '/b', value: null }], { a: 1 }],
    ['copy of a missing member copies null', { a: 1 }, [{ op: 'copy', from: '/x', path: '/b' }], { a: 1, b: null }],
    ['add without a value adds null', { a: 1 }, [{ op: 'add', path: '/b' }], { a: 1, b: null }],
    ['a null patch is no operations', { a: 1 }, null, { a: 1 }],
    ['an empty patch is no operations', { a: 1 }, [], { a: 1 }],
  ])('%s', (_name, doc, patch, expected) => {
    expect(applyJsonPatch(doc, patch)).toEqual(expected);
  });
});

describe('applyJsonPatch: kubectl patch --type=json payloads', () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      replicas: 1,
      template: { spec: { containers: [{ name: 'app', image: 'app:1', args: ['--v=1'] }] } },
    },
  };

  it.each([
    [
      'replace an image by index',
      [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'app:2' }],
      (d: typeof deployment) => {
        d.spec.template.spec.containers[0].image = 'app:2';
      },
    ],
    [
      'append a container arg',
      [{ op: 'add', path: '/spec/template/spec/containers/0/args/-', value: '--debug' }],
      (d: typeof deployment) => {
        d.spec.template.spec.containers[0].args.push('--debug');
      },
    ],
    [
      'add a label whose key needs ~1',
      [{ op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'web' }],
      (d: typeof deployment) => {
        (d.metadata.labels as Record<string, string>)['app.kubernetes.io/name'] = 'web';
      },
    ],
    [
      'guarded scale: test then replace',
      [
        { op: 'test', path: '/spec/replicas', value: 1 },
        { op: 'replace', path: '/spec/replicas', value: 3 },
      ],
      (d: typeof deployment) => {
        d.spec.replicas = 3;
      },
    ],
  ])('%s', (_name, patch, edit) => {
    const expected = structuredClone(deployment);
    edit(expected);
    expect(applyJsonPatch(deployment, patch)).toEqual(expected);
  });

  it('never mutates the document or the patch', () => {
    const doc = structuredClone(deployment);
    const patch = [{ op: 'add', path: '/spec/template/spec/containers/0/args/-', value: { nested: true } }];
    const patchCopy = structuredClone(patch);
    const out = applyJsonPatch(doc, patch) as typeof deployment;
    expect(doc).toEqual(deployment);
    expect(patch).toEqual(patchCopy);
    (out.spec.template.spec.containers[0].args[1] as unknown as { nested: boolean }).nested = false;
    expect(patch[0].value).toEqual({ nested: true });
  });

  it('does not let a "__proto__" member change the prototype', () => {
    const out = applyJsonPatch({}, JSON.parse('[{"op":"add","path":"/__proto__","value":{"polluted":true}}]')) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('applyJsonPatch: errors', () => {
  it.each([
    ['an object body', { op: 'add' }, 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'],
    ['a string body', 'add', 'error decoding patch: json: cannot unmarshal string into Go value of type []handlers.jsonPatchOp'],
    ['an op that is not an object', [1], 'error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp'],
    [
      'an "op" that is not a string',
      [{ op: 1, path: '/a' }],
      'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string',
    ],
    [
      'a "path" that is not a string',
      [{ op: 'add', path: ['a'] }],
      'error decoding patch: json: cannot unmarshal array into Go struct field jsonPatchOp.path of type string',
    ],
  ])('%s is a 400 BadRequest', (_name, patch, message) => {
    const err = failure({}, patch);
    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.message).toBe(message);
    expect(err.toStatus()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
  });

  it.each([
    ['replace under a missing parent', { spec: {} }, [{ op: 'replace', path: '/spec/foo/bar', value: 1 }], 'replace operation does not apply: doc is missing path: /spec/foo/bar: missing value'],
    ['replace of an index past the end', { a: [1] }, [{ op: 'replace', path: '/a/5', value: 1 }], 'replace operation does not apply: doc is missing key: /a/5: missing value'],
    ['remove of a missing member', { a: 1 }, [{ op: 'remove', path: '/b' }], "error in remove for path: '/b': Unable to remove nonexistent key: b: missing value"],
    ['remove of the whole document', { a: 1 }, [{ op: 'remove', path: '' }], 'remove operation does not apply: doc is missing path: "": missing value'],
    ['add past the end of an array', { a: [1] }, [{ op: 'add', path: '/a/3', value: 1 }], "error in add for path: '/a/3': Unable to access invalid index: 3: invalid index referenced"],
    ['add with a non-numeric index', { a: [1] }, [{ op: 'add', path: '/a/x', value: 1 }], "error in add for path: '/a/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": invalid syntax"],
    ['move from a missing member', { a: 1 }, [{ op: 'move', from: '/b', path: '/c' }], "error in move for path: 'b': Unable to remove nonexistent key: b: missing value"],
    ['an unknown op', { a: 1 }, [{ op: 'merge', path: '/a', value: 1 }], 'Unexpected kind: merge'],
    ['an op without "op"', { a: 1 }, [{ path: '/a' }], 'Unexpected kind: unknown'],
    ['an add without "path"', { a: 1 }, [{ op: 'add', value: 1 }], 'add operation failed to decode path: missing value'],
    ['a failed test', { spec: { replicas: 2 } }, [{ op: 'test', path: '/spec/replicas', value: 1 }], 'testing value /spec/replicas failed: test failed'],
  ])('%s is the generic 422', (_name, doc, patch, detail) => {
    const err = failure(doc, patch);
    expect(err.code).toBe(422);
    expect(err.detail).toBe(detail);
    expect(err.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
  });

  it('stops at the first failing op and leaves the input untouched', () => {
    const doc = { a: 1 };
    failure(doc, [{ op: 'add', path: '/b', value: 2 }, { op: 'test', path: '/a', value: 2 }]);
    expect(doc).toEqual({ a: 1 });
  });

  it('refuses more than 10000 operations with 413', () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/a', value: 1 }));
    const err = failure({ a: 1 }, ops);
    expect(err.code).toBe(413);
    expect(err.message).toBe('Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
  });

  it('limits the bytes copy ops may add to 3 MiB', () => {
    const big = 'x'.repeat(1024 * 1024);
    const err = failure({ a: big }, [1, 2, 3, 4].map((n) => ({ op: 'copy', from: '/a', path: `/b${n}` })));
    expect(err.code).toBe(422);
    expect(err.detail).toMatch(/^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/);
  });
});
