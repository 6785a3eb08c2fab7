// Server-side apply on custom resources through the real gateway and /usr/bin/kubectl: the CRD itself
// applied server-side, then custom objects (created, unchanged, configured), a second field manager's
// conflict and --force-conflicts, pruning of dropped fields, a list-type map merged item by item, kube's
// 422 for an invalid field as a POST gets it, --show-managed-fields, /status and /scale applies, and
// managedFields at the version the request named, and a no-op PUT writing nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running } from './fixtures';

let r: Running;
beforeAll(async () => {
  r = await startTestGateway();
}, 120_000);
afterAll(() => stopTestGateway(r));

const CRD = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

const version = (name: string, storage: boolean) => ({
  name, served: true, storage,
  schema: {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            size: { type: 'integer', maximum: 10, default: 1 },
            color: { type: 'string' },
            tags: { type: 'array', items: { type: 'string' } },
            ports: {
              type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
              items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
            },
            extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
        status: { type: 'object', properties: { phase: { type: 'string' }, size: { type: 'integer' } } },
      },
    },
  },
  subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' } },
});

const crd = (shortNames: string[]) => JSON.stringify({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com', scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames },
    versions: [version('v1', true), version('v1beta1', false)],
  },
});

const widget = (spec: Record<string, unknown>, labels: Record<string, string> = { app: 'w' }, apiVersion = 'example.com/v1') => JSON.stringify({
  apiVersion, kind: 'Widget', metadata: Object.keys(labels).length ? { name: 'w1', labels } : { name: 'w1' }, spec,
});

type Entry = { manager: string; operation: string; apiVersion: string; fieldsV1: any; subresource?: string };
const byManager = (obj: any): Record<string, Entry> => Object.fromEntries(obj.metadata.managedFields.map((e: Entry) => [`${e.manager}/${e.operation}`, e]));

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

