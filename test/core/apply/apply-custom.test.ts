// Server-side apply on custom resources through the write paths (core/writes/): the CRD's structural
// schema drives the merge (list-type map, atomic lists, preserve-unknown-fields subtrees), the result is
// pruned, defaulted and validated as a POST is, /status and /scale apply, and managedFields record the
// request's version (checklist 29, 31, 32 of /work/shared/reference/crd-and-apply.md part C).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeWrite, type WriteRequest, type WriteStore } from '../../../core/writes';
import { setCustomTypes, type ResourceType } from '../../../core/registry';
import { typesFromCrd } from '../../../core/crd/crd-types';
import type { Crd } from '../../../core/crd/crd-object';
import type { KubeObject } from '../../../core/object-meta';
import { statusOf } from '../status-of';
import { memoryStore } from '../memory-store';

const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';
const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        cronSpec: { type: 'string' },
        image: { type: 'string' },
        replicas: { type: 'integer', maximum: 10, default: 1 },
        items: { type: 'array', items: { type: 'integer' } },
        ports: {
          type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: { type: 'object', properties: { replicas: { type: 'integer' }, phase: { type: 'string' } } },
  },
};

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com', uid: 'crd-uid', resourceVersion: '1' },
  spec: {
    group: 'stable.example.com', scope: 'Namespaced', names: { plural: 'crontabs', kind: 'CronTab' },
    versions: ['v1', 'v1beta1'].map((name) => ({
      name, served: true, storage: name === 'v1', schema: { openAPIV3Schema: schema },
      subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
    })),
  },
  status: {
    acceptedNames: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList' },
    conditions: [{ type: 'Established', status: 'True' }],
  },
} as unknown as Crd;

let crontabs: ResourceType;
beforeAll(() => {
  const types = typesFromCrd(crd);
  setCustomTypes(types);
  crontabs = types.find((t) => t.version === 'v1')!;
});
afterAll(() => setCustomTypes([]));


function run(store: WriteStore, req: WriteRequest, now = T0) {
  return executeWrite(store, { type: crontabs, now, newUid: () => 'uid-1', randomSuffix: () => 'abcde' }, req);
}

function apply(store: WriteStore, manager: string, obj: unknown, opts: { force?: boolean; subresource?: string; version?: string; now?: number } = {}) {
  return run(store, {
    verb: 'patch', namespace: 'default', name: 'c1', subresource: opts.subresource ?? '', patchType: APPLY,
    body: JSON.stringify(obj), fieldManager: manager, force: opts.force,
    ...(opts.version ? { view: `stable.example.com/${opts.version}` } : {}),
  }, opts.now);
}

const ct = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}, version = 'v1') => ({
  apiVersion: `stable.example.com/${version}`, kind: 'CronTab', metadata: { name: 'c1' }, spec, ...extra,
});

type Entry = { manager: string; operation: string; apiVersion: string; fieldsV1: unknown; subresource?: string; time?: string };
const entries = (obj: unknown) => (obj as KubeObject).metadata.managedFields as Entry[];
const byManager = (obj: unknown) => Object.fromEntries(entries(obj).map((e) => [e.manager, e]));

