// Typed decoding of writes, through executeWrite: kube-apiserver's Status for each decoding failure
// (create, update, /status, /scale, patch), fieldValidation Strict / Warn / Ignore, and that a rejected
// write changes nothing.
import { describe, expect, it } from 'vitest';
import { executeWrite, type WriteEnv, type WriteRequest, type WriteStore } from '../../../core/writes';
import { lookupGroupResource } from '../../../core/registry';
import type { FieldValidation } from '../../../core/validation/known-fields';
import { statusOf } from '../status-of';
import { memoryStore } from '../memory-store';


const pods = lookupGroupResource('core/pods')!;
const configmaps = lookupGroupResource('core/configmaps')!;
const deployments = lookupGroupResource('apps/deployments')!;

function run(store: WriteStore, type: typeof pods, req: WriteRequest, fieldValidation?: FieldValidation, warnings: string[] = []) {
  const env: WriteEnv = { type, now: Date.UTC(2026, 0, 1), newUid: () => 'uid-1', randomSuffix: () => 'abcde', fieldValidation, warnings };
  return executeWrite(store, env, req);
}

const pod = (container: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
  spec: { containers: [{ name: 'c', image: 'nginx', ...container }] }, ...extra,
});
const create = (body: string): WriteRequest => ({ verb: 'create', namespace: 'ns', body });

