// Fuzzing: fast-check generators of hostile requests for the front door. They start from valid objects and
// requests and mutate them: wrong JSON types at any depth, huge lists and strings, deep nesting, odd content
// types and query parameters, random patches of every type, hostile selectors and names.
import fc from 'fast-check';

export interface FuzzRequest {
  method: string;
  path: string;
  query: [string, string][];
  contentType: string;
  body?: string | Uint8Array;
  accept?: string;
}

export const FUZZ_NS = 'fuzz';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

// ---- valid starting points ----

const container = { name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80, name: 'http' }], env: [{ name: 'A', value: '1' }],
  resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '128Mi' } } };
const podSpec = { containers: [container], volumes: [{ name: 'data', emptyDir: {} }] };
const labels = { app: 'web' };

/** A valid object per fuzzed type, by collection path under the fuzz namespace. */
export const SEEDS: Record<string, (name: string) => Record<string, Json>> = {
  [`/api/v1/namespaces/${FUZZ_NS}/configmaps`]: (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { a: '1', b: 'two' } }),
  [`/api/v1/namespaces/${FUZZ_NS}/secrets`]: (name) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: 'Opaque', data: { k: 'dmFsdWU=' } }),
  [`/api/v1/namespaces/${FUZZ_NS}/pods`]: (name) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: podSpec }),
  [`/api/v1/namespaces/${FUZZ_NS}/services`]: (name) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name },
    spec: { selector: labels, ports: [{ port: 80, targetPort: 8080, name: 'http' }] } }),
  [`/apis/apps/v1/namespaces/${FUZZ_NS}/deployments`]: (name) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec } } }),
  [`/apis/rbac.authorization.k8s.io/v1/namespaces/${FUZZ_NS}/roles`]: (name) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role',
    metadata: { name }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] }),
  [`/apis/rbac.authorization.k8s.io/v1/namespaces/${FUZZ_NS}/rolebindings`]: (name) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding',
    metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'User', name: 'someone', apiGroup: 'rbac.authorization.k8s.io' }] }),
};
const COLLECTIONS = Object.keys(SEEDS);
// Names the fuzzer may touch; the harness keeps its own sentinels under other names.
export const NAMES = ['a', 'b', 'c'];

// ---- hostile values ----

const hugeString = fc.integer({ min: 1, max: 3_500_000 }).map((n) => 'x'.repeat(n));
const oddString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '../../etc', '%2F', 'a'.repeat(300), '${x}', '\ud800', 'NaN', '1e400', '-0', '0x10', '*', ','),
);
const leaf: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true }), oddString,
  fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 2 ** 63, 1.5, 1e308),
);
const jsonValue: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof({ depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('v'), { maxKeys: 4 })),
})).v as fc.Arbitrary<Json>;

/** A large but legal-sized collection value: many list items or map keys. */
// Items are leaves or one-level objects, so a big list inside a big list cannot multiply into hundreds of megabytes
// (bodies stay a few MB; Cloudflare caps request bodies at 100 MB before the Worker anyway).
const bigList = fc.tuple(fc.integer({ min: 1000, max: 30_000 }), leaf, fc.boolean()).map(([n, v, keyed]) =>
  Array.from({ length: n }, (_, i) => (keyed ? { name: `n${i}`, value: v } : v)));
const bigMap = fc.integer({ min: 1000, max: 30_000 }).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v'])));

/** Deep nesting as text: `{"a":{"a":...}}` or `[[[...]]]`, up to 200,000 levels. */
const deepText = fc.tuple(fc.integer({ min: 100, max: 200_000 }), fc.boolean()).map(([depth, arrays]) =>
  arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

// ---- mutation of a valid object ----

/** Paths into the object's tree (array of keys/indices), including ones that do not exist yet. */
function paths(v: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...prefix, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...prefix, k], out);
  return out;
}

function setAt(root: Json, path: (string | number)[], value: unknown): Json {
  if (path.length === 0) return value as Json;
  const copy = structuredClone(root) as any;
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k];
  at[path.at(-1)!] = value;
  return copy;
}

const mutation = fc.oneof(
  { arbitrary: jsonValue.map((v) => ({ kind: 'set', value: v as unknown })), weight: 5 },
  { arbitrary: bigList.map((v) => ({ kind: 'set', value: v as unknown })), weight: 1 },
  { arbitrary: bigMap.map((v) => ({ kind: 'set', value: v as unknown })), weight: 1 },
  { arbitrary: hugeString.map((v) => ({ kind: 'set', value: v as unknown })), weight: 1 },
  { arbitrary: fc.constant({ kind: 'delete', value: undefined as unknown }), weight: 2 },
);

const mutatedObject = fc.tuple(fc.constantFrom(...COLLECTIONS), fc.constantFrom(...NAMES), fc.array(fc.tuple(fc.nat(), mutation), { maxLength: 3 }))
  .map(([collection, name, muts]) => {
    let obj: Json = SEEDS[collection]!(name);
    for (const [pick, m] of muts) {
      const all = paths(obj);
      const path = all[pick % all.length]!;
      obj = setAt(obj, path, m.value);
    }
    return { collection, name, obj };
  });

// ---- request shapes ----

const CONTENT_TYPES = [
  'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/merge-patch+json',
  'application/strategic-merge-patch+json', 'application/json-patch+json', 'application/apply-patch+yaml', 'text/plain',
  '', 'application/json; charset=utf-16', 'multipart/form-data; boundary=x',
];

