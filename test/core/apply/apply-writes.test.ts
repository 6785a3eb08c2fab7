// Server-side apply and managed fields through the write paths (core/writes/) over an in-memory store:
// the checklist of the CRD-and-apply reference, part C (22-28, 30, 32-35).
import { describe, expect, it } from 'vitest';
import { executeWrite, type WriteRequest, type WriteStore } from '../../../core/writes';
import { lookupGroupResource } from '../../../core/registry';
import type { KubeObject } from '../../../core/object-meta';
import { statusOf } from '../status-of';
import { memoryStore } from '../memory-store';

const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';


const configmaps = lookupGroupResource('core/configmaps')!;
const deployments = lookupGroupResource('apps/deployments')!;
const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);

function run(store: WriteStore, req: WriteRequest, type = configmaps, now = T0) {
  return executeWrite(store, { type, now, newUid: () => 'uid-1', randomSuffix: () => 'abcde' }, req);
}

function apply(store: WriteStore, manager: string | undefined, obj: unknown, opts: { force?: boolean; type?: typeof configmaps; name?: string; subresource?: string; now?: number } = {}) {
  const type = opts.type ?? configmaps;
  const name = opts.name ?? (obj as KubeObject).metadata?.name ?? 'cm';
  return run(store, {
    verb: 'patch', namespace: 'default', name, subresource: opts.subresource ?? '', patchType: APPLY,
    body: typeof obj === 'string' ? obj : JSON.stringify(obj), fieldManager: manager, force: opts.force,
  }, type, opts.now);
}

const cm = (data: Record<string, string>, labels: Record<string, string> | null = { 'test-label': 'test' }) => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: labels ? { name: 'cm', labels } : { name: 'cm' }, data,
});

function entries(obj: unknown) {
  return (obj as KubeObject).metadata.managedFields as Record<string, unknown>[];
}

