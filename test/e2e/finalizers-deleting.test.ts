// E2E (robustness finding 2): no finalizer can be added to an object being deleted, whatever the write — merge
// patch, JSON patch, update, server-side apply, kubectl — on a built-in and on a custom resource. kube-apiserver
// answers 422 with apimachinery ValidateNoNewFinalizers' message; the object is left as it was, and removing the
// finalizers still completes the deletion.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, waitFor, type Running } from './fixtures';

const MESSAGE = 'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers';
let r: Running;

beforeAll(async () => {
  r = await startTestGateway();
  await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: 'fin' } });
}, 60_000);
afterAll(() => stopTestGateway(r));

const CM = '/api/v1/namespaces/fin/configmaps';

async function deleting(name: string): Promise<any> {
  expect((await http(r, 'POST', CM, { metadata: { name, finalizers: ['example.com/keep'] } })).status).toBe(201);
  expect((await http(r, 'DELETE', `${CM}/${name}`)).status).toBe(200);
  const obj = (await http(r, 'GET', `${CM}/${name}`)).json as any;
  expect(obj.metadata.deletionTimestamp).toBeTruthy();
  return obj;
}

describe('a finalizer added to an object being deleted', () => {
  it('is refused with 422 by every kind of write, and nothing changes', async () => {
    const before = await deleting('a');
    const merge = await http(r, 'PATCH', `${CM}/a`, { metadata: { finalizers: ['example.com/keep', 'example.com/new'] } }, { 'content-type': 'application/merge-patch+json' });
    expect(merge.status).toBe(422);
    expect(merge.json).toMatchObject({
      kind: 'Status', reason: 'Invalid', code: 422,
      message: `ConfigMap "a" is invalid: ${MESSAGE} []string{"example.com/new"}`,
      details: { name: 'a', kind: 'ConfigMap', causes: [{ reason: 'FieldValueForbidden', field: 'metadata.finalizers', message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/new"}` }] },
    });
    const json = await http(r, 'PATCH', `${CM}/a`, [{ op: 'add', path: '/metadata/finalizers/-', value: 'b.io/x' }, { op: 'add', path: '/metadata/finalizers/-', value: 'a.io/x' }], { 'content-type': 'application/json-patch+json' });
    expect(json.status).toBe(422);
    expect((json.json as any).message).toBe(`ConfigMap "a" is invalid: ${MESSAGE} []string{"a.io/x", "b.io/x"}`);
    const put = await http(r, 'PUT', `${CM}/a`, { ...before, metadata: { ...before.metadata, finalizers: ['example.com/other'] } });
    expect(put.status).toBe(422);
    const apply = await http(r, 'PATCH', `${CM}/a?fieldManager=t`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', finalizers: ['example.com/applied'] } }, { 'content-type': 'application/apply-patch+yaml' });
    expect(apply.status).toBe(422);
    const k = await kubectl(r, ['patch', '-n', 'fin', 'configmap', 'a', '--type=merge', '-p', '{"metadata":{"finalizers":["example.com/keep","x.io/y"]}}']);
    expect(k.code).not.toBe(0);
    expect(k.stderr).toContain(`${MESSAGE} []string{"x.io/y"}`);
    expect((await http(r, 'GET', `${CM}/a`)).json).toEqual(before);
  });

  it('may still be kept, reordered or removed; removing the last completes the deletion', async () => {
    await deleting('b');
    const keep = await http(r, 'PATCH', `${CM}/b`, { metadata: { labels: { touched: 'yes' }, finalizers: ['example.com/keep'] } }, { 'content-type': 'application/merge-patch+json' });
    expect(keep.status).toBe(200);
    expect((await http(r, 'PATCH', `${CM}/b`, { metadata: { finalizers: null } }, { 'content-type': 'application/merge-patch+json' })).status).toBe(200);
    await waitFor('b gone', async () => ((await http(r, 'GET', `${CM}/b`)).status === 404 ? true : undefined), 10_000);
  });

  it('is refused on a custom resource too', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gizmos.fin.example.com' },
      spec: {
        group: 'fin.example.com', scope: 'Namespaced', names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    expect((await http(r, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    const path = '/apis/fin.example.com/v1/namespaces/fin/gizmos';
    await waitFor('gizmos served', async () => ((await http(r, 'GET', path)).status === 200 ? true : undefined), 20_000);
    expect((await http(r, 'POST', path, { apiVersion: 'fin.example.com/v1', kind: 'Gizmo', metadata: { name: 'g', finalizers: ['example.com/keep'] } })).status).toBe(201);
    expect((await http(r, 'DELETE', `${path}/g`)).status).toBe(200);
    const res = await http(r, 'PATCH', `${path}/g`, { metadata: { finalizers: ['example.com/keep', 'example.com/new'] } }, { 'content-type': 'application/merge-patch+json' });
    expect(res.status).toBe(422);
    expect((res.json as any).message).toBe(`Gizmo.fin.example.com "g" is invalid: ${MESSAGE} []string{"example.com/new"}`);
  });
});