const QUERY_KEYS = [
  'watch', 'labelSelector', 'fieldSelector', 'resourceVersion', 'resourceVersionMatch', 'limit', 'continue',
  'fieldValidation', 'dryRun', 'timeoutSeconds', 'propagationPolicy', 'allowWatchBookmarks', 'sendInitialEvents',
  'fieldManager', 'force', 'gracePeriodSeconds', 'pretty',
];
// Bounded by what reaches a Worker at all: Cloudflare refuses URLs over 16 KB before the Worker runs.
const hostileSelector = fc.oneof(
  fc.integer({ min: 1, max: 1500 }).map((n) => Array.from({ length: n }, (_, i) => `k${i}=v`).join(',')),
  fc.integer({ min: 1, max: 1500 }).map((n) => `k in (${Array.from({ length: n }, (_, i) => `v${i}`).join(',')})`),
  fc.constantFrom('metadata.name=a', 'metadata.name=', '!!', 'a in (', 'a notin b', '=', '!=x', 'a==b==c', 'x'.repeat(12_000)),
  oddString,
);
const queryValue = fc.oneof(oddString, hostileSelector, fc.constantFrom('true', 'True', '1', '0', 'false', 'All', 'Strict', 'Warn', '-1', '99999999999999999999'));
const query = fc.array(fc.tuple(fc.constantFrom(...QUERY_KEYS), queryValue), { maxLength: 4 })
  // A watch that would stay open is bounded by a short timeout so each case ends.
  .map((q) => (q.some(([k]) => k === 'watch') ? [...q, ['timeoutSeconds', '1'] as [string, string]] : q));

const patchBody = fc.oneof(
  jsonValue.map((v) => JSON.stringify(v)),
  fc.array(fc.record({
    op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'),
    path: fc.constantFrom('/data', '/data/a', '/metadata/labels', '/spec/containers/0', '/spec/containers/-', '/', '', '/a~1b', '/~2'),
    from: fc.constantFrom('/data', '/metadata', '/spec', ''),
    value: jsonValue,
  }), { maxLength: 30 }).map((ops) => JSON.stringify(ops)),
  // A patch that doubles the document many times: copy amplification.
  fc.integer({ min: 5, max: 40 }).map((n) => JSON.stringify([{ op: 'add', path: '/data/x', value: 'y'.repeat(1000) },
    ...Array.from({ length: n }, (_, i) => ({ op: 'copy', from: '/data', path: `/metadata/annotations/k${i}` }))])),
  // A strategic merge patch with a huge list under a merge key.
  fc.integer({ min: 1000, max: 15_000 }).map((n) => JSON.stringify({ spec: { containers: Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: 'x' })) } })),
  fc.constantFrom('{"$patch":"delete"}', '{"$setElementOrder/containers":[{"name":"x"}]}', '{"metadata":{"$retainKeys":5}}', 'null', '[]', '"x"'),
  deepText,
);

const garbageBytes = fc.uint8Array({ maxLength: 2000 }).map((b) => new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...b]));

export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc.oneof(
  // create / replace a mutated object
  fc.tuple(mutatedObject, fc.constantFrom('POST', 'PUT'), fc.constantFrom(...CONTENT_TYPES), query).map(([m, method, contentType, q]) => ({
    method, path: method === 'POST' ? m.collection : `${m.collection}/${m.name}`, query: q, contentType, body: JSON.stringify(m.obj),
  })),
  // patches of every type
  fc.tuple(fc.constantFrom(...COLLECTIONS), fc.constantFrom(...NAMES), fc.constantFrom(...CONTENT_TYPES), patchBody, query, fc.constantFrom('', '/status', '/scale'))
    .map(([c, name, contentType, body, q, sub]) => ({ method: 'PATCH', path: `${c}/${name}${sub}`, query: q, contentType, body })),
  // raw bodies: deep nesting, garbage protobuf, huge strings
  fc.tuple(fc.constantFrom(...COLLECTIONS), fc.oneof(deepText, garbageBytes), fc.constantFrom(...CONTENT_TYPES)).map(([c, body, contentType]) => ({
    method: 'POST', path: c, query: [], contentType, body,
  })),
  // reads, lists, watches and deletes with hostile query parameters
  fc.tuple(fc.constantFrom(...COLLECTIONS), fc.option(fc.constantFrom(...NAMES)), fc.constantFrom('GET', 'DELETE', 'GET'), query, fc.constantFrom(undefined, 'application/json;as=Table;v=v1;g=meta.k8s.io', 'application/yaml', '*/*', 'text/html'))
    .map(([c, name, method, q, accept]) => ({ method, path: name ? `${c}/${name}` : c, query: method === 'DELETE' && !name ? [] : q, contentType: '', accept })),
  // odd paths
  fc.tuple(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'), fc.constantFrom(
    `/api/v1/namespaces/${FUZZ_NS}/configmaps/a/b/c`, `/api/v1/namespaces/${FUZZ_NS}/pods/a/exec`, '/api/v1/namespaces//configmaps',
    `/api/v1/namespaces/${FUZZ_NS}/configmaps/${'x'.repeat(5000)}`, '/apis/../api/v1/namespaces', '/api/v1/watch/namespaces/fuzz/configmaps',
    `/api/v1/namespaces/${FUZZ_NS}/serviceaccounts/default/token`, '/openapi/v3/api/v1', '/metrics', '/debug/abort',
  )).map(([method, path]) => ({ method, path, query: [], contentType: 'application/json', body: method === 'GET' || method === 'DELETE' ? undefined : '{}' })),
);
