// Tests: the one nesting-depth gate (core/encoding/json-depth.ts) and where it applies: object bodies,
// patch bodies and delete options are refused with the Status a syntax error gets, before anything
// recursive runs; bodies at the limit still go through every walker without a stack overflow.

import { describe, expect, it } from 'vitest';
import { jsonDepthError, MAX_JSON_DEPTH } from '../../../core/encoding/json-depth';
import { executeWrite, type WriteRequest, type WriteStore } from '../../../core/writes';
import { lookupGroupResource } from '../../../core/registry';
import type { KubeObject } from '../../../core/object-meta';
import { statusOf } from '../status-of';
import { countOps } from '../op-count';

const arrays = (levels: number, inner = '') => '['.repeat(levels) + inner + ']'.repeat(levels);
const objects = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('jsonDepthError', () => {
  it('accepts nesting up to the limit and words the first bracket past it as Go does', () => {
    expect(jsonDepthError(arrays(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonDepthError(objects(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonDepthError(arrays(MAX_JSON_DEPTH + 1))).toBe("invalid character '[' exceeded max depth");
    expect(jsonDepthError(objects(MAX_JSON_DEPTH + 1))).toBe("invalid character '{' exceeded max depth");
    expect(jsonDepthError(arrays(100_000))).toBe("invalid character '[' exceeded max depth");
  });

  it('counts only brackets outside strings, escapes included', () => {
    expect(jsonDepthError(`["${'['.repeat(5000)}"]`)).toBeUndefined();
    expect(jsonDepthError(`["\\"${'{'.repeat(5000)}"]`)).toBeUndefined();
    expect(jsonDepthError(`["\\\\", ${arrays(MAX_JSON_DEPTH)}]`)).toBe("invalid character '[' exceeded max depth");
    // Closing brackets free a level again.
    expect(jsonDepthError(Array.from({ length: 50 }, () => arrays(MAX_JSON_DEPTH - 1)).join(',').replace(/^/, '[') + ']')).toBeUndefined();
  });

  it("reports a syntax error before the offending bracket instead, as Go's scanner meets it first", () => {
    expect(jsonDepthError(`[1 2, ${arrays(MAX_JSON_DEPTH + 1)}]`)).toBe("invalid character '2' after array element");
  });

  it('honours a lower limit (protobuf embedded JSON)', () => {
    expect(jsonDepthError('[[[]]]', 3)).toBeUndefined();
    expect(jsonDepthError('[[[]]]', 2)).toBe("invalid character '[' exceeded max depth");
  });

  it('scans in linear time', () => {
    const small = countOps(() => void jsonDepthError(arrays(10_000)));
    const large = countOps(() => void jsonDepthError(arrays(40_000)));
    expect(large / small, 'scan cost for 4x the input').toBeLessThan(4.5);
  });
});

// ---- through the store's write path ----

function memoryStore(seed: KubeObject[] = []): { store: WriteStore; saved: Map<string, KubeObject> } {
  const saved = new Map(seed.map((o) => [`default/${o.metadata.name}`, structuredClone(o)]));
  let rv = 1;
  const store: WriteStore = {
    get: (key) => (saved.has(key) ? structuredClone(saved.get(key)!) : undefined),
    objects: () => [...saved.values()].map((o) => structuredClone(o)),
    commit: (type, key, object) => {
      object.metadata.resourceVersion = String(++rv);
      if (type === 'DELETED') saved.delete(key);
      else saved.set(key, structuredClone(object));
      return object;
    },
  };
  return { store, saved };
}

const configmaps = lookupGroupResource('core/configmaps')!;
const env = () => ({ type: configmaps, now: 0, newUid: () => 'u', randomSuffix: () => 'abcde', warnings: [] as string[] });
const keep: KubeObject = {
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep', namespace: 'default', uid: 'u', resourceVersion: '1' }, data: { a: '1' },
} as KubeObject;
const cm = (extra: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"keep"},"junk":${extra}}`;

describe('the store refuses bodies nested past the limit', () => {
  const tooDeep = arrays(100_000);
  const goText = "invalid character '[' exceeded max depth";
  const cases: [string, WriteRequest, number, string][] = [
    ['create', { verb: 'create', namespace: 'default', body: cm(tooDeep) }, 400, `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: ${goText} (${cm(tooDeep).slice(0, 30)} ...)`],
    ['update', { verb: 'update', namespace: 'default', name: 'keep', subresource: '', body: cm(tooDeep) }, 400, `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: ${goText} (${cm(tooDeep).slice(0, 30)} ...)`],
    ['strategic patch', { verb: 'patch', namespace: 'default', name: 'keep', subresource: '', patchType: 'application/strategic-merge-patch+json', body: `{"data":${tooDeep}}` }, 400, goText],
    ['merge patch', { verb: 'patch', namespace: 'default', name: 'keep', subresource: '', patchType: 'application/merge-patch+json', body: `{"data":${tooDeep}}` }, 400, `error decoding patch: ${goText}`],
    ['json patch', { verb: 'patch', namespace: 'default', name: 'keep', subresource: '', patchType: 'application/json-patch+json', body: `[{"op":"add","path":"/x","value":${tooDeep}}]` }, 400, `error decoding patch: ${goText}`],
    ['delete options', { verb: 'delete', namespace: 'default', name: 'keep', body: `{"preconditions":${tooDeep}}`, query: {} }, 400, `couldn't get version/kind; json parse error: ${goText}`],
  ];
  it.each(cases)('%s → %d', (_name, req, code, message) => {
    const { store, saved } = memoryStore([keep]);
    const status = statusOf(() => executeWrite(store, env(), req));
    expect(status).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code });
    expect(saved.get('default/keep')).toEqual(keep);
  });

  it('runs every walker on a body at the limit without overflowing the stack', () => {
    const { store, saved } = memoryStore([keep]);
    // The unknown field sits 2 levels down: 998 more keeps the whole body at 1000.
    const atLimit = arrays(MAX_JSON_DEPTH - 2);
    expect(jsonDepthError(cm(atLimit))).toBeUndefined();
    const e = env();
    const created = executeWrite(store, e, { verb: 'create', namespace: 'default', body: cm(atLimit).replace('"keep"', '"deep"') });
    expect(created.code).toBe(201);
    expect(e.warnings).toEqual(['unknown field "junk"']);
    for (const [patchType, body] of [
      ['application/strategic-merge-patch+json', `{"metadata":{"labels":{"a":"b"}},"junk":${atLimit}}`],
      ['application/merge-patch+json', `{"metadata":{"labels":{"a":"c"}},"junk":${atLimit}}`],
      ['application/json-patch+json', `[{"op":"add","path":"/junk","value":${arrays(MAX_JSON_DEPTH - 4)}},{"op":"add","path":"/metadata/labels","value":{"a":"d"}}]`],
    ]) {
      const res = executeWrite(store, env(), { verb: 'patch', namespace: 'default', name: 'keep', subresource: '', patchType, body });
      expect(res.code, patchType).toBe(200);
    }
    expect(saved.get('default/keep')!.metadata.labels).toEqual({ a: 'd' });
  });
});