describe('server-side apply of a custom resource', () => {
  it('creates with the CRD schema: one Apply entry, defaults filled as a POST fills them', () => {
    const { store } = memoryStore();
    const res = apply(store, 'a', { ...ct({ cronSpec: '* * * * */5', image: 'my-image' }), metadata: { name: 'c1', labels: { app: 'a' } } });
    expect(res.code).toBe(201);
    const body = res.body as KubeObject;
    expect(body.spec).toEqual({ cronSpec: '* * * * */5', image: 'my-image', replicas: 1 });
    expect(entries(body)).toEqual([{
      manager: 'a', operation: 'Apply', apiVersion: 'stable.example.com/v1', time: '2026-01-02T03:04:05Z', fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:cronSpec': {}, 'f:image': {} } },
    }]);
    expect(body.metadata.generation).toBe(1);
  });

  it('refuses an invalid field with the 422 a POST gets, and stores nothing', () => {
    const { store, objects } = memoryStore();
    const post = statusOf(() => run(store, { verb: 'create', namespace: 'default', body: JSON.stringify(ct({ replicas: 15 })) }));
    const applied = statusOf(() => apply(store, 'a', ct({ replicas: 15 })));
    expect(applied).toEqual(post);
    expect(applied).toMatchObject({
      code: 422,
      message: 'CronTab.stable.example.com "c1" is invalid: spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10',
    });
    expect(objects.size).toBe(0);
    // And on an update: the stored object stays as it was.
    apply(store, 'a', ct({ replicas: 2 }));
    const before = JSON.stringify(objects.get('default/c1'));
    expect(statusOf(() => apply(store, 'a', ct({ replicas: 11 }))).code).toBe(422);
    expect(JSON.stringify(objects.get('default/c1'))).toBe(before);
  });

  it('answers kube\'s 500 for a field the schema does not declare', () => {
    const { store } = memoryStore();
    const err = statusOf(() => apply(store, 'a', ct({ bogus: 1 })));
    expect(err).toMatchObject({
      code: 500,
      message: 'failed to create typed patch object (/c1; stable.example.com/v1, Kind=CronTab): .spec.bogus: field not declared in schema',
    });
  });

  it('merges a list-type map item by item; an array without list-type is atomic and conflicts', () => {
    const { store } = memoryStore();
    apply(store, 'a', ct({ ports: [{ name: 'http', port: 80 }], items: [1] }));
    const both = apply(store, 'b', ct({ ports: [{ name: 'dns', port: 53 }] }));
    expect((both.body as KubeObject).spec).toMatchObject({ ports: [{ name: 'http', port: 80 }, { name: 'dns', port: 53 }] });
    expect(byManager(both.body).b.fieldsV1).toEqual({ 'f:spec': { 'f:ports': { 'k:{"name":"dns"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } });
    expect(byManager(both.body).a.fieldsV1).toEqual({
      'f:spec': { 'f:items': {}, 'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } } },
    });
    expect(statusOf(() => apply(store, 'b', ct({ items: [2] }))).message).toBe('Apply failed with 1 conflict: conflict with "a": .spec.items');
    // a drops its port: only a's item goes.
    const dropped = apply(store, 'a', ct({ items: [1] }));
    expect((dropped.body as KubeObject).spec).toMatchObject({ ports: [{ name: 'dns', port: 53 }] });
  });

  it('treats a preserve-unknown-fields subtree as deduced (maps granular, lists atomic) and an atomic map whole', () => {
    const { store } = memoryStore();
    const res = apply(store, 'a', ct({ config: { a: { b: 1 }, list: [1, 2] }, selector: { x: 'y' } }));
    expect(res.code).toBe(201);
    expect(entries(res.body)[0].fieldsV1).toEqual({
      // Keys of a deduced map are owned themselves ("."), as additionalProperties keys are.
      'f:spec': { 'f:config': { 'f:a': { '.': {}, 'f:b': {} }, 'f:list': {} }, 'f:selector': {} },
    });
    const other = apply(store, 'b', ct({ config: { a: { c: 2 } } }));
    expect((other.body as KubeObject).spec).toMatchObject({ config: { a: { b: 1, c: 2 }, list: [1, 2] } });
  });

  it('gives an embedded resource apiVersion, kind and ObjectMeta, the rest deduced', () => {
    const { store } = memoryStore();
    const template = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { x: 1 } };
    const res = apply(store, 'a', ct({ template }));
    expect(res.code).toBe(201);
    expect(entries(res.body)[0].fieldsV1).toEqual({
      'f:spec': { 'f:template': { 'f:apiVersion': {}, 'f:kind': {}, 'f:metadata': { 'f:labels': { 'f:a': {} }, 'f:name': {} }, 'f:spec': { '.': {}, 'f:x': {} } } },
    });
    expect(statusOf(() => apply(store, 'a', ct({ template: { ...template, metadata: { bogus: 1 } } }))).message)
      .toBe('failed to create typed patch object (/c1; stable.example.com/v1, Kind=CronTab): .spec.template.metadata.bogus: field not declared in schema');
  });

  it('applies status only through /status, and scale through /scale at the spec replicas path', () => {
    const { store } = memoryStore();
    const main = apply(store, 'a', ct({ image: 'i' }, { status: { phase: 'Ignored' } }));
    expect((main.body as KubeObject).status).toBeUndefined();
    expect(JSON.stringify(entries(main.body))).not.toContain('f:status');
    const status = apply(store, 'ctl', { ...ct({ image: 'changed' }), status: { phase: 'Running', replicas: 1 } }, { subresource: 'status' });
    const obj = status.body as KubeObject;
    expect(obj.status).toEqual({ phase: 'Running', replicas: 1 });
    expect((obj.spec as { image: string }).image).toBe('i');
    expect(byManager(obj).ctl).toMatchObject({ operation: 'Apply', subresource: 'status', fieldsV1: { 'f:status': { 'f:phase': {}, 'f:replicas': {} } } });
    const scale = apply(store, 'hpa', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'c1' }, spec: { replicas: 4 } }, { subresource: 'scale' });
    expect(scale.body).toMatchObject({ kind: 'Scale', spec: { replicas: 4 }, status: { replicas: 1 } });
    const after = store.get('default/c1')!;
    expect((after.spec as { replicas: number }).replicas).toBe(4);
    expect(byManager(after).hpa).toMatchObject({ operation: 'Apply', subresource: 'scale', fieldsV1: { 'f:spec': { 'f:replicas': {} } } });
  });

  it('records the request\'s version and keeps the entries of the CRD\'s other versions', () => {
    const { store } = memoryStore();
    apply(store, 'a', ct({ image: 'i' }));
    const beta = apply(store, 'b', ct({ cronSpec: 'x' }, {}, 'v1beta1'), { version: 'v1beta1' });
    const obj = beta.body as KubeObject;
    expect(store.get('default/c1')!.apiVersion).toBe('stable.example.com/v1'); // stored in the storage version
    expect(obj.apiVersion).toBe('stable.example.com/v1beta1'); // answered in the request's
    expect(byManager(obj).b).toMatchObject({ operation: 'Apply', apiVersion: 'stable.example.com/v1beta1' });
    expect(byManager(obj).a).toMatchObject({ operation: 'Apply', apiVersion: 'stable.example.com/v1' });
    // b (at v1beta1) conflicts with a (at v1) on a's field.
    expect(statusOf(() => apply(store, 'b', ct({ image: 'j' }, {}, 'v1beta1'), { version: 'v1beta1' })).message)
      .toBe('Apply failed with 1 conflict: conflict with "a": .spec.image');
    const merged = run(store, { verb: 'patch', namespace: 'default', name: 'c1', subresource: '', patchType: MERGE, body: '{"spec":{"image":"k"}}', fieldManager: 'editor', view: 'stable.example.com/v1beta1' });
    expect(byManager(merged.body).editor).toMatchObject({ operation: 'Update', apiVersion: 'stable.example.com/v1beta1', fieldsV1: { 'f:spec': { 'f:image': {} } } });
    expect(byManager(merged.body).a).toBeUndefined(); // a owned only the image, which the editor took
  });

  it('a merge patch by a second manager records an Update entry; a no-op PUT writes nothing', () => {
    const { store, commits } = memoryStore();
    apply(store, 'a', ct({ image: 'i', cronSpec: 'x' }));
    const patched = run(store, { verb: 'patch', namespace: 'default', name: 'c1', subresource: '', patchType: MERGE, body: '{"spec":{"image":"j"}}', fieldManager: 'editor' });
    expect(entries(patched.body).map((e) => [e.manager, e.operation, e.fieldsV1])).toEqual([
      ['a', 'Apply', { 'f:spec': { 'f:cronSpec': {} } }],
      ['editor', 'Update', { 'f:spec': { 'f:image': {} } }],
    ]);
    const n = commits();
    const current = store.get('default/c1')!;
    const put = run(store, { verb: 'update', namespace: 'default', name: 'c1', subresource: '', body: JSON.stringify(current), fieldManager: 'other' }, T0 + 60_000);
    expect(commits()).toBe(n);
    expect((put.body as KubeObject).metadata.managedFields).toEqual(current.metadata.managedFields);
    expect((put.body as KubeObject).metadata.resourceVersion).toBe(current.metadata.resourceVersion);
  });
});