describe('apply', () => {
  it('creates a missing object (201) with exactly one Apply entry', () => {
    const { store } = memoryStore();
    const res = apply(store, 'a', cm({ key: 'value' }));
    expect(res.code).toBe(201);
    expect(entries(res.body)).toEqual([{
      manager: 'a', operation: 'Apply', apiVersion: 'v1', time: '2026-01-02T03:04:05Z', fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:test-label': {} } } },
    }]);
    expect((res.body as KubeObject).data).toEqual({ key: 'value' });
  });

  it('re-applying the same config writes nothing', () => {
    const { store, commits } = memoryStore();
    apply(store, 'a', cm({ key: 'value' }));
    const again = apply(store, 'a', cm({ key: 'value' }), { now: T0 + 60_000 });
    expect(again.code).toBe(200);
    expect((again.body as KubeObject).metadata.resourceVersion).toBe('1');
    expect(commits()).toBe(1);
  });

  it('accepts YAML and requires a fieldManager', () => {
    const { store } = memoryStore();
    expect(apply(store, 'a', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: v\n').code).toBe(201);
    const err = statusOf(() => apply(store, undefined, cm({})));
    expect(err).toMatchObject({
      code: 422, reason: 'Invalid',
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    });
    expect(statusOf(() => run(store, { verb: 'patch', namespace: 'default', name: 'cm', subresource: '', patchType: MERGE, body: '{}', force: true })).message)
      .toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });

  it('conflicts with an updater that changed a field, with kube\'s message and causes; force takes it over', () => {
    const { store, objects } = memoryStore();
    apply(store, 'a', cm({ key: 'value' }));
    run(store, { verb: 'patch', namespace: 'default', name: 'cm', subresource: '', patchType: MERGE, body: '{"data":{"key":"new"}}', fieldManager: 'updater' });
    const before = JSON.stringify(objects.get('default/cm'));
    const err = statusOf(() => apply(store, 'a', cm({ key: 'value' })));
    expect(err).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "updater" using v1: .data.key', reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "updater" using v1', field: '.data.key' }] }, code: 409,
    });
    expect(JSON.stringify(objects.get('default/cm'))).toBe(before);
    const forced = apply(store, 'a', cm({ key: 'value' }), { force: true });
    expect((forced.body as KubeObject).data).toEqual({ key: 'value' });
    expect(entries(forced.body).map((e) => e.manager)).toEqual(['a']);
  });

  it('shares fields whose values agree, then conflicts with the co-owner; lists several conflicts by manager', () => {
    const { store } = memoryStore();
    apply(store, 'a', cm({ key: 'value' }));
    const shared = apply(store, 'b', cm({ key: 'value' }, null));
    // A co-owner whose apply changed nothing gets no time, so it sorts first (time 0).
    expect(entries(shared.body).map((e) => [e.manager, e.time, e.fieldsV1])).toEqual([
      ['b', undefined, { 'f:data': { 'f:key': {} } }],
      ['a', '2026-01-02T03:04:05Z', { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:test-label': {} } } }],
    ]);
    expect(statusOf(() => apply(store, 'a', cm({ key: 'other' }))).message).toBe('Apply failed with 1 conflict: conflict with "b": .data.key');
    apply(store, 'c', cm({ key: 'value', k2: 'x' }, { 'test-label': 'test' }));
    expect(statusOf(() => apply(store, 'd', cm({ key: 'o', k2: 'y' }, { 'test-label': 'z' }))).message).toBe(
      'Apply failed with 6 conflicts: conflicts with "a":\n- .data.key\n- .metadata.labels.test-label\n'
      + 'conflicts with "b":\n- .data.key\nconflicts with "c":\n- .data.k2\n- .data.key\n- .metadata.labels.test-label',
    );
  });

  it('removes a field its applier drops unless another manager owns it', () => {
    const { store } = memoryStore();
    apply(store, 'a', cm({ key: 'value', only: 'a' }));
    apply(store, 'b', cm({ key: 'value' }, null));
    const dropped = apply(store, 'a', cm({}));
    expect((dropped.body as KubeObject).data).toEqual({ key: 'value' });
    const gone = apply(store, 'b', cm({}, null));
    expect((gone.body as KubeObject).data).toBeUndefined();
  });

  it('merges keyed lists: two appliers own their own containers', () => {
    const { store } = memoryStore();
    const dep = (containers: unknown[]) => ({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers } } },
    });
    apply(store, 'a', dep([{ name: 'nginx', image: 'nginx:1' }]), { type: deployments });
    const both = apply(store, 'c', dep([{ name: 'side', image: 'busybox' }]), { type: deployments });
    const spec = (both.body as { spec: { template: { spec: { containers: { name: string }[] } } } }).spec.template.spec;
    expect(spec.containers.map((c) => c.name)).toEqual(['nginx', 'side']);
    const a = entries(both.body).find((e) => e.manager === 'a')!;
    expect((a.fieldsV1 as Record<string, any>)['f:spec']['f:template']['f:spec']['f:containers'])
      .toEqual({ 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } });
    // Dropping its container removes it; the other applier's stays.
    const after = apply(store, 'a', dep([]), { type: deployments });
    expect((after.body as typeof both.body & { spec: any }).spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['side']);
  });

  it('rejects fields the schema does not declare with kube\'s 500, and managedFields in the config', () => {
    const { store } = memoryStore();
    const err = statusOf(() => apply(store, 'a', { ...cm({}), spec: { x: 1 } }));
    expect(err.code).toBe(500);
    expect(err.message).toBe('failed to create typed patch object (/cm; /v1, Kind=ConfigMap): .spec: field not declared in schema');
    expect(statusOf(() => apply(store, 'a', { ...cm({}), metadata: { name: 'cm', managedFields: [] } })).message).toBe('metadata.managedFields must be nil');
    expect(statusOf(() => apply(store, 'a', { ...cm({}), apiVersion: 'v2' })).message).toBe('invalid object type: /v2, Kind=ConfigMap');
    expect(statusOf(() => apply(store, 'a', { ...cm({}), metadata: { name: 'b' } }, { name: 'a' })).message)
      .toBe('the name of the object (b) does not match the name on the URL (a)');
    apply(store, 'a', cm({}));
    expect(statusOf(() => apply(store, 'a', { ...cm({}), metadata: { name: 'b' } }, { name: 'cm' })).message)
      .toBe('the name of the object (b) does not match the name on the URL (cm)');
    expect(statusOf(() => apply(store, 'a', { ...cm({}), metadata: { name: 'zz', uid: 'u-1' } })))
      .toMatchObject({ code: 409, message: 'Operation cannot be fulfilled on configmaps "zz": uid mismatch: the provided object specified uid u-1, and no existing object was found' });
  });
});