describe('kubectl apply --server-side with custom resources', () => {
  it('applies the CRD itself: created, unchanged (same resourceVersion), configured', async () => {
    const created = await kubectl(r, ['apply', '--server-side', '-f', '-'], crd(['wd']));
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/widgets.example.com serverside-applied');
    const first = (await http(r, 'GET', CRD)).json;
    expect(first.status.conditions.find((c: { type: string }) => c.type === 'Established').status).toBe('True');
    const entry = byManager(first)['kubectl/Apply'];
    expect(entry.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(entry.fieldsV1['f:spec']['f:names']).toEqual({ 'f:kind': {}, 'f:plural': {}, 'f:shortNames': {}, 'f:singular': {} });
    expect(entry.fieldsV1['f:spec']['f:versions']).toEqual({}); // +listType=atomic in apiextensions v1
    expect(entry.fieldsV1['f:status']).toBeUndefined();

    expect((await kubectl(r, ['apply', '--server-side', '-f', '-'], crd(['wd']))).code).toBe(0);
    expect((await http(r, 'GET', CRD)).json.metadata.resourceVersion).toBe(first.metadata.resourceVersion);

    expect((await kubectl(r, ['apply', '--server-side', '-f', '-'], crd(['wd', 'wdg']))).code).toBe(0);
    const changed = (await http(r, 'GET', CRD)).json;
    expect(changed.spec.names.shortNames).toEqual(['wd', 'wdg']);
    expect(changed.metadata.resourceVersion).not.toBe(first.metadata.resourceVersion);
    // The type is served (the front door learns new CRDs within about 100 ms).
    await waitFor('widgets to be served', async () => ((await http(r, 'GET', WIDGETS)).status === 200 ? true : undefined));
  });

  it('creates, leaves unchanged and configures a custom object, with the CRD schema\'s defaults', async () => {
    const created = await kubectl(r, ['apply', '--server-side', '-f', '-'], widget({ color: 'red', tags: ['a'] }));
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('widget.example.com/w1 serverside-applied');
    const first = (await http(r, 'GET', `${WIDGETS}/w1`)).json;
    expect(first.spec).toEqual({ color: 'red', tags: ['a'], size: 1 });
    expect(first.metadata.managedFields).toHaveLength(1);
    expect(first.metadata.managedFields[0]).toMatchObject({
      manager: 'kubectl', operation: 'Apply', apiVersion: 'example.com/v1', fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:color': {}, 'f:tags': {} } },
    });

    expect((await kubectl(r, ['apply', '--server-side', '-f', '-'], widget({ color: 'red', tags: ['a'] }))).code).toBe(0);
    expect((await http(r, 'GET', `${WIDGETS}/w1`)).json.metadata.resourceVersion).toBe(first.metadata.resourceVersion);

    expect((await kubectl(r, ['apply', '--server-side', '-f', '-'], widget({ color: 'blue', tags: ['a'] }))).code).toBe(0);
    const after = (await http(r, 'GET', `${WIDGETS}/w1`)).json;
    expect(after.spec.color).toBe('blue');
    expect(after.metadata.generation).toBe(2);
  });

  it('refuses an invalid field with the 422 a POST gets, and changes nothing', async () => {
    const before = (await http(r, 'GET', `${WIDGETS}/w1`)).json;
    const bad = await kubectl(r, ['apply', '--server-side', '-f', '-'], widget({ color: 'blue', tags: ['a'], size: 11 }));
    expect(bad.code).not.toBe(0);
    const cause = 'spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10';
    expect(bad.stderr).toContain(`The Widget "w1" is invalid: ${cause}`); // kubectl's rendering of a 422
    const message = `Widget.example.com "w1" is invalid: ${cause}`;
    const raw = await http(r, 'PATCH', `${WIDGETS}/w1?fieldManager=kubectl`, widget({ color: 'blue', tags: ['a'], size: 11 }), APPLY);
    const post = await http(r, 'POST', WIDGETS, { ...JSON.parse(widget({ size: 11 })), metadata: { name: 'w1' } });
    expect(raw.status).toBe(422);
    expect(raw.json.message).toBe(message);
    expect(raw.json).toEqual(post.json);
    expect((await http(r, 'GET', `${WIDGETS}/w1`)).json).toEqual(before);
    const undeclared = await http(r, 'PATCH', `${WIDGETS}/w1?fieldManager=kubectl`, widget({ bogus: 1 }), APPLY);
    expect(undeclared.status).toBe(500);
    expect(undeclared.json.message).toBe('failed to create typed patch object (/w1; example.com/v1, Kind=Widget): .spec.bogus: field not declared in schema');
  });

  it('a second field manager conflicts on an atomic list, then --force-conflicts takes it', async () => {
    const res = await kubectl(r, ['apply', '--server-side', '--field-manager=ops', '-f', '-'], widget({ tags: ['b'] }, {}));
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('error: Apply failed with 1 conflict: conflict with "kubectl": .spec.tags');
    expect((await http(r, 'GET', `${WIDGETS}/w1`)).json.spec.tags).toEqual(['a']);

    const forced = await kubectl(r, ['apply', '--server-side', '--field-manager=ops', '--force-conflicts', '-f', '-'], widget({ tags: ['b'] }, {}));
    expect(forced.code).toBe(0);
    const obj = (await http(r, 'GET', `${WIDGETS}/w1`)).json;
    expect(obj.spec.tags).toEqual(['b']);
    const m = byManager(obj);
    expect(m['ops/Apply'].fieldsV1).toEqual({ 'f:spec': { 'f:tags': {} } });
    expect(m['kubectl/Apply'].fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:color': {} } });
  });

  it('prunes fields dropped on reapply, and merges a list-type map item by item', async () => {
    // kubectl drops its label and color, and adds a port; ops keeps the tags it owns.
    const mine = widget({ ports: [{ name: 'http', port: 80 }] }, {});
    expect((await kubectl(r, ['apply', '--server-side', '-f', '-'], mine)).stderr).toBe('');
    let obj = (await http(r, 'GET', `${WIDGETS}/w1`)).json;
    expect(obj.metadata.labels).toBeUndefined();
    expect(obj.spec).toEqual({ size: 1, tags: ['b'], ports: [{ name: 'http', port: 80 }] });

    const theirs = widget({ tags: ['b'], ports: [{ name: 'dns', port: 53 }] }, {});
    expect((await kubectl(r, ['apply', '--server-side', '--field-manager=ops', '-f', '-'], theirs)).stderr).toBe('');
    obj = (await http(r, 'GET', `${WIDGETS}/w1`)).json;
    expect(obj.spec.ports).toEqual([{ name: 'http', port: 80 }, { name: 'dns', port: 53 }]);
    const m = byManager(obj);
    expect(m['ops/Apply'].fieldsV1).toEqual({ 'f:spec': { 'f:ports': { 'k:{"name":"dns"}': { '.': {}, 'f:name': {}, 'f:port': {} } }, 'f:tags': {} } });
    expect(m['kubectl/Apply'].fieldsV1).toEqual({ 'f:spec': { 'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } });

    // Changing a port another manager owns conflicts on that item's field only.
    const res = await kubectl(r, ['apply', '--server-side', '-f', '-'], widget({ ports: [{ name: 'http', port: 80 }, { name: 'dns', port: 5353 }] }, {}));
    expect(res.stderr).toContain('Apply failed with 1 conflict: conflict with "ops": .spec.ports[name="dns"].port');

    const shown = await kubectl(r, ['get', 'widget', 'w1', '-o', 'yaml', '--show-managed-fields']);
    expect(shown.stdout).toContain('managedFields:');
    expect(shown.stdout).toContain('manager: ops');
    expect(shown.stdout).toContain('k:{"name":"dns"}');
    expect((await kubectl(r, ['get', 'widget', 'w1', '-o', 'yaml'])).stdout).not.toContain('managedFields');
  });

  it('applies /status and /scale, each owned with its subresource', async () => {
    const status = await kubectl(r, ['apply', '--server-side', '--subresource=status', '--field-manager=ctl', '-f', '-'],
      JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, status: { phase: 'Ready', size: 1 } }));
    expect(status.stderr).toBe('');
    let obj = (await http(r, 'GET', `${WIDGETS}/w1`)).json;
    expect(obj.status).toEqual({ phase: 'Ready', size: 1 });
    expect(byManager(obj)['ctl/Apply']).toMatchObject({ subresource: 'status', fieldsV1: { 'f:status': { 'f:phase': {}, 'f:size': {} } } });

    const scale = await http(r, 'PATCH', `${WIDGETS}/w1/scale?fieldManager=hpa`,
      JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'w1' }, spec: { replicas: 3 } }), APPLY);
    expect(scale.status).toBe(200);
    expect(scale.json).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 3 }, status: { replicas: 1 } });
    obj = (await http(r, 'GET', `${WIDGETS}/w1`)).json;
    expect(obj.spec.size).toBe(3);
    expect(byManager(obj)['hpa/Apply']).toMatchObject({ subresource: 'scale', fieldsV1: { 'f:spec': { 'f:size': {} } } });
  });

  it('records the version the request named; a merge patch by another manager is an Update entry', async () => {
    const beta = await kubectl(r, ['apply', '--server-side', '--field-manager=beta', '-f', '-'],
      widget({ color: 'green' }, {}, 'example.com/v1beta1'));
    expect(beta.stderr).toBe('');
    const v1beta1 = (await http(r, 'GET', '/apis/example.com/v1beta1/namespaces/default/widgets/w1')).json;
    expect(v1beta1.apiVersion).toBe('example.com/v1beta1');
    expect(v1beta1.spec.color).toBe('green');
    const m = byManager(v1beta1);
    expect(m['beta/Apply']).toMatchObject({ apiVersion: 'example.com/v1beta1', fieldsV1: { 'f:spec': { 'f:color': {} } } });
    expect(m['ops/Apply'].apiVersion).toBe('example.com/v1');

    const patched = await kubectl(r, ['patch', 'widgets.v1beta1.example.com', 'w1', '--type=merge', '-p', '{"spec":{"color":"black"}}']);
    expect(patched.stderr).toBe('');
    const after = byManager((await http(r, 'GET', `${WIDGETS}/w1`)).json);
    expect(after['kubectl-patch/Update']).toMatchObject({ apiVersion: 'example.com/v1beta1', fieldsV1: { 'f:spec': { 'f:color': {} } } });
    expect(after['beta/Apply']).toBeUndefined(); // its only field went to the patcher

    // A PUT of the object as it is, by yet another manager, writes nothing: same resourceVersion, same managedFields.
    const current = (await http(r, 'GET', `${WIDGETS}/w1`)).json;
    const put = await http(r, 'PUT', `${WIDGETS}/w1?fieldManager=replacer`, current);
    expect(put.status).toBe(200);
    expect(put.json.metadata.resourceVersion).toBe(current.metadata.resourceVersion);
    expect(put.json.metadata.managedFields).toEqual(current.metadata.managedFields);
    expect((await http(r, 'GET', `${WIDGETS}/w1`)).json).toEqual(current);
  });
});