describe('typed decoding of writes', () => {
  it('rejects a wrong type with 400 and kube\'s wording, storing nothing', () => {
    const { store, objects } = memoryStore();
    const s = statusOf(() => run(store, configmaps, create('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"n":5}}')));
    expect(s).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
      reason: 'BadRequest', code: 400,
    });
    expect(objects.size).toBe(0);
  });

  it('Strict: unknown fields at depth are a 400 strict decoding error', () => {
    const { store, objects } = memoryStore();
    const s = statusOf(() => run(store, pods, create(pod({ imagee: 'x' }, { extra: 1 })), 'Strict'));
    expect(s.code).toBe(400);
    expect(s.message).toBe('Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].imagee", unknown field "extra"');
    expect(objects.size).toBe(0);
  });

  it('Strict: duplicate fields in the body too', () => {
    const { store } = memoryStore();
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","name":"c"},"data":{"a":"1"}}';
    expect(statusOf(() => run(store, configmaps, create(body), 'Strict')).message)
      .toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name"');
  });

  it('Warn: one warning per unknown field, the fields pruned from what is stored', () => {
    const { store, objects } = memoryStore();
    const warnings: string[] = [];
    const res = run(store, pods, create(pod({ imagee: 'x', resources: { limits: { cpu: '1.5' } } })), 'Warn', warnings);
    expect(res.code).toBe(201);
    expect(warnings).toEqual(['unknown field "spec.containers[0].imagee"']);
    const stored = (objects.get('ns/p')!.spec as { containers: Record<string, unknown>[] }).containers[0];
    expect(stored).toMatchObject({ name: 'c', image: 'nginx', resources: { limits: { cpu: '1500m' } } });
    expect(stored).not.toHaveProperty('imagee');
  });

  it('Ignore: pruned silently', () => {
    const { store, objects } = memoryStore();
    const warnings: string[] = [];
    run(store, pods, create(pod({ imagee: 'x' })), 'Ignore', warnings);
    expect(warnings).toEqual([]);
    expect((objects.get('ns/p')!.spec as { containers: Record<string, unknown>[] }).containers[0]).not.toHaveProperty('imagee');
  });

  it('bodies the serializer cannot read a kind from: kube\'s "unrecognized" wording with the body\'s start', () => {
    const { store, objects } = memoryStore();
    const prefix = 'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: ';
    const fail = (body: string) => statusOf(() => run(store, configmaps, create(body))).message;
    expect(fail('{"metadata": {')).toBe(`${prefix}unexpected end of JSON input ({"metadata": {)`);
    expect(fail('{"metadata": {"name": x}}')).toBe(`${prefix}invalid character 'x' looking for beginning of value ({"metadata": {"name": x}})`);
    expect(fail('{"kind":5,"metadata":{"name":"a"},"data":{"a":"b"}}'))
      .toBe(`${prefix}json: cannot unmarshal number into Go struct field .kind of type string ({"kind":5,"metadata":{"name":" ...)`);
    expect(fail('[1]')).toBe(`${prefix}json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b315d)`);
    expect(objects.size).toBe(0);
  });

  it('a metadata of the wrong type is Go\'s type error', () => {
    const { store } = memoryStore();
    expect(statusOf(() => run(store, pods, create('{"metadata":"p"}'))).message)
      .toBe('Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field Pod.metadata of type v1.ObjectMeta');
  });

  it('/status writes are decoded against the kind\'s schema', () => {
    const { store, objects } = memoryStore();
    run(store, pods, create(pod()));
    const before = structuredClone(objects.get('ns/p'));
    const s = statusOf(() => run(store, pods, { verb: 'update', namespace: 'ns', name: 'p', subresource: 'status', body: pod({}, { status: { conditions: 5 } }) }));
    expect(s.message).toBe('Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field PodStatus.status.conditions of type []v1.PodCondition');
    expect(objects.get('ns/p')).toEqual(before);
  });

  it('/scale bodies are decoded as autoscaling/v1 Scale', () => {
    const { store } = memoryStore();
    run(store, deployments, create(JSON.stringify({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'p' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    })));
    const s = statusOf(() => run(store, deployments, {
      verb: 'update', namespace: 'ns', name: 'p', subresource: 'scale', body: '{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"p"},"spec":{"replicas":"3"}}',
    }));
    expect(s.message).toBe('Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32');
  });

  it('a patch whose result does not decode is 422 Invalid on "patch"', () => {
    const { store, objects } = memoryStore();
    run(store, pods, create(pod()));
    const before = structuredClone(objects.get('ns/p'));
    const s = statusOf(() => run(store, pods, {
      verb: 'patch', namespace: 'ns', name: 'p', subresource: '', patchType: 'application/merge-patch+json', body: '{"spec":{"hostNetwork":"yes"}}',
    }));
    expect(s).toMatchObject({ code: 422, reason: 'Invalid', details: { causes: [{ reason: 'FieldValueInvalid', field: 'patch' }] } });
    expect(s.message).toMatch(/^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",.*\}": json: cannot unmarshal string into Go struct field PodSpec.spec.hostNetwork of type bool$/);
    const mergeStrict = statusOf(() => run(store, pods, {
      verb: 'patch', namespace: 'ns', name: 'p', subresource: '', patchType: 'application/merge-patch+json', body: '{"spec":{"hostNetwrk":true}}',
    }, 'Strict'));
    // the patched JSON shown still has the unknown field
    expect(mergeStrict.message).toMatch(/"hostNetwrk\\":true.*": strict decoding error: unknown field "spec.hostNetwrk"$/);
    const strict = statusOf(() => run(store, pods, {
      verb: 'patch', namespace: 'ns', name: 'p', subresource: '', patchType: 'application/strategic-merge-patch+json', body: '{"spec":{"hostNetwrk":true}}',
    }, 'Strict'));
    expect(strict.message).toBe(' "" is invalid: patch: Invalid value: "map[spec:map[hostNetwrk:true]]": strict decoding error: unknown field "spec.hostNetwrk"');
    const smpType = statusOf(() => run(store, pods, {
      verb: 'patch', namespace: 'ns', name: 'p', subresource: '', patchType: 'application/strategic-merge-patch+json', body: '{"spec":{"activeDeadlineSeconds":"5"}}',
    }));
    expect(smpType.message).toBe(' "" is invalid: patch: Invalid value: "map[spec:map[activeDeadlineSeconds:5]]": unrecognized type: int64');
    expect(objects.get('ns/p')).toEqual(before);
  });
});