describe('managed fields of non-apply writes', () => {
  it('records create and update entries named by fieldManager or the User-Agent prefix', () => {
    const { store } = memoryStore();
    const created = run(store, { verb: 'create', namespace: 'default', body: JSON.stringify(cm({ key: 'v' })), fieldManager: 'kubectl-create' });
    expect(entries(created.body)).toEqual([{
      manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: '2026-01-02T03:04:05Z', fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { '.': {}, 'f:key': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:test-label': {} } } },
    }]);
    const current = created.body as KubeObject;
    const updated = run(store, {
      verb: 'update', namespace: 'default', name: 'cm', subresource: '', userAgent: 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc',
      body: JSON.stringify({ ...current, data: { key: 'v', other: 'x' } }),
    }, configmaps, T0 + 61_000);
    expect(entries(updated.body).map((e) => [e.manager, e.operation, e.time, e.fieldsV1])).toEqual([
      ['kubectl-create', 'Update', '2026-01-02T03:04:05Z', { 'f:data': { '.': {}, 'f:key': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:test-label': {} } } }],
      ['kubectl', 'Update', '2026-01-02T03:05:06Z', { 'f:data': { 'f:other': {} } }],
    ]);
  });

  it('a PUT by a second manager on an applied object records its Update entry; a PUT repeating the object writes nothing', () => {
    const { store, objects, commits } = memoryStore();
    apply(store, 'a', cm({ key: 'value', other: 'x' }));
    const current = structuredClone(objects.get('default/cm')!);
    current.data = { key: 'changed', other: 'x' };
    const put = run(store, { verb: 'update', namespace: 'default', name: 'cm', subresource: '', body: JSON.stringify(current), fieldManager: 'editor' }, configmaps, T0 + 1000);
    expect(entries(put.body).map((e) => [e.manager, e.operation, e.fieldsV1])).toEqual([
      ['a', 'Apply', { 'f:data': { 'f:other': {} }, 'f:metadata': { 'f:labels': { 'f:test-label': {} } } }],
      ['editor', 'Update', { 'f:data': { 'f:key': {} } }],
    ]);
    const stored = structuredClone(objects.get('default/cm')!);
    const n = commits();
    const again = run(store, { verb: 'update', namespace: 'default', name: 'cm', subresource: '', body: JSON.stringify(stored), fieldManager: 'other' }, configmaps, T0 + 60_000);
    expect(commits()).toBe(n);
    expect(again.body).toEqual(stored);
  });

  it('[{}] clears managedFields; the next apply conflicts with before-first-apply', () => {
    const { store } = memoryStore();
    apply(store, 'a', cm({ key: 'value' }));
    const cleared = run(store, { verb: 'patch', namespace: 'default', name: 'cm', subresource: '', patchType: MERGE, body: '{"metadata":{"managedFields":[{}]}}', fieldManager: 'x' });
    expect((cleared.body as KubeObject).metadata.managedFields).toBeUndefined();
    expect(statusOf(() => apply(store, 'a', cm({ key: 'changed' }))).message)
      .toBe('Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.key');
  });

  it('lets "kubectl" take over fields client-side apply set and still holds in its annotation', () => {
    const { store } = memoryStore();
    const lastApplied = JSON.stringify(cm({ key: 'value' }));
    const withAnnotation = { ...cm({ key: 'value' }), metadata: { name: 'cm', labels: { 'test-label': 'test' }, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': `${lastApplied}\n` } } };
    run(store, { verb: 'create', namespace: 'default', body: JSON.stringify(withAnnotation), fieldManager: 'kubectl-client-side-apply' });
    expect(statusOf(() => apply(store, 'other', cm({ key: 'next' }))).message)
      .toBe('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.key');
    const taken = apply(store, 'kubectl', cm({ key: 'next' }));
    expect((taken.body as KubeObject).data).toEqual({ key: 'next' });
    expect((taken.body as KubeObject).metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration'])
      .toBe('{"apiVersion":"v1","data":{"key":"next"},"kind":"ConfigMap","metadata":{"labels":{"test-label":"test"},"name":"cm"}}\n');
  });

  it('applies to /status own status only, with subresource "status"', () => {
    const { store } = memoryStore();
    const dep = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
    };
    apply(store, 'a', { ...dep, status: { replicas: 5 } }, { type: deployments });
    const s = apply(store, 'ctl', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, status: { replicas: 3 } }, { type: deployments, subresource: 'status' });
    expect((s.body as KubeObject).status).toEqual({ replicas: 3 });
    const es = entries(s.body);
    expect(es.find((e) => e.manager === 'ctl')).toMatchObject({ operation: 'Apply', subresource: 'status', fieldsV1: { 'f:status': { 'f:replicas': {} } } });
    expect(JSON.stringify(es.find((e) => e.manager === 'a')!.fieldsV1)).not.toContain('f:status');
  });
});

describe('apply bodies', () => {
  it('duplicate keys: Strict is kube\'s 400 (JSON or YAML), Warn is a warning, Ignore takes the last', () => {
    const { store } = memoryStore();
    const json = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"k":"1","k":"2"}}';
    const strict = statusOf(() => executeWrite(store, { type: configmaps, now: T0, newUid: () => 'u', randomSuffix: () => 'x', fieldValidation: 'Strict' }, {
      verb: 'patch', namespace: 'default', name: 'cm', subresource: '', patchType: APPLY, body: json, fieldManager: 'a',
    }));
    expect(strict).toMatchObject({ code: 400, reason: 'BadRequest',
      message: 'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 1: key "k" already set in map' });
    const warnings: string[] = [];
    const res = executeWrite(store, { type: configmaps, now: T0, newUid: () => 'u', randomSuffix: () => 'x', warnings }, {
      verb: 'patch', namespace: 'default', name: 'cm', subresource: '', patchType: APPLY, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: "1"\n  k: "2"\n', fieldManager: 'a',
    });
    expect((res.body as KubeObject).data).toEqual({ k: '2' });
    expect(warnings).toEqual(['error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "k" already set in map']);
  });

  it('a body that is not an object is kube\'s 400', () => {
    const { store } = memoryStore();
    expect(statusOf(() => apply(store, 'a', '[1]')).message).toBe(
      'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}');
    expect(statusOf(() => apply(store, 'a', '{"a": ')).code).toBe(400);
  });
});

describe('subresources and odd keys', () => {
  const dep = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
  };

  it('a /scale patch records spec.replicas for its manager with subresource "scale"; an apply on /scale conflicts with it', () => {
    const { store } = memoryStore();
    apply(store, 'ci', dep, { type: deployments });
    const scaled = run(store, { verb: 'patch', namespace: 'default', name: 'web', subresource: 'scale', patchType: MERGE, body: '{"spec":{"replicas":4}}',
      userAgent: 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc' }, deployments, T0 + 5000);
    expect((scaled.body as KubeObject).kind).toBe('Scale');
    const obj = store.get('default/web')!;
    expect((obj.spec as { replicas: number }).replicas).toBe(4);
    expect(entries(obj).find((e) => e.manager === 'kubectl')).toEqual({
      manager: 'kubectl', operation: 'Update', apiVersion: 'apps/v1', time: '2026-01-02T03:04:10Z', fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } }, subresource: 'scale',
    });
    expect(statusOf(() => apply(store, 'ci', { ...dep, spec: { ...dep.spec, replicas: 2 } }, { type: deployments })).message)
      .toBe('Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas');
    const viaScale = apply(store, 'hpa', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 6 } },
      { type: deployments, subresource: 'scale', force: true });
    expect(viaScale.body).toMatchObject({ kind: 'Scale', spec: { replicas: 6 } });
    expect(entries(store.get('default/web')).find((e) => e.manager === 'hpa')).toMatchObject({ operation: 'Apply', subresource: 'scale', fieldsV1: { 'f:spec': { 'f:replicas': {} } } });
  });

  it('keeps a "__proto__" data key as a member', () => {
    const { store } = memoryStore();
    const res = apply(store, 'a', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"__proto__":"x","b":"y"}}');
    const data = (res.body as KubeObject).data as Record<string, string>;
    expect(Object.keys(data)).toEqual(['__proto__', 'b']);
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
  });
});

describe('create entries as kube writes them', () => {
  it('a Deployment create owns defaulted fields; parents present in the empty Deployment carry no "."', () => {
    const { store } = memoryStore();
    const body = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' } },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
    };
    const res = run(store, { verb: 'create', namespace: 'default', body: JSON.stringify(body), fieldManager: 'kubectl-create' }, deployments);
    const e = entries(res.body)[0];
    expect(e).toMatchObject({ manager: 'kubectl-create', operation: 'Update', apiVersion: 'apps/v1' });
    const spec = (e.fieldsV1 as Record<string, any>)['f:spec'];
    expect(Object.keys(spec)).toEqual(['f:progressDeadlineSeconds', 'f:replicas', 'f:revisionHistoryLimit', 'f:selector', 'f:strategy', 'f:template']);
    expect(spec['f:strategy']).toEqual({ 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} });
    expect(Object.keys(spec['f:template'])).toEqual(['f:metadata', 'f:spec']);
    expect(spec['f:template']['f:metadata']).toEqual({ 'f:labels': { '.': {}, 'f:app': {} } });
    const containers = spec['f:template']['f:spec']['f:containers'];
    expect(Object.keys(containers)).toEqual(['k:{"name":"nginx"}']);
    expect(Object.keys(containers['k:{"name":"nginx"}'])).toEqual(['.', 'f:image', 'f:imagePullPolicy', 'f:name', 'f:resources', 'f:terminationMessagePath', 'f:terminationMessagePolicy']);
    expect((e.fieldsV1 as Record<string, any>)['f:metadata']).toEqual({ 'f:labels': { '.': {}, 'f:app': {} } });
  });
});
